//! Every user-facing sentence, in English and French. `model` and `runtime` give codes and
//! data; this module turns them into words. Each key is written with both languages side by
//! side, so a missing translation does not compile, and a test checks that the placeholders of
//! both languages agree.

use crate::model::config::{Language, RuntimeConfig, RuntimeKind};
use crate::model::conversation::TurnEnd;
use crate::model::permission::Ask;
use crate::model::problem::{ProblemKind, ValueType};
use crate::protocol::{AgentState, CrashReason, HandshakeFailure, LogEntry, SpawnFailure};

mod config_doc;
mod strings;
pub use config_doc::config_doc;

pub use strings::{Key, tr};

/// `tr` with `{name}` placeholders replaced, and `{name:one|many}` by the word that agrees with
/// the number `name` holds ("1 file", "2 files"; in French, 0 and 1 are singular).
pub fn trf(lang: Language, key: Key, args: &[(&str, &str)]) -> String {
    let mut text = tr(lang, key).to_string();
    for (name, value) in args {
        text = text.replace(&format!("{{{name}}}"), value);
        let open = format!("{{{name}:");
        while let Some(start) = text.find(&open) {
            let Some(len) = text[start..].find('}') else { break };
            let (one, many) = text[start + open.len()..start + len].split_once('|').unwrap_or(("", ""));
            let word = match value.parse::<u64>() {
                Ok(n) => plural(lang, n, one, many),
                Err(_) => many,
            }
            .to_owned();
            text.replace_range(start..start + len + 1, &word);
        }
    }
    text
}

/// `one` or `many`, as agrees with `n` in `lang` (French: 0 and 1 are singular).
pub fn plural<'a>(lang: Language, n: u64, one: &'a str, many: &'a str) -> &'a str {
    let singular = match lang {
        Language::En => n == 1,
        Language::Fr => n <= 1,
    };
    if singular { one } else { many }
}

/// A tool call's kind in words.
pub fn tool_kind_text(lang: Language, kind: crate::model::tool::ToolKind) -> &'static str {
    use crate::model::tool::ToolKind;
    tr(
        lang,
        match kind {
            ToolKind::Read => Key::KindRead,
            ToolKind::Edit => Key::KindEdit,
            ToolKind::Delete => Key::KindDelete,
            ToolKind::Move => Key::KindMove,
            ToolKind::Search => Key::KindSearch,
            ToolKind::Execute => Key::KindExecute,
            ToolKind::Think => Key::KindThink,
            ToolKind::Fetch => Key::KindFetch,
            ToolKind::Other => Key::KindOther,
        },
    )
}

/// `bytes` as each language writes a size: "12.3 KB", "12,3 Ko".
pub fn size_text(lang: Language, bytes: usize) -> String {
    let (value, unit) = match bytes {
        b if b < 1024 => return format!("{b} {}", tr(lang, Key::Bytes)),
        b if b < 1 << 20 => (b as f64 / 1024.0, Key::Kilobytes),
        b => (b as f64 / (1 << 20) as f64, Key::Megabytes),
    };
    let number = format!("{value:.1}");
    let number = match lang {
        Language::Fr => number.replace('.', ","),
        _ => number,
    };
    format!("{number} {}", tr(lang, unit))
}

fn type_name(lang: Language, t: ValueType) -> &'static str {
    let key = match t {
        ValueType::String => Key::TypeString,
        ValueType::Integer => Key::TypeInteger,
        ValueType::Boolean => Key::TypeBoolean,
        ValueType::Table => Key::TypeTable,
        ValueType::StringArray => Key::TypeStringArray,
        ValueType::TableArray => Key::TypeTableArray,
    };
    tr(lang, key)
}

/// The TOML type name the loader reports, in words.
fn found_name(lang: Language, found: &str) -> String {
    let key = match found {
        "string" => Key::FoundString,
        "integer" => Key::FoundInteger,
        "float" => Key::FoundFloat,
        "boolean" => Key::FoundBoolean,
        "datetime" => Key::FoundDatetime,
        "array" => Key::FoundArray,
        "table" => Key::FoundTable,
        other => return other.to_string(),
    };
    tr(lang, key).to_string()
}

