//! ResourceFlavor between v1beta1 and v1beta2: identical fields (upstream's CRD has no
//! conversion webhook for it; the API server only rewrites `apiVersion`).

use crate::api::v1beta2 as v2;
use crate::api::{self as v1};

/// A v1beta1 ResourceFlavor as v1beta2.
pub fn to_v1beta2(rf: &v1::ResourceFlavor) -> v2::ResourceFlavor {
    let spec = &rf.spec;
    v2::ResourceFlavor {
        metadata: rf.metadata.clone(),
        spec: v2::ResourceFlavorSpec {
            node_labels: spec.node_labels.clone(),
            node_taints: spec.node_taints.clone(),
            tolerations: spec.tolerations.clone(),
            topology_name: spec.topology_name.clone(),
        },
    }
}

/// A v1beta2 ResourceFlavor as v1beta1.
pub fn to_v1beta1(rf: &v2::ResourceFlavor) -> v1::ResourceFlavor {
    let spec = &rf.spec;
    v1::ResourceFlavor {
        metadata: rf.metadata.clone(),
        spec: v1::ResourceFlavorSpec {
            node_labels: spec.node_labels.clone(),
            node_taints: spec.node_taints.clone(),
            tolerations: spec.tolerations.clone(),
            topology_name: spec.topology_name.clone(),
        },
    }
}
