//! The manifest of a run (`manifest.json`): which generations are done, which model plays
//! self-play, and each generation's figures, with a format name and a version so that a
//! file of another layout is refused by name.

use kvarn_eval::elo::Tally;
use kvarn_storage::write_atomically;
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::run_dir::RunDir;

/// The format name in every manifest.
pub const MANIFEST_FORMAT: &str = "kvarn-run";

/// The layout version this Kvarn writes and reads.
pub const MANIFEST_VERSION: u32 = 3;

/// What `manifest.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Layout version.
    pub version: u32,
    /// Generations finished.
    pub generations_done: u32,
    /// The generation whose model plays self-play (the last promoted one).
    pub selfplay_model: u32,
    /// Their figures.
    pub history: Vec<GenerationRecord>,
}

impl Manifest {
    /// The manifest of a run that has done nothing yet.
    pub fn new() -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT.into(),
            version: MANIFEST_VERSION,
            generations_done: 0,
            selfplay_model: 0,
            history: Vec::new(),
        }
    }

    /// Adds a finished generation.
    pub fn push(&mut self, record: GenerationRecord) {
        self.generations_done = record.generation;
        if record.promoted {
            self.selfplay_model = record.generation;
        }
        self.history.push(record);
    }

    /// Writes the manifest of `dir`, atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, dir: &RunDir) -> Result<(), RunError> {
        let path = dir.manifest();
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| RunError::manifest(&path, e))?;
        write_atomically(&path, &bytes).map_err(|e| RunError::io(&path, e))
    }

    /// Reads the manifest of `dir`.
    ///
    /// # Errors
    /// Missing, unreadable, or of another format or version.
    pub fn read(dir: &RunDir) -> Result<Manifest, RunError> {
        let path = dir.manifest();
        let text = std::fs::read_to_string(&path).map_err(|e| RunError::io(&path, e))?;
        let m: Manifest = serde_json::from_str(&text).map_err(|e| RunError::manifest(&path, e))?;
        if m.format != MANIFEST_FORMAT || m.version != MANIFEST_VERSION {
            return Err(RunError::manifest(
                &path,
                format!(
                    "format {} version {}; this Kvarn reads {MANIFEST_FORMAT} version {MANIFEST_VERSION}",
                    m.format, m.version
                ),
            ));
        }
        Ok(m)
    }
}

impl Default for Manifest {
    fn default() -> Manifest {
        Manifest::new()
    }
}

/// One generation's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    /// The generation (1-based).
    pub generation: u32,
    /// Optimiser steps at its end.
    pub step: u64,
    /// The generation whose model played this generation's self-play games.
    pub selfplay_model: u32,
    /// Whether this generation's model became the self-play model.
    pub promoted: bool,
    /// Seconds the generation took.
    pub seconds: f64,
    /// What self-play did.
    pub selfplay: SelfPlayFigures,
    /// What training did.
    pub training: TrainingFigures,
    /// How the new model did.
    pub evaluation: Evaluation,
}

impl GenerationRecord {
    /// The result of the match against `opponent`, if one was played.
    pub fn result_vs(&self, opponent: &Opponent) -> Option<&Tally> {
        self.evaluation.result_vs(opponent)
    }
}

/// The self-play stage's figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayFigures {
    /// Searched positions per second.
    pub positions_per_second: f64,
}

/// The training stage's figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrainingFigures {
    /// Optimiser steps per second.
    pub steps_per_second: f64,
    /// Samples in the replay window.
    pub window_samples: usize,
    /// Mean policy loss over the generation's steps.
    pub loss_policy: f64,
    /// Mean value loss over the generation's steps.
    pub loss_value: f64,
}

/// The evaluation stage's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Every match the new model played, in the order played.
    pub matches: Vec<MatchResult>,
    /// The solver benchmark, where the run has databases.
    pub solver: Option<SolverFigures>,
}

impl Evaluation {
    /// The result of the match against `opponent`, if one was played.
    pub fn result_vs(&self, opponent: &Opponent) -> Option<&Tally> {
        self.matches
            .iter()
            .find(|m| &m.opponent == opponent)
            .map(|m| &m.tally)
    }
}

/// Whom the new model played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Opponent {
    /// The self-play model of the generation (the last promoted one).
    Previous,
    /// Uniformly random play.
    Random,
    /// The alpha-beta baseline at a fixed depth.
    AlphaBeta {
        /// Search depth in turns.
        depth: u32,
    },
    /// Value-optimal play from the solver's databases.
    Perfect,
}

/// One match of the new model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The opponent.
    pub opponent: Opponent,
    /// Wins, draws and losses of the new model.
    pub tally: Tally,
}

/// The network on the solver benchmark set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverFigures {
    /// Positions scored.
    pub positions: u32,
    /// Share of positions whose exact outcome the search's win/draw/loss estimate named.
    pub value_accuracy: Option<f64>,
    /// Share of won or drawn positions where the chosen move kept the value.
    pub value_keeping: f64,
    /// Share of won or drawn positions where the chosen move threw it away.
    pub blunders: f64,
}