/// A config problem in words.
pub fn problem_text(lang: Language, kind: &ProblemKind) -> String {
    use ProblemKind as P;
    match kind {
        P::Unreadable { path, message } => trf(lang, Key::Unreadable, &[("path", path), ("message", message)]),
        P::Syntax { message } => {
            let message = match lang {
                Language::Fr => crate::i18n_toml::french(message).unwrap_or_else(|| format!("« {message} »")),
                Language::En => message.clone(),
            };
            trf(lang, Key::Syntax, &[("message", &message)])
        }
        P::Unclosed { open, line } => {
            trf(lang, Key::Unclosed, &[("open", &open.to_string()), ("line", &line.to_string())])
        }
        P::UnknownKey { key, suggestion: None } => trf(lang, Key::UnknownKey, &[("key", key)]),
        P::UnknownKey { key, suggestion: Some(s) } => {
            trf(lang, Key::UnknownKeySuggest, &[("key", key), ("suggestion", s)])
        }
        P::MissingKey { key } => trf(lang, Key::MissingKey, &[("key", key)]),
        P::WrongType { key, expected, found } => trf(
            lang,
            Key::WrongType,
            &[("key", key), ("expected", type_name(lang, *expected)), ("found", &found_name(lang, found))],
        ),
        P::Empty { key } => trf(lang, Key::Empty, &[("key", key)]),
        P::OutOfRange { key, min, max } => {
            trf(lang, Key::OutOfRange, &[("key", key), ("min", &min.to_string()), ("max", &max.to_string())])
        }
        P::DuplicateAgent { name } => trf(lang, Key::DuplicateAgent, &[("name", name)]),
        P::DuplicateChannel { name } => trf(lang, Key::DuplicateChannel, &[("name", name)]),
        P::MissingFolder { path } => trf(lang, Key::MissingFolder, &[("path", path)]),
        P::UnknownRuntime { found } => trf(lang, Key::UnknownRuntime, &[("found", found)]),
        P::UnknownPolicy { key, found } => trf(lang, Key::UnknownPolicy, &[("key", key), ("found", found)]),
        P::RuntimeNeeds { kind, key } => trf(lang, Key::RuntimeNeeds, &[("kind", kind.code()), ("key", key)]),
        P::RuntimeIgnores { kind, key } => trf(lang, Key::RuntimeIgnores, &[("kind", kind.code()), ("key", key)]),
        P::BadHost { host, why } => {
            use crate::model::ssh_host::HostProblem as H;
            let why = tr(
                lang,
                match why {
                    H::Dash => Key::BadHostDash,
                    H::Blank => Key::BadHostBlank,
                    H::Port => Key::BadHostPort,
                },
            );
            trf(lang, Key::BadHost, &[("host", host), ("why", why)])
        }
        P::DuplicateMcp { name } => trf(lang, Key::DuplicateMcp, &[("name", name)]),
        P::McpNeeds { transport, key } => trf(lang, Key::McpNeeds, &[("transport", transport), ("key", key)]),
        P::McpIgnores { transport, key } => trf(lang, Key::McpIgnores, &[("transport", transport), ("key", key)]),
        P::UnknownMcpType { found } => trf(lang, Key::UnknownMcpType, &[("found", found)]),
        P::UnknownAgent { name } => trf(lang, Key::UnknownAgent, &[("name", name)]),
        P::UnknownChannel { name } => trf(lang, Key::UnknownChannel, &[("name", name)]),
        P::InvalidEnvName { name } => trf(lang, Key::InvalidEnvName, &[("name", name)]),
        P::UnknownLanguage { found } => trf(lang, Key::UnknownLanguage, &[("found", found)]),
        P::UnknownSendKey { found } => trf(lang, Key::UnknownSendKey, &[("found", found)]),
        P::UnknownTheme { found } => trf(lang, Key::UnknownTheme, &[("found", found)]),
        P::CommandNotFound { command } => trf(lang, Key::CommandNotFound, &[("command", command)]),
        P::EnvReadableByOthers { name } => trf(lang, Key::EnvReadableByOthers, &[("name", name)]),
    }
}

