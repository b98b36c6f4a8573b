//! A channel with two demo agents, driven like a person would (egui_kittest): a message without a
//! mention goes to both, `@bob` only to Bob; each answer is under its member's name and each member
//! first receives what it missed (the demo agent quotes everything it received); Stop ends one
//! member's turn while the other goes on; Stop all ends both; an answer arriving while the channel
//! is not shown marks it unread; the timeline is back after a restart.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use sidekicks::app::AgentState;
use sidekicks::app::channels_state::answer_text;
use sidekicks::runtime::store::Store;
use sidekicks::ui::SidekicksApp;

use crate::common;
use crate::common::git;
use common::BIN;
use common::window::{runtime, step_until, window};

const LONG: Duration = Duration::from_secs(30);

fn config(dir: &std::path::Path) -> String {
    let mut text = String::from("[[channel]]\nname = \"design\"\ndescription = \"The look of things\"\n");
    for name in ["ada", "bob"] {
        text.push_str(&format!(
            "\n[[agent]]\nname = \"{name}\"\ncommand = {BIN:?}\nargs = [\"demo-agent\"]\nworkspace = {:?}\nchannels = [\"design\"]\n",
            dir.display().to_string()
        ));
    }
    text
}

fn say(h: &mut Harness<'static, SidekicksApp>, text: &str) {
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text(text);
    h.step();
    h.key_press(egui::Key::Enter);
    h.step();
}

/// Opens #design from the sidebar, once it is listed.
fn open_channel(h: &mut Harness<'static, SidekicksApp>) {
    step_until(h, LONG, "the channel", |h| h.query_all_by_label("#design").next().is_some());
    h.get_all_by_label("#design").next().unwrap().click();
    step_until(h, LONG, "the channel view", |h| h.query_by_label("Nothing said here yet.").is_some());
}

fn answer(h: &Harness<'static, SidekicksApp>, agent: &str, text: &str) -> String {
    answer_text(&h.state().state.agents, agent, &format!("[#design] {text}"), None)
}

/// `agent` has answered `text` to the end.
fn answered(h: &Harness<'static, SidekicksApp>, agent: &str, text: &str) -> bool {
    let view = h.state().state.agent(agent).unwrap();
    !answer(h, agent, text).is_empty() && view.state == AgentState::Idle && !view.conversation.is_streaming()
}

fn state(h: &Harness<'static, SidekicksApp>, agent: &str) -> AgentState {
    h.state().state.agent(agent).unwrap().state.clone()
}

