//! `kubectl kueue install` / `uninstall`: apply (or `--print`) the objects of
//! [`crate::manifests::install`], wait for the admission policy to take effect, and remove
//! them again (`--crds`: the CRDs too, after the controller's finalizer is off the Workloads).

use clap::Args;
use serde_json::Value;

use super::{CliResult, Outcome, common};
use crate::cli::GlobalArgs;
use crate::manifests::install::{
    CONTROLLER, DEFAULT_CONTROLLER_NAMESPACE, InstallOptions, POLICY, manifests, yaml_docs,
};
use crate::output::Printer;

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  kubectl kueue install                          # everything, controller in kueue-system
  kubectl kueue install --print > kueue.yaml     # the manifests, to review or apply with kubectl
  kubectl kueue install --image ghcr.io/you/kubectl-kueue@sha256:<digest>   # pinned by digest
  kubectl kueue install --without-controller     # v1beta1-only CRDs, RBAC and the policy; run the controller yourself
  kubectl kueue install --without-controller --webhook-url https://10.0.0.5:9443/convert
                                                 # both versions, converted by your run-controller there")]
pub struct InstallArgs {
    /// Print the manifests (YAML) instead of applying them.
    #[arg(long)]
    pub print: bool,
    /// Container image of the controller (built from the repository's Dockerfile); pin it by
    /// digest in production: `REPO@sha256:<digest>`.
    #[arg(long, value_name = "IMAGE", default_value = concat!("kubectl-kueue:", env!("CARGO_PKG_VERSION")), value_parser = crate::manifests::install::check_image)]
    pub image: String,
    /// Controller replicas (one leads, the others wait for the lease).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub replicas: i32,
    /// Leave the controller Deployment out (CRDs, RBAC and the admission policy only), for
    /// running `kubectl kueue run-controller` elsewhere.
    #[arg(long)]
    pub without_controller: bool,
    /// Leave the CRDs out (they are managed another way).
    #[arg(long)]
    pub skip_crds: bool,
    /// Where the API server reaches the conversion webhook of a `run-controller` run outside
    /// the cluster (`https://HOST:PORT/convert`, HOST in its certificate): the CRDs then
    /// serve v1beta1 and v1beta2 (stored) with `--without-controller` too. Default: the
    /// in-cluster Service kueue-webhook-service; with `--without-controller`, v1beta1-only
    /// CRDs (no webhook needed).
    #[arg(long, value_name = "URL")]
    pub webhook_url: Option<String>,
}

impl InstallArgs {
    fn options(&self) -> InstallOptions {
        InstallOptions {
            image: self.image.clone(),
            replicas: self.replicas,
            without_controller: self.without_controller,
            skip_crds: self.skip_crds,
            webhook_url: self.webhook_url.clone(),
        }
    }
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Also delete the CRDs, and with them every ClusterQueue, LocalQueue, Workload... (the
    /// controller's finalizer is removed from Workloads first).
    #[arg(long)]
    pub crds: bool,
}

pub fn run(global: &GlobalArgs, args: InstallArgs) -> CliResult {
    let printer = Printer::text(global.color);
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| DEFAULT_CONTROLLER_NAMESPACE.to_string());
    let objects = manifests(&namespace, &args.options()).map_err(anyhow::Error::msg)?;
    if args.print {
        printer.write(&yaml_docs(&objects))?;
        return Ok(Outcome::Success);
    }
    common::block_on(async {
        let conn = common::connect(global).await?;
        let mut printed = Ok(());
        conn.install(&objects, |what| {
            if printed.is_ok() {
                printed = printer.line(format!("{what} applied"));
            }
        })
        .await?;
        printed?;
        // Jobs created right after `install` must already be held.
        let timeout = std::time::Duration::from_secs(30);
        if !conn.wait_policy_effective(&namespace, timeout).await {
            eprintln!(
                "warning: the admission policy {POLICY} is not in effect yet: queue-labelled Jobs created now may start before admission"
            );
        }
        anyhow::Ok(())
    })?;
    if args.without_controller {
        printer.line(
            "installed without the controller: run `kubectl kueue run-controller` to schedule queued Jobs",
        )?;
        match &args.webhook_url {
            Some(url) => printer.line(format!(
                "the CRDs serve v1beta1 and v1beta2 (stored), converted at {url}: run-controller must serve it there (--webhook-port)"
            ))?,
            None if !args.skip_crds => printer.line(
                "the CRDs serve v1beta1 only (no conversion webhook in the cluster; --webhook-url gives both versions)",
            )?,
            None => {}
        }
    } else {
        printer.line(format!(
            "installed: the controller runs in namespace {namespace} (kubectl -n {namespace} get deployment {CONTROLLER})"
        ))?;
    }
    Ok(Outcome::Success)
}

pub fn run_uninstall(global: &GlobalArgs, args: UninstallArgs) -> CliResult {
    let printer = Printer::text(global.color);
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| DEFAULT_CONTROLLER_NAMESPACE.to_string());
    let install = InstallOptions {
        image: String::new(),
        replicas: 0,
        without_controller: false,
        skip_crds: !args.crds,
        webhook_url: None,
    };
    // The namespace stays: it may hold other things (and the leader-election Lease).
    let objects: Vec<Value> = manifests(&namespace, &install)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .filter(|o| o["kind"] != "Namespace")
        .collect();
    common::block_on(async {
        let conn = common::connect(global).await?;
        if args.crds {
            let n = conn
                .strip_workload_finalizers(crate::manifests::job::RESOURCE_IN_USE_FINALIZER)
                .await?;
            if n > 0 {
                printer.line(format!(
                    "removed the controller's finalizer from {n} Workload(s)"
                ))?;
            }
        }
        let mut printed = Ok(());
        conn.uninstall(&objects, |what| {
            if printed.is_ok() {
                printed = printer.line(format!("{what} deleted"));
            }
        })
        .await?;
        anyhow::Ok(printed?)
    })?;
    Ok(Outcome::Success)
}