/// The short state shown next to an agent.
pub fn state_text(lang: Language, state: &AgentState) -> &'static str {
    let key = match state {
        AgentState::Stopped => Key::StateStopped,
        AgentState::Starting => Key::StateStarting,
        AgentState::Idle => Key::StateIdle,
        AgentState::Busy => Key::StateBusy,
        AgentState::Stopping => Key::StateStopping,
        // It never ran: "crashed" would say otherwise.
        AgentState::Crashed(report) if matches!(report.reason, CrashReason::Spawn(_)) => Key::StateCannotStart,
        AgentState::Crashed(report) if matches!(report.reason, CrashReason::Disconnected { .. }) => {
            Key::StateDisconnected
        }
        AgentState::Crashed(_) => Key::StateCrashed,
    };
    tr(lang, key)
}

/// Words for a team error.
pub fn team_error_text(lang: Language, error: &crate::protocol::teams::TeamError) -> String {
    use crate::protocol::teams::{TeamError as T, Unavailable as U};
    match error {
        T::Unavailable { reason } => {
            let reason = match reason {
                U::NotAFolder => tr(lang, Key::UnavailableNotFolder).to_string(),
                U::NotGit => tr(lang, Key::UnavailableNotGit).to_string(),
                U::NotTopFolder => tr(lang, Key::UnavailableNotTop).to_string(),
                U::NoCommit => tr(lang, Key::UnavailableNoCommit).to_string(),
                U::NoClone => tr(lang, Key::UnavailableNoClone).to_string(),
                U::OtherFilesystem => tr(lang, Key::UnavailableOtherFs).to_string(),
                U::CloneFailed(message) => message.clone(),
            };
            trf(lang, Key::CannotUseKind, &[("reason", &reason)])
        }
        T::CopyGone(path) => trf(lang, Key::CopyGone, &[("path", path)]),
        T::CheckFailed { why, .. } => trf(lang, Key::ScratchCheckFailed, &[("why", why)]),
        T::Recipe(message) => trf(lang, Key::RecipeError, &[("message", message)]),
        T::RecipeFromMember { member } => trf(lang, Key::RecipeFromMember, &[("member", member)]),
        T::ReviewStale(path) => trf(lang, Key::ReviewStale, &[("path", path)]),
        T::HunkConflicts(path) => trf(lang, Key::HunkConflicts, &[("path", path)]),
        T::PicksOverlap { path, first, second } => trf(
            lang,
            Key::PicksOverlap,
            &[
                ("path", path),
                ("first", crate::model::member_name::in_team(first)),
                ("second", crate::model::member_name::in_team(second)),
            ],
        ),
        T::AlreadyMember(agent) => trf(lang, Key::AlreadyMember, &[("agent", agent)]),
        T::NameTaken(name) => trf(lang, Key::TeamNameTaken, &[("name", name)]),
        T::NothingToUndo => tr(lang, Key::NothingToUndo).to_string(),
        T::Container { agent, message } => {
            trf(lang, Key::MemberContainerFailed, &[("agent", agent), ("message", message)])
        }
        T::Far { place, message } => trf(lang, Key::FarCopyFailed, &[("place", place), ("message", message)]),
        T::StillConflicted(paths) => trf(lang, Key::StillConflictedError, &[("paths", &paths.join(", "))]),
        T::ChangedSinceMerge(paths) => trf(lang, Key::ChangedSinceMerge, &[("paths", &paths.join(", "))]),
        T::TooBig { path, size, limit } => trf(
            lang,
            Key::FileTooBig,
            &[("path", path), ("size", &size_text(lang, *size as usize)), ("limit", &size_text(lang, *limit as usize))],
        ),
        // Git's and the system's own words.
        other => trf(lang, Key::TeamError, &[("message", &other.to_string())]),
    }
}

