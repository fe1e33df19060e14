//! A whole run configuration file (TOML), as `kvarn train`, `kvarn selfplay` and
//! `kvarn model new` read it, and the checks made before any work starts: unknown keys,
//! impossible values and missing files are refused with the key named.

use std::path::{Path, PathBuf};

use kvarn_arena::sprt::{MAX_ELO, SprtParams};
use kvarn_game::{Rules, Variant};
use kvarn_model::{DeviceChoice, NetConfig};
use kvarn_selfplay::{
    MoveChoice, PlayerSettings, PlayerTable, RootSearch, SearchConfig, SelfPlayConfig,
};
use kvarn_storage::SettingError;
use serde::{Deserialize, Serialize};

use crate::config::TrainConfig;

/// How the loop runs and evaluates (the `[loop]` table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Generations to run.
    #[schemars(range(min = 1, max = 100_000))]
    pub generations: u32,
    /// Self-play games per generation.
    #[schemars(range(min = 1))]
    pub games_per_generation: u64,
    /// Optimiser steps between checkpoints.
    #[schemars(range(min = 1))]
    pub checkpoint_every: u64,
    /// Games of the new model against the model that played the generation's games.
    pub games_vs_previous: usize,
    /// The new model replaces the self-play model only when it scores at least this
    /// against it (0: always).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub promotion_score: f64,
    /// Gate by a sequential test instead: the new model plays the self-play model in game
    /// pairs until the test decides (or `max_games`), and replaces it only when the test
    /// accepts that it is `elo1` stronger rather than `elo0`.
    pub gate: Option<GateConfig>,
    /// Depths of the alpha-beta baseline to play each generation.
    #[schemars(inner(range(min = 1, max = 30)))]
    pub baseline_depths: Vec<u32>,
    /// Games against each baseline depth.
    pub games_vs_baseline: usize,
    /// Games against random play.
    pub games_vs_random: usize,
    /// The network player of evaluation games and benchmarks (`[loop.player]`): player
    /// settings by name (`simulations = 160`, `symmetries = 16`, `move_choice = "lcb"`,
    /// ...; `kvarn config` lists them) over the run's tree search (`[search]`, but for
    /// its count of simulations and its move choice, which are self-play's). Self-play is
    /// not affected.
    pub player: PlayerTable,
    /// `player.simulations`, as configurations written before `[loop.player]` named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval_simulations: Option<u32>,
    /// `player.symmetries`, as configurations written before `[loop.player]` named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval_symmetries: Option<usize>,
    /// `player.move_choice`, as configurations written before `[loop.player]` named it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval_move_choice: Option<MoveChoice>,
    /// Evaluate every this many generations (and the first and last): evaluation games
    /// cost as much as self-play on a long Nine run, and the curve needs no more points.
    /// The generations between are promoted without a match.
    #[schemars(range(min = 1, max = 100_000))]
    pub evaluate_every: u32,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            generations: 10,
            games_per_generation: 128,
            checkpoint_every: 50,
            games_vs_previous: 20,
            promotion_score: 0.0,
            gate: None,
            baseline_depths: vec![2],
            games_vs_baseline: 20,
            games_vs_random: 0,
            player: PlayerTable::default(),
            eval_simulations: None,
            eval_symmetries: None,
            eval_move_choice: None,
            evaluate_every: 1,
        }
    }
}

impl LoopConfig {
    /// Whether generation `g` is evaluated.
    pub fn evaluates(&self, g: u32) -> bool {
        g == 1 || g >= self.generations || g.is_multiple_of(self.evaluate_every.max(1))
    }

    /// Sets the evaluation player's setting `name` to `value` (text, as on a command
    /// line), in place of what the configuration says, however it says it.
    pub fn set_player(&mut self, name: &str, value: &str) {
        match name {
            "simulations" => self.eval_simulations = None,
            "symmetries" => self.eval_symmetries = None,
            "move_choice" => self.eval_move_choice = None,
            _ => {}
        }
        self.player.0.insert(
            name.to_string(),
            kvarn_selfplay::player::Scalar::Text(value.into()),
        );
    }