#[test]
fn a_channel_routes_catches_up_and_stops_per_member() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let rt = runtime();
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the channel", |h| h.query_all_by_label("#design").next().is_some());
    let marked = |h: &Harness<'static, SidekicksApp>, label: &str| {
        h.get_all_by_label(label).any(|n| n.accesskit_node().toggled() == Some(egui::accesskit::Toggled::True))
    };
    assert!(marked(&h, "ada"), "the agent shown is marked in the sidebar");
    // Each member its colour: its place in the config picks it.
    assert_eq!([h.state().state.agent("ada").unwrap().place, h.state().state.agent("bob").unwrap().place], [0, 1]);
    // The channel's link in Ada's header (right of the sidebar's) opens it. (The header may come a
    // frame after the sidebar's entry: waited for, it timed out once under a loaded full run.)
    step_until(&mut h, LONG, "the sidebar's entry and the header's link", |h| {
        h.query_all_by_label("#design").count() == 2
    });
    let links: Vec<_> = h.get_all_by_label("#design").collect();
    links.into_iter().max_by(|a, b| a.rect().left().total_cmp(&b.rect().left())).unwrap().click();
    step_until(&mut h, LONG, "the channel view", |h| h.query_by_label("Nothing said here yet.").is_some());
    assert!(marked(&h, "#design"));
    assert!(!marked(&h, "ada"), "an agent stays marked while the channel is shown");
    assert!(h.get_by_label("Stop all").accesskit_node().is_disabled(), "Stop all with nothing running");

    // No mention: both answer, each under its name.
    say(&mut h, "hello everyone");
    step_until(&mut h, LONG, "both answers", |h| ["ada", "bob"].iter().all(|a| answered(h, a, "hello everyone")));
    assert!(h.query_by_label("You, to ada, bob:").is_some());
    assert!(answer(&h, "ada", "hello everyone").contains("> [#design] hello everyone"));

    // A mention: only Bob, who first hears Ada's answer he missed.
    say(&mut h, "@bob your turn");
    step_until(&mut h, LONG, "bob's answer", |h| answered(h, "bob", "@bob your turn"));
    let bob = answer(&h, "bob", "@bob your turn");
    assert!(bob.contains("News from the channel #design"), "{bob}");
    assert!(bob.contains("> [ada] **Hello!**"), "Ada's answer reached Bob: {bob}");
    assert!(answer(&h, "ada", "@bob your turn").is_empty(), "Ada was not asked");
    let timeline = &h.state().state.channels.channel("design").unwrap().timeline;
    assert_eq!(timeline.entries.len(), 5);

    // Then Ada hears what was said to Bob and his answer.
    say(&mut h, "@ada and you");
    step_until(&mut h, LONG, "ada's answer", |h| answered(h, "ada", "@ada and you"));
    let ada = answer(&h, "ada", "@ada and you");
    assert!(ada.contains("> [the person, to bob] @bob your turn"), "{ada}");
    assert!(!ada.lines().any(|l| l.starts_with("> [ada]")), "not her own answers: {ada}");

    // Stop one member: the other goes on.
    say(&mut h, "@ada wait");
    step_until(&mut h, LONG, "ada busy", |h| state(h, "ada") == AgentState::Busy);
    say(&mut h, "@bob slow");
    step_until(&mut h, LONG, "bob busy", |h| state(h, "bob") == AgentState::Busy);
    h.get_all_by_label("Stop").next().unwrap().click();
    step_until(&mut h, LONG, "ada stopped", |h| state(h, "ada") == AgentState::Idle);
    assert_eq!(state(&h, "bob"), AgentState::Busy, "bob goes on");
    step_until(&mut h, LONG, "bob's slow answer", |h| answer(h, "bob", "@bob slow").contains("a few words at a time"));

    // Stop all.
    step_until(&mut h, LONG, "bob idle", |h| state(h, "bob") == AgentState::Idle);
    say(&mut h, "wait, both of you");
    step_until(&mut h, LONG, "both busy", |h| {
        state(h, "ada") == AgentState::Busy && state(h, "bob") == AgentState::Busy
    });
    h.get_by_label("Stop all").click();
    step_until(&mut h, LONG, "both stopped", |h| {
        state(h, "ada") == AgentState::Idle && state(h, "bob") == AgentState::Idle
    });

    // An answer while another view is shown: unread.
    say(&mut h, "@bob one more");
    h.get_all_by_label("ada").next().unwrap().click();
    // (Bob's own entry gets a `•` too when his turn ends unseen: wait for the channel's.)
    step_until(&mut h, LONG, "the channel's unread marker", |h| h.state().state.channels.is_unread("design"));
    step_until(&mut h, LONG, "the unread marker", |h| h.query_by_label("•").is_some());
    step_until(&mut h, LONG, "bob idle", |h| state(h, "bob") == AgentState::Idle);
    let said = h.state().state.channels.channel("design").unwrap().timeline.clone();
    h.state_mut().shutdown();
    drop(h);

    // After a restart: the same timeline.
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the timeline back", |h| {
        h.state().state.channels.channel("design").is_some_and(|c| c.timeline == said)
    });
    h.state_mut().shutdown();
}

#[test]
fn a_members_permission_shows_one_card_in_the_channel() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config(dir.path()), dir.path(), &rt, None);
    open_channel(&mut h);
    say(&mut h, "@ada run the tests, permission please");
    step_until(&mut h, LONG, "ada's permission card", |h| h.query_by_label("Allow once").is_some());
    // Drawn with her answer's tool card, and not a second time among the channel's requests.
    assert_eq!(h.get_all_by_label("Allow once").count(), 1);
    h.get_by_label("Allow once").click();
    step_until(&mut h, LONG, "ada's answer", |h| answered(h, "ada", "@ada run the tests, permission please"));
    assert!(h.query_by_label("Allow once").is_none());
    h.state_mut().shutdown();
}

