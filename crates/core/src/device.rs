//! Device profiles: the WebGPU limits and features a plan is made for.
//!
//! A profile is plain JSON, `{"name", "limits": {WebGPU limit name: value}, "features": [WebGPU
//! feature names]}`, so a plan can be made for a device that is not present. The GPU runtime builds
//! one from what the adapter granted; the CLI loads one from a file or a built-in name.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The WebGPU limits and features of one device, by their WebGPU names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceProfile {
    /// Free-form name (adapter name for a real device).
    pub name: String,
    /// WebGPU limits (`maxStorageBuffersPerShaderStage`, ...). Limits not listed take the WebGPU
    /// spec's default when a profile is loaded.
    #[serde(default)]
    pub limits: BTreeMap<String, u64>,
    /// WebGPU feature names (`"shader-f16"`, `"subgroups"`, `"timestamp-query"`, ...).
    #[serde(default)]
    pub features: BTreeSet<String>,
    /// Tunable defaults this device sets, by tunable name: facts about the hardware that the
    /// WebGPU limits do not carry (`SHADER_CORES`, the shader cores (NVIDIA: SMs) the GPU runtime
    /// reads from the driver where it reports them). They replace the manifest's defaults;
    /// a call's own tunable overrides still win. Names the manifest does not declare, and
    /// values outside its `tunableLimits`, are ignored.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tunables: BTreeMap<String, i64>,
}

/// The WebGPU specification's default limits (what every conforming device offers).
pub const WEBGPU_DEFAULT_LIMITS: &[(&str, u64)] = &[
    ("maxTextureDimension1D", 8192),
    ("maxTextureDimension2D", 8192),
    ("maxTextureDimension3D", 2048),
    ("maxTextureArrayLayers", 256),
    ("maxBindGroups", 4),
    ("maxBindGroupsPlusVertexBuffers", 24),
    ("maxBindingsPerBindGroup", 1000),
    ("maxDynamicUniformBuffersPerPipelineLayout", 8),
    ("maxDynamicStorageBuffersPerPipelineLayout", 4),
    ("maxSampledTexturesPerShaderStage", 16),
    ("maxSamplersPerShaderStage", 16),
    ("maxStorageBuffersPerShaderStage", 8),
    ("maxStorageTexturesPerShaderStage", 4),
    ("maxUniformBuffersPerShaderStage", 12),
    ("maxUniformBufferBindingSize", 65536),
    ("maxStorageBufferBindingSize", 134217728),
    ("minUniformBufferOffsetAlignment", 256),
    ("minStorageBufferOffsetAlignment", 256),
    ("maxVertexBuffers", 8),
    ("maxBufferSize", 268435456),
    ("maxVertexAttributes", 16),
    ("maxVertexBufferArrayStride", 2048),
    ("maxInterStageShaderVariables", 16),
    ("maxColorAttachments", 8),
    ("maxColorAttachmentBytesPerSample", 32),
    ("maxComputeWorkgroupStorageSize", 16384),
    ("maxComputeInvocationsPerWorkgroup", 256),
    ("maxComputeWorkgroupSizeX", 256),
    ("maxComputeWorkgroupSizeY", 256),
    ("maxComputeWorkgroupSizeZ", 64),
    ("maxComputeWorkgroupsPerDimension", 65535),
];

/// The tunable a profile sets to the GPU's shader cores (NVIDIA: SMs) where the driver reports
/// them ([`DeviceProfile::tunables`]); kernels that size their grid by whole waves read it.
pub const SHADER_CORES: &str = "SHADER_CORES";

/// Names of the built-in profiles, for `--device NAME`.
pub const BUILTIN_PROFILES: &[&str] = &["webgpu-default", "discrete-gpu", "discrete-gpu-8sb"];

