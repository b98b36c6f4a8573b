//! The command line: open the window, check a config file, print the schema, run the demo agent.

mod out;
pub mod prompt;
pub mod registry;
mod stream;
pub mod team;
mod tool_text;

use std::io::Write;

use crate::cli::out::{errln, jsonln};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use crate::app::{Startup, start};
use crate::i18n::{Key, problem_text, tr, trf};
use crate::model::config::{Config, Language};
use crate::model::problem::Severity;
use crate::runtime::config::file::{AppDirs, CONFIG_ENV, Preferences, load_file, resolve_config_path};
use crate::ui::SidekicksApp;

/// Sidekicks: run a team of AI coding agents side by side.
#[derive(Debug, Parser)]
#[command(name = "sidekicks", version, about)]
pub struct Cli {
    /// The config file (else $SIDEKICKS_CONFIG, else the last opened one, else the default).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to do (default: open the window).
    #[command(subcommand)]
    pub command: Option<CliCommand>,
}

/// The config file's reference (docs/CONFIG.md), in the binary: a person who has only the
/// binary reads it with `sidekicks config` or `sidekicks help config`.
const CONFIG_REFERENCE: &str = include_str!("../../docs/CONFIG.md");

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Check the config file and print every problem; exits non-zero when there are any.
    Check,
    /// Print the JSON Schema of the config file.
    Schema,
    /// Print the reference of the config file: every key, its type, default and meaning (also
    /// `sidekicks help config`).
    #[command(long_about = CONFIG_REFERENCE)]
    Config,
    /// Run one turn with one agent, without a window; the answer streams to stdout.
    Prompt {
        /// The agent's name in the config.
        #[arg(long)]
        agent: String,
        /// What to say, and how.
        #[command(flatten)]
        args: crate::cli::prompt::PromptArgs,
    },
    /// Teams: make one, list them, see a member's work, talk to a member, merge, undo, discard,
    /// restore — the same teams the window shows.
    #[command(subcommand)]
    Team(crate::cli::team::TeamCli),
    /// Agents from the ACP Registry: list them, add one to the config, update, remove.
    #[command(subcommand)]
    Registry(crate::cli::registry::RegistryCli),
    /// Runs a terminal's shell as a child subreaper, so closing the terminal ends all it started.
    #[command(hide = true)]
    TerminalHost {
        /// The shell and its arguments.
        #[arg(last = true)]
        argv: Vec<String>,
    },
    /// Merges a team member's work into its project (given the member's state folder), finishing
    /// or rolling back a merge a crash interrupted first.
    #[command(hide = true)]
    TeamMerge {
        /// The member's state folder.
        state: PathBuf,
    },
    /// Add Sidekicks to the desktop's applications: a desktop entry and its icon, in the user's
    /// data folder (`~/.local/share/applications`, `~/.local/share/icons`).
    InstallDesktop,
    /// Run the demo MCP server on stdin/stdout (tools `echo` and `add`).
    #[command(hide = true)]
    DemoMcp,
    /// Serve team members' copies on stdin/stdout, for a Sidekicks elsewhere (ADR 0037).
    #[command(hide = true)]
    ServeCopies,
    /// The team lead's MCP server (`sidekicks-team`), started by the lead: a pipe to the
    /// Sidekicks that runs its team (ADR 0035).
    #[command(hide = true)]
    TeamTools,
    /// Run the built-in demo agent on stdin/stdout (ACP).
    DemoAgent {
        /// Advertise `loadSession` and reopen earlier sessions.
        #[arg(long)]
        load_session: bool,
        /// Run the misbehaving agent instead (for tests; see docs/demo-agent.md).
        #[arg(long, hide = true)]
        misbehave: bool,
        /// With `--misbehave`: never answer `initialize`.
        #[arg(long, hide = true)]
        silent: bool,
        /// Ask to log in before opening a session (an API key, a login it does, or a terminal).
        #[arg(long)]
        auth: bool,
        /// The terminal login: ask to type `yes`, then exit 0 logged in.
        #[arg(long)]
        login: bool,
        /// Offer only the older session modes (no config options).
        #[arg(long)]
        modes_only: bool,
        /// Take only text in prompts (no images, no files' text).
        #[arg(long)]
        text_only: bool,
        /// Keep sessions while it runs: list, resume, close, delete them; title each.
        #[arg(long)]
        sessions: bool,
    },
}

