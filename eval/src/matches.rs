//! Matches between two agents: games in parallel (rayon), colours alternating, from
//! varied openings so that games differ, with records and the time each side took.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use kvarn_game::seeds::derive;
use kvarn_game::{Color, Game, Move, Rules, Status};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::agent::{Agent, AgentFactory};
use crate::elo::Tally;
use crate::error::EvalError;
pub use crate::records::GameRecord;

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
) -> Result<PlayedGame, EvalError> {
    white.new_game()?;
    black.new_game()?;
    let mut game = Game::new(rules);
    for &mv in opening {
        game.play_unchecked(mv);
    }
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
        game.play(mv).map_err(|e| EvalError::IllegalChoice {
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

/// Plays a match between agents from any [`AgentFactory`] (an [`crate::agent::AgentSpec`],
/// or a network player from another crate), calling `on_game` as each game ends (from any
/// thread). Games that fail are counted in [`MatchReport::failures`].
///
/// # Errors
/// None today: a failing game is reported, not returned; the `Result` is kept for
/// failures of the match as a whole.
pub fn run_match(
    cfg: &MatchConfig,
    a_factory: &dyn AgentFactory,
    b_factory: &dyn AgentFactory,
    on_game: impl Fn(&GameRecord) + Sync,
) -> Result<MatchReport, EvalError> {
    let (a_name, b_name) = (a_factory.name(), b_factory.name());
    let pairs = cfg.games.div_ceil(2);
    let lines = openings(&cfg.rules, pairs, cfg.opening_plies, cfg.seed);
    let played: Vec<Result<Played, EvalError>> = (0..cfg.games)
        .into_par_iter()
        .map(|i| -> Result<Played, EvalError> {
            let opening = &lines[i / 2];
            // Each agent of each game its own stream, whatever the other games.
            let mut a = a_factory.build(cfg.rules, derive(cfg.seed, 0, i as u64))?;
            let mut b = b_factory.build(cfg.rules, derive(cfg.seed, 1, i as u64))?;
            let a_white = i % 2 == 0;
            let (white_spec, black_spec) = if a_white {
                (&a_name, &b_name)
            } else {
                (&b_name, &a_name)
            };
            let PlayedGame {
                game,
                status,
                times,
            } = if a_white {
                play_game(cfg.rules, opening, a.as_mut(), b.as_mut())
            } else {
                play_game(cfg.rules, opening, b.as_mut(), a.as_mut())
            }
            .map_err(|e| EvalError::Game {
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
            on_game(&record);
            let (ta, tb) = if a_white {
                (times[0], times[1])
            } else {
                (times[1], times[0])
            };
            Ok(Played {
                record,
                points_a,
                time_a: ta,
                time_b: tb,
            })
        })
        .collect();
    let mut tally = Tally::default();
    let (mut time_a, mut time_b) = ((Duration::ZERO, 0), (Duration::ZERO, 0));
    let mut records = Vec::with_capacity(played.len());
    let mut failures = Vec::new();
    for p in played {
        let p = match p {
            Ok(p) => p,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        match p.points_a {
            2 => tally.wins += 1,
            1 => tally.draws += 1,
            _ => tally.losses += 1,
        }
        time_a.0 += p.time_a.0;
        time_a.1 += p.time_a.1;
        time_b.0 += p.time_b.0;
        time_b.1 += p.time_b.1;
        records.push(p.record);
    }
    Ok(MatchReport {
        tally,
        records,
        time_a,
        time_b,
        failures,
    })
}
