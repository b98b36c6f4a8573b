//! The config file on disk: which file to use, reading it through the loader, the preferences
//! that remember the last opened and recent files (`file`); watched for changes by anyone,
//! debounced (`watch`).

pub mod file;
pub mod watch;