/// Runs the command line.
/// The command line: its exit code. An error is said in words, as `Error: …` with exit code 1 —
/// never with a stack trace, whatever `RUST_BACKTRACE` says (it is the person's mistake, not ours).
pub fn main() -> std::process::ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            errln!("Error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    init_logging(&cli.command);
    crate::runtime::clock::init_time_zone();
    match cli.command {
        Some(CliCommand::TerminalHost { argv }) => {
            let code = crate::runtime::terminal::run_host(&argv);
            Ok(std::process::ExitCode::from(code.clamp(0, 255) as u8))
        }
        Some(CliCommand::TeamMerge { state }) => Ok(std::process::ExitCode::from(team_merge(&state))),
        Some(CliCommand::TeamTools) => match crate::runtime::services::lead::run_bridge() {
            Ok(()) => Ok(std::process::ExitCode::SUCCESS),
            Err(e) => {
                errln!("sidekicks team-tools: {e:#}");
                Ok(std::process::ExitCode::from(2))
            }
        },
        Some(CliCommand::ServeCopies) => {
            let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
            match crate::runtime::copies::serve::serve(&mut stdin.lock(), &mut stdout.lock()) {
                Ok(()) => Ok(std::process::ExitCode::SUCCESS),
                Err(e) => {
                    errln!("sidekicks serve-copies: {e}");
                    Ok(std::process::ExitCode::from(2))
                }
            }
        }
        Some(CliCommand::DemoMcp) => {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            rt.block_on(crate::demo_agent::mcp::run_server())?;
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::DemoAgent {
            load_session,
            misbehave,
            silent,
            auth,
            login,
            modes_only,
            sessions,
            text_only,
        }) => {
            if login {
                return Ok(std::process::ExitCode::from(crate::demo_agent::auth::terminal_login() as u8));
            }
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            if misbehave {
                rt.block_on(crate::demo_agent::misbehaving::run_stdio(silent))?;
            } else {
                let options = crate::demo_agent::DemoOptions {
                    load_session,
                    require_login: auth,
                    modes_only,
                    sessions,
                    text_only,
                };
                rt.block_on(crate::demo_agent::run_stdio(options))?;
            }
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::InstallDesktop) => match install_desktop() {
            Ok(entry) => {
                jsonln!("Installed {}", entry.display());
                Ok(std::process::ExitCode::SUCCESS)
            }
            Err(e) => {
                errln!("sidekicks: cannot install the desktop entry: {e}");
                Ok(std::process::ExitCode::FAILURE)
            }
        },
        Some(CliCommand::Schema) => {
            let schema = schemars::schema_for!(Config);
            jsonln!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::Check) => check(cli.config),
        Some(CliCommand::Config) => {
            crate::cli::out::write(false, CONFIG_REFERENCE);
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::Prompt { agent, args }) => {
            let (path, dirs) = config_path(cli.config)?;
            let asked = args.asked(agent);
            let code = crate::cli::prompt::run(path, dirs, asked)?;
            Ok(std::process::ExitCode::from(code))
        }
        Some(CliCommand::Team(command)) => {
            let (path, dirs) = config_path(cli.config)?;
            Ok(std::process::ExitCode::from(crate::cli::team::run(path, dirs, command)?))
        }
        Some(CliCommand::Registry(command)) => {
            let (path, dirs) = config_path(cli.config)?;
            Ok(std::process::ExitCode::from(crate::cli::registry::run(path, dirs, command)?))
        }
        None => run_window(cli.config),
    }
}

