//! A team's page: the members and their copies (`view`), giving one a task (`assign`), making a team (`setup`), a member's
//! work as a branch (`branch`), what was discarded (`discarded`).

pub mod assign;
pub mod branch;
pub mod compare;
pub mod discarded;
pub mod member_work;
pub mod setup;
pub mod task;
pub mod try_form;
pub mod view;
