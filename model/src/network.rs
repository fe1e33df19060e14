//! [`Network`]: a model of some architecture together with the rules and configuration it
//! was built for, which is what every other crate holds.

use std::sync::{Mutex, PoisonError};

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Bool, Device, Tensor, TensorData};
use kvarn_game::Rules;
use kvarn_storage::SettingError;

use crate::config::{Dims, NetConfig};
use crate::graph::GraphNet;
use crate::mlp::ResidualMlp;

/// Held while burn's generator is seeded and drawn from (see [`Network::new`]).
static DRAWING: Mutex<()> = Mutex::new(());

/// Draws each parameter at once: burn draws them lazily, at first use, which would be
/// outside the lock and after other draws.
struct DrawNow;

impl ModuleVisitor for DrawNow {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.base();
    }
}

/// The trainable part: one of the architectures of [`NetConfig`].
#[derive(Module, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Model {
    /// See [`NetConfig::Mlp`].
    Mlp(ResidualMlp),
    /// See [`NetConfig::Graph`].
    Graph(GraphNet),
}

impl Model {
    /// Policy logits `[batch, actions]` and win/draw/loss logits `[batch, 3]`.
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        match self {
            Model::Mlp(m) => m.forward(input),
            Model::Graph(m) => m.forward(input),
        }
    }
}

/// A network and what it is for. Cloning is cheap: parameters are shared until trained.
#[derive(Debug, Clone)]
pub struct Network {
    rules: Rules,
    config: NetConfig,
    dims: Dims,
    device: Device,
    /// The parameters; public so that a trainer can optimise them.
    pub model: Model,
}

/// One batch of network outputs, on the CPU, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// Rows in the batch.
    pub batch: usize,
    /// Policy logits, `batch × actions`; masked-out actions are `-inf` when a mask was given.
    pub policy_logits: Vec<f32>,
    /// Win/draw/loss probabilities for the player to move, `batch × 3`.
    pub wdl: Vec<f32>,
}

impl Network {
    /// A freshly initialised network, its parameters drawn from burn's initialisers with
    /// `seed`: the same seed gives the same network on a device.
    ///
    /// burn draws from one generator per backend and process, so seeding it and drawing
    /// happen under one lock: two networks made at once (two runs in one process, tests
    /// side by side) each get their own seed's parameters.
    ///
    /// # Errors
    /// The configuration has a size out of range.
    pub fn new(
        rules: Rules,
        config: NetConfig,
        seed: u64,
        device: &Device,
    ) -> Result<Network, SettingError> {
        config.validate()?;
        let _drawing = DRAWING.lock().unwrap_or_else(PoisonError::into_inner);
        device.seed(seed);
        let dims = Dims::of(&rules);
        let model = match config {
            NetConfig::Mlp {
                hidden,
                blocks,
                ownership_head,
            } => Model::Mlp(ResidualMlp::new(
                dims,
                hidden,
                blocks,
                ownership_head,
                device,
            )),
            NetConfig::Graph {
                channels,
                layers,
                value_hidden,
            } => Model::Graph(GraphNet::new(
                rules.board(),
                dims,
                channels,
                layers,
                value_hidden,
                device,
            )),
        };
        model.visit(&mut DrawNow);
        Ok(Network {
            rules,
            config,
            dims,
            device: device.clone(),
            model,
        })
    }

    /// Operations of one forward pass of one position, a multiply-add counted as two (the
    /// convention of PyTorch's reference script): 2 × the weights of an MLP's layers. Not
    /// a number (NaN) for a graph network, whose cost is not counted.
    pub fn forward_flops(&self) -> f64 {
        match &self.model {
            Model::Mlp(mlp) => mlp
                .layers()
                .iter()
                .map(|(_, l)| {
                    let [i, o] = l.weight.val().dims();
                    2.0 * (i * o) as f64
                })
                .sum(),
            Model::Graph(_) => f64::NAN,
        }
    }

    /// The rules the network plays.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Its architecture.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Input and output sizes.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The device its parameters live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Number of trainable parameters.
    pub fn parameter_count(&self) -> usize {
        self.model.num_params()
    }

