//! The baseline's static evaluation: a weighted sum of terms that mill players know, with
//! one set of weights per phase, all kept here and loadable from a TOML file.

use std::path::Path;

use kvarn_game::{Bitboard, Board, Color, Position, Rules};
use serde::{Deserialize, Serialize};

use crate::error::EngineError;

/// One number per evaluation term. For a side, how many of each it has (see [`terms`]);
/// for a phase, what each is worth in hundredths of a man (see [`Weights`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Terms {
    /// Men left, on the board or in hand.
    pub men: i32,
    /// Slides the side could make (how free its men are).
    pub mobility: i32,
    /// Complete mills.
    pub closed_mills: i32,
    /// Mill lines holding two of the side's men and an empty third point.
    pub open_mills: i32,
    /// Such lines the side can close on its next move.
    pub mill_threats: i32,
    /// Men that can swing between two mills, closing one on every move.
    pub double_mills: i32,
    /// Men with no empty neighbour (counted in the moving phase only).
    pub blocked_men: i32,
    /// Whether the side may fly (1 or 0).
    pub flying: i32,
}

impl Terms {
    /// The weighted sum: `self` as counts, `weights` as the worth of each.
    pub fn weighted(&self, weights: &Terms) -> i32 {
        weights.men * self.men
            + weights.mobility * self.mobility
            + weights.closed_mills * self.closed_mills
            + weights.open_mills * self.open_mills
            + weights.mill_threats * self.mill_threats
            + weights.double_mills * self.double_mills
            + weights.blocked_men * self.blocked_men
            + weights.flying * self.flying
    }
}

/// Weights for the three phases of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    /// While either player has men in hand.
    pub placing: Terms,
    /// Once all men are placed and neither player may fly.
    pub moving: Terms,
    /// Once a player may fly.
    pub flying: Terms,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            placing: Terms {
                men: 100,
                mobility: 3,
                closed_mills: 20,
                open_mills: 12,
                mill_threats: 25,
                double_mills: 40,
                blocked_men: -4,
                flying: 0,
            },
            moving: Terms {
                men: 100,
                mobility: 8,
                closed_mills: 25,
                open_mills: 10,
                mill_threats: 35,
                double_mills: 90,
                blocked_men: -12,
                flying: 0,
            },
            flying: Terms {
                men: 100,
                mobility: 0,
                closed_mills: 15,
                open_mills: 15,
                mill_threats: 60,
                double_mills: 40,
                blocked_men: 0,
                flying: 40,
            },
        }
    }
}

impl Weights {
    /// Reads weights from a TOML file with `[placing]`, `[moving]` and `[flying]` tables.
    ///
    /// # Errors
    /// [`EngineError::Weights`] naming the file and what is wrong (unknown or missing key,
    /// not a number).
    pub fn load(path: &Path) -> Result<Weights, EngineError> {
        let text = std::fs::read_to_string(path).map_err(|e| EngineError::Weights {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        toml::from_str(&text).map_err(|e| EngineError::Weights {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// The weights of the phase `pos` is in.
    pub fn for_position(&self, rules: &Rules, pos: &Position) -> &Terms {
        if pos.men_in_hand() > 0 {
            &self.placing
        } else if pos.can_fly(rules, Color::White) || pos.can_fly(rules, Color::Black) {
            &self.flying
        } else {
            &self.moving
        }
    }
}

/// Counts the terms for `color`.
pub fn terms(rules: &Rules, pos: &Position, color: Color) -> Terms {
    let board = rules.board();
    let ours = pos.men(color);
    let empty = pos.empty(board);
    let placing = pos.in_hand(color) > 0;
    let flies = pos.can_fly(rules, color);
    let mut t = Terms {
        men: pos.men_left(color) as i32,
        mobility: board.slides(ours, empty).count_ones() as i32,
        flying: i32::from(flies),
        ..Terms::default()
    };
    let closed = board.men_in_mills(ours);
    for &mill in board.mills() {
        let mine = ours & mill;
        match mine.count() {
            3 => t.closed_mills += 1,
            2 => {
                let gap = mill & empty;
                if let Some(p) = gap.first() {
                    t.open_mills += 1;
                    let outside = ours & !mill;
                    let reachable =
                        placing || (flies && outside.any()) || (board.adjacent(p) & outside).any();
                    if reachable {
                        t.mill_threats += 1;
                    }
                }
            }
            _ => {}
        }
    }
    t.double_mills = double_mill_men(board, ours, closed, empty);
    if !placing && !flies {
        let free = board.neighbours(empty);
        t.blocked_men = (ours & !free).count() as i32;
    }
    t
}

/// Men of `ours` that stand in a complete mill and can step to an empty neighbour that
/// completes another mill of `ours` (one the man is not part of): each move closes a mill.
fn double_mill_men(board: &Board, ours: Bitboard, closed: Bitboard, empty: Bitboard) -> i32 {
    let mut n = 0;
    for man in closed {
        let rest = ours & !Bitboard::from_square(man);
        let swings = (board.adjacent(man) & empty).into_iter().any(|p| {
            board.mills().iter().any(|&m| {
                m.contains(p)
                    && !m.contains(man)
                    && rest.contains_all(m & !Bitboard::from_square(p))
            })
        });
        n += i32::from(swings);
    }
    n
}

/// The evaluation of `pos` for the player to move, in hundredths of a man.
pub fn evaluate(rules: &Rules, weights: &Weights, pos: &Position) -> i32 {
    let w = weights.for_position(rules, pos);
    let us = pos.side_to_move();
    terms(rules, pos, us).weighted(w) - terms(rules, pos, us.opposite()).weighted(w)
}
