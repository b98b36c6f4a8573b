//! A team's page: the members and their copies (`view`), making a team (`setup`), a member's
//! work as a branch (`branch`), what was discarded (`discarded`).

pub mod branch;
pub mod discarded;
pub mod setup;
pub mod view;
