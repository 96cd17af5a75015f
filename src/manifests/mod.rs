//! Reading Kueue objects (v1beta1 and v1beta2, mixed freely), Jobs, Namespaces, Nodes,
//! LimitRanges, RuntimeClasses and the controller `Configuration` from YAML, and converting API objects into the engine's
//! [`crate::scheduler::model`] (a Workload's requests counted as upstream counts them:
//! [`requests`]); building the objects the commands write: queues from
//! kueuectl's flags ([`flags`]), Jobs and their Workloads ([`job`]), `init`'s setup ([`setup`])
//! and what `install` applies ([`install`]). Pure: no cluster access, no command line; the live
//! adapters reuse [`convert`](mod@convert). Documents become the internal (v1beta1) form when
//! read; [`sources`] remembers which version each object was written in.

pub mod convert;
pub mod documents;
pub mod error;
pub mod flags;
pub mod install;
pub mod inventory;
pub mod job;
pub mod key;
mod kueue_documents;
pub mod nodes;
pub mod pod;
pub mod priority;
pub mod requests;
pub mod setup;
pub mod sources;
pub mod validation;
pub mod visibility;

pub use convert::{ConvertOptions, Converted, WorkloadEntry, convert};
pub use error::{InputError, LoadError, Origin};
pub use inventory::{Inventory, Sourced};
pub use key::ObjectKey;
pub use sources::{KueueKind, Sources, V1beta2Feature};

/// Reads PATH arguments into an inventory of typed objects.
pub fn load(paths: &[String]) -> Result<Inventory, LoadError> {
    let docs = documents::read_all(paths)?;
    Ok(Inventory::from_documents(docs)?)
}

/// Reads a controller Configuration file (`run-controller --config`): one
/// `config.kueue.x-k8s.io` v1beta1 or v1beta2 Configuration and nothing else, read and checked
/// exactly as `simulate -f` reads one. Returns it with the warnings about fields accepted but
/// not acted on.
pub fn load_configuration(
    path: &str,
) -> Result<(crate::api::config::Configuration, Vec<String>), LoadError> {
    let inv = load(&[path.to_string()])?;
    let at = |message: &str| {
        LoadError::Input(Box::new(InputError::new(
            &Origin {
                file: path.to_string(),
                document: 1,
                order: 0,
            },
            message,
        )))
    };
    let others = inv.flavors.len()
        + inv.cohorts.len()
        + inv.cluster_queues.len()
        + inv.local_queues.len()
        + inv.priority_classes.len()
        + inv.pod_priority_classes.len()
        + inv.workloads.len()
        + inv.jobs.len()
        + inv.namespaces.len()
        + inv.nodes.len();
    if others > 0 {
        return Err(at(&format!(
            "a configuration file holds one Configuration and nothing else ({others} other object(s) found)"
        )));
    }
    match inv.config {
        Some(c) => Ok((c.obj, inv.warnings)),
        None => Err(at(
            "no Configuration in the file (apiVersion config.kueue.x-k8s.io/v1beta1 or v1beta2, kind Configuration)",
        )),
    }
}
