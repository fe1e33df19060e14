//! The rules of Nine, Six and Five Men's Morris, exactly as the project's `RULES.md` states
//! them, for engines, trainers and front ends alike.
//!
//! - [`Variant`] and [`Rules`]: the three games and their switches (flying, repetition,
//!   the no-capture limit). Variant differences are data: [`Board`] tables and numbers.
//! - [`Position`]: bitboards, men in hand, side to move, pending removal, counters and a
//!   Zobrist hash; legal moves ([`Position::legal_moves`]) and [`Position::play_unchecked`].
//! - [`Game`]: a position with its history, for repetition, status and undo.
//! - [`Move`] and notation: `d6` place, `a1-a4` slide or fly, `xd2` remove, and the
//!   combined `b2xf4` on input. Position strings ([`notation`]) and Sanmill's FEN ([`fen`]),
//!   read alike, with `startpos`, by [`Position::from_text`].
//! - Symmetries: [`Position::transformed`], [`Move::transformed`], [`Position::canonical`].
//! - [`encoding`]: the network input and the fixed action space; [`BatchSim`]: many games
//!   stepped and encoded at once.
//!
//! The crate has no neural-network dependency.
//!
//! # Example
//! ```
//! use kvarn_game::{Game, Rules, Status, Variant};
//!
//! let mut game = Game::new(Rules::new(Variant::Six));
//! game.play_text("b6 b2 d6 d2 f6").unwrap(); // White closes the mill b6-d6-f6 ...
//! assert!(game.position().pending_removal()); // ... and must now remove a black man.
//! game.play_text("xd2").unwrap();
//! assert_eq!(game.status(), Status::Ongoing);
//! assert_eq!(game.legal_moves().len(), 16 - 4);
//! ```

mod batch;
mod bitboard;
mod board;
mod board_text;
mod color;
pub mod encoding;
mod error;
pub mod fen;
mod game;
mod moves;
pub mod notation;
mod perft;
mod phase;
mod position;
mod position_text;
pub mod seeds;
mod square;
mod status;
mod symmetry;
mod variant;
mod zobrist;

pub use batch::{BatchError, BatchSim, Finished};
pub use bitboard::{Bitboard, Squares};
pub use board::{Board, BoardKind, SYMMETRY_COUNT};
pub use color::Color;
pub use encoding::{ActionSpace, ENCODING_VERSION};
pub use error::ParseError;
pub use game::{Game, PlayError};
pub use moves::{IllegalMove, MAX_MOVES, Move, MoveList};
pub use perft::{perft, perft_divide};
pub use phase::{Outcome, Phase};
pub use position::{Position, Setup, SetupError};
pub use square::Square;
pub use status::{DrawReason, Status, WinReason};
pub use variant::{DEFAULT_NO_CAPTURE_LIMIT, Rules, RulesError, Variant};