    /// The evaluation player: [`PlayerSettings::from_search`] of `search`, then the
    /// settings of configurations written before `[loop.player]`, then `[loop.player]`.
    ///
    /// # Errors
    /// A setting refused, named by its key; a setting given both ways.
    pub fn player(&self, search: &SearchConfig) -> Result<PlayerSettings, SettingError> {
        let mut player = PlayerSettings::from_search(search);
        let former = [
            (
                "eval_simulations",
                "simulations",
                self.eval_simulations.map(|n| n.to_string()),
            ),
            (
                "eval_symmetries",
                "symmetries",
                self.eval_symmetries.map(|n| n.to_string()),
            ),
            (
                "eval_move_choice",
                "move_choice",
                self.eval_move_choice.map(|m| match m {
                    MoveChoice::Visits => "visits".to_string(),
                    MoveChoice::Lcb => "lcb".to_string(),
                }),
            ),
        ];
        for (key, name, value) in former {
            let Some(value) = value else { continue };
            SettingError::check(
                !self.player.0.contains_key(name),
                &format!("loop.{key}"),
                format!("is loop.player.{name}: give it once"),
            )?;
            player
                .set(name, &value)
                .map_err(|e| SettingError::new(format!("loop.{key}"), e.to_string()))?;
        }
        for (name, value) in &self.player.0 {
            player
                .set(name, &value.to_string())
                .map_err(|e| SettingError::new(format!("loop.player.{name}"), e.to_string()))?;
        }
        player
            .validate()
            .map_err(|e| SettingError::new("loop.player", e.to_string()))?;
        Ok(player)
    }
}

/// How the evaluation player `player` differs from the run's plain search, for reports:
/// nothing for one image and the most visited move, else `, each leaf the mean of K
/// symmetric images` and `, the move of the highest lower confidence bound`.
pub fn player_note(player: &PlayerSettings) -> String {
    let mut note = match player.symmetries {
        1 => String::new(),
        k => format!(", each leaf the mean of {k} symmetric images"),
    };
    if player.search.move_choice == MoveChoice::Lcb {
        note.push_str(", the move of the highest lower confidence bound");
    }
    note
}

/// A sequential test gating promotion (`[loop.gate]`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    /// Elo of the new model over the self-play model under H0.
    #[schemars(range(min = -MAX_ELO, max = MAX_ELO))]
    pub elo0: f64,
    /// Elo under H1 (above `elo0`).
    #[schemars(range(min = -MAX_ELO, max = MAX_ELO))]
    pub elo1: f64,
    /// The chance of promoting a model that is only `elo0` stronger.
    #[serde(default = "default_error_rate")]
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub alpha: f64,
    /// The chance of keeping a model that is `elo1` stronger.
    #[serde(default = "default_error_rate")]
    #[schemars(extend("exclusiveMinimum" = 0.0, "exclusiveMaximum" = 1.0))]
    pub beta: f64,
    /// Games at most; an undecided test keeps the self-play model.
    #[schemars(range(min = 2))]
    pub max_games: usize,
}

fn default_error_rate() -> f64 {
    0.05
}

impl GateConfig {
    /// The test's parameters.
    pub fn params(&self) -> SprtParams {
        SprtParams {
            elo0: self.elo0,
            elo1: self.elo1,
            alpha: self.alpha,
            beta: self.beta,
        }
    }

    fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "loop.gate")?;
        self.params()
            .validate()
            .map_err(|e| SettingError::new("loop.gate", e.to_string()))
    }
}

impl LoopConfig {
    /// Checks the `[loop]` table.
    ///
    /// # Errors
    /// The first bad setting, named by its key.
    pub fn validate(&self) -> Result<(), SettingError> {
        kvarn_storage::check_declared(self, "loop")?;
        if let Some(gate) = &self.gate {
            gate.validate()?;
        }
        SettingError::check(
            self.promotion_score <= 0.0 || self.games_vs_previous > 0,
            "loop.promotion_score",
            "promotion needs games against the previous model (loop.games_vs_previous)",
        )?;
        SettingError::check(
            self.evaluate_every == 1 || (self.gate.is_none() && self.promotion_score <= 0.0),
            "loop.evaluate_every",
            "a gate or a promotion score needs an evaluation every generation (evaluate_every = 1)",
        )?;
        Ok(())
    }
}