/// Logs go to a rotating file in the state folder (`~/.local/state/sidekicks/sidekicks.log`) a
/// user can attach to a bug report, for the window, `prompt` and `team`; and to stderr, except for
/// `prompt` and `team` (unless `SIDEKICKS_LOG` is set).
fn init_logging(command: &Option<CliCommand>) {
    use tracing_subscriber::prelude::*;
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SIDEKICKS_LOG").unwrap_or_else(|_| "warn,sidekicks=info".into());
    let to_file =
        matches!(command, None | Some(CliCommand::Prompt { .. } | CliCommand::Team(_) | CliCommand::Registry(_)));
    let file = to_file
        .then(AppDirs::from_system)
        .flatten()
        .and_then(|dirs| crate::runtime::log_file::LogFile::open(&dirs.state_dir).ok());
    let file_layer = file.map(|f| tracing_subscriber::fmt::layer().with_ansi(false).with_writer(f));
    // The command line's terminal gets the answer and errors in words, not the log (it is in the
    // file); `SIDEKICKS_LOG` brings it back. Colours only on a terminal.
    let scripted = matches!(command, Some(CliCommand::Prompt { .. } | CliCommand::Team(_) | CliCommand::Registry(_)));
    let asked = std::env::var_os("SIDEKICKS_LOG").is_some();
    let on_terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let stderr_layer = (!scripted || asked)
        .then(|| tracing_subscriber::fmt::layer().with_ansi(on_terminal).with_writer(std::io::stderr));
    tracing_subscriber::registry().with(filter).with(stderr_layer).with(file_layer).init();
}

/// `sidekicks team-merge STATE`: the team service's merge step alone in a process, for the tests
/// that kill a merge at points and the benches that time one (hidden: people merge through
/// `sidekicks team merge`, which also tells the member and runs the check after). 0 merged, 1
/// conflicts (listed), 2 an error (nothing changed).
fn team_merge(state: &std::path::Path) -> u8 {
    use crate::runtime::teams::{MemberCopy, lock::reporting_busy, merge_as_recipe_says};
    let busy = |_: &std::path::Path, holder: Option<&str>| {
        if let Some(holder) = holder {
            errln!("busy: {holder}; waiting");
        }
    };
    let merged = MemberCopy::load(state).and_then(|m| reporting_busy(busy, || merge_as_recipe_says(&m, None)));
    match merged {
        Ok(report) if report.conflicts.is_empty() => {
            jsonln!("merged: {} applied, {} unchanged", report.applied.len(), report.unchanged.len());
            if report.refused.is_empty() {
                return 0;
            }
            jsonln!("not merged, still holding conflict markers: {}", report.refused.len());
            for path in &report.refused {
                jsonln!("  {path}");
            }
            1
        }
        Ok(report) => {
            jsonln!("conflicts: {} (nothing applied)", report.conflicts.len());
            for (path, kind) in &report.conflicts {
                jsonln!("  {path}: {kind:?}");
            }
            1
        }
        Err(e) => {
            errln!("error: {e} (nothing was changed)");
            2
        }
    }
}

fn config_path(flag: Option<PathBuf>) -> anyhow::Result<(PathBuf, Option<AppDirs>)> {
    let dirs = AppDirs::from_system();
    let env = std::env::var_os(CONFIG_ENV).map(PathBuf::from);
    let Some(dirs) = dirs else {
        let path = flag.or(env).context("no home folder: pass --config FILE")?;
        return Ok((path, None));
    };
    let prefs = Preferences::load(&dirs);
    let (path, _source) =
        resolve_config_path(flag, env, &prefs, &dirs).context("cannot create the default config file")?;
    Ok((path, Some(dirs)))
}

