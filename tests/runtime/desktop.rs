//! `sidekicks install-desktop`: the desktop entry and the icon land in the user's data folder,
//! the entry runs this binary, the icon is a 256×256 PNG.

use crate::common;
use common::BIN;

#[test]
fn install_desktop_writes_the_entry_and_the_icon() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data dir");
    let out = std::process::Command::new(BIN)
        .arg("install-desktop")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let entry = std::fs::read_to_string(data.join("applications/sidekicks.desktop")).unwrap();
    assert!(entry.starts_with("[Desktop Entry]\n"), "{entry}");
    assert!(entry.contains(&format!("Exec=\"{BIN}\"\n")), "{entry}");
    assert!(entry.contains("Icon=sidekicks\n"), "{entry}");
    let icon = image::open(data.join("icons/hicolor/256x256/apps/sidekicks.png")).unwrap();
    assert_eq!((icon.width(), icon.height()), (256, 256));
    // Run again: the same files, replaced.
    let again = std::process::Command::new(BIN)
        .arg("install-desktop")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", &data)
        .output()
        .unwrap();
    assert!(again.status.success());
}
