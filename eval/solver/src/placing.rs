//! The placing phase searched, as Gasser proved Nine Men's Morris a draw: an alpha-beta
//! search over win, draw and loss with a transposition table, down to the end of placing,
//! where the moving phase's win/draw/loss tables ([`crate::wdl`]) value every position.
//! Values ignore both draw rules, as the tables' do.

use std::collections::HashMap;
use std::sync::Arc;

use kvarn_game::{Color, Position, Rules, Status};

use crate::wdl::WdlSolver;
use kvarn_game::Outcome;

/// What the table knows of a position's value for the player to move: exactly, at least
/// or at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    AtLeast,
    AtMost,
}

/// A search of positions with men in hand over the moving phase's tables, keeping what it
/// proved between calls.
pub struct PlacingSearch {
    rules: Rules,
    tables: Arc<WdlSolver>,
    known: HashMap<u128, (i8, Bound)>,
    /// Positions searched (table hits included).
    pub nodes: u64,
}

impl PlacingSearch {
    /// A search over `tables`, which must hold every unit of the moving phase the rules
    /// can reach (the units of `tables`' rules up to the variant's men a side).
    pub fn new(tables: Arc<WdlSolver>) -> PlacingSearch {
        PlacingSearch {
            rules: *tables.rules(),
            tables,
            known: HashMap::new(),
            nodes: 0,
        }
    }

    /// The value of `pos` for the player to move.
    pub fn value(&mut self, pos: &Position) -> Outcome {
        match self.search(pos, -1, 1) {
            1 => Outcome::Win,
            -1 => Outcome::Loss,
            _ => Outcome::Draw,
        }
    }

    /// The value of `pos` for the player to move, as -1, 0 or 1, exact where it lies
    /// inside (`alpha`, `beta`), else a bound on the side it fell (fail-soft).
    fn search(&mut self, pos: &Position, mut alpha: i8, mut beta: i8) -> i8 {
        self.nodes += 1;
        if let Some(v) = self.settled(pos) {
            return v;
        }
        let key = table_key(&self.rules, pos);
        if let Some(&(v, bound)) = self.known.get(&key) {
            match bound {
                Bound::Exact => return v,
                Bound::AtLeast => alpha = alpha.max(v),
                Bound::AtMost => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = -2;
        for m in ordered_moves(&self.rules, pos) {
            let mut next = *pos;
            next.play_unchecked(&self.rules, m);
            let v = if next.side_to_move() == pos.side_to_move() {
                self.search(&next, alpha, beta)
            } else {
                -self.search(&next, -beta, -alpha)
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        // A player who cannot move loses (placing always has a point free; kept for safety).
        let best = best.max(-1);
        let bound = if best <= alpha0 {
            Bound::AtMost
        } else if best >= beta0 {
            Bound::AtLeast
        } else {
            Bound::Exact
        };
        self.known.insert(key, (best, bound));
        best
    }

    /// The value of a finished game, or of a position of the moving phase from its table.
    fn settled(&self, pos: &Position) -> Option<i8> {
        if let Status::Win { winner, .. } = pos.status(&self.rules, 1) {
            return Some(if winner == pos.side_to_move() { 1 } else { -1 });
        }
        let in_hand = pos.in_hand(Color::White) + pos.in_hand(Color::Black);
        if in_hand > 0 || pos.pending_removal() {
            return None;
        }
        let side = pos.side_to_move();
        let v = self
            .tables
            .value_of(pos.men(side), pos.men(side.opposite()))
            .expect("the moving phase's tables hold every unit the placing phase reaches");
        Some(v.score())
    }
}

/// The moves of `pos`, those that close a mill first (they decide most cut-offs).
fn ordered_moves(rules: &Rules, pos: &Position) -> Vec<kvarn_game::Move> {
    let mut moves: Vec<_> = pos.legal_moves(rules).iter().copied().collect();
    moves.sort_by_key(|&m| {
        let mut next = *pos;
        next.play_unchecked(rules, m);
        next.side_to_move() != pos.side_to_move()
    });
    moves
}

/// The transposition table's key: the position's symmetry-class representative, exactly
/// (men, men in hand, side to move, pending removal), so that no two positions share one.
fn table_key(rules: &Rules, pos: &Position) -> u128 {
    let (c, _) = pos.canonical(rules);
    u128::from(c.men(Color::White).bits())
        | u128::from(c.men(Color::Black).bits()) << 32
        | u128::from(c.in_hand(Color::White)) << 64
        | u128::from(c.in_hand(Color::Black)) << 72
        | u128::from(c.side_to_move() == Color::Black) << 80
        | u128::from(c.pending_removal()) << 81
}
