//! Interning: names of flavors, resources and (flavor, resource) pairs as dense ids, so the
//! hot paths compare integers and index vectors.
//!
//! Invariants: an id, once given, names the same thing for the engine's lifetime (ids are
//! never reused or renumbered); every `FrId` refers to a flavor and a resource interned here.

use std::collections::BTreeMap;

use super::id::{FlavorId, FrId, IdVec, ResId};

/// The flavor and resource of one interned pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlavorResource {
    pub flavor: FlavorId,
    pub resource: ResId,
}

#[derive(Debug, Clone, Default)]
pub struct Names {
    pub flavors: IdVec<FlavorId, String>,
    flavor_ids: BTreeMap<String, FlavorId>,
    pub resources: IdVec<ResId, String>,
    resource_ids: BTreeMap<String, ResId>,
    pub frs: IdVec<FrId, FlavorResource>,
    fr_ids: BTreeMap<(FlavorId, ResId), FrId>,
}

impl Names {
    pub fn flavor(&mut self, name: &str) -> FlavorId {
        if let Some(&id) = self.flavor_ids.get(name) {
            return id;
        }
        let id = self.flavors.push(name.to_string());
        self.flavor_ids.insert(name.to_string(), id);
        id
    }

    pub fn resource(&mut self, name: &str) -> ResId {
        if let Some(&id) = self.resource_ids.get(name) {
            return id;
        }
        let id = self.resources.push(name.to_string());
        self.resource_ids.insert(name.to_string(), id);
        id
    }

    pub fn fr(&mut self, flavor: FlavorId, resource: ResId) -> FrId {
        if let Some(&id) = self.fr_ids.get(&(flavor, resource)) {
            return id;
        }
        let id = self.frs.push(FlavorResource { flavor, resource });
        self.fr_ids.insert((flavor, resource), id);
        id
    }

    pub fn find_flavor(&self, name: &str) -> Option<FlavorId> {
        self.flavor_ids.get(name).copied()
    }

    pub fn find_resource(&self, name: &str) -> Option<ResId> {
        self.resource_ids.get(name).copied()
    }

    pub fn find_fr(&self, flavor: FlavorId, resource: ResId) -> Option<FrId> {
        self.fr_ids.get(&(flavor, resource)).copied()
    }

    pub fn fr_flavor(&self, fr: FrId) -> &str {
        &self.flavors[self.frs[fr].flavor]
    }

    pub fn fr_resource(&self, fr: FrId) -> &str {
        &self.resources[self.frs[fr].resource]
    }
}