/// Error loading a device profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("device profile {path}: {source}")]
    Io {
        /// File path.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The JSON is malformed or has unknown keys.
    #[error("device profile {path}: {source}")]
    Json {
        /// File path.
        path: String,
        /// Cause.
        source: serde_json::Error,
    },
    /// A limit name that WebGPU does not define.
    #[error("device profile {path}: unknown WebGPU limit `{name}` (known: {known})")]
    UnknownLimit {
        /// File path.
        path: String,
        /// The bad name.
        name: String,
        /// Known names, comma separated.
        known: String,
    },
    /// A limit worse than WebGPU's default, which every conforming device offers.
    #[error("device profile {path}: limit `{name}` = {value} is worse than WebGPU's guaranteed {minimum} (a `max*` limit may only be larger, a `min*Alignment` only a smaller power of two)")]
    BelowMinimum {
        /// File path.
        path: String,
        /// The limit.
        name: String,
        /// The value given.
        value: u64,
        /// WebGPU's default.
        minimum: u64,
    },
}

impl DeviceProfile {
    /// The WebGPU default limits and no optional features.
    pub fn webgpu_default() -> DeviceProfile {
        DeviceProfile {
            name: "webgpu-default".into(),
            limits: WEBGPU_DEFAULT_LIMITS
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            features: BTreeSet::new(),
            tunables: BTreeMap::new(),
        }
    }

