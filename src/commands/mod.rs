//! One module per subcommand: arguments and the code that runs them. Commands parse,
//! load, call the engine and render; they hold no scheduling logic.

pub mod common;
pub mod completion;
pub mod create;
pub mod delete;
pub mod explain;
pub mod init;
pub mod install;
pub mod list;
pub mod resume;
pub mod run_controller;
pub mod simulate;
pub mod status;
pub mod stop;
pub mod submit;
pub mod version;

use crate::cli::{Cli, Command};

/// Runs the parsed command; the `u8` is the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let global = cli.global;
    match cli.command {
        Command::Simulate(args) => simulate::run(&global, args),
        Command::Explain(args) => explain::run(&global, args),
        Command::Version(args) => version::run(&global, args),
        Command::RunController(args) => run_controller::run(&global, args),
        Command::Install(args) => install::run(&global, args),
        Command::Uninstall(args) => install::run_uninstall(&global, args),
        Command::Submit(args) => submit::run(&global, args),
        Command::Status(args) => status::run(&global, args),
        Command::Create(args) => create::run(&global, args),
        Command::List(args) => list::run(&global, args),
        Command::Stop(args) => stop::run(&global, args),
        Command::Resume(args) => resume::run(&global, args),
        Command::Delete(args) => delete::run(&global, args),
        Command::Init(args) => init::run(&global, args),
        Command::Completion(args) => completion::run(&global, args),
        Command::Complete(args) => completion::run_complete(args),
    }
}
