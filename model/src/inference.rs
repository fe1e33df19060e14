//! [`Inference`]: the fastest correct way this build has to evaluate a network, which is
//! what self-play and match players hold.

use std::sync::Arc;

use ndarray::{ArrayView2, ArrayViewMut2};

use crate::cpu::{CpuMlp, Precision, PrecisionError};
use crate::network::{Model, Network, Outputs};

/// How positions are evaluated.
#[derive(Debug, Clone)]
pub enum Inference {
    /// The residual MLP on the CPU through [`CpuMlp`].
    CpuMlp(Arc<CpuMlp>, Network),
    /// burn's forward pass on the network's device (graph networks, GPUs).
    Burn(Network),
}

/// Which inference path to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InferencePath {
    /// [`CpuMlp`] for an MLP on the CPU, burn otherwise.
    #[default]
    Fastest,
    /// Always burn.
    Burn,
}

impl Inference {
    /// Prepares `network` (parameters as they are now) for evaluation, in `precision`
    /// (`None`: [`Precision::automatic`] on the CPU path, 32-bit on burn's).
    ///
    /// # Errors
    /// A forced precision that this machine, or burn's path, cannot run.
    pub fn new(
        network: &Network,
        path: InferencePath,
        precision: Option<Precision>,
    ) -> Result<Inference, PrecisionError> {
        let network = network.for_inference();
        match (&network.model, path) {
            (Model::Mlp(mlp), InferencePath::Fastest)
                if *network.device() == burn::tensor::Device::flex() =>
            {
                let mlp = CpuMlp::from_burn(mlp).with_precision(Precision::resolve(precision)?)?;
                Ok(Inference::CpuMlp(Arc::new(mlp), network))
            }
            _ => match precision {
                Some(p) if p != Precision::F32 => Err(PrecisionError::NotOnBurn(p)),
                _ => Ok(Inference::Burn(network)),
            },
        }
    }

    /// The precision of its products.
    pub fn precision(&self) -> Precision {
        match self {
            Inference::CpuMlp(mlp, _) => mlp.precision(),
            Inference::Burn(_) => Precision::F32,
        }
    }

    /// Keeps each evaluation on the calling thread (no splitting of the batch across the
    /// rayon pool): for callers that already run one evaluator per core, as self-play does.
    pub fn single_threaded(self) -> Inference {
        match self {
            Inference::CpuMlp(mlp, n) => {
                let mut mlp = (*mlp).clone();
                mlp.min_rows_per_thread = usize::MAX;
                Inference::CpuMlp(Arc::new(mlp), n)
            }
            other => other,
        }
    }

    /// The network behind it.
    pub fn network(&self) -> &Network {
        match self {
            Inference::CpuMlp(_, n) | Inference::Burn(n) => n,
        }
    }

    /// A name for reports: `cpu-mlp (f32)`, `cpu-mlp (bf16)`, ... or `burn`.
    pub fn path_name(&self) -> String {
        match self {
            Inference::CpuMlp(mlp, _) => format!("cpu-mlp ({})", mlp.precision()),
            Inference::Burn(_) => "burn".into(),
        }
    }

    /// Evaluates `batch` encoded positions (row-major `features`): policy logits and
    /// win/draw/loss probabilities, written into the given vectors (resized).
    pub fn evaluate_into(
        &self,
        features: &[f32],
        batch: usize,
        logits: &mut Vec<f32>,
        wdl: &mut Vec<f32>,
    ) {
        match self {
            Inference::CpuMlp(mlp, _) => {
                let actions = mlp.actions();
                logits.resize(batch * actions, 0.0);
                wdl.resize(batch * 3, 0.0);
                let x = ArrayView2::from_shape((batch, mlp.input_len()), features)
                    .expect("feature rows");
                let p = ArrayViewMut2::from_shape((batch, actions), &mut logits[..])
                    .expect("policy rows");
                let w = ArrayViewMut2::from_shape((batch, 3), &mut wdl[..]).expect("wdl rows");
                mlp.forward(x, p, w);
            }
            Inference::Burn(n) => {
                let out = n.evaluate(features, None, batch);
                *logits = out.policy_logits;
                *wdl = out.wdl;
            }
        }
    }

    /// Evaluates `batch` encoded positions into fresh [`Outputs`].
    pub fn evaluate(&self, features: &[f32], batch: usize) -> Outputs {
        let (mut policy_logits, mut wdl) = (Vec::new(), Vec::new());
        self.evaluate_into(features, batch, &mut policy_logits, &mut wdl);
        Outputs {
            batch,
            policy_logits,
            wdl,
        }
    }
}
