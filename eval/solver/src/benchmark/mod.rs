//! Solver benchmarks: positions with exact values and their value-preserving moves,
//! sampled from the databases and balanced across phases and values (the arena scores
//! agents on them).

use std::collections::BTreeMap;
use std::path::Path;

use kvarn_game::{Game, Phase, Position, Rules};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use crate::error::SolverError;
use crate::solver::{NOT_A_POSITION, Solver};
use crate::subspace::Subspace;
use crate::value::Value;
use kvarn_game::Outcome;
use kvarn_storage::{parse_jsonl, write_jsonl};

pub mod bank;
pub mod whole_game;

/// Format name of a benchmark file.
pub const FORMAT: &str = "kvarn-bench-set";
/// Format version written and read: 2 adds the number of legal moves (and so whether a
/// position is critical), 3 every move's value (sets of the whole game); sets of version
/// 1 are still read, the count made from the position.
pub const VERSION: u32 = 3;

impl Value {
    /// The outcome without the distance.
    pub fn outcome(self) -> Outcome {
        match self {
            Value::Win(_) => Outcome::Win,
            Value::Draw => Outcome::Draw,
            Value::Loss(_) => Outcome::Loss,
        }
    }
}

/// One benchmark position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchPosition {
    /// The position string.
    pub position: String,
    /// What the player to move is doing.
    pub phase: Phase,
    /// The exact outcome for the player to move.
    pub value: Outcome,
    /// Turns to the end with perfect play (0 for draws, and in sets made from win/draw/loss
    /// tables, which keep turns to the next removal instead).
    pub distance: u16,
    /// The moves that keep the outcome (every move, in a lost position).
    pub preserving: Vec<String>,
    /// Legal moves of the position (0 in sets of version 1 until read).
    #[serde(default)]
    pub legal: u16,
    /// Every legal move's exact value for the player to move, where the set keeps them
    /// (sets of the whole game); empty in the others.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub move_values: BTreeMap<String, Outcome>,
}

impl BenchPosition {
    /// Whether a move can change the exact value here: some legal move throws the win or
    /// the draw away. Elsewhere (a lost position, or one where every move keeps the value)
    /// any player keeps the value, so such positions say nothing of strength.
    pub fn critical(&self) -> bool {
        self.value != Outcome::Loss && self.preserving.len() < usize::from(self.legal)
    }

    /// The position as a game to play on under `rules`.
    ///
    /// # Errors
    /// [`SolverError::BenchmarkSet`] naming the position when it does not read under
    /// `rules`.
    pub fn game(&self, rules: &Rules) -> Result<Game, SolverError> {
        let err = |reason: String| SolverError::BenchmarkSet {
            path: format!("position {}", self.position),
            reason,
        };
        let pos = Position::from_position_string(rules, &self.position)
            .map_err(|e| err(e.to_string()))?;
        Game::from_position(*rules, pos).map_err(|e| err(e.to_string()))
    }

    /// The chance that a uniformly random legal move keeps the value.
    pub fn random_keeps(&self) -> f64 {
        self.preserving.len() as f64 / f64::from(self.legal.max(1))
    }
}

/// The first line of a benchmark file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchHeader {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// The rules the values hold for (draw rules ignored).
    pub rules: Rules,
}

/// Samples `n` positions from the solver's tables, as evenly as the tables allow over
/// every (phase, outcome) pair, reproducibly from `seed`.
pub fn sample(solver: &Solver, n: usize, seed: u64) -> Vec<BenchPosition> {
    let rules = *solver.rules();
    let tables = Tables::of(solver);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let per_kind = n.div_ceil(tables.survey_kinds(n, &mut rng).max(1));
    let mut by_kind: BTreeMap<(Phase, Outcome), Vec<BenchPosition>> = BTreeMap::new();
    let mut taken = std::collections::HashSet::new();
    let mut accepted = 0;
    let mut attempts = 0;
    while accepted < n && attempts < 400 * n + 10_000 && tables.total > 0 {
        attempts += 1;
        // Balanced first; after enough tries, whatever the tables hold.
        let balanced = attempts < 200 * n;
        let Some((s, r, pos, value)) = tables.pick(&mut rng) else {
            continue;
        };
        if !taken.insert((s, r)) {
            continue;
        }
        let phase = Phase::of(&rules, &pos);
        let slot = by_kind.entry((phase, value.outcome())).or_default();
        if balanced && slot.len() >= per_kind {
            continue;
        }
        slot.push(bench_position(solver, &pos, phase, value));
        accepted += 1;
    }
    by_kind.into_values().flatten().collect()
}