#[test]
fn a_team_channel_hands_over_merges_and_routes_conflicts_back() {
    // The members: agents of their own, made from the person's ada and bob.
    const ADA: &str = "ada · Docs team";
    const BOB: &str = "bob · Docs team";
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "first\nsecond\n").unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "add", "-A"]);
    git(&project, &["-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"]);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = common::config_text(
        "",
        &[("lead", BIN, &["demo-agent"]), ("ada", BIN, &["demo-agent"]), ("bob", BIN, &["demo-agent"])],
        &home,
    );
    let rt = runtime();
    let mut h = window(&config, dir.path(), &rt, None);
    step_until(&mut h, LONG, "agents", |h| h.state().state.agent("bob").is_some());

    // The team, with a lead.
    h.get_by_label("New team…").click();
    h.step();
    for (i, text) in ["Docs team".to_string(), project.display().to_string()].iter().enumerate() {
        h.get_all_by_role(Role::TextInput).nth(i).unwrap().click();
        h.step();
        h.get_all_by_role(Role::TextInput).nth(i).unwrap().type_text(text);
        h.step();
    }
    h.get_all_by_label("ada").last().unwrap().click();
    h.step();
    h.get_all_by_label("bob").last().unwrap().click();
    h.step();
    h.get_by_role(Role::ComboBox).click();
    h.step();
    h.step();
    h.get_all_by_label("lead").last().unwrap().click();
    h.step();
    h.get_by_label("Create the team").click();
    step_until(&mut h, LONG, "the team channel", |h| h.query_by_label("#Docs team").is_some());
    let copies: Vec<std::path::PathBuf> = {
        let team = &h.state().state.teams.teams[0];
        assert_eq!(team.info.record.lead.as_deref(), Some("lead"));
        [ADA, BOB].iter().map(|a| team.member(a).unwrap().copy.clone()).collect()
    };
    h.get_by_label("#Docs team").click();
    step_until(&mut h, LONG, "the channel view", |h| h.query_by_label("Merge ada · Docs team's work").is_some());

    // The person asks the lead; the lead hands over to Ada, who answers in the channel.
    say(&mut h, "@lead delegate to ada");
    let handed = "[#Docs team] (from lead) @ada please take this on: write a short note in `notes/` about the task.";
    step_until(&mut h, LONG, "ada's answer to the lead", |h| {
        !answer_text(&h.state().state.agents, ADA, handed, None).is_empty()
    });
    assert!(h.query_by_label("lead hands over to ada · Docs team").is_some());
    assert!(answer_text(&h.state().state.agents, BOB, handed, None).is_empty(), "only Ada was handed the work");
    assert!(answer_text(&h.state().state.agents, "ada", handed, None).is_empty(), "the person's Ada heard nothing");

    // Ada's work merges from the channel.
    std::fs::create_dir_all(copies[0].join("notes")).unwrap();
    std::fs::write(copies[0].join("notes/task.md"), "Ada's note\n").unwrap();
    // Offered once her change is seen (with nothing to merge, the button waits, disabled).
    step_until(&mut h, LONG, "ada's change seen", |h| {
        use egui_kittest::kittest::NodeT;
        h.query_by_label("Merge ada · Docs team's work").is_some_and(|n| !n.accesskit_node().is_disabled())
    });
    h.get_by_label("Merge ada · Docs team's work").click();
    step_until(&mut h, LONG, "the merge", |h| h.query_by_label("Merged: 1 file applied to the project.").is_some());
    assert_eq!(std::fs::read_to_string(project.join("notes/task.md")).unwrap(), "Ada's note\n");

    // Bob's overlapping edit: the conflict comes back to him in the channel.
    std::fs::write(project.join("notes.txt"), "first (project)\nsecond\n").unwrap();
    std::fs::write(copies[1].join("notes.txt"), "first (Bob)\nsecond\n").unwrap();
    step_until(&mut h, LONG, "bob's change seen", |h| {
        use egui_kittest::kittest::NodeT;
        h.query_by_label("Merge bob · Docs team's work").is_some_and(|n| !n.accesskit_node().is_disabled())
    });
    h.get_by_label("Merge bob · Docs team's work").click();
    step_until(&mut h, LONG, "bob's answer to the conflict", |h| {
        let timeline = &h.state().state.channels.channels.iter().find(|c| c.team.is_some()).unwrap().timeline;
        timeline.entries.iter().any(|e| {
            matches!(e, sidekicks::model::channel::Entry::Notice { to, text }
            if to == &[BOB.to_string()] && text.contains("notes.txt: the project changed the same lines"))
        }) && h
            .state()
            .state
            .agent(BOB)
            .is_some_and(|b| b.state == AgentState::Idle && b.conversation.messages.len() >= 2)
    });
    assert_eq!(std::fs::read_to_string(project.join("notes.txt")).unwrap(), "first (project)\nsecond\n");
    // The channel links bob's answer by the id of the message he was sent, not by its text.
    {
        use sidekicks::model::channel::Entry;
        let state = &h.state().state;
        let channel = state.channels.channels.iter().find(|c| c.team.is_some()).unwrap();
        let Some(Entry::Answer { id: Some(id), prompt, .. }) =
            channel.timeline.entries.iter().rev().find(|e| matches!(e, Entry::Answer { agent, .. } if agent == BOB))
        else {
            panic!("no answer entry with an id for bob: {:?}", channel.timeline.entries)
        };
        let bob = state.agent(BOB).unwrap();
        let asked = bob.conversation.messages.iter().find(|m| m.id.as_ref() == Some(id));
        assert_eq!(asked.map(|m| m.text()).as_ref(), Some(prompt), "the conflict message carries the channel's id");
        let answer = sidekicks::app::channels_state::answer_text(&state.agents, BOB, prompt, Some(id));
        assert!(!answer.trim().is_empty(), "bob's answer is found by the id");
    }
    // Sidekicks wrote that message, not the person: said so in the channel and in Bob's conversation.
    h.step();
    assert!(h.query_by_label("Sidekicks, to bob · Docs team:").is_some());
    assert!(h.query_by_label("You, to bob · Docs team:").is_none());
    h.get_all_by_label(BOB).next().unwrap().click();
    step_until(&mut h, LONG, "bob's conversation", |h| h.query_by_label("Sidekicks").is_some());
    assert!(h.query_by_label("You").is_none(), "the conflict message is not the person's");
    h.state_mut().shutdown();
}

