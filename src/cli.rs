//! The command line's global part: kubectl's flags every command takes (`--kubeconfig`,
//! `--context`, `-n`, `--color`, `-v`), the flag groups several commands share (`-o`,
//! `--dry-run`), and logging setup. The subcommands and their dispatch live in
//! [`crate::commands`]; this module knows nothing of them.

use clap::{Args, ValueEnum};

/// Flags every command accepts, as kubectl spells them.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Path to the kubeconfig file to use.
    #[arg(
        long,
        global = true,
        env = "KUBECONFIG",
        hide_env_values = true,
        value_name = "PATH"
    )]
    pub kubeconfig: Option<String>,
    /// The name of the kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The namespace scope for this request.
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Colors: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// More log output on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short = 'v', long = "verbose", global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

impl GlobalArgs {
    /// Where `kube::connect` connects.
    pub fn connect_options(&self) -> crate::kube::ConnectOptions {
        crate::kube::ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            namespace: self.namespace.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `-o` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    #[default]
    Table,
    Wide,
    Json,
    Yaml,
    Name,
}

/// `-o` and `--no-headers`, for commands that print objects or tables.
#[derive(Debug, Clone, Args)]
pub struct PrintArgs {
    /// Output format: table, wide (more columns), json, yaml or name.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// Don't print table headers.
    #[arg(long)]
    pub no_headers: bool,
}

/// kubectl's `--dry-run` strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum DryRun {
    /// Send the request.
    #[default]
    None,
    /// Only print what would be sent.
    Client,
    /// Let the API server validate it without storing it.
    Server,
}

impl DryRun {
    /// What follows the verb in `kind.group/name created (dry run)`.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

/// Logs to stderr with an `RUST_LOG`-style filter; `-v` raises the default level.
pub fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
