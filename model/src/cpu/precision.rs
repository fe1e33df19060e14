//! The arithmetic of the CPU path's inference: 32-bit floats everywhere, or the
//! reduced precisions of [`super::reduced`] for the hidden layers and the policy head.
//! Training always runs in 32-bit.

use serde::{Deserialize, Serialize};

use super::packed::Operand;

/// The precision of the matrix products of inference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Precision {
    /// 32-bit floats (gemm's AVX-512 or AVX2 kernels): every CPU, and training.
    F32,
    /// bf16 operands with 32-bit sums, on AMX tiles: 8 bits of mantissa, so outputs
    /// differ from 32-bit ones by about 1e-2 at most.
    Bf16,
    /// 8-bit integers on AMX tiles, AVX-512 VNNI or AVX2: each weight column scaled to
    /// ±127, each activation row (ReLU outputs) to 0..=255 (0..=127 on AVX2, whose
    /// products add in pairs in 16 bits) by its own largest value (scales
    /// computed from the data as it comes, so there is no calibration set to go stale),
    /// sums in 32-bit integers.
    Int8,
}

/// A precision this CPU cannot run, or a name that is none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    /// The CPU or the operating system lacks what the precision runs on.
    #[error(
        "{0} inference needs {needs}, which this machine does not offer: use precision f32 \
         or auto",
        needs = .0.needs()
    )]
    Unavailable(Precision),
    /// burn's path (GPUs, graph networks, `inference=burn`) computes in 32-bit only.
    #[error(
        "{0} inference runs on the CPU path of MLPs only; burn's path (GPUs, graph networks, \
         inference=burn) is 32-bit: use precision f32 or auto there"
    )]
    NotOnBurn(Precision),
    /// Not a precision's name.
    #[error("unknown precision {0:?}: expected auto, f32, bf16 or int8")]
    Unknown(String),
}

impl Precision {
    /// Every precision, widest first.
    pub const ALL: [Precision; 3] = [Precision::F32, Precision::Bf16, Precision::Int8];

    /// Its name in configurations, runs and model cards: `f32`, `bf16`, `int8`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        }
    }

    /// What it runs on, in words.
    fn needs(self) -> &'static str {
        match self {
            Precision::F32 => "nothing",
            Precision::Bf16 => "Intel's AMX tiles (and the operating system's permission)",
            Precision::Int8 => "Intel's AMX tiles, AVX-512 VNNI or AVX2",
        }
    }

    /// Whether this machine runs it.
    pub fn is_available(self) -> bool {
        match self {
            Precision::F32 => true,
            Precision::Bf16 => Operand::Bf16.runs_here(),
            Precision::Int8 => Operand::Int8.runs_here(),
        }
    }

    /// The precision `auto` means here: bf16 where the AMX tiles are, 32-bit elsewhere
    /// (int8 on VNNI or AVX2 alone is faster than 32-bit but moves the outputs more, so
    /// it is only taken when asked for).
    pub fn automatic() -> Precision {
        if Precision::Bf16.is_available() {
            Precision::Bf16
        } else {
            Precision::F32
        }
    }

    /// What a request (`None`: auto) runs at here.
    ///
    /// # Errors
    /// [`PrecisionError::Unavailable`] for a forced precision this machine lacks.
    pub fn resolve(request: Option<Precision>) -> Result<Precision, PrecisionError> {
        match request {
            None => Ok(Precision::automatic()),
            Some(p) if p.is_available() => Ok(p),
            Some(p) => Err(PrecisionError::Unavailable(p)),
        }
    }

    /// Reads `auto` (`None`), `f32`, `bf16` or `int8`.
    ///
    /// # Errors
    /// [`PrecisionError::Unknown`] for anything else.
    pub fn parse_request(text: &str) -> Result<Option<Precision>, PrecisionError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(None),
            other => Precision::ALL
                .into_iter()
                .find(|p| p.name() == other)
                .map(Some)
                .ok_or_else(|| PrecisionError::Unknown(text.into())),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Serde for a requested precision (`Option<Precision>`, `None` for auto) as
/// configurations write it: `"auto"`, `"f32"`, `"bf16"` or `"int8"`. Use with
/// `#[serde(with = "kvarn_model::cpu::precision_request")]`.
pub mod request {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::cpu::precision::Precision;

    /// Writes `auto` or the forced precision's name.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(
        request: &Option<Precision>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(request.map_or("auto", Precision::name))
    }

    /// Reads `auto` or a precision's name.
    ///
    /// # Errors
    /// Any other text, named in the message.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Precision>, D::Error> {
        let text = String::deserialize(deserializer)?;
        Precision::parse_request(&text).map_err(serde::de::Error::custom)
    }
}
