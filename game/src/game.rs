//! A game: rules, the positions played so far and its status. Adds what a single
//! [`Position`] cannot know: how often a position has occurred (repetition), and undo.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use thiserror::Error;

use crate::error::ParseError;
use crate::moves::{IllegalMove, Move, MoveList};
use crate::position::{Position, SetupError};
use crate::status::Status;
use crate::variant::Rules;

/// One position of the game with what is derived from the history leading to it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    pos: Position,
    /// The move that led here (none for the first frame).
    last: Option<Move>,
    /// Index of the first frame since the last irreversible move: only frames from there
    /// on can equal this one.
    rep_base: u32,
    /// How many times this position has occurred, this one included.
    occurrences: u32,
    /// Index of the latest earlier frame since `rep_base` holding the same position, or
    /// [`NONE`].
    prev: u32,
    /// Bloom filter of the positions since `rep_base`, this one included: bit
    /// `hash >> 57` of each hash. A clear bit proves a position new without a scan.
    seen: u128,
    status: Status,
}

/// A game in progress or finished, from a start position (the usual empty board or one
/// set up from a position string, which counts as the first occurrence).
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    frames: Vec<Frame>,
    /// Built only once a reversible stretch grows past [`SCAN_LIMIT`] (so short stretches,
    /// the common case in searches, never touch it) and kept in step from then on:
    /// `chain[i]` is the latest frame before `i` with the same hash as frame `i`, or
    /// [`NONE`], for the first `chain.len()` frames.
    chain: Vec<u32>,
    /// The latest of the first `chain.len()` frames with each hash.
    latest: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
}

/// No frame.
const NONE: u32 = u32::MAX;

/// Reversible stretches up to this many frames are searched by a scan; longer ones
/// through the hash index, so that a long game without captures costs constant time a
/// move rather than a scan of the whole stretch.
const SCAN_LIMIT: u32 = 64;

impl Game {
    /// A new game from the empty board.
    pub fn new(rules: Rules) -> Game {
        Game::start_at(rules, Position::start(&rules))
    }

    /// A game starting at `pos`, whose first occurrence it is.
    ///
    /// # Errors
    /// [`SetupError`] when `pos` is not a position of `rules` (made for another variant).
    pub fn from_position(rules: Rules, pos: Position) -> Result<Game, SetupError> {
        let pos = Position::from_setup(&rules, &pos.setup())?;
        Ok(Game::start_at(rules, pos))
    }

    /// A game from a position known to belong to `rules`.
    fn start_at(rules: Rules, pos: Position) -> Game {
        let status = pos.status(&rules, 1);
        Game {
            rules,
            frames: vec![Frame {
                pos,
                last: None,
                rep_base: 0,
                occurrences: 1,
                prev: NONE,
                seen: bloom_bit(pos.hash()),
                status,
            }],
            chain: Vec::new(),
            latest: HashMap::default(),
        }
    }

    /// The rules.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    #[inline]
    fn top(&self) -> &Frame {
        // `frames` is never empty: it starts with one frame and `undo` keeps it.
        &self.frames[self.frames.len() - 1]
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.top().pos
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        &self.frames[0].pos
    }

    /// The status of the game.
    #[inline]
    pub fn status(&self) -> Status {
        self.top().status
    }

    /// How many times the current position has occurred, this time included.
    #[inline]
    pub fn occurrences(&self) -> u32 {
        self.top().occurrences
    }

    /// Whether the current position also occurred at or after decision `ply` (0 = the
    /// start position), before now. Searches use it to tell a repetition inside their own
    /// line from one that reaches back into the game before the search began.
    pub fn repeats_since(&self, ply: usize) -> bool {
        let prev = self.top().prev;
        prev != NONE && prev as usize >= ply
    }

    /// Whether the current position repeats one met at or after decision `ply`, under
    /// rules that draw by repetition: the side that wants the draw can repeat it once
    /// more, so a search from decision `ply` scores it as the draw the rule makes of it. A
    /// position that occurred only before `ply` is not a draw yet.
    pub fn twofold_since(&self, ply: usize) -> bool {
        self.rules.repetition() && self.repeats_since(ply)
    }

