//! The optimiser loop's single step: losses on a mini-batch, gradients, an AdamW update,
//! taken by one of two engines (see [`TrainEngine`]).

mod autodiff;
mod fast_mlp;
mod losses;

use kvarn_model::Network;
use kvarn_model::cpu::MlpTraining;

use crate::config::{TrainConfig, TrainEngine};
use crate::replay::Batch;
use autodiff::Autodiff;
use fast_mlp::FastMlp;
use losses::LossWeights;
pub use losses::Losses;

/// The implementation taking the steps.
enum Engine {
    Autodiff(Box<Autodiff>),
    FastMlp(Box<FastMlp>),
}

/// A network being trained, with its optimiser state.
pub struct Trainer {
    engine: Engine,
    config: TrainConfig,
    /// Optimiser steps taken over the whole run.
    pub step: u64,
}

impl Trainer {
    /// A trainer for `network` on the engine its configuration asks for: the fast CPU path
    /// for an MLP on the CPU unless `engine = "burn"`, burn's autodiff otherwise.
    pub fn new(network: &Network, config: TrainConfig) -> Trainer {
        let fast = match config.engine {
            TrainEngine::Auto => FastMlp::new(network, config.weight_decay),
            TrainEngine::Burn => None,
        };
        let engine = match fast {
            Some(f) => Engine::FastMlp(Box::new(f)),
            None => Engine::Autodiff(Box::new(Autodiff::new(network, config.weight_decay))),
        };
        Trainer {
            engine,
            config,
            step: 0,
        }
    }

