//! The manifest of a run (`manifest.json`): which generations are done, which model plays
//! self-play, and each generation's figures. It is written atomically as JSON Lines (the
//! run's state on the first line, a generation per line, a CRC-32 last) with a format name
//! and a version, and read back only when its checksum and its own arithmetic hold, so
//! that neither damage nor an edit can make a run believe something false of itself.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use kvarn_arena::elo::Tally;
use kvarn_arena::sprt::SprtStatus;
use kvarn_game::Phase;
use kvarn_storage::{read_jsonl, write_jsonl};
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::replay::PhaseSurprise;
use crate::run_dir::RunDir;

/// The format name in every manifest.
pub const MANIFEST_FORMAT: &str = "kvarn-run";

/// The layout version this Kvarn writes.
pub const MANIFEST_VERSION: u32 = 4;

/// The oldest layout version this Kvarn reads: version 3 lacks the configuration's
/// checksum and the amendments, which its first resume records.
pub const MANIFEST_OLDEST_VERSION: u32 = 3;

/// A new run's identity: 64 random bits in hexadecimal, so that no two runs share one
/// (their seeds and configurations may well be the same).
pub fn new_run_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// What `manifest.json` holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The run's state.
    pub state: RunState,
    /// The figures of the generations done.
    pub history: Vec<GenerationRecord>,
}

/// The first line of the manifest: where the run stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunState {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Layout version.
    pub version: u32,
    /// Generations finished.
    pub generations_done: u32,
    /// The generation whose model plays self-play (the last promoted one).
    pub selfplay_model: u32,
    /// The folder the run started in: relative paths of its configuration are read from
    /// there, whichever folder it is resumed from. Recorded relative to the run folder
    /// where the run folder lies inside it (`../..` for `runs/NAME`), so that a copy of
    /// the tree elsewhere (a clone on another machine) still finds its databases;
    /// absolute otherwise, and in runs started before.
    pub working_dir: PathBuf,
    /// The self-play figures of the generation under way, once its self-play is done (a
    /// generation resumed after it reports them rather than a rate of nothing).
    pub selfplay_done: Option<SelfPlayDone>,
    /// Resumes that could not reproduce the uninterrupted run, and why.
    pub inexact_resumes: Vec<InexactResume>,
    /// CRC-32 of `config.toml` as the run started, so that a resume refuses a
    /// configuration edited behind the run's back (absent in version-3 manifests until
    /// their first resume records it).
    #[serde(default)]
    pub config_crc32: Option<u32>,
    /// Settings changed on resume, in order, on top of `config.toml`.
    #[serde(default)]
    pub amendments: Vec<Amendment>,
    /// The generations asked for last (`kvarn train --generations N`), in place of the
    /// configuration's count: a run stopped on its way there goes on to it when resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generations_target: Option<u32>,
    /// The run's identity, written into its checkpoints so that another run's checkpoint
    /// is told apart (absent in runs started before it was recorded, until their first
    /// resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// SHA-256 of each generation's model file as the run wrote it, by generation, so
    /// that a replaced model is refused before use (generations written before it was
    /// recorded are checked by shape and rules only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<u32, String>,
}

/// Settings changed when a run was resumed (`kvarn train --resume DIR --set KEY=VALUE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Amendment {
    /// The first generation made with them.
    pub generation: u32,
    /// The settings, as `KEY=VALUE`.
    pub settings: Vec<String>,
}

/// Self-play figures kept for the generation under way.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayDone {
    /// The generation.
    pub generation: u32,
    /// Its figures.
    pub figures: SelfPlayFigures,
}

/// A resume that went on without everything an exact one needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InexactResume {
    /// The generation it resumed in.
    pub generation: u32,
    /// What was missing.
    pub reason: String,
}

impl Manifest {
    /// The manifest of a run that has done nothing yet, started in `working_dir` with a
    /// configuration whose text has the CRC-32 `config_crc32`.
    pub fn new(working_dir: PathBuf, config_crc32: u32) -> Manifest {
        Manifest {
            state: RunState {
                format: MANIFEST_FORMAT.into(),
                version: MANIFEST_VERSION,
                generations_done: 0,
                selfplay_model: 0,
                working_dir,
                selfplay_done: None,
                inexact_resumes: Vec::new(),
                config_crc32: Some(config_crc32),
                amendments: Vec::new(),
                generations_target: None,
                run_id: Some(new_run_id()),
                models: BTreeMap::new(),
            },
            history: Vec::new(),
        }
    }

