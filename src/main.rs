//! The `sidekicks` binary: see `sidekicks --help`.

fn main() -> anyhow::Result<std::process::ExitCode> {
    sidekicks::cli::main()
}
