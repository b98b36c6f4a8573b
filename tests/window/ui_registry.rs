//! "Get agents" driven like a person would (egui_kittest): the real registry's index served on
//! 127.0.0.1 (the config's `[registry] url`), a binary entry added with a click — downloaded,
//! checked, unpacked, in the config and the sidebar, talking — then removed.

use std::time::Duration;

use egui_kittest::kittest::Queryable;
use sidekicks::app::Startup;
use sidekicks::runtime::config::file::AppDirs;

use crate::common;
use common::BIN;
use common::static_http::StaticHttp;
use common::window::{runtime, send, step_until, window_of};

const LONG: Duration = Duration::from_secs(30);

#[test]
fn an_agent_is_added_from_the_registry_talks_and_is_removed() {
    let server = StaticHttp::start();
    // 2 MB that do not compress: its download is seen under way.
    let archive = common::static_http::demo_agent_tar_gz_with("demo-acp", 2 << 20);
    server.put("/demo.tar.gz", archive.clone());
    let real = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/registry/registry.json"));
    let mut index: serde_json::Value = serde_json::from_str(&real.unwrap()).unwrap();
    let platform = sidekicks::model::registry::this_platform().unwrap();
    let sha = common::static_http::sha256_hex(&archive);
    // First in the list, where the page shows it without scrolling.
    index["agents"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({
            "id": "demo-binary", "name": "Demo Binary", "version": "2.0.0", "license": "MIT",
            "description": "The demo agent, from the registry",
            "distribution": { "binary": { platform: {
                "archive": format!("{}/demo.tar.gz", server.base_url), "cmd": "./demo-acp", "sha256": sha } } }
        }),
    );
    // The real icons, served where the index says (as the registry's CDN does).
    for agent in index["agents"].as_array_mut().unwrap() {
        let id = agent["id"].as_str().unwrap().to_string();
        let file = format!("{}/tests/fixtures/registry/icons/{id}.svg", env!("CARGO_MANIFEST_DIR"));
        if let Ok(svg) = std::fs::read(file) {
            server.put(&format!("/icons/{id}.svg"), svg);
            agent["icon"] = format!("{}/icons/{id}.svg", server.base_url).into();
        }
    }
    server.put("/registry.json", serde_json::to_vec(&index).unwrap());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    let text = format!("# mine\n[registry]\nurl = \"{}/registry.json\"\n", server.base_url);
    std::fs::write(&path, &text).unwrap();
    let dirs = AppDirs {
        config_dir: dir.path().join("cfg"),
        data_dir: dir.path().join("data"),
        state_dir: dir.path().join("state"),
        home: Some(dir.path().to_path_buf()),
    };
    let rt = runtime();
    let startup = Startup {
        settings: common::fast_settings(),
        terminal_host: BIN.into(),
        dirs: Some(dirs),
        ..Startup::new(path.clone())
    };
    let mut h = window_of(startup, &rt);
    step_until(&mut h, LONG, "the window", |h| h.query_by_label("Get agents").is_some());
    h.get_by_label("Get agents").click();
    step_until(&mut h, LONG, "the registry's agents", |h| {
        h.query_by_label("Gemini CLI").is_some() && h.query_by_label("Demo Binary").is_some()
    });
    assert!(h.query_by_label_contains("From the ACP Registry").is_some(), "where and when it was read");
    assert!(h.query_all_by_label("Apache-2.0").count() >= 3, "licences shown");
    step_until(&mut h, LONG, "the icons drawn", |h| h.state().state.registry.icons.len() >= 11);
    let kept = std::fs::read_dir(dir.path().join("data/registry/icons")).unwrap().count();
    assert!(kept >= 11, "the icons kept in the data folder: {kept}");

    // Add, on the demo's row.
    let row = h.get_by_label("Demo Binary").rect();
    let add = h
        .get_all_by_label("Add")
        .filter(|b| b.rect().top() >= row.top())
        .min_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .expect("an Add button under the demo");
    // The download stops half-way: the row shows its progress, and the config file changes
    // meanwhile (the person, or `sidekicks registry` in a terminal).
    let held = server.hold("/demo.tar.gz");
    let add_top = add.rect().top();
    add.click();
    step_until(&mut h, LONG, "the download's progress", |h| {
        h.query_by_label_contains(" / 2.0 MB").or_else(|| h.query_by_label_contains(" / 2,0 Mo")).is_some()
    });
    assert!(!h.get_all_by_label("Add").any(|b| (b.rect().top() - add_top).abs() < 1.0), "no second Add on the row");
    let meanwhile = format!("{text}# written while it downloaded\n");
    std::fs::write(&path, &meanwhile).unwrap();
    drop(held);
    step_until(&mut h, LONG, "the agent added", |h| h.state().state.agent("Demo Binary").is_some());
    step_until(&mut h, LONG, "its row says so", |h| {
        h.query_by_label("In the config as Demo Binary").is_some()
            && h.query_by_label("Added: Demo Binary 2.0.0.").is_some()
    });
    let saved = std::fs::read_to_string(&path).unwrap();
    // What was written meanwhile is kept (the add reads the file again once downloaded).
    assert!(saved.starts_with(&text) && saved.contains("# written while it downloaded"), "{saved}");
    assert!(saved.contains("registry = { id = \"demo-binary\""), "{saved}");
    assert!(dir.path().join("data/registry/demo-binary/2.0.0/demo-acp").is_file());

    // It talks.
    // (The sidebar's entry: the page lists it too.)
    let sidebar = h.get_all_by_label("Demo Binary").min_by(|a, b| a.rect().left().total_cmp(&b.rect().left())).unwrap();
    sidebar.click();
    step_until(&mut h, LONG, "its conversation", |h| h.query_by_label("Send").is_some());
    send(&mut h, "hello");
    step_until(&mut h, LONG, "its answer", |h| h.query_by_label_contains("I am the Sidekicks demo agent").is_some());

    // Removed from the page: gone from the config, the sidebar and the data folder.
    h.get_by_label("Get agents").click();
    step_until(&mut h, LONG, "the page again", |h| h.query_by_label("Remove Demo Binary").is_some());
    h.get_by_label("Remove Demo Binary").click();
    // Asked first; nothing is removed before the yes.
    step_until(&mut h, LONG, "the question", |h| {
        h.query_by_label_contains("Remove Demo Binary from the config?").is_some()
    });
    assert!(h.state().state.agent("Demo Binary").is_some());
    h.get_by_label("Remove").click();
    step_until(&mut h, LONG, "the agent gone", |h| h.state().state.agent("Demo Binary").is_none());
    assert!(!std::fs::read_to_string(&path).unwrap().contains("[[agent]]"));
    assert!(!dir.path().join("data/registry/demo-binary").exists());
}