    /// The moves played since the start position, in order.
    pub fn moves(&self) -> impl DoubleEndedIterator<Item = Move> + ExactSizeIterator + '_ {
        self.frames[1..]
            .iter()
            .map(|f| f.last.expect("frames after the first have a move"))
    }

    /// Whether some position since the last irreversible decision (placement or removal;
    /// in the moving phase, the last removal) has occurred twice or more: then a third
    /// occurrence, a draw by repetition, is one position away. Endgame adjudication asks.
    pub fn repeated_since_irreversible(&self) -> bool {
        let base = self.top().rep_base as usize;
        self.frames[base..].iter().any(|f| f.occurrences >= 2)
    }

    /// Number of decisions played.
    pub fn ply(&self) -> usize {
        self.frames.len() - 1
    }

    /// The legal decisions, none once the game is over.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Writes the legal decisions into `list` (none once the game is over), replacing
    /// what it held: [`Game::legal_moves`] without building a new list, for hot loops.
    #[inline]
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        if self.status().is_over() {
            list.clear();
        } else {
            self.position().legal_moves_into(&self.rules, list);
        }
    }

    /// Checks that `mv` may be played now, saying why if not.
    ///
    /// # Errors
    /// [`IllegalMove`] when the game is over or the move breaks a rule.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalMove> {
        let status = self.status();
        if status.is_over() {
            return Err(IllegalMove {
                mv,
                reason: format!("the game is over ({status})"),
            });
        }
        self.position().check_move(&self.rules, mv)
    }

    /// Plays `mv` after checking it.
    ///
    /// # Errors
    /// [`IllegalMove`] when it may not be played; the game is then unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.check_move(mv)?;
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays `mv`, which the caller knows to be legal (from [`Game::legal_moves`]).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        let top = self.top();
        let mut pos = top.pos;
        pos.play_unchecked(&self.rules, mv);
        let index = self.frames.len() as u32;
        let rep_base = if Position::is_irreversible(mv) {
            index
        } else {
            top.rep_base
        };
        let earlier_seen = if rep_base == index { 0 } else { top.seen };
        let bit = bloom_bit(pos.hash());
        let prev = if pos.pending_removal() || earlier_seen & bit == 0 {
            // A pending removal is followed by the removal, an irreversible move: the same
            // state cannot have come before within this reversible stretch. A clear bloom
            // bit means no earlier position of the stretch has this hash.
            NONE
        } else if index - rep_base <= SCAN_LIMIT {
            self.scan_prev(&pos, rep_base)
        } else {
            self.indexed_prev(&pos, rep_base)
        };
        // The latest earlier occurrence counts every one before it, being in the same
        // stretch.
        let occurrences = match prev {
            NONE => 1,
            i => self.frames[i as usize].occurrences + 1,
        };
        let status = pos.status(&self.rules, occurrences);
        self.frames.push(Frame {
            pos,
            last: Some(mv),
            rep_base,
            occurrences,
            prev,
            seen: earlier_seen | bit,
            status,
        });
    }

    /// The latest frame since `rep_base` holding `pos` (which is to follow the last
    /// frame), by a scan. Between irreversible moves every decision is a shift that passes
    /// the turn, so only frames an even number of plies back can hold the same side to
    /// move. The stored hash filters; the exact key confirms.
    fn scan_prev(&self, pos: &Position, rep_base: u32) -> u32 {
        let (hash, key) = (pos.hash(), pos.key());
        let base = rep_base as usize;
        let mut i = self.frames.len();
        while i >= base + 2 {
            i -= 2;
            let f = &self.frames[i].pos;
            if f.hash() == hash && f.key() == key {
                return i as u32;
            }
        }
        NONE
    }

    /// [`Game::scan_prev`] through the hash index, first bringing the index up to date.
    fn indexed_prev(&mut self, pos: &Position, rep_base: u32) -> u32 {
        for i in self.chain.len()..self.frames.len() {
            let hash = self.frames[i].pos.hash();
            let before = self.latest.insert(hash, i as u32).unwrap_or(NONE);
            self.chain.push(before);
        }
        let key = pos.key();
        let mut i = self.latest.get(&pos.hash()).copied().unwrap_or(NONE);
        while i != NONE && i >= rep_base {
            if self.frames[i as usize].pos.key() == key {
                return i;
            }
            i = self.chain[i as usize];
        }
        NONE
    }

    /// Goes back to the start position, keeping the allocated history (for loops that
    /// play many games).
    pub fn restart(&mut self) {
        self.frames.truncate(1);
        self.chain.clear();
        self.latest.clear();
    }

    /// Takes back the last decision, returning it; `None` at the start position.
    pub fn undo(&mut self) -> Option<Move> {
        if self.frames.len() == 1 {
            return None;
        }
        let frame = self.frames.pop()?;
        if self.chain.len() > self.frames.len() {
            // The popped frame was indexed: its hash points back to its predecessor.
            let hash = frame.pos.hash();
            match self.chain.pop() {
                Some(NONE) | None => self.latest.remove(&hash),
                Some(before) => self.latest.insert(hash, before),
            };
        }
        frame.last
    }

    /// Plays a space-separated list of moves in notation (the combined form `b2xf4`
    /// included), stopping at the first that cannot be read or played.
    ///
    /// # Errors
    /// [`PlayError`] naming the offending token and its 0-based index; the moves before it
    /// stay played.
    pub fn play_text(&mut self, moves: &str) -> Result<(), PlayError> {
        for (index, text) in moves.split_whitespace().enumerate() {
            let decisions = Move::parse_token(text).map_err(|source| PlayError::Parse {
                index,
                text: text.to_string(),
                source,
            })?;
            let before = self.frames.len();
            for mv in decisions {
                if let Err(source) = self.play(mv) {
                    // A combined token is all or nothing.
                    while self.frames.len() > before {
                        self.undo();
                    }
                    return Err(PlayError::Illegal {
                        index,
                        text: text.to_string(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The bloom-filter bit of a position hash (top 7 bits: one of 128).
#[inline]
fn bloom_bit(hash: u64) -> u128 {
    1u128 << (hash >> 57)
}

/// A hasher for keys that are already uniform 64-bit hashes (Zobrist): passes them on.
#[derive(Clone, Copy, Debug, Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A failure while playing a list of moves given as text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlayError {
    /// The token at `index` could not be read.
    #[error("move {index} (`{text}`): {source}")]
    Parse {
        /// 0-based index of the token in the list.
        index: usize,
        /// The token.
        text: String,
        /// Why it could not be read.
        source: ParseError,
    },
    /// The token at `index` is not legal where it was played.
    #[error("move {index} (`{text}`): {source}")]
    Illegal {
        /// 0-based index of the token in the list.
        index: usize,
        /// The token.
        text: String,
        /// Why it is illegal.
        source: IllegalMove,
    },
}

impl PlayError {
    /// 0-based index of the offending token.
    pub fn index(&self) -> usize {
        match self {
            PlayError::Parse { index, .. } | PlayError::Illegal { index, .. } => *index,
        }
    }

    /// The offending token as given.
    pub fn text(&self) -> &str {
        match self {
            PlayError::Parse { text, .. } | PlayError::Illegal { text, .. } => text,
        }
    }
}
