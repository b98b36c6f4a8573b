//! The config file on disk: which file to use (`--config`, `SIDEKICKS_CONFIG`, the last opened
//! one, or a default created on first run), reading it through the loader, and the preferences
//! file that remembers the last opened and recent files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::config_check::{LoadContext, LoadResult, load_str};
use crate::model::problem::{Problem, ProblemKind};

/// Recent files kept.
pub const RECENT_MAX: usize = 8;
/// The environment variable naming a config file.
pub const CONFIG_ENV: &str = "SIDEKICKS_CONFIG";

/// The folders Sidekicks uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppDirs {
    /// Config folder (`~/.config/sidekicks`): `sidekicks.toml`, `preferences.json`.
    pub config_dir: PathBuf,
    /// Data folder (`~/.local/share/sidekicks`): the demo workspace, history.
    pub data_dir: PathBuf,
    /// State folder (`~/.local/state/sidekicks`): the log files.
    pub state_dir: PathBuf,
    /// The home folder, for `~/` in paths.
    pub home: Option<PathBuf>,
}

impl AppDirs {
    /// The platform's folders (XDG on Linux).
    pub fn from_system() -> Option<Self> {
        let project = directories::ProjectDirs::from("", "", "sidekicks")?;
        Some(Self {
            config_dir: project.config_dir().to_path_buf(),
            data_dir: project.data_dir().to_path_buf(),
            state_dir: project.state_dir().unwrap_or_else(|| project.data_dir()).to_path_buf(),
            home: directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf()),
        })
    }

    fn prefs_path(&self) -> PathBuf {
        self.config_dir.join("preferences.json")
    }

    /// The default config file.
    pub fn default_config(&self) -> PathBuf {
        self.config_dir.join("sidekicks.toml")
    }
}

/// Where the config file came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigSource {
    /// `--config F`.
    Flag,
    /// `SIDEKICKS_CONFIG`.
    Env,
    /// The last opened file (preferences).
    LastOpened,
    /// The default file (created if it did not exist).
    Default,
}

/// Preferences kept between runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Preferences {
    /// The config file opened last.
    #[serde(default)]
    pub last_opened: Option<PathBuf>,
    /// Recently opened config files, newest first.
    #[serde(default)]
    pub recent: Vec<PathBuf>,
    /// The window's zoom factor (Ctrl+= / Ctrl+- / Ctrl+0).
    #[serde(default)]
    pub zoom: Option<f32>,
    /// The window's place and size when it was last moved or resized (x, y, width, height).
    #[serde(default)]
    pub window: Option<[f32; 4]>,
}

impl Preferences {
    /// Reads the preferences; a missing or unreadable file gives the defaults.
    pub fn load(dirs: &AppDirs) -> Self {
        std::fs::read_to_string(dirs.prefs_path()).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
    }

    /// Records `path` as opened: last opened and first of the recent files.
    pub fn record_opened(&mut self, path: &Path) {
        self.last_opened = Some(path.to_path_buf());
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(RECENT_MAX);
    }

    /// Writes the preferences (temp file + rename).
    pub fn save(&self, dirs: &AppDirs) -> std::io::Result<()> {
        private_dir(&dirs.config_dir)?;
        let path = dirs.prefs_path();
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(tmp, path)
    }
}

/// Picks the config file: `flag`, else `env`, else the last opened file if it still exists,
/// else the default file, created with the demo agent when missing.
pub fn resolve_config_path(
    flag: Option<PathBuf>,
    env: Option<PathBuf>,
    prefs: &Preferences,
    dirs: &AppDirs,
) -> std::io::Result<(PathBuf, ConfigSource)> {
    if let Some(path) = flag {
        return Ok((absolute(path), ConfigSource::Flag));
    }
    if let Some(path) = env.filter(|p| !p.as_os_str().is_empty()) {
        return Ok((absolute(path), ConfigSource::Env));
    }
    if let Some(path) = prefs.last_opened.as_ref().filter(|p| p.is_file()) {
        return Ok((path.clone(), ConfigSource::LastOpened));
    }
    let path = dirs.default_config();
    if !path.exists() {
        create_default_config(dirs)?;
    }
    Ok((path, ConfigSource::Default))
}

fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

/// Creates `dir` (and its parents) and makes it private to the user (0700): Sidekicks' own
/// folders hold conversations, logs and configs with keys. A folder already there is made private
/// too; its parents are left as they are.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    let meta = std::fs::metadata(dir)?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes the default config (the demo agent) and its demo workspace folder.
pub fn create_default_config(dirs: &AppDirs) -> std::io::Result<PathBuf> {
    let workspace = dirs.data_dir.join("demo-workspace");
    private_dir(&dirs.data_dir)?;
    std::fs::create_dir_all(&workspace)?;
    let readme = workspace.join("README.md");
    if !readme.exists() {
        std::fs::write(
            &readme,
            "# Demo workspace\n\nThe demo agent works in this folder. Nothing here matters; feel free to edit it.\n",
        )?;
    }
    private_dir(&dirs.config_dir)?;
    let path = dirs.default_config();
    std::fs::write(&path, default_config_text(&workspace))?;
    Ok(path)
}

/// The text of the default config, with the demo workspace at `workspace`.
pub fn default_config_text(workspace: &Path) -> String {
    let workspace = toml::Value::String(workspace.display().to_string()).to_string();
    include_str!("../../../assets/default-config.toml").replace("{workspace}", &workspace)
}

/// Reads and checks a config file. An unreadable file is one problem at 1:1.
pub fn load_file(path: &Path, home: Option<&Path>) -> LoadResult {
    match read_text(path) {
        Ok(text) => {
            let ctx = LoadContext {
                base_dir: path.parent().unwrap_or(Path::new("/")),
                home,
                is_dir: &|p: &Path| p.is_dir(),
                command_exists: &command_exists,
                readable_by_others: readable_by_others(path),
            };
            load_str(&text, &ctx)
        }
        Err(e) => LoadResult {
            config: None,
            problems: vec![Problem {
                line: 1,
                column: 1,
                span: 0..0,
                kind: ProblemKind::Unreadable { path: path.display().to_string(), message: e.to_string() },
            }],
            text: None,
        },
    }
}

/// The text of config file `path`; refused, without opening it, when it is not a regular file (a
/// named pipe would make every reader wait for a writer that never comes; a device never ends).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "not a regular file (a pipe, a socket or a device)" };
        return Err(std::io::Error::other(format!("{what}: a config file must be a file")));
    }
    std::fs::read_to_string(path)
}

/// Whether users other than the owner may read `path` (group or other read bit).
pub(crate) fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.permissions().mode() & 0o044 != 0)
}

/// Whether `command` can be started: `sidekicks` (this binary), a path (absolute, or relative to
/// the agent's `workspace`), or a name found in a `PATH` folder as an executable file.
pub fn command_exists(command: &str, workspace: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if command == crate::runtime::exec::SELF_COMMAND {
        return true;
    }
    if command.contains('/') {
        return executable(&workspace.join(command));
    }
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| executable(&dir.join(command))))
}

/// Holds off this process's other edits of config files while one reads, edits and saves: two
/// edits at once (an agent added while another's download runs) would each save the text they
/// read, and the first one's change would be lost.
pub fn edit_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes `text` to `path` atomically: a temporary file in the same folder, synced, then renamed
/// over the original (whose permissions it keeps). Readers see the old file or the new one, never
/// half of it.
pub fn save_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
    let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Where an added agent works until the person chooses: a folder of its own next to the config
/// file (`workspaces/<name>`).
pub fn default_workspace(config: &Path, name: &str) -> PathBuf {
    let slug: String = name.chars().map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    config.parent().unwrap_or(Path::new(".")).join("workspaces").join(slug)
}
