//! Elicitation with the real demo agent: a form arrives with its typed fields and the answer goes
//! back as the agent expects; Decline and a stopped turn (cancel) are told to the agent; a page
//! to open is accepted and the agent's `elicitation/complete` reaches the window; and
//! `sidekicks prompt` cancels what it cannot answer, saying so.

use std::time::Duration;

use sidekicks::app::AgentCommand;
use sidekicks::app::AgentEvent;
use sidekicks::app::{Command, Event};
use sidekicks::model::conversation::TurnEnd;
use sidekicks::model::elicitation::{ElicitAnswer, ElicitKind, Elicitation, FieldKind, Value};

use crate::common;
use common::{BIN, Rig, config_text, demo_rig};

const WAIT: Duration = Duration::from_secs(20);

async fn asked(rig: &mut Rig) -> Elicitation {
    match rig
        .wait_for(WAIT, "an elicitation", |e| matches!(e, Event::Agent(_, AgentEvent::ElicitationRequested { .. })))
        .await
    {
        Event::Agent(_, AgentEvent::ElicitationRequested { request, .. }) => request,
        _ => unreachable!(),
    }
}

async fn answer(rig: &mut Rig, id: u64, answer: ElicitAnswer) {
    rig.send(Command::Agent("demo".into(), AgentCommand::AnswerElicitation { id, answer: answer.clone() })).await;
    rig.wait_for(
        WAIT,
        "resolved",
        |e| matches!(e, Event::Agent(_, AgentEvent::ElicitationResolved { id: i, .. }) if *i == id),
    )
    .await;
}

fn prompt(text: &str) -> Command {
    Command::prompt("demo", text)
}

#[tokio::test]
async fn a_form_is_filled_declined_or_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    rig.send(prompt("fill the form")).await;
    let form = asked(&mut rig).await;
    assert_eq!(form.message, "I need a few details before I deploy.");
    let ElicitKind::Form { title, fields } = &form.kind else { panic!("not a form: {form:?}") };
    assert_eq!(title.as_deref(), Some("Deploy settings"));
    let names: Vec<(&str, bool)> = fields.iter().map(|f| (f.name.as_str(), f.required)).collect();
    assert_eq!(names, [("env", true), ("name", true), ("notify", false), ("replicas", false)]);
    assert!(matches!(&fields[3].kind, FieldKind::Number { integer: true, min: Some(1.0), max: Some(5.0), .. }));
    let values = [
        ("name".to_string(), Value::Text("Ada".into())),
        ("env".to_string(), Value::Text("production".into())),
        ("replicas".to_string(), Value::Integer(3)),
        ("notify".to_string(), Value::Bool(false)),
    ];
    answer(&mut rig, form.id, ElicitAnswer::Accept(values.into())).await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert!(
        rig.agent_text("demo").contains(r#"You answered: env="production", name="Ada", notify=false, replicas=3."#),
        "{}",
        rig.agent_text("demo")
    );

    rig.clear();
    rig.send(prompt("form")).await;
    let form = asked(&mut rig).await;
    answer(&mut rig, form.id, ElicitAnswer::Decline).await;
    rig.wait_turn_end("demo").await;
    assert!(rig.agent_text("demo").contains("You declined: I will not deploy."));

    // Stopping the turn cancels the form.
    rig.clear();
    rig.send(prompt("form")).await;
    let form = asked(&mut rig).await;
    rig.send(Command::Agent("demo".into(), AgentCommand::Cancel)).await;
    let resolved =
        rig.wait_for(WAIT, "cancelled", |e| matches!(e, Event::Agent(_, AgentEvent::ElicitationResolved { .. }))).await;
    assert_eq!(
        resolved,
        Event::Agent("demo".into(), AgentEvent::ElicitationResolved { id: form.id, answer: ElicitAnswer::Cancel })
    );
}

#[tokio::test]
async fn a_page_to_open_is_accepted_and_completed() {
    let dir = tempfile::tempdir().unwrap();
    let mut rig = demo_rig(dir.path()).await;
    rig.send(prompt("consent")).await;
    let page = asked(&mut rig).await;
    let ElicitKind::Url { url, elicitation_id } = &page.kind else { panic!("not a page: {page:?}") };
    assert_eq!((url.as_str(), elicitation_id.as_str()), ("https://example.com/demo/consent", "demo-consent-1"));
    answer(&mut rig, page.id, ElicitAnswer::Accept(Default::default())).await;
    rig.wait_for(
        WAIT,
        "completed",
        |e| matches!(e, Event::Agent(_, AgentEvent::ElicitationCompleted { elicitation_id, .. }) if elicitation_id == "demo-consent-1"),
    )
    .await;
    assert_eq!(rig.wait_turn_end("demo").await, TurnEnd::EndTurn);
    assert!(rig.agent_text("demo").contains("access approved"));
}

#[test]
fn prompt_cancels_a_form_it_cannot_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sidekicks.toml");
    std::fs::write(&path, config_text("", &[("demo", BIN, &["demo-agent"])], dir.path())).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["prompt", "--agent", "demo", "form", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "demo asks: I need a few details before I deploy. — `sidekicks prompt` cannot answer it: cancelled"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("Cancelled: nothing deployed."), "{stdout}");
}
