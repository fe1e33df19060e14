//! `kvarn moves`: the referee. Legal moves, status and position, as JSON, for one move list
//! or for one list per line of standard input.

use std::io::{BufRead, Write};

use anyhow::Context;
use clap::Args;
use kvarn_game::{ActionSpace, Game, Move, PlayError};
use serde::Serialize;

use crate::rules_args::{RulesArgs, StartArgs};

/// Arguments of `kvarn moves`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    start: StartArgs,
    /// Space-separated moves played from the start, e.g. "d6 d2 b6 f4".
    #[arg(long, default_value = "", conflicts_with = "stdin")]
    moves: String,
    /// Read one move list per line from standard input and answer each with one line.
    #[arg(long)]
    stdin: bool,
}

/// The answer for a game that could be played through.
#[derive(Serialize)]
struct Report {
    legal: Vec<String>,
    status: &'static str,
    reason: Option<&'static str>,
    to_move: &'static str,
    pending_removal: bool,
    position: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fen: Option<String>,
    ply: usize,
}

/// The answer for a move list with a move that cannot be read or played.
#[derive(Serialize)]
struct ErrorReport {
    error: String,
    index: usize,
    #[serde(rename = "move")]
    mv: String,
}

fn report(game: &Game) -> Report {
    let rules = game.rules();
    let status = game.status();
    let space = ActionSpace::new(rules);
    let mut legal = game.legal_moves().to_vec();
    legal.sort_by_key(|&m| space.index(m));
    Report {
        legal: legal.iter().map(Move::to_string).collect(),
        status: status.result_name(),
        reason: status.reason_name(),
        to_move: game.position().side_to_move().name(),
        pending_removal: game.position().pending_removal(),
        position: game.position().to_position_string(rules),
        fen: game.position().to_fen(rules).ok(),
        ply: game.ply(),
    }
}

impl From<&PlayError> for ErrorReport {
    fn from(e: &PlayError) -> ErrorReport {
        ErrorReport {
            error: e.to_string(),
            index: e.index(),
            mv: e.text().to_string(),
        }
    }
}

fn answer(start: &Game, moves: &str) -> Result<Report, PlayError> {
    let mut game = start.clone();
    game.play_text(moves)?;
    Ok(report(&game))
}

/// Runs `kvarn moves`.
pub fn run(args: &MovesArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let start = args.start.game(rules)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.stdin {
        let mut input = std::io::stdin().lock();
        let mut raw = Vec::new();
        for n in 1.. {
            raw.clear();
            if input
                .read_until(b'\n', &mut raw)
                .with_context(|| format!("reading line {n} of standard input"))?
                == 0
            {
                break;
            }
            // Bytes that are not UTF-8 become U+FFFD, which no move contains: such a line
            // is answered with an error naming the token, like any other bad move.
            let line = String::from_utf8_lossy(&raw);
            let json = match answer(&start, line.trim_end_matches(['\n', '\r'])) {
                Ok(r) => serde_json::to_string(&r)?,
                Err(e) => serde_json::to_string(&ErrorReport::from(&e))?,
            };
            writeln!(out, "{json}")?;
            out.flush()?;
        }
        return Ok(());
    }
    match answer(&start, &args.moves) {
        Ok(r) => {
            writeln!(out, "{}", serde_json::to_string(&r)?)?;
            Ok(())
        }
        Err(e) => {
            writeln!(out, "{}", serde_json::to_string(&ErrorReport::from(&e))?)?;
            Err(anyhow::Error::new(e).context("playing --moves"))
        }
    }
}
