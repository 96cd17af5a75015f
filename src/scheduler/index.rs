//! Interning: names of flavors, resources and (flavor, resource) pairs as dense indices, so
//! the hot paths compare integers and index vectors.

use std::collections::BTreeMap;

use super::tree::Fr;

pub type FlavorId = usize;
pub type ResId = usize;

#[derive(Debug, Clone, Default)]
pub struct Names {
    pub flavors: Vec<String>,
    flavor_ids: BTreeMap<String, FlavorId>,
    pub resources: Vec<String>,
    resource_ids: BTreeMap<String, ResId>,
    /// Fr -> (flavor, resource)
    pub frs: Vec<(FlavorId, ResId)>,
    fr_ids: BTreeMap<(FlavorId, ResId), Fr>,
}

impl Names {
    pub fn flavor(&mut self, name: &str) -> FlavorId {
        if let Some(&id) = self.flavor_ids.get(name) {
            return id;
        }
        self.flavors.push(name.to_string());
        self.flavor_ids
            .insert(name.to_string(), self.flavors.len() - 1);
        self.flavors.len() - 1
    }

    pub fn resource(&mut self, name: &str) -> ResId {
        if let Some(&id) = self.resource_ids.get(name) {
            return id;
        }
        self.resources.push(name.to_string());
        self.resource_ids
            .insert(name.to_string(), self.resources.len() - 1);
        self.resources.len() - 1
    }

    pub fn fr(&mut self, flavor: FlavorId, resource: ResId) -> Fr {
        if let Some(&id) = self.fr_ids.get(&(flavor, resource)) {
            return id;
        }
        self.frs.push((flavor, resource));
        self.fr_ids.insert((flavor, resource), self.frs.len() - 1);
        self.frs.len() - 1
    }

    pub fn find_flavor(&self, name: &str) -> Option<FlavorId> {
        self.flavor_ids.get(name).copied()
    }

    pub fn find_resource(&self, name: &str) -> Option<ResId> {
        self.resource_ids.get(name).copied()
    }

    pub fn find_fr(&self, flavor: FlavorId, resource: ResId) -> Option<Fr> {
        self.fr_ids.get(&(flavor, resource)).copied()
    }

    pub fn fr_flavor(&self, fr: Fr) -> &str {
        &self.flavors[self.frs[fr].0]
    }

    pub fn fr_resource(&self, fr: Fr) -> &str {
        &self.resources[self.frs[fr].1]
    }
}