/// A channel with a long history lays out only the entries in view: 300 earlier messages (made as
/// the channel makes them, their prompts not sent) are not laid out while the newest exchange,
/// answered by the real demo agents, shows at the bottom; scrolling to the top brings the first.
#[test]
fn a_long_channel_history_lays_out_only_what_is_in_view() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    // The history the channel service finds in the store.
    let store = sidekicks::runtime::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
    let mut earlier = sidekicks::model::channel::Timeline::default();
    let members = ["ada".to_string(), "bob".to_string()];
    for i in 0..300 {
        earlier.say("design", &format!("earlier message {i:03}"), &members);
    }
    store.save_channel(&dir.path().join("sidekicks.toml"), "design", &earlier).unwrap();
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the channel", |h| h.query_all_by_label("#design").next().is_some());
    step_until(&mut h, LONG, "its history", |h| {
        h.state().state.channels.channel("design").is_some_and(|c| c.timeline.entries.len() == 900)
    });
    h.get_all_by_label("#design").next().unwrap().click();
    say(&mut h, "the newest");
    step_until(&mut h, LONG, "both answers", |h| ["ada", "bob"].iter().all(|a| answered(h, a, "the newest")));
    step_until(&mut h, LONG, "the newest in view", |h| h.query_all_by_label("the newest").next().is_some());
    let laid_out = |h: &Harness<'static, SidekicksApp>| h.query_all_by_label_contains("earlier message").count();
    let at_bottom = laid_out(&h);
    assert!(at_bottom < 40, "{at_bottom} of the 300 earlier messages laid out");
    assert_eq!(h.query_all_by_label("earlier message 000").count(), 0);

    h.hover_at(egui::pos2(700.0, 300.0));
    h.step();
    for _ in 0..200 {
        h.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 2000.0),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Wheel,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
        if h.query_all_by_label("earlier message 000").next().is_some() {
            break;
        }
    }
    step_until(&mut h, LONG, "the first message", |h| h.query_all_by_label("earlier message 000").next().is_some());
    assert!(laid_out(&h) < 40, "{} laid out at the top", laid_out(&h));
    assert!(h.query_all_by_label("the newest").next().is_none(), "the newest is out of view");
    h.state_mut().shutdown();
}

