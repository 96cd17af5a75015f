//! `kubectl-kueue`: parse the command line, set up logging, run the command, and map the
//! outcome to an exit code (0 ok, 1 error, 2 usage, 3 see the command's help).

use std::process::ExitCode;

use clap::Parser;
use kubectl_kueue::commands::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    kubectl_kueue::cli::init_tracing(cli.global.verbose);
    match kubectl_kueue::commands::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            kubectl_kueue::output::print_error(&err);
            ExitCode::from(1)
        }
    }
}
