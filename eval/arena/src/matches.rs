//! Matches between two agents: games in parallel (rayon), colours alternating, from
//! varied openings so that games differ, with records and the time each side took; and
//! sequential tests that play game pairs until they decide ([`run_sprt`]).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use kvarn_game::seeds::derive;
use kvarn_game::{Color, Game, Move, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::agent::{Agent, AgentFactory};
use crate::elo::Tally;
use crate::error::ArenaError;
pub use crate::records::GameRecord;
use crate::sprt::{Pentanomial, SprtParams, SprtStatus};

/// Decisions after which a game with both draw rules off is stopped and scored a draw.
pub const MOVE_CAP: usize = 2_000;

/// How a match is played; the agents are given to [`run_match`] beside it.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The rules.
    pub rules: Rules,
    /// Number of games (colours alternate; each opening is played twice).
    pub games: usize,
    /// Seed of the openings and of agents without a seed of their own.
    pub seed: u64,
    /// Random decisions played from the start before the agents take over.
    pub opening_plies: usize,
}

/// The outcome of a match.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Results from the first agent's point of view.
    pub tally: Tally,
    /// Every game.
    pub records: Vec<GameRecord>,
    /// Time the first agent spent choosing, and its number of decisions.
    pub time_a: (Duration, u64),
    /// The same for the second agent.
    pub time_b: (Duration, u64),
    /// Games that could not be played to the end (an agent failed), with the reason.
    /// They are left out of the tally and the records.
    pub failures: Vec<String>,
    /// Why the match stopped before its last game, where it did: [`FAILURES_IN_A_ROW`]
    /// games failed one after the other (a dead or silent engine), and the games left
    /// were not played.
    pub stopped: Option<String>,
}

/// Games (or, in a sequential test, pairs) that fail one after the other before a match
/// stops rather than play on: an agent that fails this often will not recover, and each
/// failed game of a silent engine costs its whole timeout.
pub const FAILURES_IN_A_ROW: usize = 8;

/// The run of failed games so far, counted as games end (in any order across threads).
#[derive(Default)]
struct FailureRun {
    in_a_row: std::sync::atomic::AtomicUsize,
    stopped: std::sync::atomic::AtomicBool,
}

impl FailureRun {
    /// Counts a game's end; true when the run of failures has reached the limit.
    fn record(&self, failed: bool) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        if failed {
            if self.in_a_row.fetch_add(1, SeqCst) + 1 >= FAILURES_IN_A_ROW {
                self.stopped.store(true, SeqCst);
            }
        } else {
            self.in_a_row.store(0, SeqCst);
        }
        self.stopped()
    }

    fn stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn reason(&self) -> Option<String> {
        self.stopped().then(|| {
            format!(
                "stopped after {FAILURES_IN_A_ROW} games in a row failed: the games left were \
                 not played"
            )
        })
    }
}

impl MatchReport {
    /// Mean time per decision of the first agent.
    pub fn mean_time_a(&self) -> Duration {
        mean(self.time_a)
    }

    /// Mean time per decision of the second agent.
    pub fn mean_time_b(&self) -> Duration {
        mean(self.time_b)
    }
}

fn mean((total, n): (Duration, u64)) -> Duration {
    if n == 0 {
        Duration::ZERO
    } else {
        total / n as u32
    }
}

/// `pairs` different openings of up to `plies` random decisions each (different up to
/// symmetry while there are enough of them). A decision that would end the game is never
/// chosen; an opening stops early where every decision would.
pub fn openings(rules: &Rules, pairs: usize, plies: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(pairs);
    let mut attempts = 0;
    while out.len() < pairs {
        attempts += 1;
        let mut game = Game::new(*rules);
        let mut line = Vec::with_capacity(plies);
        for _ in 0..plies {
            let mut moves = game.legal_moves().to_vec();
            let mut chosen = None;
            while !moves.is_empty() {
                let mv = moves.swap_remove(rng.random_range(0..moves.len()));
                game.play_unchecked(mv);
                if game.status().is_over() {
                    game.undo();
                } else {
                    chosen = Some(mv);
                    break;
                }
            }
            match chosen {
                Some(mv) => line.push(mv),
                None => break,
            }
        }
        let key = game.position().canonical(rules).0.key();
        // Repeat openings only once the distinct ones run out.
        if seen.insert(key) || attempts > 50 * pairs {
            out.push(line);
        }
    }
    out
}

