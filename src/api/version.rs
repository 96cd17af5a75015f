//! The two versions of the Kueue API this product reads and writes, and how to tell them from
//! an `apiVersion` string.

use std::fmt;
use std::str::FromStr;

/// A version of `kueue.x-k8s.io` (and of `config.kueue.x-k8s.io`, which moves in step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KueueVersion {
    /// The version this product's internal form is written in (upstream still serves it, with
    /// a deprecation warning).
    #[default]
    V1beta1,
    /// Upstream's storage version since Kueue v0.16.
    V1beta2,
}

impl KueueVersion {
    /// Both versions, oldest first.
    pub const ALL: [KueueVersion; 2] = [KueueVersion::V1beta1, KueueVersion::V1beta2];

    /// `v1beta1` or `v1beta2`.
    pub fn name(self) -> &'static str {
        match self {
            KueueVersion::V1beta1 => "v1beta1",
            KueueVersion::V1beta2 => "v1beta2",
        }
    }

    /// The `apiVersion` of a Kueue object in this version.
    pub fn api_version(self) -> &'static str {
        match self {
            KueueVersion::V1beta1 => super::API_VERSION,
            KueueVersion::V1beta2 => super::v1beta2::API_VERSION,
        }
    }

    /// The `apiVersion` of a `Configuration` in this version.
    pub fn config_api_version(self) -> &'static str {
        match self {
            KueueVersion::V1beta1 => super::config::CONFIG_API_VERSION,
            KueueVersion::V1beta2 => super::v1beta2::CONFIG_API_VERSION,
        }
    }

    /// The version of a Kueue object's `apiVersion`, if it is one we read.
    pub fn of_kueue_api_version(api_version: &str) -> Option<KueueVersion> {
        Self::ALL
            .into_iter()
            .find(|v| v.api_version() == api_version)
    }

    /// The version of a `Configuration`'s `apiVersion`, if it is one we read.
    pub fn of_config_api_version(api_version: &str) -> Option<KueueVersion> {
        Self::ALL
            .into_iter()
            .find(|v| v.config_api_version() == api_version)
    }
}

impl fmt::Display for KueueVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown version name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown Kueue API version {0:?} (expected v1beta1 or v1beta2)")]
pub struct UnknownVersion(pub String);

impl FromStr for KueueVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}
