//! The command line: open the window, check a config file, print the schema, run the demo agent.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use crate::app::{Startup, start};
use crate::i18n::{Key, problem_text, tr, trf};
use crate::model::config::{Config, Language};
use crate::model::problem::Severity;
use crate::runtime::config_file::{AppDirs, CONFIG_ENV, Preferences, load_file, resolve_config_path};
use crate::runtime::store::Store;
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

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Check the config file and print every problem; exits non-zero when there are any.
    Check,
    /// Print the JSON Schema of the config file.
    Schema,
    /// Run one turn with one agent, without a window; the answer streams to stdout.
    Prompt {
        /// The agent's name in the config.
        #[arg(long)]
        agent: String,
        /// How permission requests are answered (default: reject).
        #[arg(long, value_enum, default_value = "reject")]
        allow: crate::cli_prompt::Allow,
        /// JSON lines instead of text.
        #[arg(long)]
        json: bool,
        /// The model to answer with (one the agent offers; remembered like a choice in the window).
        #[arg(long)]
        model: Option<String>,
        /// The session mode (one the agent offers).
        #[arg(long)]
        mode: Option<String>,
        /// The message.
        text: String,
    },
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
    },
}

/// Runs the command line.
pub fn main() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    init_logging(&cli.command);
    match cli.command {
        Some(CliCommand::TerminalHost { argv }) => {
            let code = crate::runtime::terminal::run_host(&argv);
            Ok(std::process::ExitCode::from(code.clamp(0, 255) as u8))
        }
        Some(CliCommand::TeamMerge { state }) => Ok(std::process::ExitCode::from(team_merge(&state))),
        Some(CliCommand::DemoAgent { load_session, misbehave, silent, auth, login, modes_only }) => {
            if login {
                return Ok(std::process::ExitCode::from(crate::demo_agent::auth::terminal_login() as u8));
            }
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            if misbehave {
                rt.block_on(crate::demo_agent::misbehaving::run_stdio(silent))?;
            } else {
                rt.block_on(crate::demo_agent::run_stdio(load_session, auth, modes_only))?;
            }
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::Schema) => {
            let schema = schemars::schema_for!(Config);
            println!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(std::process::ExitCode::SUCCESS)
        }
        Some(CliCommand::Check) => check(cli.config),
        Some(CliCommand::Prompt { agent, allow, json, model, mode, text }) => {
            use crate::model::session_config::{Category, Chosen, OptionKey, OptionValue};
            let (path, dirs) = config_path(cli.config)?;
            let choose = |category, value: Option<String>| {
                value.map(|v| Chosen { key: OptionKey::Category(category), value: OptionValue::Choice(v) })
            };
            let chosen = [choose(Category::Model, model), choose(Category::Mode, mode)].into_iter().flatten().collect();
            let code = crate::cli_prompt::run(path, dirs, agent, allow, json, chosen, text)?;
            Ok(std::process::ExitCode::from(code))
        }
        None => run_window(cli.config),
    }
}

/// Logs go to stderr, and for the window and `prompt` also to a rotating file in the state folder
/// (`~/.local/state/sidekicks/sidekicks.log`) a user can attach to a bug report.
fn init_logging(command: &Option<CliCommand>) {
    use tracing_subscriber::prelude::*;
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("SIDEKICKS_LOG").unwrap_or_else(|_| "warn,sidekicks=info".into());
    let to_file = matches!(command, None | Some(CliCommand::Prompt { .. }));
    let file = to_file
        .then(AppDirs::from_system)
        .flatten()
        .and_then(|dirs| crate::runtime::log_file::LogFile::open(&dirs.state_dir).ok());
    let file_layer = file.map(|f| tracing_subscriber::fmt::layer().with_ansi(false).with_writer(f));
    tracing_subscriber::registry()
        .with(filter)
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(file_layer)
        .init();
}

/// `sidekicks team-merge STATE`: 0 merged, 1 conflicts (listed), 2 an error (nothing changed).
fn team_merge(state: &std::path::Path) -> u8 {
    let merged = crate::runtime::teams::MemberCopy::load(state).and_then(|m| crate::runtime::teams::merge(&m, None));
    match merged {
        Ok(report) if report.conflicts.is_empty() => {
            println!("merged: {} applied, {} unchanged", report.applied.len(), report.unchanged.len());
            0
        }
        Ok(report) => {
            println!("conflicts: {} (nothing applied)", report.conflicts.len());
            for (path, kind) in &report.conflicts {
                println!("  {path}: {kind:?}");
            }
            1
        }
        Err(e) => {
            eprintln!("error: {e} (nothing was changed)");
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
    let text = std::fs::read_to_string(path).ok()?;
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("sidekicks-rt")
        .enable_all()
        .build()?;
    let ctx_cell: Arc<OnceLock<egui::Context>> = Arc::default();
    let waker_cell = ctx_cell.clone();
    let waker = Arc::new(move || {
        if let Some(ctx) = waker_cell.get() {
            ctx.request_repaint();
        }
    });
    let store = dirs.as_ref().and_then(|d| match Store::open(&d.data_dir.join("sidekicks.db")) {
        Ok(store) => Some(store),
        Err(e) => {
            tracing::warn!("conversations will not be kept: {e}");
            None
        }
    });
    let startup = Startup { dirs, store, ..Startup::new(path) };
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
            .with_min_inner_size([480.0, 320.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Sidekicks",
        options,
        Box::new(move |cc| {
            let _ = ctx_cell.set(cc.egui_ctx.clone());
            crate::ui::theme::apply(&cc.egui_ctx);
            let stats = std::env::var_os("SIDEKICKS_FRAME_STATS").map(PathBuf::from);
            Ok(Box::new(SidekicksApp::new(bridge).with_frame_stats(stats)))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the window: {e}"))?;
    drop(rt);
    Ok(std::process::ExitCode::SUCCESS)
}
