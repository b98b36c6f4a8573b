//! The history service's threads no agent owns: after each change of the config, the stored
//! threads whose agent (name and home) is not one of the config's are told to the window (All
//! threads lists them, read only, deletable); reading and deleting one; and where a search looks.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use crate::model::config::Config;
use crate::protocol::Event;
use crate::protocol::threads::{HistoryCommand, HistoryEvent, OtherThread, ThreadId};
use crate::runtime::events::EventSink;
use crate::runtime::store::{SearchScope, Store};

/// The agents of `config` as the history keys them: (home, name).
fn owners(config: Option<&Config>) -> HashSet<(String, String)> {
    let agents = config.map(|c| c.agents.as_slice()).unwrap_or_default();
    agents.iter().map(|a| (a.workspace.display().to_string(), a.name.clone())).collect()
}

/// Where a search of `config_path` looks: its channels and its agents' threads.
pub(super) fn scope(config_path: &Path, config: Option<&Config>) -> SearchScope {
    let agents = config.map(|c| c.agents.as_slice()).unwrap_or_default();
    SearchScope::new(config_path, agents.iter().map(|a| (a.workspace.as_path(), a.name.as_str())))
}

/// The stored threads no agent of `config` owns.
fn others(store: &Store, config: Option<&Config>) -> Result<Vec<OtherThread>, crate::runtime::store::StoreError> {
    let owned = owners(config);
    Ok(store
        .all_threads()?
        .into_iter()
        .filter(|t| !owned.contains(&(t.home.clone(), t.agent.clone())))
        .map(|t| OtherThread { agent: t.agent, home: t.home, summary: t.row.summary() })
        .collect())
}

/// Tells the window the threads no agent of `config` owns, off the service's task.
pub(super) fn tell_others(store: Option<Arc<Store>>, config: Option<Config>, sink: EventSink) {
    let Some(store) = store else { return };
    tokio::spawn(async move {
        let read = tokio::task::spawn_blocking(move || others(&store, config.as_ref())).await;
        match read {
            Ok(Ok(threads)) => sink.send(Event::History(HistoryEvent::Others { threads })).await,
            Ok(Err(e)) => tracing::warn!("cannot list the stored threads: {e}"),
            Err(e) => tracing::warn!("cannot list the stored threads: {e}"),
        }
    });
}

/// Serves a history command. Only a thread no agent of `config` owns is read or deleted here (an
/// agent's own threads go through the agent: its session, its list).
pub(super) fn serve(command: HistoryCommand, store: Option<Arc<Store>>, config: Option<Config>, sink: EventSink) {
    let Some(store) = store else { return };
    tokio::spawn(async move {
        let (thread, delete) = match command {
            HistoryCommand::Read(id) => (id, false),
            HistoryCommand::Delete(id) => (id, true),
        };
        let work = {
            let store = store.clone();
            let config = config.clone();
            move || -> Result<Option<Vec<crate::model::conversation::Message>>, String> {
                let listed = others(&store, config.as_ref()).map_err(|e| e.to_string())?;
                if !listed.iter().any(|t| t.summary.id == thread) {
                    return Err(format!("thread {thread} is not one of the threads no agent owns"));
                }
                if delete {
                    store.delete_thread(thread).map_err(|e| e.to_string())?;
                    return Ok(None);
                }
                store.thread(thread).map(|t| Some(t.messages)).map_err(|e| e.to_string())
            }
        };
        let done = tokio::task::spawn_blocking(work).await.map_err(|e| e.to_string()).and_then(|r| r);
        match done {
            Ok(None) => tell_others(Some(store), config, sink),
            Ok(Some(messages)) => read(&sink, thread, Ok(messages)).await,
            Err(e) if delete => tracing::warn!("{e}"),
            Err(e) => read(&sink, thread, Err(e)).await,
        }
    });
}

async fn read(sink: &EventSink, thread: ThreadId, messages: Result<Vec<crate::model::conversation::Message>, String>) {
    sink.send(Event::History(HistoryEvent::Read { thread, messages })).await;
}
