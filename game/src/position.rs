//! The state of a game between two decisions, the legal moves from it and how a move
//! changes it. Every rule of RULES.md that does not need the game's history is here;
//! [`crate::Game`] adds repetition.

use crate::bitboard::Bitboard;
use crate::bitboard::Bitboard64;
use crate::board::Board;
use crate::color::Color;
use crate::moves::IllegalMove;
use crate::moves::{Move, MoveList};
use crate::square::Square;
use crate::status::{DrawReason, Status, WinReason};
use crate::variant::Rules;
use crate::zobrist::KEYS;

/// A position: men on the board, men in hand, side to move, a pending removal, and the
/// counters. Small and `Copy`, so search and the batched simulator copy it freely.
///
/// A `Position` does not hold its rules: methods that need them take a [`Rules`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    men: [Bitboard; 2],
    in_hand: [u8; 2],
    side: Color,
    pending_removal: bool,
    no_capture: u16,
    turns: u16,
    hash: u64,
}

/// The parts of a position as read from text, before they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Men on the board, White's and Black's.
    pub men: [Bitboard; 2],
    /// Men in hand, White's and Black's.
    pub in_hand: [u8; 2],
    /// Player to move (the one who must remove, if a removal is pending).
    pub side: Color,
    /// Whether the player to move has closed a mill and must now remove a man.
    pub pending_removal: bool,
    /// Turns completed since the last removal (or the start).
    pub no_capture: u16,
    /// Turns completed since the start of the game.
    pub turns: u16,
}

