//! Driving the window with egui_kittest: a harness over a real runtime, and stepping until a
//! condition holds.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use sidekicks::app::{Startup, start};
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use super::fast_settings;

/// A window over the config `text` (written to `dir`), with an optional history store.
pub fn window(
    text: &str,
    dir: &Path,
    rt: &tokio::runtime::Runtime,
    store: Option<Arc<Store>>,
) -> Harness<'static, SidekicksApp> {
    let path = dir.join("sidekicks.toml");
    std::fs::write(&path, text).unwrap();
    let startup = Startup { settings: fast_settings(), store, terminal_host: super::BIN.into(), ..Startup::new(path) };
    let bridge = start(rt.handle(), startup, Arc::new(|| {}));
    Harness::builder().with_size(egui::vec2(1000.0, 700.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    )
}

/// A window over `startup` (its config file, folders and store as given).
pub fn window_of(startup: Startup, rt: &tokio::runtime::Runtime) -> Harness<'static, SidekicksApp> {
    let bridge = start(rt.handle(), startup, Arc::new(|| {}));
    Harness::builder().with_size(egui::vec2(1000.0, 700.0)).build_ui_state(
        |ui, app: &mut SidekicksApp| {
            app.logic(ui.ctx());
            app.ui(ui);
        },
        SidekicksApp::new(bridge),
    )
}

/// Steps frames until `done` holds, failing after `limit`.
pub fn step_until(
    harness: &mut Harness<'static, SidekicksApp>,
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&Harness<'static, SidekicksApp>) -> bool,
) {
    let deadline = Instant::now() + limit;
    while !done(harness) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
    }
    harness.step();
}

/// A tokio runtime like the app's.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Types `text` in the composer and presses Enter. The composer is the empty multi-line input
/// (code blocks of the conversation are multi-line inputs too, never empty).
pub fn send(harness: &mut Harness<'static, SidekicksApp>, text: &str) {
    use egui::accesskit::Role;
    use egui_kittest::kittest::Queryable;
    let composer = |h: &Harness<'static, SidekicksApp>| {
        h.get_all_by_role(Role::MultilineTextInput)
            .find(|n| n.value().unwrap_or_default().is_empty())
            .map(|n| n.rect())
            .expect("an empty composer")
    };
    // Found again after the click: the layout may have moved it (an answer's end laid out).
    let rect = composer(harness);
    harness.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().click();
    harness.step();
    let rect = composer(harness);
    harness.get_all_by_role(Role::MultilineTextInput).find(|n| n.rect() == rect).unwrap().type_text(text);
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();
}

/// Asks for team `name` of `agents` on `project` (git worktrees), without waiting.
pub fn ask_team(h: &mut Harness<'static, SidekicksApp>, name: &str, project: &Path, agents: &[&str]) {
    use sidekicks::protocol::teams::{ProviderKind, TeamCommand};
    let create = TeamCommand::Create {
        name: name.into(),
        project: project.to_path_buf(),
        provider: ProviderKind::GitWorktree,
        agents: agents.iter().map(|a| a.to_string()).collect(),
        lead: None,
    };
    h.state_mut().send(sidekicks::app::Command::Team(Box::new(create)));
}

/// Makes team `name` of `agents` on `project` (git worktrees) through the runtime and waits until
/// every member (an agent of its own, made from each of `agents`) works in its copy; returns
/// their copies. The person's agents stay in their own folder (`home`): that is checked too.
pub fn make_team(
    h: &mut Harness<'static, SidekicksApp>,
    name: &str,
    project: &Path,
    agents: &[&str],
    home: &Path,
) -> Vec<std::path::PathBuf> {
    ask_team(h, name, project, agents);
    step_until(h, Duration::from_secs(60), "the members in their copies", |h| {
        agents.iter().all(|a| member_copy(h, name, a).is_some())
    });
    for agent in agents {
        let own = h.state().state.agent(agent).map(|a| a.config.workspace.clone());
        assert_eq!(own.as_deref(), Some(home), "{agent} stays in its own folder");
    }
    agents.iter().map(|a| member_copy(h, name, a).unwrap()).collect()
}

/// The copy of the member of team `team` made from `agent`, once that member works in it.
pub fn member_copy(h: &Harness<'static, SidekicksApp>, team: &str, agent: &str) -> Option<std::path::PathBuf> {
    let state = &h.state().state;
    let team = state.teams.teams.iter().find(|t| t.info.record.name == team)?;
    let member = team.info.members.iter().filter_map(|(_, m)| m.as_ref().ok()).find(|m| m.agent == agent)?;
    let working = state.agent(&member.name).is_some_and(|a| a.config.workspace == member.copy);
    working.then(|| member.copy.clone())
}

/// The name of the member of the first team made from `agent`.
pub fn member_name(h: &Harness<'static, SidekicksApp>, agent: &str) -> String {
    let team = &h.state().state.teams.teams[0];
    let found = team.info.record.members.iter().find(|m| m.from == agent || m.agent == agent);
    found.map(|m| m.agent.clone()).unwrap_or_else(|| panic!("no member made from {agent}"))
}

/// Clicks "Merge all" for the member of the first team made from `agent` once its change list
/// shows changes, then waits for the merge's result. (The buttons are disabled only while a
/// write of the member runs, which the runtime says.)
pub fn merge_all(h: &mut Harness<'static, SidekicksApp>, agent: &str) {
    use egui_kittest::kittest::{NodeT, Queryable};
    let member = member_name(h, agent);
    let agent = member.as_str();
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut asked = false;
    loop {
        let team = &h.state().state.teams.teams[0];
        assert!(
            Instant::now() < deadline,
            "not merged: merges {:?}, busy {:?}, changes {:?}",
            team.merges,
            team.busy,
            team.changes
        );
        if asked && team.merges.contains_key(agent) && !team.busy.contains(agent) {
            return;
        }
        let listed = team.changes.get(agent).is_some_and(|c| c.as_ref().is_ok_and(|c| !c.is_empty()));
        let enabled = h.query_by_label("Merge all").is_some_and(|n| !n.accesskit_node().is_disabled());
        if !asked && listed && enabled {
            // The result shown before is not this merge's.
            h.state_mut().state.teams.teams[0].merges.remove(agent);
            h.get_by_label("Merge all").click();
            asked = true;
        }
        h.step();
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// True when the first widget labelled `label` is there and enabled.
pub fn enabled(h: &Harness<'static, SidekicksApp>, label: &str) -> bool {
    use egui_kittest::kittest::{NodeT, Queryable};
    h.query_all_by_label(label).next().is_some_and(|n| !n.accesskit_node().is_disabled())
}

/// Clicks the first widget labelled `label` once it is enabled (a click on a disabled button,
/// busy a moment, does nothing).
pub fn click_when_enabled(h: &mut Harness<'static, SidekicksApp>, label: &str) {
    use egui_kittest::kittest::Queryable;
    step_until(h, Duration::from_secs(60), label, |h| enabled(h, label));
    h.get_all_by_label(label).next().unwrap().click();
    h.step();
}