/// Where a runtime kind (`sbx`, `kubectl`, …) runs an agent, in words ("a Docker sandbox").
pub fn runtime_place(lang: Language, kind: &str) -> String {
    match kind {
        "sbx" => tr(lang, Key::PlaceSandbox).to_string(),
        "kubectl" => tr(lang, Key::PlacePod).to_string(),
        "ssh" => tr(lang, Key::PlaceSsh).to_string(),
        other => other.to_string(),
    }
}

/// What the person is told about the history as it was opened.
pub fn history_note_text(lang: Language, note: &crate::protocol::HistoryNote) -> String {
    use crate::protocol::HistoryNote;
    match note {
        HistoryNote::Recovered { path, kept_as, error } => trf(
            lang,
            Key::HistoryRecovered,
            &[("path", &path.display().to_string()), ("kept", &kept_as.display().to_string()), ("error", error)],
        ),
        HistoryNote::SaveFailed { error } => trf(lang, Key::HistorySaveFailed, &[("error", error)]),
        HistoryNote::Saved => tr(lang, Key::HistorySavedAgain).to_string(),
        HistoryNote::RulesDropped { count } => trf(lang, Key::RulesDropped, &[("count", &count.to_string())]),
        HistoryNote::Unavailable { path, error } => {
            trf(lang, Key::HistoryUnavailable, &[("path", &path.display().to_string()), ("error", error)])
        }
    }
}

/// Why an agent crashed, in words.
pub fn crash_text(lang: Language, reason: &CrashReason) -> String {
    match reason {
        CrashReason::Exited { code } => trf(lang, Key::CrashExited, &[("code", &code.to_string())]),
        CrashReason::Signaled { signal } => trf(lang, Key::CrashSignaled, &[("signal", &signal.to_string())]),
        CrashReason::Spawn(failure) => {
            let why = spawn_text(lang, failure);
            trf(lang, Key::CrashSpawn, &[("message", &why)])
        }
        CrashReason::Handshake(failure) => {
            let why = handshake_text(lang, failure);
            trf(lang, Key::CrashHandshake, &[("message", &why)])
        }
        CrashReason::StoppedTalking => tr(lang, Key::CrashStoppedTalking).to_string(),
        CrashReason::Disconnected { host } => trf(lang, Key::CrashDisconnected, &[("host", host)]),
    }
}

/// What went wrong reaching `host` over SSH, and what to do.
pub fn ssh_fault_text(lang: Language, host: &str, fault: &crate::protocol::SshFault) -> String {
    use crate::protocol::SshFault as F;
    match fault {
        F::HostKeyUnknown { fingerprints, command } => trf(
            lang,
            Key::SshHostKeyUnknown,
            &[("host", host), ("fingerprints", &fingerprints.join("; ")), ("command", command)],
        ),
        F::HostKeyChanged { command } => trf(lang, Key::SshHostKeyChanged, &[("host", host), ("command", command)]),
        F::AuthRefused { methods } => trf(lang, Key::SshAuthRefused, &[("host", host), ("methods", methods)]),
        F::Unreachable { detail } => trf(lang, Key::SshUnreachable, &[("host", host), ("detail", detail)]),
        F::NoShell => trf(lang, Key::SshNoShell, &[("host", host)]),
        F::CommandMissing { program } => trf(lang, Key::SshCommandMissing, &[("host", host), ("program", program)]),
        F::FolderMissing { path } => trf(lang, Key::SshFolderMissing, &[("host", host), ("path", path)]),
        F::Other { message } => trf(lang, Key::SshOther, &[("host", host), ("message", message)]),
    }
}