    /// The folder the run started in, as a path usable from here: a relative record is
    /// read from the run folder.
    pub fn working_dir(&self, dir: &RunDir) -> PathBuf {
        let recorded = &self.state.working_dir;
        if recorded.is_relative() {
            dir.root().join(recorded)
        } else {
            recorded.clone()
        }
    }

    /// Records an absolute starting folder that holds the run folder as a relative one
    /// (runs started before they were recorded so), the same folder as long as the tree
    /// stays where it is. True when the record changed.
    pub fn make_relocatable(&mut self, dir: &RunDir) -> bool {
        let recorded = &self.state.working_dir;
        if recorded.is_relative() {
            return false;
        }
        let (Ok(working), Ok(run)) = (recorded.canonicalize(), dir.root().canonicalize()) else {
            return false;
        };
        match relative_working_dir(&working, &run) {
            Some(relative) => {
                self.state.working_dir = relative;
                true
            }
            None => false,
        }
    }

    /// Generations finished.
    pub fn generations_done(&self) -> u32 {
        self.state.generations_done
    }

    /// The generation whose model plays self-play.
    pub fn selfplay_model(&self) -> u32 {
        self.state.selfplay_model
    }

    /// Adds a finished generation.
    pub fn push(&mut self, record: GenerationRecord) {
        self.state.generations_done = record.generation;
        if record.promoted {
            self.state.selfplay_model = record.generation;
        }
        self.state.selfplay_done = None;
        self.history.push(record);
    }

    /// Writes the manifest of `dir`, atomically.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, dir: &RunDir) -> Result<(), RunError> {
        let path = dir.manifest();
        write_jsonl(&path, &self.state, &self.history).map_err(|e| RunError::io(&path, e))
    }

    /// Reads the manifest of `dir`.
    ///
    /// # Errors
    /// Missing, unreadable, or of another format or version.
    pub fn read(dir: &RunDir) -> Result<Manifest, RunError> {
        let path = dir.manifest();
        if !path.exists() {
            let reason = "missing: the folder holds no run (start one with --config)";
            return Err(RunError::manifest(&path, reason));
        }
        let (state, history): (RunState, Vec<GenerationRecord>) =
            read_jsonl(&path).map_err(|e| RunError::manifest(&path, e))?;
        let known = MANIFEST_OLDEST_VERSION..=MANIFEST_VERSION;
        if state.format != MANIFEST_FORMAT || !known.contains(&state.version) {
            return Err(RunError::manifest(
                &path,
                format!(
                    "format {} version {}; this Kvarn reads {MANIFEST_FORMAT} versions \
                     {MANIFEST_OLDEST_VERSION} to {MANIFEST_VERSION}",
                    state.format, state.version
                ),
            ));
        }
        let mut m = Manifest { state, history };
        // Written back in the current layout; what version 3 lacks is recorded on resume.
        m.state.version = MANIFEST_VERSION;
        m.check()
            .map_err(|reason| RunError::manifest(&path, reason))?;
        Ok(m)
    }

    /// Whether the manifest agrees with itself: a record per generation done, in order,
    /// and the self-play model the last promoted one.
    fn check(&self) -> Result<(), String> {
        let s = &self.state;
        if self.history.len() != s.generations_done as usize {
            return Err(format!(
                "says {} generations done but holds {} records",
                s.generations_done,
                self.history.len()
            ));
        }
        if let Some(r) = (1..).zip(&self.history).find(|(g, r)| r.generation != *g) {
            return Err(format!(
                "record {} is of generation {}",
                r.0, r.1.generation
            ));
        }
        let mut since = 1;
        for a in &s.amendments {
            if a.generation < since || a.generation > s.generations_done + 1 {
                return Err(format!(
                    "an amendment of generation {} is out of order or ahead of the run",
                    a.generation
                ));
            }
            since = a.generation;
        }
        let promoted = self.history.iter().rev().find(|r| r.promoted);
        let champion = promoted.map_or(0, |r| r.generation);
        if s.selfplay_model != champion {
            return Err(format!(
                "names generation {} as the self-play model; the last promoted is {champion}",
                s.selfplay_model
            ));
        }
        Ok(())
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
    /// What computed it (absent in runs from before it was recorded).
    #[serde(default)]
    pub compute: Option<Compute>,
}

