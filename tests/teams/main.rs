//! Teams: copies, scans, merges, review, undo, the lock, the recipe, through the runtime and
//! `sidekicks team`.
//! One test binary of a handful (docs/ARCHITECTURE.md, "Tests"): each file a module, `common` shared.

#[path = "../common/mod.rs"]
mod common;

mod copy_service;
mod far_members;
mod far_project;
mod far_review;
mod team_checkout;
mod team_cli;
mod team_container;
mod team_crash;
mod team_lead;
mod team_leases;
mod team_lock;
mod team_merge_cli;
mod team_paths;
mod team_reap;
mod team_recipe;
mod team_review;
mod team_scan;
mod team_scan_settings;
mod team_spare;
mod team_trust;
mod team_try;
mod team_undo;
mod teams;
