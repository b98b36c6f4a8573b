//! What can go wrong reaching another machine over SSH (the runtime finds it, the window and
//! the command line say it).

/// What went wrong reaching a machine over SSH, each told with what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SshFault {
    /// Its host key is in no known_hosts file: never accepted silently.
    HostKeyUnknown {
        /// `ssh-keygen -l` lines of the keys it offers (type and SHA256 fingerprint).
        fingerprints: Vec<String>,
        /// The command that connects once in a terminal, where the person can accept it.
        command: String,
    },
    /// Its host key is not the one known for it.
    HostKeyChanged {
        /// The command that forgets the old key.
        command: String,
    },
    /// It refused every way ssh tried to log in.
    AuthRefused {
        /// The methods it offered (`publickey`, …), in ssh's words.
        methods: String,
    },
    /// It could not be reached (no such name, nothing listening, no route, timed out).
    Unreachable {
        /// ssh's words.
        detail: String,
    },
    /// `sh` is missing there.
    NoShell,
    /// The agent's command is not on the PATH there.
    CommandMissing {
        /// The command.
        program: String,
    },
    /// The folder it works in does not exist there.
    FolderMissing {
        /// The folder.
        path: String,
    },
    /// Anything else, in ssh's words.
    Other {
        /// ssh's words.
        message: String,
    },
}
