//! Deleting on this computer goes to the system trash, where the file can be restored. (Each test runs
//! alone in a process of its own, `common::alone`: it points the trash at a temporary data folder
//! through the environment.)

use std::sync::Arc;

use sidekicks::model::rel_path::RelPath;
use sidekicks::runtime::workspace::{LocalWorkspace, Workspace};

use crate::common;

/// Points the system trash at a private data folder, once for the whole binary (before any test
/// starts a thread that reads the environment: each test calls it first, under a lock).
fn trash_home() {
    static HOME: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let data = std::env::temp_dir().join(format!("sidekicks-trash-test-{}", std::process::id()));
        std::fs::create_dir_all(&data).unwrap();
        // SAFETY: the first test to get here sets it before it starts any thread; the other waits
        // on the lock and sets nothing.
        unsafe { std::env::set_var("XDG_DATA_HOME", &data) };
        data
    });
}

#[tokio::test]
async fn a_deleted_file_is_in_the_trash_and_restorable() {
    if !common::alone(concat!(module_path!(), "::a_deleted_file_is_in_the_trash_and_restorable")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    trash_home();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let ws: Arc<dyn Workspace> = Arc::new(LocalWorkspace::new(&root));
    let path = RelPath::new("notes.md").unwrap();
    ws.write(&path, b"keep me".to_vec(), None).await.unwrap();
    ws.remove(&path).await.unwrap();
    assert!(!root.join("notes.md").exists());

    let items = trash::os_limited::list().unwrap();
    let item = items.into_iter().find(|i| i.name == "notes.md").expect("in the trash");
    assert_eq!(item.original_parent, std::fs::canonicalize(&root).unwrap());
    trash::os_limited::restore_all([item]).unwrap();
    assert_eq!(std::fs::read_to_string(root.join("notes.md")).unwrap(), "keep me");
}

/// Through the window: a file deleted in the Files page goes to the trash, and Undo brings it back
/// byte for byte.
#[test]
fn undo_brings_a_deleted_file_back_from_the_trash() {
    if !common::alone(concat!(module_path!(), "::undo_brings_a_deleted_file_back_from_the_trash")) {
        return;
    }
    use egui_kittest::kittest::Queryable;
    let dir = tempfile::tempdir().unwrap();
    trash_home();
    let ws = dir.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    std::fs::write(ws.join("data.bin"), &bytes).unwrap();
    let rt = common::window::runtime();
    let text = common::config_text("", &[("demo", common::BIN, &["demo-agent"])], &ws);
    let mut h = common::window::window(&text, dir.path(), &rt, None);
    let long = std::time::Duration::from_secs(30);
    common::window::step_until(&mut h, long, "agents", |h| h.state().state.agent("demo").is_some());
    h.get_all_by_label("Files").next().unwrap().click();
    common::window::step_until(&mut h, long, "the tree", |h| h.query_by_label("data.bin").is_some());
    h.get_by_label("data.bin").click_secondary();
    common::window::step_until(&mut h, long, "the menu", |h| h.query_by_label("Delete").is_some());
    h.get_by_label("Delete").click();
    common::window::step_until(&mut h, long, "the question", |h| h.query_by_label_contains("to the trash").is_some());
    h.get_by_label("Delete").click();
    common::window::step_until(&mut h, long, "gone", |h| h.query_by_label("data.bin went to the trash.").is_some());
    assert!(!ws.join("data.bin").exists());
    h.get_by_label("Undo").click();
    common::window::step_until(&mut h, long, "back", |h| h.query_by_label("data.bin").is_some());
    assert_eq!(std::fs::read(ws.join("data.bin")).unwrap(), bytes, "byte for byte");
    assert!(h.query_by_label("data.bin went to the trash.").is_none());
    h.state_mut().shutdown();
}