fn spawn_text(lang: Language, failure: &SpawnFailure) -> String {
    match failure {
        SpawnFailure::NotFound { program } => trf(lang, Key::SpawnNotFound, &[("program", program)]),
        SpawnFailure::MissingFolder { path } => trf(lang, Key::SpawnNoFolder, &[("path", path)]),
        SpawnFailure::NotSupported { runtime } => trf(lang, Key::SpawnNotSupported, &[("runtime", runtime)]),
        SpawnFailure::ToolMissing { tool, runtime } => {
            trf(lang, Key::SpawnToolMissing, &[("tool", tool), ("runtime", runtime)])
        }
        SpawnFailure::ContainerMissing { name } => trf(lang, Key::SpawnNoContainer, &[("name", name)]),
        SpawnFailure::ContainerStopped { name } => trf(lang, Key::SpawnContainerStopped, &[("name", name)]),
        SpawnFailure::Ssh { host, fault } => ssh_fault_text(lang, host, fault),
        SpawnFailure::Other { program, message } => {
            trf(lang, Key::SpawnOther, &[("program", program), ("message", message)])
        }
    }
}

fn handshake_text(lang: Language, failure: &HandshakeFailure) -> String {
    match failure {
        HandshakeFailure::Timeout { step, seconds } => {
            trf(lang, Key::HandshakeTimeout, &[("step", step), ("seconds", &seconds.to_string())])
        }
        HandshakeFailure::Error { step, message } => {
            trf(lang, Key::HandshakeError, &[("step", step), ("message", message)])
        }
        HandshakeFailure::Version { version } => trf(lang, Key::HandshakeVersion, &[("version", version)]),
        HandshakeFailure::AuthRequired { message, .. } => trf(lang, Key::LoginNeeded, &[("message", message)]),
    }
}

/// A workspace error, in words.
pub fn workspace_error_text(lang: Language, error: &crate::protocol::workspace::WorkspaceError) -> String {
    use crate::protocol::workspace::WorkspaceError as W;
    match error {
        W::Outside { path } => trf(lang, Key::WsOutside, &[("path", path)]),
        W::NotFound { path } => trf(lang, Key::WsNotFound, &[("path", path)]),
        W::Exists { path } => trf(lang, Key::WsExists, &[("path", path)]),
        W::Conflict { path, .. } => trf(lang, Key::WsConflict, &[("path", path)]),
        W::IsFolder { path } => trf(lang, Key::WsIsFolder, &[("path", path)]),
        W::IsRoot => tr(lang, Key::WsIsRoot).to_string(),
        W::Unreachable { host, fault } => ssh_fault_text(lang, host, fault),
        W::NotSupported { what } => trf(lang, Key::WsNotSupported, &[("what", what)]),
        W::Io { path, message } => trf(lang, Key::WsIo, &[("path", path), ("message", message)]),
    }
}

/// A line of an agent's Log, in words.
pub fn log_text(lang: Language, entry: &LogEntry) -> String {
    match entry {
        LogEntry::Stderr(line) => line.clone(),
        LogEntry::NotAcp(line) => trf(lang, Key::LogNotAcp, &[("line", line)]),
        LogEntry::LongLine { megabytes, start } => {
            trf(lang, Key::LogLongLine, &[("mb", &megabytes.to_string()), ("start", start)])
        }
        LogEntry::BadUpdate { error, update } => trf(lang, Key::LogBadUpdate, &[("error", error), ("update", update)]),
        LogEntry::UnknownToolCall { id } => trf(lang, Key::LogUnknownToolCall, &[("id", id)]),
        LogEntry::OtherSession { session, method } => {
            trf(lang, Key::LogOtherSession, &[("session", session), ("method", method)])
        }
    }
}

