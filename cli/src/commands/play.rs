//! `kvarn play`: a person plays an agent in the terminal.

use std::io::{BufRead, Write};

use anyhow::Context;
use clap::{Args, ValueEnum};
use kvarn_game::{Board, Color, Game, Move, Position, Rules};
use kvarn_selfplay::net_agent;

use crate::rules_args::{RulesArgs, StartArgs};

/// Which colour the person plays.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Side {
    /// Move first.
    White,
    /// Move second.
    Black,
}

/// Arguments of `kvarn play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    start: StartArgs,
    /// The opponent, e.g. `alphabeta:depth=4`, `random` or `net:model=FILE`.
    #[arg(long, default_value = "alphabeta:movetime=500")]
    vs: String,
    /// The colour you play.
    #[arg(long = "as", value_enum, default_value = "white")]
    side: Side,
    /// Seed of the opponent's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The board as text, with coordinates, and the men in hand.
pub fn draw(rules: &Rules, pos: &Position) -> String {
    let board: &Board = rules.board();
    let mut grid = vec![vec![' '; 13]; 7];
    // Lines first, then points over them.
    for &mill in board.mills() {
        let pts: Vec<(u8, u8)> = mill.into_iter().map(|s| s.grid()).collect();
        draw_line(&mut grid, pts[0], pts[2]);
    }
    for sq in board.squares() {
        for n in board.adjacent(sq) {
            draw_line(&mut grid, sq.grid(), n.grid());
        }
    }
    for sq in board.squares() {
        let (x, y) = sq.grid();
        grid[6 - y as usize][2 * x as usize] = if pos.men(Color::White).contains(sq) {
            'W'
        } else if pos.men(Color::Black).contains(sq) {
            'B'
        } else {
            '+'
        };
    }
    let mut out = String::new();
    for (r, row) in grid.iter().enumerate() {
        out += &format!("{} {}\n", 7 - r, row.iter().collect::<String>().trim_end());
    }
    out += "  a b c d e f g\n";
    out += &format!(
        "in hand: white {}, black {}; {} to {}\n",
        pos.in_hand(Color::White),
        pos.in_hand(Color::Black),
        pos.side_to_move(),
        if pos.pending_removal() {
            "remove a man"
        } else {
            "move"
        }
    );
    out
}

fn draw_line(grid: &mut [Vec<char>], a: (u8, u8), b: (u8, u8)) {
    let (ax, ay, bx, by) = (a.0 as i32 * 2, a.1 as i32, b.0 as i32 * 2, b.1 as i32);
    if ay == by {
        for x in ax.min(bx)..=ax.max(bx) {
            grid[6 - ay as usize][x as usize] = '-';
        }
    } else {
        for y in ay.min(by)..=ay.max(by) {
            grid[6 - y as usize][ax as usize] = '|';
        }
    }
}

/// Runs `kvarn play`, reading moves from standard input.
pub fn run(args: &PlayArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let factory = net_agent::factory(&args.vs, &rules).context("reading --vs")?;
    let spec = factory.name();
    let mut agent = factory.build(rules, args.seed)?;
    agent.new_game()?;
    let mut game: Game = args.start.game(rules)?;
    let human = match args.side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout();
    outln!("You play {human} against {spec} in {rules}.");
    outln!("Moves: d6 to place, a1-a4 to move, xd2 to remove; `quit` to stop.\n");
    while !game.status().is_over() {
        out!("{}", draw(&rules, game.position()));
        if game.position().side_to_move() == human {
            out!("your move> ");
            out.flush()?;
            let Some(line) = lines.next() else {
                outln!("\n(end of input)");
                return Ok(());
            };
            let line = line?;
            let text = line.trim();
            if text == "quit" {
                return Ok(());
            }
            if text.is_empty() {
                continue;
            }
            if text.split_whitespace().count() > 1 {
                outln!("one move at a time, please (a removal may follow: b2xf4)\n");
                continue;
            }
            let before = game.ply();
            if let Err(e) = game.play_text(text) {
                // A combined token may have played its first half before failing.
                while game.ply() > before {
                    game.undo();
                }
                let legal: Vec<String> = game.legal_moves().iter().map(Move::to_string).collect();
                outln!("{e}\nlegal moves: {}\n", legal.join(" "));
            }
        } else {
            let mv = agent.choose(&game)?;
            outln!("{spec} plays {mv}\n");
            game.play(mv)?;
        }
    }
    out!("{}", draw(&rules, game.position()));
    outln!("{}", game.status());
    Ok(())
}
