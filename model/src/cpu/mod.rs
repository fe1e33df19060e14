//! The CPU path for the residual MLP, outside burn: inference ([`CpuMlp`]) and training
//! ([`MlpTraining`]) on the same kernels ([`kernels`]): matrix products by the `gemm`
//! crate and fused element-wise passes, each on the widest instructions the CPU has
//! (AVX-512 where offered, AVX2 otherwise), chosen at run time. Inference can also run
//! its hidden layers and policy head in bf16 or int8 ([`Precision`]): on the AMX tiles,
//! or int8 on AVX-512 VNNI or AVX2.
//!
//! burn's `flex` backend runs every layer as separate tensor operations with their own
//! allocations and passes over memory, and its autodiff keeps a graph per step; for the
//! small MLPs of self-play that overhead is most of the time (see docs/results/speed.md).
//! burn stays the path for other networks and for GPUs, and tests check this path
//! against burn's forward pass, gradients and AdamW updates.

mod amx;
mod avx2;
mod inference;
pub mod kernels;
mod packed;
mod precision;
mod reduced;
mod sparse_head;
mod training;
mod vnni;

pub use inference::CpuMlp;
pub use kernels::KernelPath;
pub use precision::{Precision, PrecisionError, request as precision_request};
pub use sparse_head::RowActions;
pub use training::{AdamW, MlpTraining, OptimizerStateError};