/// How a turn ended, in words (empty for a normal end).
pub fn turn_end_text(lang: Language, end: &TurnEnd) -> String {
    match end {
        TurnEnd::EndTurn => tr(lang, Key::EndTurn).to_string(),
        TurnEnd::MaxTokens => tr(lang, Key::EndMaxTokens).to_string(),
        TurnEnd::MaxTurnRequests => tr(lang, Key::EndMaxTurnRequests).to_string(),
        TurnEnd::Refusal => tr(lang, Key::EndRefusal).to_string(),
        TurnEnd::Cancelled => tr(lang, Key::EndCancelled).to_string(),
        TurnEnd::Failed { message } => trf(lang, Key::EndFailed, &[("message", message)]),
        TurnEnd::AgentExited => tr(lang, Key::EndAgentExited).to_string(),
        TurnEnd::AuthRequired { message } => trf(lang, Key::LoginNeeded, &[("message", message)]),
    }
}

/// Where an agent runs: "local", "container web", "sandbox dev", "pod x".
pub fn where_text(lang: Language, runtime: &RuntimeConfig) -> String {
    let name = runtime.target_name().unwrap_or("?");
    match runtime.kind {
        RuntimeKind::Local => tr(lang, Key::WhereLocal).to_string(),
        RuntimeKind::Container | RuntimeKind::Podman => trf(lang, Key::WhereContainer, &[("name", name)]),
        RuntimeKind::Sbx => trf(lang, Key::WhereSandbox, &[("name", name)]),
        RuntimeKind::Kubectl => trf(lang, Key::WherePod, &[("name", name)]),
        RuntimeKind::Ssh => trf(lang, Key::WhereSsh, &[("name", name)]),
    }
}

/// What the card says the agent wants.
pub fn ask_text(lang: Language, agent: &str, runtime: &RuntimeConfig, ask: &Ask) -> String {
    let name = runtime.target_name().unwrap_or("?");
    match ask {
        Ask::RunCommand { .. } => match runtime.kind {
            RuntimeKind::Local => trf(lang, Key::AskRunHere, &[("agent", agent)]),
            RuntimeKind::Container | RuntimeKind::Podman => {
                trf(lang, Key::AskRunContainer, &[("agent", agent), ("name", name)])
            }
            RuntimeKind::Sbx => trf(lang, Key::AskRunSandbox, &[("agent", agent), ("name", name)]),
            RuntimeKind::Kubectl => trf(lang, Key::AskRunPod, &[("agent", agent), ("name", name)]),
            RuntimeKind::Ssh => trf(lang, Key::AskRunSsh, &[("agent", agent), ("name", name)]),
        },
        Ask::EditFile { path, lines: Some(lines) } => {
            trf(lang, Key::AskWriteLines, &[("agent", agent), ("path", path), ("lines", &lines.to_string())])
        }
        Ask::EditFile { path, lines: None } => trf(lang, Key::AskEdit, &[("agent", agent), ("path", path)]),
        Ask::DeleteFile { path } => trf(lang, Key::AskDelete, &[("agent", agent), ("path", path)]),
        Ask::MoveFile { path } => trf(lang, Key::AskMove, &[("agent", agent), ("path", path)]),
        Ask::ReadFile { path } => trf(lang, Key::AskRead, &[("agent", agent), ("path", path)]),
        Ask::Fetch { what } => trf(lang, Key::AskFetch, &[("agent", agent), ("what", what)]),
        Ask::Other { title } => trf(lang, Key::AskOther, &[("agent", agent), ("title", title)]),
    }
}

/// A change's kind in words.
pub fn change_text(lang: Language, kind: &crate::protocol::teams::ChangeKind) -> String {
    use crate::protocol::teams::ChangeKind;
    match kind {
        ChangeKind::Added => tr(lang, Key::ChangeAdded).into(),
        ChangeKind::Modified => tr(lang, Key::ChangeModified).into(),
        ChangeKind::Deleted => tr(lang, Key::ChangeDeleted).into(),
        ChangeKind::Renamed { from } => trf(lang, Key::ChangeRenamed, &[("from", from)]),
        ChangeKind::Mode => tr(lang, Key::ChangeMode).into(),
        ChangeKind::Type => tr(lang, Key::ChangeType).into(),
    }
}

