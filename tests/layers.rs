//! The walls between the layers (docs/ARCHITECTURE.md): each layer imports only the ones below it —
//! `model` ← `protocol` ← `runtime` ← `app` ← `ui`. An import that crosses a wall fails the test,
//! unless it is listed in `KNOWN` (empty: keep it so); a listed one that is gone fails too, so the
//! list only shrinks.

use std::collections::BTreeSet;
use std::path::Path;

/// The layers, lowest first.
const LAYERS: [&str; 5] = ["model", "protocol", "runtime", "app", "ui"];

/// Files that still import a layer above their own (file, layer imported).
const KNOWN: &[(&str, &str)] = &[];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every (file, layer) where a file imports a layer above its own.
fn crossings(root: &Path) -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let Some(own) = LAYERS.iter().position(|l| rel.starts_with(&format!("src/{l}/"))) else { continue };
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for layer in LAYERS.iter().skip(own + 1) {
                if line.contains(&format!("crate::{layer}::")) {
                    found.insert((rel.clone(), layer.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn no_layer_imports_one_above_it_beyond_the_known_list() {
    let found = crossings(Path::new(env!("CARGO_MANIFEST_DIR")));
    let known: BTreeSet<(String, String)> = KNOWN.iter().map(|(f, l)| (f.to_string(), l.to_string())).collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(new.is_empty(), "these files import a layer above their own: {new:?}");
    assert!(gone.is_empty(), "these no longer cross a wall; remove them from KNOWN: {gone:?}");
}

#[test]
fn the_scan_sees_a_crossing() {
    // The check itself: a model file that names the runtime is found.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/model")).unwrap();
    std::fs::write(
        dir.path().join("src/model/bad.rs"),
        "use crate::runtime::store::Store;\n// crate::ui:: in a comment\n",
    )
    .unwrap();
    let found = crossings(dir.path());
    assert_eq!(found.into_iter().collect::<Vec<_>>(), [("src/model/bad.rs".to_string(), "runtime".to_string())]);
}