    /// A large discrete GPU (NVIDIA-class): high limits, subgroups, shader-f16, timestamps,
    /// f16 16x16x16 cooperative matrices with f32 accumulators (`coop-f16-16x16x16-f32`),
    /// subgroups of exactly 32 invocations (`subgroup-size-32`) and wgpu's native subgroup
    /// barrier (`wgpu-subgroup-barrier`).
    pub fn discrete_gpu() -> DeviceProfile {
        let mut p = DeviceProfile::webgpu_default();
        p.name = "discrete-gpu".into();
        for (k, v) in [
            ("maxStorageBuffersPerShaderStage", 64),
            ("maxComputeInvocationsPerWorkgroup", 1024),
            ("maxComputeWorkgroupSizeX", 1024),
            ("maxComputeWorkgroupSizeY", 1024),
            ("maxComputeWorkgroupStorageSize", 49152),
            ("maxStorageBufferBindingSize", 4294967292),
            ("maxBufferSize", 4294967296),
            ("maxUniformBufferBindingSize", 65536),
        ] {
            p.limits.insert(k.into(), v);
        }
        p.features = [
            "shader-f16",
            "subgroups",
            "timestamp-query",
            "coop-f16-16x16x16-f32",
            "subgroup-size-32",
            "wgpu-subgroup-barrier",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        p
    }

    /// A built-in profile by name (see [`BUILTIN_PROFILES`]).
    pub fn builtin(name: &str) -> Option<DeviceProfile> {
        match name {
            "webgpu-default" => Some(DeviceProfile::webgpu_default()),
            "discrete-gpu" => Some(DeviceProfile::discrete_gpu()),
            "discrete-gpu-8sb" => {
                let mut p = DeviceProfile::discrete_gpu();
                p.name = "discrete-gpu-8sb".into();
                p.limits.insert("maxStorageBuffersPerShaderStage".into(), 8);
                Some(p)
            }
            _ => None,
        }
    }

    /// Parses a profile from JSON text; `origin` names the source in errors. Missing limits take
    /// the WebGPU defaults; an unknown limit name is an error.
    pub fn from_json(text: &str, origin: &str) -> Result<DeviceProfile, ProfileError> {
        let mut p: DeviceProfile =
            serde_json::from_str(text).map_err(|source| ProfileError::Json {
                path: origin.into(),
                source,
            })?;
        for name in p.limits.keys() {
            if !WEBGPU_DEFAULT_LIMITS.iter().any(|(k, _)| k == name) {
                return Err(ProfileError::UnknownLimit {
                    path: origin.into(),
                    name: name.clone(),
                    known: WEBGPU_DEFAULT_LIMITS
                        .iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        for (k, v) in WEBGPU_DEFAULT_LIMITS {
            let given = *p.limits.entry(k.to_string()).or_insert(*v);
            // Every WebGPU device offers at least the defaults: a `max*` limit may only be
            // larger, a `min*Alignment` only smaller (and a power of two).
            let ok = if k.starts_with("min") {
                given <= *v && given.is_power_of_two()
            } else {
                given >= *v
            };
            if !ok {
                return Err(ProfileError::BelowMinimum {
                    path: origin.into(),
                    name: k.to_string(),
                    value: given,
                    minimum: *v,
                });
            }
        }
        Ok(p)
    }

    /// Loads a built-in profile by name, or else a JSON file at that path.
    pub fn load(name_or_path: &str) -> Result<DeviceProfile, ProfileError> {
        if let Some(p) = DeviceProfile::builtin(name_or_path) {
            return Ok(p);
        }
        let text = crate::files::read_text_limited(
            std::path::Path::new(name_or_path),
            crate::files::MAX_JSON_BYTES,
        )
        .map_err(|source| ProfileError::Io {
            path: name_or_path.into(),
            source,
        })?;
        DeviceProfile::from_json(&text, name_or_path)
    }

    /// A limit's value (the WebGPU default when the profile does not list it).
    pub fn limit(&self, name: &str) -> Option<u64> {
        self.limits.get(name).copied().or_else(|| {
            WEBGPU_DEFAULT_LIMITS
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| *v)
        })
    }

    /// Whether the device has a WebGPU feature.
    pub fn has_feature(&self, name: &str) -> bool {
        self.features.contains(name)
    }

    /// A copy without one feature (e.g. to force the subgroup-free path).
    pub fn without_feature(&self, name: &str) -> DeviceProfile {
        let mut p = self.clone();
        p.features.remove(name);
        p
    }

    /// A copy with one tunable default set (see [`DeviceProfile::tunables`]).
    pub fn with_tunable(&self, name: &str, value: i64) -> DeviceProfile {
        let mut p = self.clone();
        p.tunables.insert(name.into(), value);
        p
    }

    /// A copy with one limit changed.
    pub fn with_limit(&self, name: &str, value: u64) -> DeviceProfile {
        let mut p = self.clone();
        p.limits.insert(name.into(), value);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_json() {
        for n in BUILTIN_PROFILES {
            let p = DeviceProfile::builtin(n).unwrap();
            let back = DeviceProfile::from_json(&serde_json::to_string(&p).unwrap(), "x").unwrap();
            assert_eq!(p, back);
        }
        let p = DeviceProfile::from_json(r#"{"name":"t","limits":{"maxStorageBuffersPerShaderStage":10},"features":["subgroups"]}"#, "t").unwrap();
        assert_eq!(p.limit("maxStorageBuffersPerShaderStage"), Some(10));
        assert_eq!(p.limit("maxComputeWorkgroupsPerDimension"), Some(65535));
        assert!(p.has_feature("subgroups") && !p.has_feature("shader-f16"));
        let e = DeviceProfile::from_json(r#"{"name":"t","limits":{"maxStorageBufers":10}}"#, "t")
            .unwrap_err();
        assert!(e.to_string().contains("maxStorageBufers"));
        assert!(DeviceProfile::from_json(r#"{"name":"t","limitz":{}}"#, "t").is_err());
        // Tunable defaults: absent, or given (and kept through JSON).
        assert!(p.tunables.is_empty());
        let h = DeviceProfile::discrete_gpu().with_tunable(SHADER_CORES, 132);
        let json = serde_json::to_string(&h).unwrap();
        assert!(
            json.contains(r#""tunables":{"SHADER_CORES":132}"#),
            "{json}"
        );
        assert_eq!(DeviceProfile::from_json(&json, "h").unwrap(), h);
        let e = DeviceProfile::from_json(r#"{"name":"t","tunables":{"X":"a"}}"#, "t").unwrap_err();
        assert!(e.to_string().contains("device profile t"), "{e}");
    }
}