/// `sidekicks check`: prints `file:line:column: message` for each problem.
fn check(flag: Option<PathBuf>) -> anyhow::Result<std::process::ExitCode> {
    let (path, dirs) = config_path(flag)?;
    let home = dirs.as_ref().and_then(|d| d.home.clone());
    let result = load_file(&path, home.as_deref());
    let lang = Language::pick(configured_language(&path), sys_locale::get_locale().as_deref());
    let mut out = std::io::stdout().lock();
    let shown = path.display().to_string();
    if result.problems.is_empty() {
        writeln!(out, "{}", trf(lang, Key::CheckOk, &[("path", &shown)]))?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    for p in &result.problems {
        let warning = match p.severity() {
            Severity::Warning => format!("{}: ", tr(lang, Key::Warning)),
            Severity::Error => String::new(),
        };
        let text = problem_text(lang, &p.kind);
        writeln!(out, "{shown}:{}:{}: {warning}{text}", p.line, p.column)?;
    }
    // Warnings alone (a command not installed here) do not fail the check.
    if result.config.is_some() { Ok(std::process::ExitCode::SUCCESS) } else { Ok(std::process::ExitCode::FAILURE) }
}

/// `defaults.language` read leniently, so problems are reported in the file's own language
/// even when the file has other problems.
fn configured_language(path: &std::path::Path) -> Option<Language> {
    let text = crate::runtime::config::file::read_text(path).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    let code = table.get("defaults")?.get("language")?.as_str()?;
    Language::from_code(code)
}

fn run_window(flag: Option<PathBuf>) -> anyhow::Result<std::process::ExitCode> {
    let (path, dirs) = config_path(flag)?;
    if let Some(dirs) = &dirs {
        let mut prefs = Preferences::load(dirs);
        prefs.record_opened(&path);
        if let Err(e) = prefs.save(dirs) {
            tracing::warn!("cannot save preferences: {e}");
        }
    }
    let rt = crate::runtime::host::runtime()?;
    let ctx_cell: Arc<OnceLock<egui::Context>> = Arc::default();
    let waker_cell = ctx_cell.clone();
    let waker = Arc::new(move || {
        if let Some(ctx) = waker_cell.get() {
            ctx.request_repaint();
        }
    });
    let mut history_note = None;
    let store = dirs.as_ref().and_then(|d| {
        let path = d.data_dir.join("sidekicks.db");
        match crate::runtime::host::open_history(d) {
            Ok((store, note)) => {
                history_note = note;
                Some(store)
            }
            Err(e) => {
                tracing::warn!("conversations will not be kept: {e}");
                history_note = Some(crate::protocol::HistoryNote::Unavailable { path, error: e.to_string() });
                None
            }
        }
    });
    let startup = Startup { dirs, store, history_note, ..Startup::new(path) };
    let bridge = start(rt.handle(), startup, waker);
    // Ctrl+C or SIGTERM closes the window the normal way, so every agent is stopped first.
    let close_cell = ctx_cell.clone();
    rt.spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        loop {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            match close_cell.get() {
                Some(ctx) => ctx.send_viewport_cmd(egui::ViewportCommand::Close),
                None => std::process::exit(130),
            }
        }
    });
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Sidekicks")
            .with_inner_size([1100.0, 720.0])
            .with_min_inner_size([480.0, 320.0])
            .with_icon(crate::ui::icon::window_icon())
            .with_app_id("sidekicks"),
        // The app installs the system font provider itself (`ui::glyphs::install`), in tests too.
        system_font_fallback: false,
        ..Default::default()
    };
    eframe::run_native(
        "Sidekicks",
        options,
        Box::new(move |cc| {
            let _ = ctx_cell.set(cc.egui_ctx.clone());
            let stats = std::env::var_os("SIDEKICKS_FRAME_STATS").map(PathBuf::from);
            Ok(Box::new(SidekicksApp::new(bridge).with_frame_stats(stats)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    drop(rt);
    Ok(std::process::ExitCode::SUCCESS)
}

/// Writes the desktop entry and the icon into the user's data folder; returns the entry's path.
fn install_desktop() -> Result<PathBuf, String> {
    let data = directories::BaseDirs::new().ok_or("no home folder")?.data_dir().to_path_buf();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let icon_dir = data.join("icons/hicolor/256x256/apps");
    std::fs::create_dir_all(&icon_dir).map_err(|e| format!("{}: {e}", icon_dir.display()))?;
    let icon = image::RgbaImage::from_raw(256, 256, crate::ui::icon::rgba(256)).ok_or("the icon's size")?;
    icon.save(icon_dir.join("sidekicks.png")).map_err(|e| e.to_string())?;
    let apps = data.join("applications");
    std::fs::create_dir_all(&apps).map_err(|e| format!("{}: {e}", apps.display()))?;
    let entry = apps.join("sidekicks.desktop");
    // Quoted as the Desktop Entry spec asks, for a path with spaces.
    let exec = format!("\"{}\"", exe.display().to_string().replace('\\', "\\\\").replace('"', "\\\""));
    let text = format!(
        "[Desktop Entry]\nType=Application\nName=Sidekicks\nComment=Run a team of AI coding agents side by side\n\
         Exec={exec}\nIcon=sidekicks\nTerminal=false\nCategories=Development;\nStartupWMClass=sidekicks\n"
    );
    std::fs::write(&entry, text).map_err(|e| format!("{}: {e}", entry.display()))?;
    Ok(entry)
}