struct Played {
    record: GameRecord,
    /// Score of the first agent: 1, ½ or 0 as 2, 1, 0.
    points_a: u8,
    time_a: (Duration, u64),
    time_b: (Duration, u64),
}

/// A game played out by two agents.
pub struct PlayedGame {
    /// The game, with all its moves.
    pub game: Game,
    /// How it ended (`Ongoing` only when stopped at [`MOVE_CAP`]).
    pub status: Status,
    /// Time spent choosing and decisions made, White's and Black's.
    pub times: [(Duration, u64); 2],
}

/// Plays one game between `white` and `black` after `opening`.
///
/// # Errors
/// When an agent fails or chooses an illegal move.
pub fn play_game(
    rules: Rules,
    opening: &[Move],
    white: &mut dyn Agent,
    black: &mut dyn Agent,
) -> Result<PlayedGame, ArenaError> {
    let mut game = Game::new(rules);
    for &mv in opening {
        game.play_unchecked(mv);
    }
    play_on(game, white, black)
}

/// Plays `game` on from where it stands to its end, as a new game for both agents.
///
/// # Errors
/// When an agent fails or chooses an illegal move.
pub fn play_on(
    mut game: Game,
    white: &mut dyn Agent,
    black: &mut dyn Agent,
) -> Result<PlayedGame, ArenaError> {
    white.new_game()?;
    black.new_game()?;
    let rules = *game.rules();
    let mut times = [(Duration::ZERO, 0u64); 2];
    let capped = rules.no_capture_limit().is_none() && !rules.repetition();
    while !game.status().is_over() {
        if capped && game.ply() >= MOVE_CAP {
            break;
        }
        let side = game.position().side_to_move();
        let agent: &mut dyn Agent = if side == Color::White { white } else { black };
        let t = Instant::now();
        let mv = agent.choose(&game)?;
        let spent = t.elapsed();
        game.play(mv).map_err(|e| ArenaError::IllegalChoice {
            agent: agent.name(),
            source: e,
        })?;
        times[side.index()].0 += spent;
        times[side.index()].1 += 1;
    }
    let status = game.status();
    Ok(PlayedGame {
        game,
        status,
        times,
    })
}

/// The two agents of a match, their names, and where its games start.
struct Sides<'a> {
    cfg: &'a MatchConfig,
    a: &'a dyn AgentFactory,
    b: &'a dyn AgentFactory,
    a_name: String,
    b_name: String,
    lines: Vec<Vec<Move>>,
    /// Start positions (game `i` from the `i`th, the first agent to move); none: from the
    /// openings.
    starts: Option<&'a [Game]>,
}

impl<'a> Sides<'a> {
    fn new(cfg: &'a MatchConfig, a: &'a dyn AgentFactory, b: &'a dyn AgentFactory) -> Self {
        let pairs = cfg.games.div_ceil(2);
        Sides {
            cfg,
            a,
            b,
            a_name: a.name(),
            b_name: b.name(),
            lines: openings(&cfg.rules, pairs, cfg.opening_plies, cfg.seed),
            starts: None,
        }
    }

