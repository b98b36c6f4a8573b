//! Images and files in prompts, with the real demo agent: an image (a real PNG of this repository)
//! travels as an ACP image and the agent decodes it; a file of the workspace goes with its text
//! when the agent takes embedded context, a folder as a link; an agent that takes only text gets
//! links and refuses images in words; the agent's own image and link come back as parts and
//! stay in the history; files are read by the runtime (`Command::Attach`); and
//! `sidekicks prompt --attach`. (The workspace's paths for `@`: tests/contracts/workspace_contract.rs.)

use std::path::Path;
use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::{Part, TurnEnd, Update};
use sidekicks::model::rel_path::RelPath;
use sidekicks::protocol::attachments::{AttachSource, Attachment};
use sidekicks::runtime::store::Store;

use crate::common;
use common::{BIN, Rig, config_text, fast_settings, load_config};

const WAIT: Duration = Duration::from_secs(20);
/// A real image: the README's screenshot.
const SCREENSHOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/screenshot.png");

async fn rig(dir: &Path, args: &[&str], store: Option<std::sync::Arc<Store>>) -> Rig {
    let rig = Rig::with_store(fast_settings(), store);
    load_config(&rig, dir, &config_text("", &[("demo", BIN, args)], dir)).await;
    rig
}

fn workspace(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("notes.md"), "# Notes\n\nfirst\nsecond\n").unwrap();
    std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
}

/// Reads `files` through the runtime, as a drop on the window does.
async fn attach(rig: &mut Rig, files: &[std::path::PathBuf]) -> Vec<Result<Attachment, String>> {
    rig.send(Command::Agent("demo".into(), AgentCommand::Attach { source: AttachSource::Files(files.to_vec()) })).await;
    match rig.wait_for(WAIT, "attached", |e| matches!(e, Event::Agent(_, AgentEvent::Attached { .. }))).await {
        Event::Agent(_, AgentEvent::Attached { results, .. }) => results,
        _ => unreachable!(),
    }
}

async fn shutdown(mut rig: Rig) {
    rig.send(Command::Shutdown).await;
    rig.wait_for(WAIT, "shutdown", |e| *e == Event::ShutdownComplete).await;
}

async fn prompt(rig: &mut Rig, text: &str, attachments: Vec<Attachment>) -> TurnEnd {
    rig.send(Command::Agent(
        "demo".into(),
        AgentCommand::Prompt { text: text.into(), context: None, with_transcript: false, id: None, attachments },
    ))
    .await;
    rig.wait_turn_end("demo").await
}

#[tokio::test]
async fn images_and_files_travel_to_the_agent_and_its_own_come_back() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let store = Store::open(&dir.path().join("db/sidekicks.db")).unwrap();
    let mut rig = rig(dir.path(), &["demo-agent"], Some(store.clone())).await;

    // Read by the runtime: an image by its bytes, files of the workspace as mentions, the rest
    // refused in words.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "no").unwrap();
    let results = attach(
        &mut rig,
        &[SCREENSHOT.into(), dir.path().join("notes.md"), dir.path().join("src"), outside.path().join("secret.txt")],
    )
    .await;
    assert!(matches!(&results[0], Ok(Attachment::Image(i)) if i.mime == "image/png"), "{:?}", results[0]);
    assert_eq!(results[1], Ok(Attachment::Mention { path: RelPath::new("notes.md").unwrap(), dir: false }));
    assert_eq!(results[2], Ok(Attachment::Mention { path: RelPath::new("src").unwrap(), dir: true }));
    assert!(matches!(&results[3], Err(e) if e.contains("neither an image")), "{:?}", results[3]);
    let attachments: Vec<Attachment> = results.into_iter().take(3).map(Result::unwrap).collect();

    assert_eq!(prompt(&mut rig, "what do you see?", attachments).await, TurnEnd::EndTurn);
    let said = rig.agent_text("demo");
    assert!(said.contains("an image (image/png, 1100×720 pixels, 68271 bytes)"), "{said}");
    assert!(said.contains("notes.md` (4 lines)"), "the file's text went along: {said}");
    assert!(said.contains("a link to `src`"), "a folder goes as a link: {said}");
    // The person's message shows what it carried.
    let attached = rig
        .seen
        .iter()
        .find_map(|e| match e {
            Event::Agent(_, AgentEvent::UserMessage { attached, .. }) => Some(attached.clone()),
            _ => None,
        })
        .unwrap();
    assert!(matches!(&attached[0], Part::Image(i) if i.data.len() == 68271));
    assert!(matches!(&attached[1], Part::Resource(r) if r.name == "notes.md" && r.uri.starts_with("file:///")));

    // The agent's own picture and link.
    rig.clear();
    assert_eq!(rig.turn("demo", "draw a picture").await, TurnEnd::EndTurn);
    let updates = rig.updates("demo");
    let image = updates
        .iter()
        .find_map(|u| match u {
            Update::Image(i) => Some(i.clone()),
            _ => None,
        })
        .expect("an image in the answer");
    let decoded = image::load_from_memory(image.data.bytes()).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (64, 64));
    assert!(updates.iter().any(|u| matches!(u, Update::Resource(r) if r.name == "README.md" && r.text.is_none())));

    // Both stay in the history (the recorder saves in batches: wait until it has).
    // Kept under the agent's home, its workspace.
    let has = |pred: &dyn Fn(&Part) -> bool| {
        let stored = store.conversation(dir.path(), "demo").unwrap().messages;
        stored.iter().any(|m| m.parts.iter().any(pred))
    };
    let deadline = std::time::Instant::now() + WAIT;
    while !(has(&|p| matches!(p, Part::Image(i) if i.data.len() == 68271))
        && has(&|p| matches!(p, Part::Image(i) if *i == image)))
    {
        assert!(std::time::Instant::now() < deadline, "the images never reached the history");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    shutdown(rig).await;
}

#[tokio::test]
async fn an_agent_that_takes_only_text_gets_links_and_refuses_images_in_words() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let mut rig = rig(dir.path(), &["demo-agent", "--text-only"], None).await;
    let mention = Attachment::Mention { path: RelPath::new("notes.md").unwrap(), dir: false };
    assert_eq!(prompt(&mut rig, "read this", vec![mention]).await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("a link to `notes.md`"), "{}", rig.agent_text("demo"));

    let image = attach(&mut rig, &[SCREENSHOT.into()]).await.remove(0).unwrap();
    match prompt(&mut rig, "look", vec![image]).await {
        TurnEnd::Failed { message } => {
            assert!(message.contains("demo does not take images (screenshot.png (66.7 KB) not sent)"), "{message}")
        }
        other => panic!("not refused: {other:?}"),
    }
    // The agent is fine: the next message goes.
    assert_eq!(rig.turn("demo", "hello").await, TurnEnd::EndTurn);
    shutdown(rig).await;
}

#[test]
fn prompt_attach_sends_files_and_refuses_what_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path());
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let run = |attach: &[&Path]| {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(["prompt", "--agent", "demo", "--json", "what is this?", "--config"]).arg(&path);
        for a in attach {
            cmd.arg("--attach").arg(a);
        }
        cmd.output().unwrap()
    };
    let out = run(&[Path::new(SCREENSHOT), &dir.path().join("notes.md")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("1100×720 pixels"), "{stdout}");
    assert!(stdout.contains("notes.md` (4 lines)"), "{stdout}");

    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("a.txt"), "x").unwrap();
    let out = run(&[&elsewhere.path().join("a.txt")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is neither an image (PNG, JPEG, GIF, WebP) nor a file of the agent's workspace"),
        "{stderr}"
    );
}