/// Why a path could not be merged, in words.
pub fn conflict_text(lang: Language, kind: crate::model::merge::ConflictKind) -> &'static str {
    tr(
        lang,
        match kind {
            crate::model::merge::ConflictKind::Text => Key::ConflictTextKind,
            crate::model::merge::ConflictKind::Binary => Key::ConflictBinary,
            crate::model::merge::ConflictKind::TooLarge => Key::ConflictTooLarge,
            crate::model::merge::ConflictKind::MemberDeleted => Key::ConflictMemberDeleted,
            crate::model::merge::ConflictKind::MainDeleted => Key::ConflictMainDeleted,
            crate::model::merge::ConflictKind::Kind => Key::ConflictKindKind,
            crate::model::merge::ConflictKind::Folder => Key::ConflictFolder,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders(s: &str) -> Vec<String> {
        let mut out: Vec<String> = s
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.split(':').next().unwrap_or(name).to_string()))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn both_languages_have_every_key_with_the_same_placeholders() {
        for key in Key::ALL {
            let en = tr(Language::En, *key);
            let fr = tr(Language::Fr, *key);
            assert_eq!(placeholders(en), placeholders(fr), "placeholders differ for {key:?}");
            if *key != Key::EndTurn {
                assert!(!en.is_empty() && !fr.is_empty(), "{key:?} is empty in a language");
            }
        }
    }

    /// English units and words left in French text (issue 35: "KB", "Commit dans une branche…").
    #[test]
    fn french_text_has_no_english_units_or_words() {
        for key in Key::ALL {
            let fr = tr(Language::Fr, *key);
            for english in [" KB", " MB", "Commit ", " file(s)", "(s)"] {
                assert!(!fr.contains(english), "{key:?}: {fr}");
            }
        }
    }

    #[test]
    fn counted_words_agree_with_their_number() {
        let merged = |lang, n: &str| trf(lang, Key::MergedReport, &[("applied", n)]);
        assert_eq!(merged(Language::En, "1"), "Merged: 1 file applied to the project.");
        assert_eq!(merged(Language::En, "0"), "Merged: 0 files applied to the project.");
        assert_eq!(merged(Language::Fr, "0"), "Fusionné : 0 fichier appliqué au projet.");
        assert_eq!(merged(Language::Fr, "3"), "Fusionné : 3 fichiers appliqués au projet.");
        let kept = trf(Language::En, Key::DiscardMemberUnmerged, &[("member", "ada"), ("count", "2")]);
        assert!(kept.starts_with("Delete ada's copy? Its 2 changed files not merged are kept"), "{kept}");
        for key in Key::ALL {
            for lang in [Language::En, Language::Fr] {
                let text = trf(lang, *key, &[("count", "2"), ("applied", "2"), ("files", "2")]);
                for name in ["{count:", "{applied:", "{files:"] {
                    assert!(!text.contains(name), "{key:?}: a choice left unmade: {text}");
                }
            }
        }
    }

    #[test]
    fn problems_read_in_french() {
        let kind = ProblemKind::UnknownRuntime { found: "dockr".into() };
        assert!(problem_text(Language::Fr, &kind).starts_with("Type d’environnement inconnu « dockr »"));
        assert!(problem_text(Language::En, &kind).starts_with("Unknown runtime type \"dockr\""));
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    #[test]
    fn sizes_are_written_as_each_language_writes_them() {
        assert_eq!(size_text(Language::En, 512), "512 B");
        assert_eq!(size_text(Language::Fr, 512), "512 o");
        assert_eq!(size_text(Language::En, 12_595), "12.3 KB");
        assert_eq!(size_text(Language::Fr, 12_595), "12,3 Ko");
        assert_eq!(size_text(Language::Fr, 10 << 20), "10,0 Mo");
    }
}

/// `text` between the quotes of `lang`: “text” in English, « text » in French.
pub fn quoted(lang: Language, text: &str) -> String {
    match lang {
        Language::En => format!("“{text}”"),
        Language::Fr => format!("«\u{a0}{text}\u{a0}»"),
    }
}
