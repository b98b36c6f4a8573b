//! Problems found in a config file: a position and a code with its data. The words for each
//! code live in `ui::i18n`, so the same problem reads in English or French.

use std::ops::Range;

use super::config::RuntimeKind;

/// The type a config value should have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// A table (`[x]` or `{ … }`).
    Table,
    /// An array of strings.
    StringArray,
    /// An array of tables (`[[x]]`).
    TableArray,
}

/// What is wrong, with the data the message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// The file could not be read.
    Unreadable {
        /// The path it is about.
        path: String,
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// The text is not valid TOML (the parser's own words).
    Syntax {
        /// The message, in the words of whoever gave it.
        message: String,
    },
    /// A `[` or `{` opened in a value and never closed (the errors after it are its cascade).
    Unclosed {
        /// `[` or `{`.
        open: char,
        /// The line it was opened on (1-based).
        line: usize,
    },
    /// A key this table does not know; `suggestion` is a close known key.
    UnknownKey {
        /// The key it is about.
        key: String,
        /// What to do instead.
        suggestion: Option<String>,
    },
    /// A required key is missing.
    MissingKey {
        /// The key it is about.
        key: String,
    },
    /// A value of the wrong type (`found` is the TOML type name).
    WrongType {
        /// The key it is about.
        key: String,
        /// What was expected.
        expected: ValueType,
        /// What was found.
        found: String,
    },
    /// A string that must not be empty is empty.
    Empty {
        /// The key it is about.
        key: String,
    },
    /// A number out of its range.
    OutOfRange {
        /// The key it is about.
        key: String,
        /// The smallest allowed.
        min: i64,
        /// The largest allowed.
        max: i64,
    },
    /// Two agents have the same name.
    DuplicateAgent {
        /// The name.
        name: String,
    },
    /// Two channels have the same name.
    DuplicateChannel {
        /// The name.
        name: String,
    },
    /// A local workspace folder that does not exist (or is not a folder).
    MissingFolder {
        /// The path it is about.
        path: String,
    },
    /// A `policy` value that is neither `allow` nor `deny`.
    UnknownPolicy {
        /// The key (`writes`, `commands`).
        key: String,
        /// What was found.
        found: String,
    },
    /// `runtime.type` is not one of the known kinds.
    UnknownRuntime {
        /// What was found.
        found: String,
    },
    /// A runtime kind needs a key that is missing (e.g. `container` for `type = "container"`).
    RuntimeNeeds {
        /// What kind it is.
        kind: RuntimeKind,
        /// The key it is about.
        key: String,
    },
    /// A runtime key that does not apply to this kind (e.g. `pod` with `type = "container"`).
    RuntimeIgnores {
        /// What kind it is.
        kind: RuntimeKind,
        /// The key it is about.
        key: String,
    },
    /// An SSH `host` ssh would misread.
    BadHost {
        /// The host.
        host: String,
        /// What is wrong.
        why: crate::model::ssh_host::HostProblem,
    },
    /// A second `[[mcp]]` with the same name.
    DuplicateMcp {
        /// The name.
        name: String,
    },
    /// An `[[mcp]]` with neither `command` nor `url`, or with the one its type does not use.
    McpNeeds {
        /// Its type.
        transport: String,
        /// The key it needs.
        key: String,
    },
    /// An `[[mcp]]` key its type does not use.
    McpIgnores {
        /// Its type.
        transport: String,
        /// The key.
        key: String,
    },
    /// An unknown MCP server type.
    UnknownMcpType {
        /// What was found.
        found: String,
    },
    /// An `[[mcp]]`'s `agents` names no agent of the file.
    UnknownAgent {
        /// The name.
        name: String,
    },
    /// An agent lists a channel that no `[[channel]]` defines.
    UnknownChannel {
        /// The name.
        name: String,
    },
    /// An environment variable name that is not `[A-Za-z_][A-Za-z0-9_]*`.
    InvalidEnvName {
        /// The name.
        name: String,
    },
    /// `defaults.language` is not a known language.
    UnknownLanguage {
        /// What was found.
        found: String,
    },
    /// `send_with` is neither `enter` nor `ctrl+enter`.
    UnknownSendKey {
        /// What was written.
        found: String,
    },
    /// `theme` is none of `system`, `light`, `dark`.
    UnknownTheme {
        /// What was written.
        found: String,
    },
    /// A local agent's command is not on `PATH` (a warning: the rest of the config still applies).
    CommandNotFound {
        /// The command.
        command: String,
    },
    /// The file holds `env` values (`name` is the first) and other users can read it (a warning).
    EnvReadableByOthers {
        /// The name.
        name: String,
    },
}

/// Whether a problem keeps the config from being applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The config is not applied.
    Error,
    /// Shown, but the config is applied (only the agent concerned will fail to start).
    Warning,
}

/// One problem in a config file, at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Byte range in the text.
    pub span: Range<usize>,
    /// What is wrong.
    pub kind: ProblemKind,
}

impl Problem {
    /// Whether this problem blocks the config.
    pub fn severity(&self) -> Severity {
        match self.kind {
            ProblemKind::CommandNotFound { .. } | ProblemKind::EnvReadableByOthers { .. } => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// A problem at `span` of `src`.
    pub fn at(src: &str, span: Range<usize>, kind: ProblemKind) -> Self {
        let (line, column) = line_column(src, span.start);
        Self { line, column, span, kind }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `src`.
pub fn line_column(src: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = src[line_start..offset].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_characters_not_bytes() {
        let src = "a = 1\né = \"x\"\n";
        assert_eq!(line_column(src, 0), (1, 1));
        assert_eq!(line_column(src, 6), (2, 1));
        // 'é' is two bytes; the space after it is column 2.
        assert_eq!(line_column(src, 8), (2, 2));
        assert_eq!(line_column(src, 999), (3, 1));
    }
}
