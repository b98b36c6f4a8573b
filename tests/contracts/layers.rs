//! The walls between the layers (docs/ARCHITECTURE.md): each layer imports only the ones below it —
//! `model` ← `protocol` ← `runtime` ← `app` ← `ui` —, the window (`ui`) reaches the runtime only
//! through `app`, and the demo agent (the other side of the protocol) uses `model` only. Every
//! way of naming a layer counts: `crate::runtime::x`, `use crate::runtime;`, and inside a group
//! (`use crate::{model::x, runtime::y}`). An import that crosses a wall fails the test, unless it
//! is listed in `KNOWN` (empty: keep it so); a listed one that is gone fails too, so the list only
//! shrinks.

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

/// The layers a folder of `src/` may not name.
fn walls(folder: &str) -> Vec<&'static str> {
    match folder {
        "ui" => vec!["runtime"],
        "demo_agent" => vec!["protocol", "runtime", "app", "ui"],
        _ => match LAYERS.iter().position(|l| *l == folder) {
            Some(own) => LAYERS[own + 1..].to_vec(),
            None => Vec::new(),
        },
    }
}

/// The top-level modules a text names after `crate::`: `crate::a::…`, `crate::a;`, and each
/// first segment of a group `crate::{a::…, b, c::{…}}`.
fn named(text: &str) -> BTreeSet<String> {
    let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for (at, _) in code.match_indices("crate::") {
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // The group's top-level items: split at commas outside inner braces.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        out.insert(ident(&group[i..]));
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// Every (file, layer) where a file names a layer beyond its walls.
fn crossings(root: &Path) -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut found = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let Some(folder) = rel.strip_prefix("src/").and_then(|r| r.split_once('/')).map(|(f, _)| f) else { continue };
        let forbidden = walls(folder);
        for layer in named(&std::fs::read_to_string(&file).unwrap()) {
            if forbidden.contains(&layer.as_str()) {
                found.insert((rel.clone(), layer));
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

#[test]
fn the_scan_sees_every_way_of_naming_a_layer() {
    let dir = tempfile::tempdir().unwrap();
    for folder in ["src/protocol", "src/ui", "src/demo_agent", "src/app"] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    let write = |rel: &str, text: &str| std::fs::write(dir.path().join(rel), text).unwrap();
    write("src/protocol/a.rs", "use crate::{\n    model::x,\n    runtime::{store::Store, y},\n};\n");
    write("src/protocol/b.rs", "use crate::app;\n");
    write("src/ui/c.rs", "fn f() { let _ = crate::runtime::clock::now(); }\n");
    write("src/ui/d.rs", "use crate::{app::AppState, model::config::Config, protocol::Command};\n");
    write("src/demo_agent/e.rs", "use crate::{model::x, protocol::Command};\n");
    write("src/app/f.rs", "use crate::{runtime::store::Store, model};\n");
    let found: Vec<(String, String)> = crossings(dir.path()).into_iter().collect();
    let want = [
        ("src/demo_agent/e.rs", "protocol"),
        ("src/protocol/a.rs", "runtime"),
        ("src/protocol/b.rs", "app"),
        ("src/ui/c.rs", "runtime"),
    ];
    assert_eq!(found, want.map(|(f, l)| (f.to_string(), l.to_string())));
}
