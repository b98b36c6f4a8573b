//! The shape of the code (issue 46, docs/ARCHITECTURE.md "Rules the layout keeps"): no file of
//! `src/` over 600 lines (its `#[cfg(test)] mod tests` aside), no function over 100 lines (tests
//! aside, and the tables listed in `TABLES`), and no import circle — two files of which each names
//! the other. A module's own children are part of it (a `mod.rs` and the files it declares may name
//! each other); siblings may not. Each check is tried on made-up text first, so none can pass by
//! seeing nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Longest file, in lines (its unit tests aside).
const MAX_FILE: usize = 600;
/// Longest function, in lines.
const MAX_FN: usize = 100;
/// Files that are tables (one entry per line or per arm): the user's sentences in two languages.
const TABLES: &[&str] = &["src/i18n/strings.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of a file up to its unit tests (`#[cfg(test)]` followed by `mod tests`).
fn without_tests(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| lines[i].trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.contains("mod tests")))
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The functions of `lines` longer than `MAX_FN`, as (name, lines). A function runs from its `fn`
/// line to the first line after it that closes at the same indent (the code is rustfmt's).
fn long_functions(lines: &[&str]) -> Vec<(String, usize)> {
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let words: Vec<&str> = trimmed.split_whitespace().take_while(|w| *w != "fn").collect();
        let is_fn = trimmed.split_whitespace().any(|w| w == "fn")
            && words.iter().all(|w| matches!(*w, "pub" | "async" | "const" | "unsafe") || w.starts_with("pub("))
            && !trimmed.ends_with(';');
        if !is_fn {
            continue;
        }
        let Some(end) = (i..lines.len()).find(|&j| {
            let l = lines[j];
            (j == i && l.trim_end().ends_with('}'))
                || (j > i && (l == format!("{indent}}}") || l == format!("{indent}}};")))
        }) else {
            continue;
        };
        let name = trimmed.split("fn ").nth(1).unwrap_or("").split(['(', '<']).next().unwrap_or("").to_string();
        if end - i + 1 > MAX_FN {
            long.push((name, end - i + 1));
        }
    }
    long
}

/// A file's module path under `src/` (`runtime/agents.rs` and `runtime/agents/mod.rs` are both
/// `runtime::agents`).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The modules a file's code names (`crate::…`, `super::…`, `self::…`, in paths and in groups),
/// resolved to the longest one that exists; comments aside.
fn named_modules(module: &[String], text: &str, modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut paths: Vec<Vec<String>> = Vec::new();
    let bytes = code.as_bytes();
    let word_start =
        |i: usize| i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b':');
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start) {
            let at = from + found;
            from = at + start.len();
            if !word_start(at) {
                continue;
            }
            let rest = &code[at..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            let path: Vec<String> = rest[..end].split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
            // A group: `crate::a::{b, c::d}` names `a::b` and `a::c::d`.
            if rest[end..].starts_with('{')
                && let Some(close) = rest[end..].find('}')
            {
                for item in rest[end + 1..end + close].split(',') {
                    let item = item.split_whitespace().next().unwrap_or("");
                    let mut p = path.clone();
                    p.extend(item.split("::").filter(|s| !s.is_empty() && *s != "self").map(str::to_string));
                    paths.push(p);
                }
            } else {
                paths.push(path);
            }
        }
    }
    let mut named = BTreeSet::new();
    for path in paths {
        let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (module.to_vec(), &path[1..]),
            Some("super") => {
                let mut base = module.to_vec();
                let supers = path.iter().take_while(|p| *p == "super").count();
                base.truncate(base.len().saturating_sub(supers));
                (base, &path[supers..])
            }
            _ => continue,
        };
        base.extend(rest.iter().cloned());
        while !base.is_empty() && !modules.contains(&base) {
            base.pop();
        }
        if !base.is_empty() && base != module {
            named.insert(base);
        }
    }
    named
}

/// Pairs of files that name each other, neither inside the other.
fn circles(files: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (a, named) in files {
        for b in named {
            let nested = a.starts_with(b) || b.starts_with(a);
            if a < b && !nested && files.get(b).is_some_and(|n| n.contains(a)) {
                found.push((a.join("::"), b.join("::")));
            }
        }
    }
    found
}

#[test]
fn no_file_too_long_no_function_too_long_no_import_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    paths.sort();
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|p| module_of(&root, p)).collect();
    let mut problems = Vec::new();
    let mut imports = BTreeMap::new();
    for path in &paths {
        let name = path.strip_prefix(root.parent().unwrap()).unwrap().display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let lines = without_tests(&text);
        if TABLES.contains(&name.as_str()) {
            continue;
        }
        if lines.len() > MAX_FILE {
            problems.push(format!("{name}: {} lines (at most {MAX_FILE})", lines.len()));
        }
        for (f, n) in long_functions(&lines) {
            problems.push(format!("{name}: fn {f} is {n} lines (at most {MAX_FN})"));
        }
        let module = module_of(&root, path);
        imports.insert(module.clone(), named_modules(&module, &lines.join("\n"), &modules));
    }
    for (a, b) in circles(&imports) {
        problems.push(format!("{a} and {b} import each other"));
    }
    assert!(paths.len() > 100, "the scan found the sources: {}", paths.len());
    assert!(problems.is_empty(), "the code's shape:\n{}", problems.join("\n"));
}

#[test]
fn the_checks_see_a_long_function_and_a_circle() {
    let mut text = vec!["pub(crate) async fn long(a: u8) -> u8 {"];
    text.extend(std::iter::repeat_n("    let x = 1;", MAX_FN));
    text.push("}");
    text.push("fn short() {}");
    assert_eq!(long_functions(&text), vec![("long".to_string(), MAX_FN + 2)]);

    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    let modules: BTreeSet<_> = ["app", "app::a", "app::b", "app::b::c"].into_iter().map(m).collect();
    let a = named_modules(&m("app::a"), "use super::b::Thing; // crate::app::nothing\n", &modules);
    let b = named_modules(&m("app::b"), "use crate::app::{a::Other, b::c};\n", &modules);
    let c = named_modules(&m("app::b::c"), "use super::Thing;\n", &modules);
    assert_eq!(a, [m("app::b")].into());
    assert_eq!(b, [m("app::a"), m("app::b::c")].into());
    let files: BTreeMap<_, _> = [(m("app::a"), a), (m("app::b"), b), (m("app::b::c"), c)].into();
    // a ↔ b is a circle; b and its child c naming each other is not.
    assert_eq!(circles(&files), vec![("app::a".to_string(), "app::b".to_string())]);
}