/// How many positions the solver's tables hold at most (the size of their index space):
/// a benchmark set of more cannot be drawn from them.
pub fn capacity(solver: &Solver) -> usize {
    Tables::of(solver).total
}

/// The solver's tables in a fixed order, to draw positions uniformly from.
struct Tables<'a> {
    solver: &'a Solver,
    tables: Vec<(&'a Subspace, &'a Vec<u16>)>,
    /// Indices over all tables.
    total: usize,
}

impl<'a> Tables<'a> {
    fn of(solver: &'a Solver) -> Self {
        let mut tables: Vec<(&Subspace, &Vec<u16>)> = solver.tables().iter().collect();
        tables.sort_by_key(|(s, _)| **s);
        let total = tables.iter().map(|(_, t)| t.len()).sum();
        Tables {
            solver,
            tables,
            total,
        }
    }

    /// A uniformly drawn index, where it is a position with a move to judge (a finished
    /// game offers none).
    fn pick(&self, rng: &mut Pcg64Mcg) -> Option<(Subspace, usize, Position, Value)> {
        let mut r = rng.random_range(0..self.total);
        let (s, table) = self.tables.iter().find(|(_, t)| {
            let here = r < t.len();
            if !here {
                r -= t.len();
            }
            here
        })?;
        let v = table[r];
        if v == NOT_A_POSITION {
            return None;
        }
        let pos = self.solver.position_at(s, r)?;
        if pos.legal_moves(self.solver.rules()).is_empty() {
            return None;
        }
        Some((**s, r, pos, Value::unpack(v)))
    }

    /// How many (phase, outcome) kinds the tables hold, from a survey of draws, so that
    /// a sample of `n` gives each an equal share.
    fn survey_kinds(&self, n: usize, rng: &mut Pcg64Mcg) -> usize {
        let mut kinds = std::collections::BTreeSet::new();
        if self.total > 0 {
            for _ in 0..(20 * n).max(2_000) {
                if let Some((_, _, pos, v)) = self.pick(rng) {
                    kinds.insert((Phase::of(self.solver.rules(), &pos), v.outcome()));
                }
            }
        }
        kinds.len()
    }
}

/// The benchmark row of `pos`, whose exact value is `value`: which moves keep it.
fn bench_position(solver: &Solver, pos: &Position, phase: Phase, value: Value) -> BenchPosition {
    let rules = solver.rules();
    let moves = solver.move_values(pos);
    let legal = moves.len() as u16;
    let preserving = moves
        .into_iter()
        .filter(|(_, mv)| mv.is_some_and(|mv| mv.outcome() == value.outcome()))
        .map(|(m, _)| m.to_string())
        .collect();
    BenchPosition {
        position: pos.to_position_string(rules),
        phase,
        value: value.outcome(),
        distance: match value {
            Value::Win(d) | Value::Loss(d) => d,
            Value::Draw => 0,
        },
        preserving,
        legal,
        move_values: BTreeMap::new(),
    }
}

/// A half of a committed benchmark set: one to tune on, one held out for reports, so
/// that what was chosen on the first is judged on positions it never saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// For choosing settings, and for the figures of every generation of a run.
    Tuning,
    /// For final reports only.
    HeldOut,
}

impl Part {
    /// `tuning` or `heldout`, as in the files' names.
    pub fn name(self) -> &'static str {
        match self {
            Part::Tuning => "tuning",
            Part::HeldOut => "heldout",
        }
    }
}

