//! The `sidekicks` binary: see `sidekicks --help`.

fn main() -> std::process::ExitCode {
    sidekicks::cli::main()
}
