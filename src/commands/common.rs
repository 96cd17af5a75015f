//! What the cluster-facing commands share: a runtime to run the async reads and writes of
//! `kube` from the synchronous command functions, the connection from the global flags, the
//! printer of `-o`.

use std::future::Future;
use std::time::Duration;

use crate::cli::GlobalArgs;
pub use crate::cli::PrintArgs;
use crate::kube::Connection;
use crate::output::Printer;
use crate::scheduler::model::Millis;

/// A printer for commands with `-o` and `--no-headers`.
pub fn printer(global: &GlobalArgs, print: &PrintArgs) -> Printer {
    Printer::new(print.output, print.no_headers, global.color)
}

/// Runs a future to completion on a small runtime of its own.
pub fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// Milliseconds since the epoch, now.
pub fn now_millis() -> Millis {
    k8s_openapi::jiff::Timestamp::now().as_millisecond()
}

/// Connects like kubectl (`--kubeconfig`, `--context`, `-n`).
pub async fn connect(global: &GlobalArgs) -> anyhow::Result<Connection> {
    crate::kube::connect(&global.connect_options()).await
}

/// Sleeps, for polling loops.
pub async fn sleep(d: Duration) {
    tokio::time::sleep(d).await;
}
