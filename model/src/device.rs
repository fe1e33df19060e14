//! Which backend runs the network: burn picks it at runtime from the [`Device`], and the
//! GPU backends exist only when their cargo feature is built in.

use std::fmt;
use std::str::FromStr;

use burn::tensor::Device;
use serde::{Deserialize, Serialize};

/// A backend a user can ask for by name (`cpu`, `wgpu`, `cuda`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DeviceChoice {
    /// burn's `flex` CPU backend: always available.
    #[default]
    Cpu,
    /// burn's wgpu backend (Vulkan and others); needs the `wgpu` feature.
    Wgpu,
    /// burn's CUDA backend; needs the `cuda` feature.
    Cuda,
}

/// A backend that this build does not include.
#[derive(Debug, Clone, thiserror::Error)]
#[error("device `{0}` is not built in: rebuild with `--features {0}` (see the README)")]
pub struct DeviceUnavailable(pub DeviceChoice);

impl fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceChoice::Cpu => "cpu",
            DeviceChoice::Wgpu => "wgpu",
            DeviceChoice::Cuda => "cuda",
        })
    }
}

impl FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cpu" => Ok(DeviceChoice::Cpu),
            "wgpu" => Ok(DeviceChoice::Wgpu),
            "cuda" => Ok(DeviceChoice::Cuda),
            other => Err(format!("unknown device `{other}` (cpu, wgpu or cuda)")),
        }
    }
}

impl DeviceChoice {
    /// The burn device for inference (no autodiff); [`Device::autodiff`] makes the
    /// training one.
    ///
    /// # Errors
    /// The backend is not compiled into this build.
    pub fn device(self) -> Result<Device, DeviceUnavailable> {
        match self {
            DeviceChoice::Cpu => Ok(Device::flex()),
            #[cfg(feature = "wgpu")]
            DeviceChoice::Wgpu => Ok(Device::wgpu(burn::tensor::DeviceKind::default())),
            #[cfg(feature = "cuda")]
            DeviceChoice::Cuda => Ok(Device::cuda(0usize)),
            #[allow(unreachable_patterns)]
            other => Err(DeviceUnavailable(other)),
        }
    }
}