    /// Game `i`: from start position `i` with the first agent to move, or else from
    /// opening `i / 2` with the first agent White in even games.
    fn play(&self, i: usize) -> Result<Played, ArenaError> {
        let cfg = self.cfg;
        let (opening, start, a_white): (&[Move], _, _) = match self.starts {
            Some(starts) => {
                let game = &starts[i];
                (
                    &[],
                    Some(game),
                    game.position().side_to_move() == Color::White,
                )
            }
            None => (&self.lines[i / 2], None, i.is_multiple_of(2)),
        };
        // Each agent of each game its own stream, whatever the other games.
        let mut a = self.a.build(cfg.rules, derive(cfg.seed, 0, i as u64))?;
        let mut b = self.b.build(cfg.rules, derive(cfg.seed, 1, i as u64))?;
        let (white_spec, black_spec) = if a_white {
            (&self.a_name, &self.b_name)
        } else {
            (&self.b_name, &self.a_name)
        };
        let PlayedGame {
            game,
            status,
            times,
        } = {
            let (white, black) = if a_white {
                (a.as_mut(), b.as_mut())
            } else {
                (b.as_mut(), a.as_mut())
            };
            match start {
                Some(game) => play_on(game.clone(), white, black),
                None => play_game(cfg.rules, opening, white, black),
            }
        }
        .map_err(|e| ArenaError::Game {
            game: i,
            source: Box::new(e),
        })?;
        let a_color = if a_white { Color::White } else { Color::Black };
        let points_a = match status.score_for(a_color) {
            Some(1) => 2,
            Some(-1) => 0,
            _ => 1,
        };
        let record = GameRecord {
            game: i,
            white: white_spec.clone(),
            black: black_spec.clone(),
            start: start.map(|g| g.position().to_position_string(&cfg.rules)),
            opening: opening.iter().map(Move::to_string).collect(),
            moves: game.moves().map(|m| m.to_string()).collect(),
            result: if status.is_over() {
                status.result_name()
            } else {
                "draw"
            }
            .to_string(),
            reason: status.reason_name().unwrap_or("move_cap").to_string(),
        };
        let (time_a, time_b) = if a_white {
            (times[0], times[1])
        } else {
            (times[1], times[0])
        };
        Ok(Played {
            record,
            points_a,
            time_a,
            time_b,
        })
    }
}

/// Tallies, records and times of finished games.
#[derive(Default)]
struct Totals {
    tally: Tally,
    time_a: (Duration, u64),
    time_b: (Duration, u64),
    records: Vec<GameRecord>,
}

impl Totals {
    fn add(&mut self, p: Played) {
        self.tally.record(p.points_a as i8 - 1);
        self.time_a.0 += p.time_a.0;
        self.time_a.1 += p.time_a.1;
        self.time_b.0 += p.time_b.0;
        self.time_b.1 += p.time_b.1;
        self.records.push(p.record);
    }
}

/// Plays a match between agents from any [`AgentFactory`] (an [`crate::agent::AgentSpec`],
/// or a network player from another crate), calling `on_game` as each game ends (from any
/// thread). Games that fail are counted in [`MatchReport::failures`].
///
/// Games run on the current rayon pool, so never more at once than its threads
/// (`rayon::current_num_threads()`: the cores, unless installed in a smaller pool).
///
/// # Errors
/// None today: a failing game is reported, not returned; the `Result` is kept for
/// failures of the match as a whole.
pub fn run_match(
    cfg: &MatchConfig,
    a_factory: &dyn AgentFactory,
    b_factory: &dyn AgentFactory,
    on_game: impl Fn(&GameRecord) + Sync,
) -> Result<MatchReport, ArenaError> {
    let sides = Sides::new(cfg, a_factory, b_factory);
    play_all(&sides, cfg.games, on_game)
}

/// Plays a game from each of `starts` (positions of `cfg.rules`; `cfg.games` and
/// `cfg.opening_plies` are not used), the first agent always the side to move: from
/// benchmark positions, whether an agent holds a draw or wins a won game.
///
/// # Errors
/// None today, as [`run_match`].
pub fn run_from_positions(
    cfg: &MatchConfig,
    starts: &[Game],
    a_factory: &dyn AgentFactory,
    b_factory: &dyn AgentFactory,
    on_game: impl Fn(&GameRecord) + Sync,
) -> Result<MatchReport, ArenaError> {
    let sides = Sides {
        cfg,
        a: a_factory,
        b: b_factory,
        a_name: a_factory.name(),
        b_name: b_factory.name(),
        lines: Vec::new(),
        starts: Some(starts),
    };
    play_all(&sides, starts.len(), on_game)
}