/// The arithmetic a generation ran on: results are bitwise reproducible only on the same
/// kernel path and training engine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compute {
    /// `kvarn_model::cpu::KernelPath` of the CPU network path: `avx512`, `avx2`, `portable`.
    pub kernels: String,
    /// The training engine: `cpu-mlp` or `burn-autodiff`.
    pub trainer: String,
    /// The precision of self-play's network: `f32`, `bf16` or `int8` (absent in runs
    /// from before it was recorded, which were 32-bit).
    #[serde(default)]
    pub precision: Option<String>,
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
    /// Games played (by this process, when a resumed generation had some already).
    #[serde(default)]
    pub games: u64,
    /// Games whose result the endgame databases gave.
    #[serde(default)]
    pub adjudicated: u64,
    /// Games that reached a certain database position and were played on.
    #[serde(default)]
    pub played_out: u64,
    /// Wins, draws and losses of the deeper side in the games that had one
    /// (`selfplay.deep_side`). Earlier builds wrote it as `[wins, draws, losses]`,
    /// which reads into the same tally.
    #[serde(default)]
    pub deep_side_results: Tally,
    /// Ray nodes that played the games (none: this machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_nodes: Option<u32>,
}

/// The training stage's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingFigures {
    /// Optimiser steps per second.
    pub steps_per_second: f64,
    /// Samples in the replay window.
    pub window_samples: usize,
    /// Mean policy loss over the generation's steps.
    pub loss_policy: f64,
    /// Mean value loss over the generation's steps.
    pub loss_value: f64,
    /// Mean ownership loss over the generation's steps, where the network has the head
    /// (`network.ownership_head`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_ownership: Option<f64>,
    /// The window's mean policy surprise in each phase that has full searches (none in
    /// generations recorded before it was measured).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub surprise_by_phase: Vec<PhaseSurprise>,
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
    /// The perfect player from drawn critical positions of the benchmark set, the model
    /// to move: it must hold the draw.
    PerfectFromDrawn,
    /// The same from won critical positions: the model must win.
    PerfectFromWon,
}

/// One match of the new model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// The opponent.
    pub opponent: Opponent,
    /// Wins, draws and losses of the new model, in the games played to the end.
    pub tally: Tally,
    /// Games that could not be played (an agent failed), with the reason: not in the
    /// tally, and never silently.
    pub failures: Vec<String>,
    /// Where the sequential test stood when the match stopped, for a gated match.
    #[serde(default)]
    pub sequential: Option<SprtStatus>,
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
    /// Critical positions scored (where some move throws the value away).
    #[serde(default)]
    pub critical_positions: u32,
    /// Share of critical positions where the chosen move kept the value.
    #[serde(default)]
    pub critical_value_keeping: Option<f64>,
    /// What a uniformly random player keeps, in expectation, over won or drawn positions.
    #[serde(default)]
    pub random_value_keeping: f64,
    /// The same over critical positions.
    #[serde(default)]
    pub random_critical_value_keeping: Option<f64>,
    /// Critical value-keeping in each phase that has critical positions.
    #[serde(default)]
    pub critical_by_phase: Vec<PhaseCritical>,
}

/// Critical value-keeping in one phase of the benchmark set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PhaseCritical {
    /// The phase.
    pub phase: Phase,
    /// Its critical positions.
    pub positions: u32,
    /// Share of them where the chosen move kept the value.
    pub value_keeping: f64,
}

/// `working` as seen from `run`, both absolute, where `run` lies inside `working`: one
/// `..` for each folder between them (`.` when they are the same). `None` where `run` is
/// elsewhere or its path climbs (`..`), which no count of `..` would undo.
pub fn relative_working_dir(working: &Path, run: &Path) -> Option<PathBuf> {
    let below = run.strip_prefix(working).ok()?;
    let mut up = PathBuf::new();
    for component in below.components() {
        match component {
            Component::Normal(_) => up.push(".."),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if up.as_os_str().is_empty() {
        up.push(".");
    }
    Some(up)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_side_results_of_earlier_builds_read_as_a_tally() {
        let old = r#"{"positions_per_second": 10.0, "deep_side_results": [3, 4, 5]}"#;
        let figures: SelfPlayFigures = serde_json::from_str(old).unwrap();
        let want = Tally {
            wins: 3,
            draws: 4,
            losses: 5,
        };
        assert_eq!(figures.deep_side_results, want);
        let again = serde_json::to_string(&figures).unwrap();
        let back: SelfPlayFigures = serde_json::from_str(&again).unwrap();
        assert_eq!(back, figures);
    }
}