/// The solver benchmark (the `[solver]` table): where the databases are and how much to
/// measure against them each generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SolverConfig {
    /// Folder of the databases (`kvarn solve`), relative to the working directory; none:
    /// no solver benchmark.
    pub db: Option<PathBuf>,
    /// Solve into `db` first when it holds no databases (Six and Five: seconds; Nine's
    /// moving phase: see `max_men`).
    pub build_if_missing: bool,
    /// Nine Men's Morris: the moving phase is solved up to this many men a side.
    #[schemars(range(min = 3, max = 9))]
    pub max_men: u8,
    /// Positions of the benchmark set, balanced over phases and values: taken from the
    /// committed tuning set of the rules where the repository has one (so that runs are
    /// judged on the same positions), else sampled once per run from the databases.
    #[schemars(range(min = 1))]
    pub positions: usize,
    /// Folder of the moving phase's win/draw/loss tables (`kvarn solve --wdl`), for
    /// self-play only: beside `db`'s endgame databases, a position they hold is a search
    /// leaf with its table value (`selfplay.endgame.probes`) and a game that reaches one
    /// ends with it (`selfplay.endgame.adjudicate`). Their values ignore the draw rules (a
    /// draw is certain, a win almost always). None: not used.
    pub whole_game_db: Option<PathBuf>,
    /// The units of `whole_game_db` loaded: those with up to this many men a side (Nine's
    /// up to 7 take a quarter of an hour to solve on 2 cores; all 9 are about 2.2 GB in
    /// memory).
    #[schemars(range(min = 3, max = 9))]
    pub whole_game_max_men: u8,
    /// Games against the perfect player from the start position, colours alternating.
    pub games_vs_perfect: usize,
    /// Games against the perfect player from drawn critical positions of the benchmark
    /// set, and as many from won ones, the model to move (it must hold the draw, and win).
    pub games_from_positions: usize,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            db: None,
            build_if_missing: false,
            max_men: 4,
            whole_game_db: None,
            whole_game_max_men: 9,
            positions: 500,
            games_vs_perfect: 2,
            games_from_positions: 0,
        }
    }
}

impl SolverConfig {
    /// Whether `db` names a folder with files in it (what they hold is checked when they
    /// are read).
    pub fn databases_present(&self) -> bool {
        self.db
            .as_ref()
            .is_some_and(|db| std::fs::read_dir(db).is_ok_and(|mut d| d.next().is_some()))
    }

    /// Checks the `[solver]` table for games of `variant`; nothing to check without
    /// `db`.
    ///
    /// # Errors
    /// The first bad setting, named by its key.
    pub fn validate(&self, variant: Variant) -> Result<(), SettingError> {
        let Some(db) = &self.db else {
            return kvarn_storage::check_declared(self, "solver");
        };
        SettingError::check(
            variant == Variant::Nine || self.max_men == SolverConfig::default().max_men,
            "solver.max_men",
            format!("is for Nine Men's Morris's endgames: {variant} is solved whole"),
        )?;
        kvarn_storage::check_declared(self, "solver")?;
        if variant == Variant::Nine {
            SettingError::check(
                self.games_vs_perfect == 0,
                "solver.games_vs_perfect",
                "the perfect player needs the whole game solved, which Kvarn does for Six and Five only (set 0 for Nine)",
            )?;
            SettingError::check(
                self.games_from_positions == 0,
                "solver.games_from_positions",
                "the perfect player needs the whole game solved, which Kvarn does for Six and Five only (set 0 for Nine)",
            )?;
        }
        SettingError::check(
            self.databases_present() || self.build_if_missing,
            "solver.db",
            format!(
                "{} holds no databases: make them with `kvarn solve`, set solver.build_if_missing = true, or remove solver.db",
                db.display()
            ),
        )?;
        SettingError::check(
            !db.exists() || db.is_dir(),
            "solver.db",
            format!("{} is not a folder", db.display()),
        )
    }
}