/// The channel keeps what it showed (issue 33): a member's answer stays in the channel when the
/// member opens a new thread (its conversation no longer holds the answer), and after a restart.
#[test]
fn a_channel_keeps_an_answer_when_the_member_opens_another_thread() {
    use sidekicks::model::channel::Entry;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let rt = runtime();
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store.clone()));
    step_until(&mut h, LONG, "the channel", |h| h.query_all_by_label("#design").next().is_some());
    h.get_all_by_label("#design").next().unwrap().click();
    say(&mut h, "@ada what colour for the buttons?");
    let kept = |h: &Harness<'static, SidekicksApp>| -> Option<String> {
        let channel = h.state().state.channels.channel("design")?;
        channel.timeline.entries.iter().find_map(|e| match e {
            Entry::Answer { agent, text: Some(text), .. } if agent == "ada" => Some(text.clone()),
            _ => None,
        })
    };
    let deadline = std::time::Instant::now() + LONG;
    while kept(&h).is_none() {
        if std::time::Instant::now() > deadline {
            let channel = h.state().state.channels.channel("design").map(|c| c.timeline.entries.clone());
            let ada = h.state().state.agent("ada").map(|a| (a.state.clone(), a.conversation.messages.clone()));
            panic!("timed out waiting for ada's answer kept by the channel: {channel:?}\n{ada:?}");
        }
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let text = kept(&h).unwrap();
    assert_eq!(text.trim(), answer(&h, "ada", "@ada what colour for the buttons?").trim(), "the answer as she gave it");
    let line = text.lines().find(|l| l.trim().len() > 12).unwrap().trim().to_string();
    // A new thread: her conversation is empty, the channel still shows what she said.
    let new = sidekicks::protocol::threads::ThreadOp::New;
    h.state_mut().send(sidekicks::app::Command::Agent("ada".into(), sidekicks::app::AgentCommand::Thread { op: new }));
    step_until(&mut h, LONG, "her new thread", |h| {
        h.state().state.agent("ada").unwrap().conversation.messages.is_empty()
    });
    step_until(&mut h, LONG, "the answer still shown", |h| h.query_all_by_label_contains(&line).next().is_some());
    h.state_mut().shutdown();
    drop(h);
    // After a restart, too.
    let mut h = window(&config(dir.path()), dir.path(), &rt, Some(store));
    step_until(&mut h, LONG, "the channel", |h| h.query_all_by_label("#design").next().is_some());
    h.get_all_by_label("#design").next().unwrap().click();
    step_until(&mut h, LONG, "the answer after a restart", |h| h.query_all_by_label_contains(&line).next().is_some());
    h.state_mut().shutdown();
}

/// `@` completed no member's name: Tab after "@b" left the composer, and the space typed next
/// pressed Send — the half-typed "@b" went to every member. Tab now picks the name; Tab without a
/// menu stays in the composer.
#[test]
fn at_completes_members_names_and_tab_never_sends() {
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let mut h = window(&config(dir.path()), dir.path(), &rt, None);
    open_channel(&mut h);
    let composer =
        |h: &Harness<'static, SidekicksApp>| h.get_by_role(Role::MultilineTextInput).value().unwrap_or_default();
    h.get_by_role(Role::MultilineTextInput).click();
    h.step();
    h.get_by_role(Role::MultilineTextInput).type_text("@b");
    h.step();
    h.step();
    assert!(h.query_by_label("@bob").is_some(), "the members that match are listed");
    assert!(h.query_by_label("@ada").is_none());
    h.key_press(egui::Key::Tab);
    h.step();
    h.step();
    assert_eq!(composer(&h), "@bob ", "Tab completed the name");
    // Tab again (no menu): nothing leaves the composer; the space goes into the text.
    h.key_press(egui::Key::Tab);
    h.step();
    h.event(egui::Event::Text(" only you".into()));
    h.step();
    h.step();
    assert_eq!(composer(&h), "@bob  only you");
    let said =
        |h: &Harness<'static, SidekicksApp>| h.state().state.channels.channel("design").unwrap().timeline.entries.len();
    assert_eq!(said(&h), 0, "nothing was sent");
    h.key_press(egui::Key::Enter);
    step_until(&mut h, LONG, "Bob's answer", |h| answered(h, "bob", "@bob  only you"));
    assert!(answer(&h, "ada", "@bob  only you").is_empty(), "only Bob was asked");
    h.state_mut().shutdown();
}
