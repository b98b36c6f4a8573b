//! A misbehaving disk under the history, through the agent manager and `sidekicks prompt`: a full
//! disk while an answer streams is said and caught up; a damaged history file is kept aside and a
//! fresh one started (split from misbehaving.rs, which keeps the agents that misbehave).

use sidekicks::app::Event;
use sidekicks::model::conversation::TurnEnd;
use sidekicks::runtime::store::Store;

use super::misbehaving::{LIMIT, MISBEHAVE, prompt, stored};
use crate::common;
use common::{BIN, Rig, config_text, fast_settings, load_config};

/// The disk filling while an answer streamed left a cut answer with no end in the history and
/// said nothing: it is said, kept in memory, and saved whole once there is room again.
#[tokio::test]
async fn a_full_disk_while_an_answer_streams_is_said_and_caught_up() {
    use sidekicks::protocol::HistoryNote;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("history.db")).unwrap();
    let mut rig = Rig::with_store(fast_settings(), Some(store.clone()));
    load_config(&rig, dir.path(), &config_text("", &[("bad", BIN, MISBEHAVE)], dir.path())).await;
    // The disk is full: the file may not grow.
    store.limit_pages(store.pages() + 2);
    assert_eq!(rig.turn("bad", "chunk 2").await, TurnEnd::EndTurn);
    let full = |e: &Event| matches!(e, Event::HistoryNote { note: HistoryNote::SaveFailed { .. } });
    if !rig.seen.iter().any(full) {
        rig.wait_for(LIMIT, "the full disk said", full).await;
    }
    // Room again: what was kept is saved, whole, with its end.
    store.limit_pages(1 << 30);
    let saved = |e: &Event| matches!(e, Event::HistoryNote { note: HistoryNote::Saved });
    rig.wait_for(LIMIT, "saved again", saved).await;
    let stored = store.conversation(dir.path(), "bad").unwrap().messages;
    let answer = stored.last().unwrap();
    assert_eq!(answer.text().len(), 2 << 20, "the whole answer");
    assert_eq!(answer.end, Some(TurnEnd::EndTurn));
}

/// A damaged history made every `prompt` fail ("file is not a database", no path, no way out):
/// it is kept aside, named, and a fresh one is started.
#[test]
fn a_damaged_history_is_kept_aside_and_a_new_one_started() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data/sidekicks");
    std::fs::create_dir_all(&data).unwrap();
    let garbage = "this is not a database, it is a text file\n".repeat(200);
    std::fs::write(data.join("sidekicks.db"), &garbage).unwrap();
    let out = prompt(dir.path(), &["--agent", "demo"], "hello").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let db = data.join("sidekicks.db");
    assert!(err.contains(&format!("The history {} could not be read (", db.display())), "{err}");
    let aside: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("sidekicks.db.damaged-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(err.contains(&format!("it was kept as {} and a new one was started", aside[0].display())), "{err}");
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), garbage, "kept as it was");
    assert!(!stored(dir.path(), "demo").is_empty(), "the new history keeps the conversation");
    // Named by the date and time it was found, as a person reads it; damaged again the same
    // minute, the second is kept beside the first.
    let name = aside[0].file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name.strip_prefix("sidekicks.db.damaged-").unwrap();
    let digits: String = stamp.chars().map(|c| if c.is_ascii_digit() { '9' } else { c }).collect();
    assert_eq!(digits, "9999-99-99-9999", "{name}");
    std::fs::write(&db, &garbage).unwrap();
    let out = prompt(dir.path(), &["--agent", "demo"], "hello").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let count = std::fs::read_dir(&data).unwrap().flatten().filter(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        name.contains(".damaged-") && !name.ends_with("-wal") && !name.ends_with("-shm")
    });
    assert_eq!(count.count(), 2, "both damaged files kept");
}