/// A whole run configuration file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// Seed of everything random in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Where the network trains and, off the CPU, where self-play evaluates it.
    #[serde(default)]
    pub device: DeviceChoice,
    /// The rules.
    pub rules: Rules,
    /// The network's architecture.
    #[serde(default)]
    pub network: NetConfig,
    /// Tree search.
    #[serde(default)]
    pub search: SearchConfig,
    /// Self-play.
    #[serde(default)]
    pub selfplay: SelfPlayConfig,
    /// Training.
    #[serde(default)]
    pub train: TrainConfig,
    /// The generation loop and its evaluation.
    #[serde(default, rename = "loop")]
    pub run: LoopConfig,
    /// The solver benchmark.
    #[serde(default)]
    pub solver: SolverConfig,
}

fn default_seed() -> u64 {
    1
}

/// A configuration that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// Not valid TOML, an unknown key or a value of the wrong type (the message names the
    /// key and its line).
    #[error("{origin}: {reason}")]
    Parse {
        /// The file, or what the text came from.
        origin: String,
        /// The parser's message.
        reason: String,
    },
    /// A value out of range or a missing file. The setting is shown in the message and
    /// not also offered as the error's source, so that reports that print the chain of
    /// causes name its key once.
    #[error("{origin}: {setting}")]
    Setting {
        /// The file, or what the text came from.
        origin: String,
        /// The setting and what is wrong with it.
        setting: SettingError,
    },
}

