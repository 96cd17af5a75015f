//! `kubectl kueue version`: the client version.

use clap::Args;

use crate::cli::GlobalArgs;

#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Print only the version number.
    #[arg(long)]
    pub short: bool,
}

pub fn run(_global: &GlobalArgs, args: VersionArgs) -> anyhow::Result<u8> {
    if args.short {
        println!("{}", env!("CARGO_PKG_VERSION"));
    } else {
        println!("kubectl-kueue {} (API kueue.x-k8s.io/v1beta1, behaviour of Kueue v0.19)", env!("CARGO_PKG_VERSION"));
    }
    Ok(0)
}
