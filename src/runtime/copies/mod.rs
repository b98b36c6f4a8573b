//! The copy service (issue 49, first part): a member's copy kept where the member runs — another
//! machine, a container, a pod — by this same binary there (`sidekicks serve-copies`), spoken to
//! over stdin/stdout: over SSH's shared connection, `docker exec -i`, `podman exec -i`,
//! `kubectl exec -i`. The merge stays here (the project is here); the far side makes the copy,
//! lists its changes, reads a path at the base and now, writes what a merge or a review decides
//! into the copy (all or nothing, through its journal), and discards it. ADR 0037.
//!
//! The wire (`wire.rs`): one JSON object per line; a file travels as a header naming its size and
//! sha256, then chunks of at most [`wire::CHUNK`] bytes (deflated when smaller, base64), checked on arrival. Everything
//! the other side sends is input: lines are bounded, paths are checked on both sides (relative,
//! no `..`; links are read as links, never followed), sizes bounded by the merge's own limit.

pub mod client;
pub mod place;
mod receive;
pub mod serve;
mod there;
pub mod upload;
pub mod wire;

pub use client::CopyClient;
pub use wire::VERSION;