impl RunConfig {
    /// Reads a configuration file and checks it.
    ///
    /// # Errors
    /// The file cannot be read, does not parse, or fails [`RunConfig::validate`].
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        RunConfig::parse(&text, &path.display().to_string())
    }

    /// Parses configuration text read from `origin` and checks it.
    ///
    /// # Errors
    /// The text does not parse, or fails [`RunConfig::validate`].
    pub fn parse(text: &str, origin: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::parse_in(text, origin, Path::new(""))
    }

    /// Parses configuration text read from `origin`, its relative paths read from the
    /// folder `base` (a resumed run's: the folder it started in), and checks it.
    ///
    /// # Errors
    /// The text does not parse, or fails [`RunConfig::validate`].
    pub fn parse_in(text: &str, origin: &str, base: &Path) -> Result<RunConfig, ConfigError> {
        let mut config: RunConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            origin: origin.to_string(),
            reason: e.to_string().trim_end().to_string(),
        })?;
        config.resolve_paths(base);
        config.validate().map_err(|setting| ConfigError::Setting {
            origin: origin.to_string(),
            setting,
        })?;
        Ok(config)
    }

    /// `text` with each `KEY=VALUE` of `settings` put in: a dotted key such as
    /// `train.learning_rate` names a setting of a table, and the value is TOML (`0.001`,
    /// `true`, `[2, 4]`, `"gumbel"`; a bare word is taken as a string). The result is a
    /// whole configuration (comments dropped, one saying what was set on top), so that a
    /// run stores what it ran with.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] naming the text or the setting that does not read.
    pub fn with_settings(
        text: &str,
        origin: &str,
        settings: &[String],
    ) -> Result<String, ConfigError> {
        if settings.is_empty() {
            return Ok(text.to_string());
        }
        let parse_err = |origin: &str, e: &dyn std::fmt::Display| ConfigError::Parse {
            origin: origin.to_string(),
            reason: e.to_string().trim_end().to_string(),
        };
        let mut table: toml::Table = text.parse().map_err(|e| parse_err(origin, &e))?;
        for setting in settings {
            let what = format!("--set {setting}");
            if setting.chars().any(char::is_control) {
                return Err(parse_err(&what, &"a control character in the setting"));
            }
            let (key, value) = setting
                .split_once('=')
                .ok_or_else(|| parse_err(&what, &"expected KEY=VALUE"))?;
            let value = value.trim();
            let value = match format!("v = {value}").parse::<toml::Table>() {
                Ok(mut t) => t.remove("v").expect("the key just parsed"),
                Err(_) => toml::Value::String(value.to_string()),
            };
            let mut at = &mut table;
            let mut parts = key.trim().split('.').peekable();
            while let Some(part) = parts.next().map(str::trim) {
                if part.is_empty() {
                    return Err(parse_err(&what, &"an empty part of the key"));
                }
                if parts.peek().is_none() {
                    at.insert(part.to_string(), value.clone());
                    break;
                }
                let next = at
                    .entry(part.to_string())
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                at = next
                    .as_table_mut()
                    .ok_or_else(|| parse_err(&what, &format!("{part} is not a table")))?;
            }
        }
        let body = toml::to_string(&table).map_err(|e| parse_err(origin, &e))?;
        Ok(format!(
            "# {origin} with --set {}\n{body}",
            settings.join(" --set ")
        ))
    }

    /// Reads the configuration's relative paths (`solver.db`, `solver.whole_game_db`) from
    /// the folder `base`.
    pub fn resolve_paths(&mut self, base: &Path) {
        for db in [&mut self.solver.db, &mut self.solver.whole_game_db]
            .into_iter()
            .flatten()
        {
            if db.is_relative() {
                *db = base.join(&*db);
            }
        }
    }

    /// Checks every setting, and that the files the configuration names exist or will be
    /// made.
    ///
    /// # Errors
    /// The first bad setting, named by its key.
    pub fn validate(&self) -> Result<(), SettingError> {
        self.network.validate()?;
        self.search.validate()?;
        self.selfplay.validate()?;
        self.train.validate()?;
        self.device
            .device()
            .map_err(|e| SettingError::new("device", e.to_string()))?;
        self.run.validate()?;
        SettingError::check(
            !self.selfplay.endgame.enabled() || self.solver.db.is_some(),
            "selfplay.endgame",
            "probes, adjudication, decisive starts and exact samples use the [solver] databases: \
             set solver.db",
        )?;
        SettingError::check(
            self.solver.whole_game_db.is_none()
                || (self.solver.db.is_some() && self.selfplay.endgame.in_games()),
            "solver.whole_game_db",
            "the whole-game tables join the endgame databases (solver.db) in self-play's \
             probes and adjudication: set solver.db and selfplay.endgame.probes or adjudicate",
        )?;
        SettingError::check(
            self.selfplay.endgame.whole_game_share == 1.0 || self.solver.whole_game_db.is_some(),
            "selfplay.endgame.whole_game_share",
            "is the share of games that use the whole-game tables: set solver.whole_game_db",
        )?;
        if let Some(whole) = &self.solver.whole_game_db {
            SettingError::check(
                self.selfplay.backend == kvarn_selfplay::Backend::Local,
                "solver.whole_game_db",
                "the whole-game tables are read on this machine: not yet with backend = \"ray\"",
            )?;
            let variant = self.rules.variant().key();
            SettingError::check(
                kvarn_solver::db::has_wdl(whole, &self.rules),
                "solver.whole_game_db",
                format!(
                    "{} holds no win/draw/loss tables of these rules: make them with \
                     `kvarn solve --variant {variant} --wdl --max-men {} --out {}`",
                    whole.display(),
                    self.solver.whole_game_max_men.min(self.rules.men()),
                    whole.display()
                ),
            )?;
        }
        SettingError::check(
            !self.train.bootstrap_explored
                || (self.search.late_temperature > 0.0 && self.search.root == RootSearch::Puct),
            "train.bootstrap_explored",
            "cuts the outcome at moves the late temperature drew: set search.late_temperature \
             above 0 (with the puct root)",
        )?;
        let player = self.run.player(&self.search)?;
        player
            .validate_for(&self.rules)
            .map_err(|e| SettingError::new("loop.player", e.to_string()))?;
        SettingError::check(
            self.selfplay.branch_starts.share == 0.0
                || self.selfplay.backend == kvarn_selfplay::Backend::Local,
            "selfplay.branch_starts.share",
            "branch starts are drawn from the previous generation's shards on this machine: \
             not yet with backend = \"ray\"",
        )?;
        self.solver.validate(self.rules.variant())
    }
}
