//! `kubectl-kueue`: parse the command line, set up logging, run the command, and exit with
//! the status its outcome maps to (the mapping: `commands::error`).

use std::process::ExitCode;

use clap::Parser;
use kubectl_kueue::commands::Cli;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // clap prints --help and --version (exit 0) and usage errors (exit 2) itself.
    let cli = Cli::parse();
    kubectl_kueue::cli::init_tracing(cli.global.verbose);
    let status = match kubectl_kueue::commands::run(cli) {
        Ok(outcome) => outcome.exit_status(),
        Err(err) => {
            err.report();
            err.exit_status()
        }
    };
    ExitCode::from(status.code())
}
