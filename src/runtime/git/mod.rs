//! git in this process, for teams and checkpoints: a repository's objects read with libgit2
//! (`odb`), a base's trees walked (`tree`), a worktree's index read as git's `stat` comparison would
//! (`index`) and a worktree found to be exactly its commit (`exact`), a checkout written on several threads (`checkout`), a working tree committed as it is
//! (`commit`, `snapshot` — the latter with git as a process where git's ways are needed), git's
//! settings read from its config files (`config`), and the branch a folder is on (`head`). Each
//! answers `None` where it cannot do exactly what git would, and its caller runs git; errors are
//! the one `TeamError` of the protocol (`Git`, `Io`, `Unavailable`).

pub(crate) mod checkout;
pub(crate) mod commit;
pub(crate) mod config;
pub(crate) mod exact;
pub mod head;
pub(crate) mod index;
pub(crate) mod odb;
pub(crate) mod snapshot;
pub(crate) mod tree;