    /// The same network on another device (for inference, a device without autodiff).
    pub fn to_device(self, device: &Device) -> Network {
        Network {
            model: self.model.to_device(device),
            device: device.clone(),
            ..self
        }
    }

    /// The network for inference: no autodiff bookkeeping, training-only behaviour off.
    pub fn for_inference(&self) -> Network {
        let device = self.device.clone().without_autodiff();
        Network {
            model: self.model.valid(),
            device,
            ..self.clone()
        }
    }

    /// The network for training: parameters forked onto the autodiff form of its device,
    /// training behaviour on.
    pub fn for_training(&self) -> Network {
        let device = self.device.clone().autodiff();
        Network {
            model: self.model.clone().fork(&device).train(),
            device,
            ..self.clone()
        }
    }

    /// Replaces the parameters (after an optimiser step).
    pub fn with_model(self, model: Model) -> Network {
        Network { model, ..self }
    }

    /// Raw logits for a batch of encoded positions (`[batch, input]`).
    pub fn forward(&self, input: Tensor<2>) -> (Tensor<2>, Tensor<2>) {
        self.model.forward(input)
    }

    /// What the trainer's losses take: policy log-probabilities with illegal actions
    /// masked (`legal` true = legal), win/draw/loss log-probabilities, and the ownership
    /// head's log-probabilities `[batch, 3, points]` (softmax over own, opponent, empty of
    /// each point) where the network has the head.
    pub fn forward_training(
        &self,
        input: Tensor<2>,
        legal: Tensor<2, Bool>,
    ) -> (Tensor<2>, Tensor<2>, Option<Tensor<3>>) {
        let (policy, value, ownership) = match &self.model {
            Model::Mlp(m) => m.forward_training(input),
            Model::Graph(m) => {
                let (policy, value) = m.forward(input);
                (policy, value, None)
            }
        };
        let policy = policy.mask_fill(legal.bool_not(), -1.0e9);
        let ownership = ownership.map(|o| {
            let rows = o.dims()[0];
            log_softmax(o.reshape([rows, 3, self.dims.points]), 1)
        });
        (log_softmax(policy, 1), log_softmax(value, 1), ownership)
    }

    /// Evaluates `batch` encoded positions given row-major in `features`, optionally masking
    /// illegal actions (`mask`, row-major, true = legal) to `-inf`.
    ///
    /// # Panics
    /// When `features` or `mask` does not hold `batch` rows of the network's sizes.
    pub fn evaluate(&self, features: &[f32], mask: Option<&[bool]>, batch: usize) -> Outputs {
        assert_eq!(features.len(), batch * self.dims.input, "feature rows");
        if batch == 0 {
            return Outputs {
                batch,
                policy_logits: Vec::new(),
                wdl: Vec::new(),
            };
        }
        let input = Tensor::<2>::from_data(
            TensorData::new(features.to_vec(), [batch, self.dims.input]),
            &self.device,
        );
        let (policy, value) = self.forward(input);
        let mut policy_logits: Vec<f32> = policy
            .into_data()
            .try_into_vec::<f32>()
            .expect("policy logits are f32");
        let wdl: Vec<f32> = softmax(value, 1)
            .into_data()
            .try_into_vec::<f32>()
            .expect("wdl is f32");
        if let Some(mask) = mask {
            assert_eq!(mask.len(), policy_logits.len(), "mask rows");
            for (l, &legal) in policy_logits.iter_mut().zip(mask) {
                if !legal {
                    *l = f32::NEG_INFINITY;
                }
            }
        }
        Outputs {
            batch,
            policy_logits,
            wdl,
        }
    }
}

/// Softmax over the finite entries of `logits` (masked entries, `-inf`, get 0).
pub fn masked_softmax(logits: &[f32], out: &mut [f32]) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if max == f32::NEG_INFINITY {
        out.iter_mut().for_each(|p| *p = 0.0);
        return;
    }
    let mut sum = 0.0;
    for (p, &l) in out.iter_mut().zip(logits) {
        *p = (l - max).exp();
        sum += *p;
    }
    out.iter_mut().for_each(|p| *p /= sum);
}
