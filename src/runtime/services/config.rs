//! The config file as the front door serves it: opening and following a file, the preferences'
//! recent files, saving the settings editor's text, checking it as the person types (the latest
//! text only, in order), the native file dialog, and finding and adding agents. File and process
//! work runs on blocking threads; each result comes back as an event.

use crate::runtime::agents::ManagerCommand;
use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, watch};

use crate::model::config_check::{LoadContext, LoadResult, load_str};
use crate::model::config_edit::{NewAgent, add_agent, unique_name};
use crate::protocol::ConfigEvent;
use crate::protocol::Event;
use crate::protocol::picker::{PickFor, PickerStart};
use crate::runtime::config::file::{AppDirs, Preferences, command_exists, edit_lock, load_file, save_atomic};
use crate::runtime::config::watch::{ConfigWatcher, watch_config};
use crate::runtime::events::EventSink;

/// The config file followed, and the work around it.
pub(super) struct ConfigFile {
    dirs: Option<AppDirs>,
    sink: EventSink,
    watcher: Option<ConfigWatcher>,
    /// The latest text to check; the checker takes only the newest.
    checks: watch::Sender<Option<(PathBuf, String)>>,
}

impl ConfigFile {
    pub(super) fn new(dirs: Option<AppDirs>, sink: EventSink) -> Self {
        let (checks, pending) = watch::channel(None);
        let home = dirs
            .as_ref()
            .and_then(|d| d.home.clone())
            .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()));
        tokio::spawn(checker(pending, home, sink.clone()));
        Self { dirs, sink, watcher: None, checks }
    }

    /// The user's folders, when this run has them.
    pub(super) fn dirs(&self) -> Option<&AppDirs> {
        self.dirs.as_ref()
    }

    fn home(&self) -> Option<PathBuf> {
        self.dirs.as_ref().and_then(|d| d.home.clone())
    }

    /// Loads `path` and follows it from now on (the previous file is no longer followed): each
    /// change goes to `manager` as `Command::ConfigLoaded`.
    pub(super) async fn follow(
        &mut self,
        path: &Path,
        manager: &mpsc::Sender<ManagerCommand>,
        watch: bool,
    ) -> LoadResult {
        let (file, home) = (path.to_path_buf(), self.home());
        let result = tokio::task::spawn_blocking(move || load_file(&file, home.as_deref())).await.unwrap_or_default();
        self.watcher = None;
        if !watch {
            return result;
        }
        match watch_config(path.to_path_buf(), self.home(), result.text.clone(), manager.clone()) {
            Ok(w) => self.watcher = Some(w),
            Err(e) => tracing::warn!("cannot follow {}: {e}", path.display()),
        }
        result
    }

    /// Records `path` as the last opened and first recent file.
    pub(super) async fn record_opened(&self, path: &Path) {
        let Some(dirs) = self.dirs.clone() else { return };
        let path = path.to_path_buf();
        let _ = tokio::task::spawn_blocking(move || {
            let _prefs = prefs_lock();
            let mut prefs = Preferences::load(&dirs);
            prefs.record_opened(&path);
            if let Err(e) = prefs.save(&dirs) {
                tracing::warn!("cannot save preferences: {e}");
            }
        })
        .await;
    }

    /// Sends the recent files (`Event::RecentFiles`), each with whether it still exists.
    pub(super) async fn send_recent(&self) {
        let Some(dirs) = self.dirs.clone() else { return };
        let files = tokio::task::spawn_blocking(move || {
            Preferences::load(&dirs)
                .recent
                .into_iter()
                .map(|p| {
                    let exists = p.is_file();
                    (p, exists)
                })
                .collect()
        })
        .await
        .unwrap_or_default();
        self.sink.send(Event::Config(ConfigEvent::RecentFiles { files })).await;
    }

    /// Saves `text` to `path` atomically (→ `ConfigSaved`); the watcher then reloads it.
    pub(super) fn save(&self, path: PathBuf, text: String) {
        self.report_save(path.clone(), move || {
            let _edit = edit_lock();
            save_atomic(&path, &text).map_err(|e| e.to_string())
        });
    }

    /// Adds `agent` to the config file at `path`, working in a new folder `workspaces/<name>` next
    /// to it (→ `ConfigSaved`).
    pub(super) fn add_agent(&self, path: PathBuf, agent: NewAgent) {
        self.report_save(path.clone(), move || {
            let _edit = edit_lock();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            // Named after the name the agent gets: a second "codex" works in `codex-2`.
            let name = unique_name(&text, &agent.name).map_err(|e| e.to_string())?;
            let workspace = crate::runtime::config::file::default_workspace(&path, &name);
            std::fs::create_dir_all(&workspace).map_err(|e| format!("{}: {e}", workspace.display()))?;
            let edited = add_agent(&text, &NewAgent { name, ..agent }, &workspace).map_err(|e| e.to_string())?;
            save_atomic(&path, &edited).map_err(|e| e.to_string())
        });
    }

    /// Sets `[defaults] key = value` in the file at `path` (the theme, the language).
    pub(super) fn set_default(&self, path: PathBuf, key: String, value: String) {
        self.report_save(path.clone(), move || {
            let _edit = edit_lock();
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let edited = crate::model::config_edit::set_default(&text, &key, &value).map_err(|e| e.to_string())?;
            save_atomic(&path, &edited).map_err(|e| e.to_string())
        });
    }

    /// Tells the window's zoom and place kept from the last run (`Remembered`; none without the
    /// user's folders), read on a blocking thread.
    pub(super) fn tell_remembered(&self) {
        let (dirs, sink) = (self.dirs.clone(), self.sink.clone());
        tokio::spawn(async move {
            let read = tokio::task::spawn_blocking(move || dirs.map(|d| Preferences::load(&d))).await;
            let prefs = read.ok().flatten().unwrap_or_default();
            sink.send(Event::Config(ConfigEvent::Remembered { zoom: prefs.zoom, window: prefs.window })).await;
        });
    }

    /// Keeps the window's zoom and place with the preferences, on a blocking thread.
    pub(super) fn remember(&self, zoom: f32, window: Option<[f32; 4]>) {
        let Some(dirs) = self.dirs.clone() else { return };
        tokio::task::spawn_blocking(move || {
            let _prefs = prefs_lock();
            let mut prefs = Preferences::load(&dirs);
            prefs.zoom = Some(zoom);
            if window.is_some() {
                prefs.window = window;
            }
            if let Err(e) = prefs.save(&dirs) {
                tracing::warn!("the window's zoom and place were not kept: {e}");
            }
        });
    }

    /// Runs a write of the config file on a blocking thread and reports it as `ConfigSaved`.
    fn report_save(&self, path: PathBuf, write: impl FnOnce() -> Result<(), String> + Send + 'static) {
        let sink = self.sink.clone();
        tokio::spawn(async move {
            let error = tokio::task::spawn_blocking(write).await.unwrap_or_else(|e| Err(e.to_string())).err();
            sink.send(Event::Config(ConfigEvent::Saved { path, error })).await;
        });
    }

    /// Checks `text` as the file at `path` (→ `ConfigChecked`); a newer text replaces one not yet
    /// checked.
    pub(super) fn check(&self, path: PathBuf, text: String) {
        self.checks.send_replace(Some((path, text)));
    }

    /// Opens the native folder dialog without waiting for it (→ `FolderPicked` when one is picked).
    pub(super) fn pick_folder(&self, start_in: Option<PathBuf>) {
        let sink = self.sink.clone();
        let home = self.home();
        tokio::spawn(async move {
            if !crate::runtime::dialog::desktop_dialog() {
                let folder = start_in.or(home).unwrap_or_else(|| PathBuf::from("/"));
                let start = PickerStart { purpose: PickFor::ProjectFolder, folder };
                return sink.send(Event::PickInWindow(start)).await;
            }
            let mut dialog = rfd::AsyncFileDialog::new().set_title("The project folder");
            if let Some(dir) = start_in {
                dialog = dialog.set_directory(dir);
            }
            if let Some(folder) = dialog.pick_folder().await {
                sink.send(Event::Config(ConfigEvent::FolderPicked { path: folder.path().to_path_buf() })).await;
            }
        });
    }

    /// Opens the native file dialog without waiting for it (→ `FilePicked`).
    pub(super) fn pick_file(&self, start_in: Option<PathBuf>) {
        let sink = self.sink.clone();
        let home = self.home();
        tokio::spawn(async move {
            if !crate::runtime::dialog::desktop_dialog() {
                let folder = start_in.or(home).unwrap_or_else(|| PathBuf::from("/"));
                let start = PickerStart { purpose: PickFor::ConfigFile, folder };
                return sink.send(Event::PickInWindow(start)).await;
            }
            let mut dialog = rfd::AsyncFileDialog::new().add_filter("TOML", &["toml"]).set_title("Open a config file");
            if let Some(dir) = start_in {
                dialog = dialog.set_directory(dir);
            }
            let path = dialog.pick_file().await.map(|f| f.path().to_path_buf());
            sink.send(Event::Config(ConfigEvent::FilePicked { path })).await;
        });
    }

    /// Reads `path` for the window's picker (→ `FolderListed`).
    pub(super) fn list_folder(&self, path: PathBuf) {
        let sink = self.sink.clone();
        tokio::spawn(async move {
            let at = path.clone();
            let result = tokio::task::spawn_blocking(move || crate::runtime::dialog::list_folder(&at))
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
            sink.send(Event::Config(ConfigEvent::FolderListed { path, result })).await;
        });
    }

    /// Looks for agents installed on this computer (→ `AgentsFound`).
    pub(super) fn discover(&self) {
        let (sink, home) = (self.sink.clone(), self.home());
        tokio::spawn(async move {
            let agents = tokio::task::spawn_blocking(move || {
                crate::runtime::discovery::discover(home.as_deref(), std::env::var_os("PATH").as_deref())
            })
            .await
            .unwrap_or_default();
            sink.send(Event::Config(ConfigEvent::AgentsFound { agents })).await;
        });
    }
}

/// Checks the settings editor's texts one after the other, always the newest waiting.
async fn checker(mut pending: watch::Receiver<Option<(PathBuf, String)>>, home: Option<PathBuf>, sink: EventSink) {
    while pending.changed().await.is_ok() {
        let Some((path, text)) = pending.borrow_and_update().clone() else { continue };
        let home = home.clone();
        let checked = text.clone();
        let problems = tokio::task::spawn_blocking(move || {
            let ctx = LoadContext {
                base_dir: path.parent().unwrap_or(Path::new("/")),
                home: home.as_deref(),
                is_dir: &|p: &Path| p.is_dir(),
                command_exists: &command_exists,
                // Known from the file as loaded (its problems are shown with the config's).
                readable_by_others: false,
            };
            load_str(&checked, &ctx).problems
        })
        .await
        .unwrap_or_default();
        sink.send(Event::Config(ConfigEvent::Checked { text, problems })).await;
    }
}

/// Held while the preferences file is read, changed and written (one change at a time in this
/// process: the last opened file and the window's place are written by different commands).
fn prefs_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