/// "Get agents" with no index and no copy of one (offline, or the index's address wrong): what
/// happened, in the window's language, and what the person can do — add an agent by hand (the
/// form opens), set a mirror, try again — then, once the index comes, a search box that narrows
/// the list (issue 48, item 6).
#[test]
fn an_index_that_cannot_be_read_says_what_to_do_and_the_list_can_be_searched() {
    let server = StaticHttp::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, format!("[registry]\nurl = \"{}/registry.json\"\n", server.base_url)).unwrap();
    let dirs = AppDirs {
        config_dir: dir.path().join("cfg"),
        data_dir: dir.path().join("data"),
        state_dir: dir.path().join("state"),
        home: Some(dir.path().to_path_buf()),
    };
    let rt = runtime();
    let startup = Startup {
        settings: common::fast_settings(),
        terminal_host: BIN.into(),
        dirs: Some(dirs),
        ..Startup::new(path)
    };
    let mut h = window_of(startup, &rt);
    step_until(&mut h, LONG, "the window", |h| h.query_by_label("Get agents").is_some());
    h.get_by_label("Get agents").click();
    step_until(&mut h, LONG, "why not, in words", |h| {
        h.query_by_label_contains("The agents' index could not be downloaded").is_some()
    });
    assert!(h.query_by_label("Set a mirror…").is_some() && h.query_by_label("Try again").is_some());
    // By hand: Settings, its form open.
    h.get_by_label("Add an agent by hand…").click();
    step_until(&mut h, LONG, "the form", |h| h.query_by_label("Save agent").is_some());

    // Back on the page; the index is there now: Try again lists it, and the search narrows it.
    h.get_by_label("Get agents").click();
    step_until(&mut h, LONG, "the page again", |h| {
        h.query_by_label("Try again").is_some() && !h.state().state.registry.reading
    });
    // A retry that fails at once says so (the page looked the same: nothing seemed to happen).
    let tried = h.state().state.registry.failed_reads;
    h.get_by_label("Try again").click();
    let said = format!("Tried {} times: still unreadable.", tried + 1);
    step_until(&mut h, LONG, "the retry said", |h| h.query_by_label(&said).is_some());
    let real = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/registry/registry.json")).unwrap();
    server.put("/registry.json", real);
    h.get_by_label("Try again").click();
    step_until(&mut h, LONG, "the list", |h| h.query_by_label("Gemini CLI").is_some());
    let search = h.get_all_by_role(egui::accesskit::Role::TextInput).next().unwrap().rect();
    h.get_all_by_role(egui::accesskit::Role::TextInput).find(|n| n.rect() == search).unwrap().click();
    h.step();
    h.get_all_by_role(egui::accesskit::Role::TextInput).find(|n| n.rect() == search).unwrap().type_text("gemini");
    step_until(&mut h, LONG, "one entry left", |h| {
        h.query_by_label("Gemini CLI").is_some() && h.query_by_label("Claude Code").is_none()
    });
    h.state_mut().shutdown();
}