    /// The engine's name for reports: `cpu-mlp` or `burn-autodiff`.
    pub fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Autodiff(_) => "burn-autodiff",
            Engine::FastMlp(_) => "cpu-mlp",
        }
    }

    /// The network as trained so far (call [`Network::for_inference`] to play with it).
    pub fn network(&self) -> Network {
        match &self.engine {
            Engine::Autodiff(a) => a.network().clone(),
            Engine::FastMlp(f) => f.network(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// The optimiser state, for checkpoints (burn's record format, or the fast path's).
    ///
    /// # Errors
    /// The state cannot be serialised.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, String> {
        match &self.engine {
            Engine::Autodiff(a) => a.optimizer_bytes(),
            Engine::FastMlp(f) => Ok(f.optimizer_bytes()),
        }
    }

    /// Restores optimiser state saved by [`Trainer::optimizer_bytes`]. State written by the
    /// other engine moves this trainer onto that engine when the configuration allows it
    /// (`engine = "auto"`), so that a run resumes exactly as it would have gone on.
    ///
    /// # Errors
    /// The bytes are not optimiser state for this network, or were written by an engine
    /// the configuration rules out.
    pub fn load_optimizer(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        let fast_state = MlpTraining::is_optimizer_state(&bytes);
        let network = self.network();
        match (&mut self.engine, fast_state) {
            (Engine::FastMlp(f), true) => f.load_optimizer(&bytes).map_err(|e| e.to_string()),
            (Engine::Autodiff(a), false) => a.load_optimizer(bytes),
            (Engine::FastMlp(_), false) => {
                let mut a = Autodiff::new(&network, self.config.weight_decay);
                a.load_optimizer(bytes)?;
                self.engine = Engine::Autodiff(Box::new(a));
                Ok(())
            }
            (Engine::Autodiff(_), true) => {
                let mut f = FastMlp::new(&network, self.config.weight_decay)
                    .filter(|_| self.config.engine == TrainEngine::Auto)
                    .ok_or(
                        "the optimiser state was written by the cpu-mlp engine, which this \
                            network, device or `engine` setting does not allow",
                    )?;
                f.load_optimizer(&bytes).map_err(|e| e.to_string())?;
                self.engine = Engine::FastMlp(Box::new(f));
                Ok(())
            }
        }
    }

    /// Losses of `batch` without training.
    pub fn losses(&mut self, batch: &Batch) -> Losses {
        let weights = LossWeights::of(&self.config);
        match &mut self.engine {
            Engine::Autodiff(a) => a.losses(batch, weights),
            Engine::FastMlp(f) => f.losses(batch, weights),
        }
    }

    /// One optimiser step on `batch`; returns its losses before the step.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let learning_rate = self.config.learning_rate_at(self.step);
        let weights = LossWeights::of(&self.config);
        let losses = match &mut self.engine {
            Engine::Autodiff(a) => a.train_step(batch, weights, learning_rate),
            Engine::FastMlp(f) => f.train_step(batch, weights, learning_rate),
        };
        self.step += 1;
        losses
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kvarn_model::burn::tensor::Device;
    use kvarn_model::{NetConfig, Network};
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn network() -> Network {
        network_with(false)
    }

    fn network_with(ownership_head: bool) -> Network {
        let device = Device::flex();
        let config = NetConfig::Mlp {
            hidden: 24,
            blocks: 2,
            ownership_head,
        };
        Network::new(
            kvarn_game::Rules::new(kvarn_game::Variant::Six),
            config,
            7,
            &device,
        )
        .expect("a network")
    }

    /// A batch like the replay window's: some illegal actions, some rows without a policy
    /// target, soft targets over legal actions, hard and soft value targets.
    fn batch(network: &Network, size: usize, seed: u64) -> Batch {
        batch_with_legal(network, size, seed, 0.3)
    }

    /// [`batch`] with each action legal with probability `legal_share`: 0.3 takes the
    /// policy head's dense products, 0.05 (about 14 of Six's 288 actions, as in a game) its
    /// sparse passes.
    fn batch_with_legal(network: &Network, size: usize, seed: u64, legal_share: f64) -> Batch {
        let dims = network.dims();
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let features = (0..size * dims.input)
            .map(|_| rng.random::<f32>())
            .collect();
        let legal: Vec<bool> = (0..size * dims.actions)
            .map(|_| rng.random_bool(legal_share))
            .collect();
        let mut policy = vec![0.0; size * dims.actions];
        for (row, legal) in policy
            .chunks_exact_mut(dims.actions)
            .zip(legal.chunks_exact(dims.actions))
        {
            let chosen: Vec<usize> = (0..dims.actions).filter(|&a| legal[a]).take(3).collect();
            for (i, &a) in chosen.iter().enumerate() {
                row[a] = (i + 1) as f32 / 6.0;
            }
        }
        let policy_weight = (0..size)
            .map(|i| if i % 4 == 3 { 0.0 } else { 1.0 })
            .collect();
        let value = (0..size)
            .flat_map(|i| match i % 3 {
                0 => [1.0, 0.0, 0.0],
                1 => [0.2, 0.5, 0.3],
                _ => [0.0, 0.0, 1.0],
            })
            .collect();
        // Final boards: a random plane per point, unknown (weight 0) on every fifth row.
        let width = 3 * dims.points;
        let mut ownership = vec![0.0; size * width];
        for (r, row) in ownership.chunks_exact_mut(width).enumerate() {
            if r % 5 != 4 {
                for p in 0..dims.points {
                    row[rng.random_range(0..3) * dims.points + p] = 1.0;
                }
            }
        }
        let ownership_weight = (0..size)
            .map(|r| if r % 5 == 4 { 0.0 } else { 1.0 })
            .collect();
        Batch {
            size,
            features,
            legal,
            policy,
            policy_weight,
            value,
            ownership,
            ownership_weight,
        }
    }

    const WEIGHTS: LossWeights = LossWeights {
        value: 1.5,
        ownership: 0.7,
    };

    fn config() -> TrainConfig {
        TrainConfig {
            learning_rate: 3e-3,
            weight_decay: 0.01,
            value_weight: 1.5,
            ..TrainConfig::default()
        }
    }

    fn max_difference(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_fast_path_gives_burns_losses_and_gradients() {
        for ownership_head in [false, true] {
            for legal_share in [0.3, 0.05] {
                fast_path_matches_burn(&network_with(ownership_head), legal_share);
            }
        }
    }

    fn fast_path_matches_burn(net: &Network, legal_share: f64) {
        let data = batch_with_legal(net, 40, 1, legal_share);
        let burn = Autodiff::new(net, 0.01);
        let mut fast = FastMlp::new(net, 0.01).expect("an MLP on the CPU");
        let (lb, lf) = (burn.losses(&data, WEIGHTS), fast.losses(&data, WEIGHTS));
        let head = net.config().has_ownership_head();
        assert_eq!(lb.ownership > 0.0, head, "{lb:?}");
        for (x, y) in [
            (lb.policy, lf.policy),
            (lb.value, lf.value),
            (lb.ownership, lf.ownership),
            (lb.total, lf.total),
        ] {
            assert!(
                (x - y).abs() <= 1e-5 * x.abs().max(1.0),
                "loss {x} against {y}"
            );
        }
        assert_eq!(lb.policy_accuracy, lf.policy_accuracy);
        assert_eq!(lb.value_accuracy, lf.value_accuracy);
        let (gb, gf) = (
            burn.gradients(&data, WEIGHTS),
            fast.gradients(&data, WEIGHTS),
        );
        assert_eq!(gb.len(), gf.len());
        assert_eq!(gb.len(), if head { 12 } else { 10 }, "two per layer");
        for (i, (b, f)) in gb.iter().zip(&gf).enumerate() {
            let scale = b.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-3);
            let d = max_difference(b, f);
            assert!(
                d <= 1e-5 * scale.max(1.0),
                "parameter {i}: gradients differ by {d} (scale {scale})"
            );
            assert!(b.iter().any(|&v| v != 0.0), "parameter {i} has a gradient");
        }
    }

    #[test]
    fn the_fast_path_takes_burns_adamw_steps() {
        let net = network();
        let mut burn = Trainer::new(
            &net,
            TrainConfig {
                engine: TrainEngine::Burn,
                ..config()
            },
        );
        let mut fast = Trainer::new(&net, config());
        assert_eq!(
            (burn.engine_name(), fast.engine_name()),
            ("burn-autodiff", "cpu-mlp")
        );
        for s in 0..5 {
            let data = batch(&net, 32, 10 + s);
            let (lb, lf) = (burn.train_step(&data), fast.train_step(&data));
            assert!(
                (lb.total - lf.total).abs() < 1e-4,
                "step {s}: {} against {}",
                lb.total,
                lf.total
            );
        }
        let params = |t: &Trainer| -> Vec<f32> {
            let kvarn_model::Model::Mlp(m) = &t.network().for_inference().model else {
                unreachable!()
            };
            m.layers()
                .iter()
                .flat_map(|(_, l)| l.weight.val().into_data().iter::<f32>().collect::<Vec<_>>())
                .collect()
        };
        let (pb, pf, p0) = (params(&burn), params(&fast), {
            let t = Trainer::new(&net, config());
            params(&t)
        });
        let moved = max_difference(&pb, &p0);
        let d = max_difference(&pb, &pf);
        assert!(moved > 1e-3, "training moved the weights ({moved})");
        assert!(d < 1e-5, "after 5 steps the weights differ by {d}");
    }

    #[test]
    fn optimizer_state_round_trips_and_moves_a_trainer_onto_its_engine() {
        let net = network();
        let data = batch(&net, 16, 3);
        for engine in [TrainEngine::Auto, TrainEngine::Burn] {
            let mut t = Trainer::new(&net, TrainConfig { engine, ..config() });
            t.train_step(&data);
            let bytes = t.optimizer_bytes().expect("state");
            let mut other = Trainer::new(&t.network(), config());
            other.load_optimizer(bytes.clone()).expect("loads");
            assert_eq!(other.engine_name(), t.engine_name());
            let (a, b) = (t.train_step(&data), other.train_step(&data));
            assert!(
                (a.total - b.total).abs() < 1e-6,
                "{engine:?}: {} against {}",
                a.total,
                b.total
            );
        }
        let mut burn_only = Trainer::new(
            &net,
            TrainConfig {
                engine: TrainEngine::Burn,
                ..config()
            },
        );
        let fast_state = Trainer::new(&net, config())
            .optimizer_bytes()
            .expect("state");
        let err = burn_only.load_optimizer(fast_state).expect_err("refused");
        assert!(err.contains("cpu-mlp"), "{err}");
        let mut t = Trainer::new(&net, config());
        assert!(
            t.load_optimizer(b"kvarn-adamw1 truncated".to_vec())
                .is_err()
        );
    }
}