/// Plays games `0..games` of `sides` in parallel.
fn play_all(
    sides: &Sides<'_>,
    games: usize,
    on_game: impl Fn(&GameRecord) + Sync,
) -> Result<MatchReport, ArenaError> {
    let run = FailureRun::default();
    let played: Vec<Option<Result<Played, ArenaError>>> = (0..games)
        .into_par_iter()
        .map(|i| {
            if run.stopped() {
                return None;
            }
            let p = sides.play(i);
            run.record(p.is_err());
            if let Ok(p) = &p {
                on_game(&p.record);
            }
            Some(p)
        })
        .collect();
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    for p in played.into_iter().flatten() {
        match p {
            Ok(p) => totals.add(p),
            Err(e) => failures.push(e.to_string()),
        }
    }
    Ok(MatchReport {
        tally: totals.tally,
        records: totals.records,
        time_a: totals.time_a,
        time_b: totals.time_b,
        failures,
        stopped: run.reason(),
    })
}

/// The outcome of a sequential test ([`run_sprt`]).
#[derive(Clone, Debug)]
pub struct SprtReport {
    /// The test's parameters.
    pub params: SprtParams,
    /// Where it ended: the pairs counted, the LLR, the verdict (`Continue` when stopped at
    /// the cap) and the Elo estimate.
    pub status: SprtStatus,
    /// The counted games as a match: tally, records (pair by pair, in order), times and
    /// failures.
    pub report: MatchReport,
    /// Pairs played in the last batch after the test had decided; they are not counted, so
    /// that the result is that of pairs taken one at a time, whatever the threads.
    pub uncounted_pairs: usize,
    /// Pairs left out because one of their games failed.
    pub failed_pairs: usize,
}

/// A sequential probability ratio test ([`crate::sprt`]): plays game pairs (the same
/// opening twice, colours swapped: games `2k` and `2k + 1` of [`run_match`] with the same
/// configuration) until the test decides or `cfg.games` games (rounded up to whole pairs)
/// have been played, calling `on_pair` after each counted pair.
///
/// Pairs are played in parallel batches of `max(1, threads / 2)` pairs on the current rayon
/// pool (`threads = rayon::current_num_threads()`), so never more games at once than its
/// threads (two on a one-thread pool, played one after the other). Pairs are counted in
/// order and the test stops at the first that decides it; the pairs after it in its batch
/// are played but not counted. A pair with a failed game is left out and its failures
/// reported.
///
/// # Errors
/// When `params` make no test ([`SprtParams::validate`]).
pub fn run_sprt(
    cfg: &MatchConfig,
    a_factory: &dyn AgentFactory,
    b_factory: &dyn AgentFactory,
    params: &SprtParams,
    mut on_pair: impl FnMut(&SprtStatus),
) -> Result<SprtReport, ArenaError> {
    params.validate()?;
    let sides = Sides::new(cfg, a_factory, b_factory);
    let max_pairs = cfg.games.div_ceil(2);
    let batch = (rayon::current_num_threads() / 2).max(1);
    let mut counts = Pentanomial::default();
    let mut status = counts.status(params);
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    let (mut uncounted_pairs, mut failed_pairs) = (0, 0);
    let mut next = 0;
    let run = FailureRun::default();
    while next < max_pairs && !status.verdict.is_decided() && !run.stopped() {
        let end = (next + batch).min(max_pairs);
        let played: Vec<Result<Played, ArenaError>> = (2 * next..2 * end)
            .into_par_iter()
            .map(|i| sides.play(i))
            .collect();
        let mut games = played.into_iter();
        while let (Some(first), Some(second)) = (games.next(), games.next()) {
            if status.verdict.is_decided() {
                uncounted_pairs += 1;
                continue;
            }
            match (first, second) {
                (Ok(g1), Ok(g2)) => {
                    run.record(false);
                    counts.add_pair(g1.points_a, g2.points_a);
                    totals.add(g1);
                    totals.add(g2);
                    status = counts.status(params);
                    on_pair(&status);
                }
                (r1, r2) => {
                    run.record(true);
                    failed_pairs += 1;
                    failures.extend(
                        [r1.err(), r2.err()]
                            .into_iter()
                            .flatten()
                            .map(|e| e.to_string()),
                    );
                }
            }
        }
        next = end;
    }
    Ok(SprtReport {
        params: *params,
        status,
        report: MatchReport {
            tally: totals.tally,
            records: totals.records,
            time_a: totals.time_a,
            time_b: totals.time_b,
            failures,
            stopped: run.reason().map(|r| r.replace("games", "pairs")),
        },
        uncounted_pairs,
        failed_pairs,
    })
}