/// Splits a set in two halves alike: within each (phase, outcome) kind, positions go to
/// the tuning and the held-out part in turn.
pub fn split(set: &[BenchPosition]) -> (Vec<BenchPosition>, Vec<BenchPosition>) {
    let mut seen: BTreeMap<(Phase, Outcome), usize> = BTreeMap::new();
    let (mut tuning, mut held_out) = (Vec::new(), Vec::new());
    for b in set {
        let n = seen.entry((b.phase, b.value)).or_default();
        if n.is_multiple_of(2) {
            tuning.push(b.clone());
        } else {
            held_out.push(b.clone());
        }
        *n += 1;
    }
    (tuning, held_out)
}

/// `n` positions of `set`, as evenly as it allows over its (phase, outcome) kinds: the
/// first of each kind, then the second of each, and so on, in the set's order.
pub fn subset(set: &[BenchPosition], n: usize) -> Vec<BenchPosition> {
    let mut kinds: BTreeMap<(Phase, Outcome), Vec<&BenchPosition>> = BTreeMap::new();
    for b in set {
        kinds.entry((b.phase, b.value)).or_default().push(b);
    }
    let longest = kinds.values().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| kinds.values().filter_map(move |k| k.get(i)))
        .take(n)
        .map(|b| (*b).clone())
        .collect()
}

/// The sets in the repository (`eval/solver/benchmarks/`), built into the program so that every
/// run and report, wherever it runs, is judged on the same positions: name, text.
const COMMITTED: &[(&str, &str)] = &[
    (
        "six-tuning",
        include_str!("../../benchmarks/six-tuning.jsonl"),
    ),
    (
        "six-heldout",
        include_str!("../../benchmarks/six-heldout.jsonl"),
    ),
    (
        "five-tuning",
        include_str!("../../benchmarks/five-tuning.jsonl"),
    ),
    (
        "five-heldout",
        include_str!("../../benchmarks/five-heldout.jsonl"),
    ),
    (
        "nine-fly-endgame-tuning",
        include_str!("../../benchmarks/nine-fly-endgame-tuning.jsonl"),
    ),
    (
        "nine-fly-endgame-heldout",
        include_str!("../../benchmarks/nine-fly-endgame-heldout.jsonl"),
    ),
    (
        "nine-nofly-endgame-tuning",
        include_str!("../../benchmarks/nine-nofly-endgame-tuning.jsonl"),
    ),
    (
        "nine-nofly-endgame-heldout",
        include_str!("../../benchmarks/nine-nofly-endgame-heldout.jsonl"),
    ),
    (
        "nine-fly-whole-tuning",
        include_str!("../../benchmarks/nine-fly-whole-tuning.jsonl"),
    ),
    (
        "nine-fly-whole-heldout",
        include_str!("../../benchmarks/nine-fly-whole-heldout.jsonl"),
    ),
];

/// The name of the committed set of `rules`' part: `six-tuning`, `nine-fly-endgame-heldout`.
pub fn committed_name(rules: &Rules, part: Part) -> String {
    let variant = match rules.variant() {
        kvarn_game::Variant::Nine if rules.flying() => "nine-fly-endgame",
        kvarn_game::Variant::Nine => "nine-nofly-endgame",
        kvarn_game::Variant::Six => "six",
        kvarn_game::Variant::Five => "five",
    };
    format!("{variant}-{}", part.name())
}

/// The committed set for `rules` (its values hold whatever the draw rules, which the
/// solver ignores), or `None` where the repository has none.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when the built-in text does not read (a build from a
/// damaged checkout), or holds positions of other rules.
pub fn committed(rules: &Rules, part: Part) -> Option<Result<Vec<BenchPosition>, SolverError>> {
    committed_named(&committed_name(rules, part), rules)
}

/// The name of the committed whole-game set of `rules`' part, where the repository has
/// one beside the endgame sets: `nine-fly-whole-heldout` (Six's and Five's committed sets
/// cover their whole games already).
pub fn committed_whole_name(rules: &Rules, part: Part) -> Option<String> {
    (rules.variant() == kvarn_game::Variant::Nine && rules.flying())
        .then(|| format!("nine-fly-whole-{}", part.name()))
}

/// The committed whole-game set of `rules`' part ([`committed_whole_name`]).
///
/// # Errors
/// As [`committed`].
pub fn committed_whole(
    rules: &Rules,
    part: Part,
) -> Option<Result<Vec<BenchPosition>, SolverError>> {
    committed_named(&committed_whole_name(rules, part)?, rules)
}