/// Why a [`Setup`] is not a position of the given rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct SetupError {
    /// Which part is wrong.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl Position {
    /// The start position: empty board, all men in hand, White to move.
    pub fn start(rules: &Rules) -> Position {
        Position::from_setup_unchecked(&Setup {
            men: [Bitboard::EMPTY; 2],
            in_hand: [rules.men(); 2],
            side: Color::White,
            pending_removal: false,
            no_capture: 0,
            turns: 0,
        })
    }

    pub(crate) fn from_setup_unchecked(s: &Setup) -> Position {
        let mut p = Position {
            men: s.men,
            in_hand: s.in_hand,
            side: s.side,
            pending_removal: s.pending_removal,
            no_capture: s.no_capture,
            turns: s.turns,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    /// Checks a setup against the rules and builds the position.
    ///
    /// Accepted: any placement of men on the variant's points with at most the variant's
    /// men per player on board and in hand together. A pending removal needs a mill of the
    /// mover and an opposing man on the board, as it does in play. Positions that are
    /// already decided (a player with fewer than three men, a blocked player) are accepted:
    /// their status says so.
    ///
    /// # Errors
    /// [`SetupError`] naming the part that is wrong.
    pub fn from_setup(rules: &Rules, s: &Setup) -> Result<Position, SetupError> {
        let board = rules.board();
        let err = |field, reason: String| Err(SetupError { field, reason });
        for c in Color::BOTH {
            // A `Bitboard` holds only the 24 squares; check anyway, cheaply.
            if s.men[c.index()].0 & !Square::ALL_MASK != 0 {
                return err("board", format!("{c}'s men lie outside the 24 points"));
            }
            let off = s.men[c.index()] & Bitboard(!board.points().0);
            if let Some(sq) = off.first() {
                return err(
                    "board",
                    format!("{sq} is not a point of the {}", rules.variant()),
                );
            }
            let total = s.men[c.index()].count() + s.in_hand[c.index()] as u32;
            if total > rules.men() as u32 {
                return err(
                    "men",
                    format!(
                        "{c} has {total} men on the board and in hand, more than the {} of {}",
                        rules.men(),
                        rules.variant()
                    ),
                );
            }
        }
        if (s.men[0] & s.men[1]).any() {
            return err("board", "a point holds two men".to_string());
        }
        if s.pending_removal {
            let mover = s.men[s.side.index()];
            if board.men_in_mills(mover).is_empty() {
                return err(
                    "pending removal",
                    format!(
                        "{} has no mill, so it cannot have a removal pending",
                        s.side
                    ),
                );
            }
            if s.men[s.side.opposite().index()].is_empty() {
                return err(
                    "pending removal",
                    format!("{} has no man on the board to remove", s.side.opposite()),
                );
            }
        }
        let short = |c: Color| s.men[c.index()].count() + (s.in_hand[c.index()] as u32) < 3;
        if short(Color::White) && short(Color::Black) {
            return err(
                "men",
                "both players have fewer than three men; no game reaches that".to_string(),
            );
        }
        Ok(Position::from_setup_unchecked(s))
    }

    /// The parts of the position.
    pub fn setup(&self) -> Setup {
        Setup {
            men: self.men,
            in_hand: self.in_hand,
            side: self.side,
            pending_removal: self.pending_removal,
            no_capture: self.no_capture,
            turns: self.turns,
        }
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for c in Color::BOTH {
            for sq in self.men[c.index()] {
                h ^= KEYS.men[c.index()][sq.index()];
            }
            h ^= KEYS.hand[c.index()][self.in_hand[c.index()] as usize];
        }
        if self.side == Color::Black {
            h ^= KEYS.black_to_move;
        }
        if self.pending_removal {
            h ^= KEYS.pending_removal;
        }
        h
    }

    /// The men of `color` on the board.
    #[inline]
    pub fn men(&self, color: Color) -> Bitboard {
        self.men[color.index()]
    }

    /// All men on the board.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.men[0] | self.men[1]
    }

    /// The empty points of the board.
    #[inline]
    pub fn empty(&self, board: &Board) -> Bitboard {
        board.points() & Bitboard(!self.occupied().0)
    }

    /// Men of `color` still in hand.
    #[inline]
    pub fn in_hand(&self, color: Color) -> u8 {
        self.in_hand[color.index()]
    }

    /// Men still in hand, both sides: 0 once placing is over.
    #[inline]
    pub fn men_in_hand(&self) -> u8 {
        self.in_hand[0] + self.in_hand[1]
    }

    /// Men of `color` on the board and in hand: what decides a loss by too few men.
    #[inline]
    pub fn men_left(&self, color: Color) -> u32 {
        self.men[color.index()].count() + self.in_hand[color.index()] as u32
    }

    /// The player to move, who is also the one to remove when a removal is pending.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whether the player to move has closed a mill and must now remove an opposing man.
    #[inline]
    pub fn pending_removal(&self) -> bool {
        self.pending_removal
    }

    /// Turns completed since the last removal, or since the start.
    #[inline]
    pub fn no_capture(&self) -> u16 {
        self.no_capture
    }

    /// Turns completed since the start of the game.
    #[inline]
    pub fn turns(&self) -> u16 {
        self.turns
    }

    /// Zobrist hash of what makes positions the same under the repetition rule (men, men
    /// in hand, side, pending removal); the counters are left out.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The exact identity of the position under the repetition rule, packed in 58 bits:
    /// equal keys mean equal positions, with no chance of collision.
    #[inline]
    pub fn key(&self) -> u64 {
        self.men[0].0 as u64
            | (self.men[1].0 as u64) << 24
            | (self.in_hand[0] as u64) << 48
            | (self.in_hand[1] as u64) << 52
            | (self.side as u64) << 56
            | (self.pending_removal as u64) << 57
    }

    /// Whether `color` may fly: flying is on and it has exactly three men, none in hand.
    #[inline]
    pub fn can_fly(&self, rules: &Rules, color: Color) -> bool {
        rules.flying() && self.in_hand[color.index()] == 0 && self.men[color.index()].count() == 3
    }

    /// Whether the player to move places (has men in hand) rather than moves.
    #[inline]
    pub fn is_placing(&self) -> bool {
        self.in_hand[self.side.index()] > 0
    }

    /// The opposing men the player to move may remove: those outside mills, or any if
    /// every one of them stands in a mill.
    pub fn removable(&self, board: &Board) -> Bitboard {
        let theirs = self.men[self.side.opposite().index()];
        let free = theirs & Bitboard(!board.men_in_mills(theirs).0);
        if free.any() { free } else { theirs }
    }

    /// The legal decisions of the player to move, by the rules of movement alone.
    ///
    /// The order is fixed but is not the action-index order of
    /// [`crate::ActionSpace`]: sort by [`crate::ActionSpace::index`] where that matters.
    ///
    /// This does not look at whether the game is already over; [`crate::Game::legal_moves`]
    /// and the batched simulator do.
    #[inline]
    pub fn legal_moves(&self, rules: &Rules) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(rules, &mut list);
        list
    }

    /// Writes the legal decisions into `list`, replacing what it held: the same as
    /// [`Position::legal_moves`] without building a new list, for hot loops.
    #[inline]
    pub fn legal_moves_into(&self, rules: &Rules, list: &mut MoveList) {
        list.refill(|buf| {
            let mut n = 0;
            self.for_each_legal_move(rules, |m| {
                buf[n] = std::mem::MaybeUninit::new(m);
                n += 1;
            });
            n
        });
    }

    /// Calls `f` on each legal decision, in the order of [`Position::legal_moves`].
    #[inline]
    pub fn for_each_legal_move(&self, rules: &Rules, mut f: impl FnMut(Move)) {
        let board = rules.board();
        let us = self.side.index();
        let empty = self.empty(board);
        if self.pending_removal {
            self.removable(board)
                .into_iter()
                .for_each(|from| f(Move::Remove { from }));
        } else if self.in_hand[us] > 0 {
            empty.into_iter().for_each(|to| f(Move::Place { to }));
        } else if self.can_fly(rules, self.side) {
            for from in self.men[us] {
                empty.into_iter().for_each(|to| f(Move::Shift { from, to }));
            }
        } else {
            let set = board.slides(self.men[us], empty);
            for (half, offset) in [(set as u64, 0), ((set >> 64) as u64, 64)] {
                let mut bits = half;
                while bits != 0 {
                    let bit = bits.trailing_zeros() as usize + offset;
                    bits &= bits - 1;
                    let from = Square::from_index_unchecked((bit % 32) as u8);
                    f(Move::Shift {
                        from,
                        to: board.slide_target(bit / 32, from),
                    });
                }
            }
        }
    }

    /// The number of legal decisions, without listing them: `legal_moves(rules).len()`.
    #[inline]
    pub fn legal_move_count(&self, rules: &Rules) -> usize {
        let board = rules.board();
        let us = self.side.index();
        let empty = self.empty(board);
        if self.pending_removal {
            self.removable(board).count() as usize
        } else if self.in_hand[us] > 0 {
            empty.count() as usize
        } else if self.can_fly(rules, self.side) {
            (self.men[us].count() * empty.count()) as usize
        } else {
            board.slides(self.men[us], empty).count_ones() as usize
        }
    }

    /// The legal decision at index `n` of [`Position::legal_moves`], found without listing
    /// the others: random playouts draw `n` below [`Position::legal_move_count`] and skip
    /// building the list.
    #[inline]
    pub fn nth_legal_move(&self, rules: &Rules, n: usize) -> Option<Move> {
        let board = rules.board();
        let us = self.side.index();
        let empty = self.empty(board);
        let n32 = u32::try_from(n).ok()?;
        if self.pending_removal {
            return self
                .removable(board)
                .nth(n32)
                .map(|from| Move::Remove { from });
        }
        if self.in_hand[us] > 0 {
            return empty.nth(n32).map(|to| Move::Place { to });
        }
        if self.can_fly(rules, self.side) {
            let e = empty.count();
            if e == 0 {
                return None;
            }
            let from = self.men[us].nth(n32 / e)?;
            let to = empty.nth(n32 % e)?;
            return Some(Move::Shift { from, to });
        }
        let set = board.slides(self.men[us], empty);
        let (low, high) = (set as u64, (set >> 64) as u64);
        let (bit, in_high) = if n32 < low.count_ones() {
            (Bitboard64(low).nth(n32)?, false)
        } else {
            (Bitboard64(high).nth(n32 - low.count_ones())?, true)
        };
        let bit = bit as usize + if in_high { 64 } else { 0 };
        let from = Square::from_index_unchecked((bit % 32) as u8);
        Some(Move::Shift {
            from,
            to: board.slide_target(bit / 32, from),
        })
    }

    /// Whether the player to move has any legal decision (false means blocked).
    #[inline]
    pub fn has_legal_move(&self, rules: &Rules) -> bool {
        let board = rules.board();
        let us = self.side.index();
        let empty = self.empty(board);
        if self.pending_removal {
            return self.men[1 - us].any();
        }
        if empty.is_empty() {
            return false;
        }
        if self.in_hand[us] > 0 || self.can_fly(rules, self.side) {
            return true;
        }
        (board.neighbours(self.men[us]) & empty).any()
    }

    /// The status of the position given how often it has occurred so far (1 the first
    /// time). A win ends the game before a draw reached on the same turn, as checkmate
    /// comes before the fifty-move rule in chess.
    #[inline]
    pub fn status(&self, rules: &Rules, occurrences: u32) -> Status {
        for c in Color::BOTH {
            if self.men_left(c) < 3 {
                return Status::Win {
                    winner: c.opposite(),
                    reason: WinReason::TooFewMen,
                };
            }
        }
        if self.pending_removal {
            return Status::Ongoing;
        }
        if !self.has_legal_move(rules) {
            return Status::Win {
                winner: self.side.opposite(),
                reason: WinReason::Blocked,
            };
        }
        if rules.repetition() && occurrences >= 3 {
            return Status::Draw {
                reason: DrawReason::Repetition,
            };
        }
        if let Some(limit) = rules.no_capture_limit()
            && self.no_capture >= limit
        {
            return Status::Draw {
                reason: DrawReason::NoCapture,
            };
        }
        Status::Ongoing
    }

    /// Checks that `mv` is legal here by the rules of movement, saying why if not.
    ///
    /// Agrees with [`Position::legal_moves`]: `Ok` exactly for the moves it lists.
    ///
    /// # Errors
    /// [`IllegalMove`] with the reason in words.
    pub fn check_move(&self, rules: &Rules, mv: Move) -> Result<(), IllegalMove> {
        let board = rules.board();
        let us = self.side;
        let them = us.opposite();
        let fail = |reason: String| Err(IllegalMove { mv, reason });
        for sq in [mv.from(), mv.to()].into_iter().flatten() {
            if !board.has(sq) {
                return fail(format!("{sq} is not a point of the {}", rules.variant()));
            }
        }
        if self.pending_removal && !mv.is_removal() {
            return fail(format!(
                "{us} closed a mill and must first remove a {them} man (e.g. x{})",
                self.removable(board).first().map_or("?", Square::name)
            ));
        }
        match mv {
            Move::Remove { from } => {
                if !self.pending_removal {
                    return fail("no mill was closed, so there is nothing to remove".into());
                }
                if !self.men(them).contains(from) {
                    return fail(format!("{from} holds no {them} man"));
                }
                if !self.removable(board).contains(from) {
                    return fail(format!(
                        "{from} stands in a {them} mill and {them} has men outside mills"
                    ));
                }
            }
            Move::Place { to } => {
                if self.in_hand(us) == 0 {
                    let example = self
                        .legal_moves(rules)
                        .first()
                        .map_or(String::new(), |m| format!(" (e.g. {m})"));
                    return fail(format!(
                        "{us} has no men in hand and must move a man{example}"
                    ));
                }
                if self.occupied().contains(to) {
                    return fail(format!("{to} is occupied"));
                }
            }
            Move::Shift { from, to } => {
                if self.in_hand(us) > 0 {
                    return fail(format!(
                        "{us} still has {} men in hand and must place one",
                        self.in_hand(us)
                    ));
                }
                if !self.men(us).contains(from) {
                    return fail(format!("{from} holds no {us} man"));
                }
                if self.occupied().contains(to) {
                    return fail(format!("{to} is occupied"));
                }
                if !board.adjacent(from).contains(to) && !self.can_fly(rules, us) {
                    let why = if !rules.flying() {
                        "flying is off".to_string()
                    } else {
                        format!("{us} has {} men, not three", self.men(us).count())
                    };
                    return fail(format!(
                        "{from} and {to} are not joined by a line, and {us} may not fly ({why})"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Plays `mv`, which must be legal ([`Position::check_move`]); an illegal move leaves
    /// a position that breaks the rules.
    #[inline]
    pub fn play_unchecked(&mut self, rules: &Rules, mv: Move) {
        let us = self.side.index();
        match mv {
            Move::Place { to } => {
                self.men[us] |= Bitboard::from_square(to);
                self.hash ^= KEYS.men[us][to.index()]
                    ^ KEYS.hand[us][self.in_hand[us] as usize]
                    ^ KEYS.hand[us][self.in_hand[us] as usize - 1];
                self.in_hand[us] -= 1;
                self.after_landing(rules.board(), to);
            }
            Move::Shift { from, to } => {
                self.men[us] ^= Bitboard::from_square(from) | Bitboard::from_square(to);
                self.hash ^= KEYS.men[us][from.index()] ^ KEYS.men[us][to.index()];
                self.after_landing(rules.board(), to);
            }
            Move::Remove { from } => {
                let them = 1 - us;
                self.men[them] &= Bitboard(!Bitboard::from_square(from).0);
                self.hash ^= KEYS.men[them][from.index()] ^ KEYS.pending_removal;
                self.pending_removal = false;
                self.end_turn(true);
            }
        }
    }

    /// A man of the mover has landed on `to`: a closed mill earns a removal (when there is
    /// an opposing man on the board to remove); otherwise the turn ends.
    #[inline]
    fn after_landing(&mut self, board: &Board, to: Square) {
        let us = self.side.index();
        if self.men[1 - us].any() && board.closes_mill(self.men[us], to) {
            self.pending_removal = true;
            self.hash ^= KEYS.pending_removal;
        } else {
            self.end_turn(false);
        }
    }

    #[inline]
    fn end_turn(&mut self, removed: bool) {
        self.no_capture = if removed {
            0
        } else {
            self.no_capture.saturating_add(1)
        };
        self.turns = self.turns.saturating_add(1);
        self.side = self.side.opposite();
        self.hash ^= KEYS.black_to_move;
    }

    /// Whether `mv` makes a position that can never recur (a placement or removal lowers
    /// the men in hand or on board for good), so earlier positions drop out of the
    /// repetition history.
    #[inline]
    pub fn is_irreversible(mv: Move) -> bool {
        !matches!(mv, Move::Shift { .. })
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Position {{ white: {:?}, black: {:?}, in_hand: {:?}, side: {}, pending_removal: {}, no_capture: {}, turns: {} }}",
            self.men[0],
            self.men[1],
            self.in_hand,
            self.side,
            self.pending_removal,
            self.no_capture,
            self.turns
        )
    }
}
