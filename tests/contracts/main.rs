//! Against what others wrote: published ACP agents, real repositories' histories, the one workspace
//! contract, the layers' walls.
//! One test binary of a handful (docs/ARCHITECTURE.md, "Tests"): each file a module, `common` shared.

#[path = "../common/mod.rs"]
mod common;

mod adapter_lead;
mod adapter_teams;
mod codex_agent;
mod layers;
mod merge_corpus;
mod merge_props;
mod review_corpus;
mod scenarios;
mod shape;
mod ts_agent;
mod workspace_contract;