/// The committed set called `name`, read as a set of `rules`.
fn committed_named(name: &str, rules: &Rules) -> Option<Result<Vec<BenchPosition>, SolverError>> {
    let (_, text) = COMMITTED.iter().find(|(n, _)| *n == name)?;
    let err = |reason: String| SolverError::BenchmarkSet {
        path: format!("the committed set {name}"),
        reason,
    };
    let read = parse_set(text).map_err(err).and_then(|(set_rules, set)| {
        let same = set_rules.variant() == rules.variant() && set_rules.flying() == rules.flying();
        same.then_some(set)
            .ok_or_else(|| err(format!("holds positions of {set_rules}, not {rules}")))
    });
    Some(read)
}

/// Canonical keys of the positions of the rules' committed benchmark sets, both parts:
/// neither exact samples nor self-play's random starts are drawn among them, so that the
/// sets judge positions the network was never started from or shown.
///
/// # Errors
/// A committed set does not read (a damaged checkout).
pub fn committed_keys(rules: &Rules) -> Result<std::collections::HashSet<u64>, SolverError> {
    let mut keys = std::collections::HashSet::new();
    for part in [Part::Tuning, Part::HeldOut] {
        let sets = [committed(rules, part), committed_whole(rules, part)];
        for b in sets
            .into_iter()
            .flatten()
            .collect::<Result<Vec<_>, _>>()?
            .concat()
        {
            keys.insert(b.game(rules)?.position().canonical_key(rules));
        }
    }
    Ok(keys)
}

/// Writes a benchmark set: of [`BenchPosition`]s, or of [`Answer`]s, which read back as
/// the positions they answered (readers pass over the fields they do not know).
///
/// # Errors
/// [`SolverError::BenchmarkSet`] when the file cannot be written.
pub fn write_set<P: Serialize>(path: &Path, rules: &Rules, set: &[P]) -> Result<(), SolverError> {
    let header = BenchHeader {
        format: FORMAT.into(),
        version: VERSION,
        rules: *rules,
    };
    write_jsonl(path, &header, set).map_err(|e| SolverError::BenchmarkSet {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Reads a benchmark set, refusing a damaged file or one of another format or version.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] saying what is wrong.
pub fn read_set(path: &Path) -> Result<(Rules, Vec<BenchPosition>), SolverError> {
    let err = |reason: String| SolverError::BenchmarkSet {
        path: path.display().to_string(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    parse_set(&text).map_err(err)
}

/// A benchmark set from the text of its file.
fn parse_set(text: &str) -> Result<(Rules, Vec<BenchPosition>), String> {
    let (header, mut set): (BenchHeader, Vec<BenchPosition>) = parse_jsonl(text)?;
    if header.format != FORMAT || !(1..=VERSION).contains(&header.version) {
        return Err(format!(
            "format {} version {}; this Kvarn reads {FORMAT} versions 1 to {VERSION}",
            header.format, header.version
        ));
    }
    if header.version == 1 {
        for b in &mut set {
            let pos = Position::from_position_string(&header.rules, &b.position)
                .map_err(|e| format!("position {}: {e}", b.position))?;
            b.legal = pos.legal_moves(&header.rules).len() as u16;
        }
    }
    Ok((header.rules, set))
}

/// Up to `n` critical positions of `set` whose exact value is `value`, spread evenly over
/// those the set holds, as games to play on: from a drawn one a player must hold the
/// draw, from a won one it must win.
///
/// # Errors
/// [`SolverError::BenchmarkSet`] for a position that does not read under `rules`.
pub fn critical_starts(
    rules: &Rules,
    set: &[BenchPosition],
    value: Outcome,
    n: usize,
) -> Result<Vec<Game>, SolverError> {
    let chosen: Vec<&BenchPosition> = set
        .iter()
        .filter(|b| b.value == value && b.critical())
        .collect();
    let take = n.min(chosen.len());
    (0..take)
        .map(|i| chosen[i * chosen.len() / take].game(rules))
        .collect()
}
