//! Self-play records on disk: shards of samples, each a Kvarn container (magic
//! `KVSHARD1`, version, JSON header, CRC-32) written atomically.
//!
//! A sample is stored compactly and rebuilt on reading: the position (26 bytes with its
//! counters), then the search policy over the legal actions, the search value and the
//! game's result. Features and the legal mask follow from the position through
//! `kvarn_game::encoding`, so a shard is about a tenth of the encoded size.
//!
//! Payload, little-endian, per sample: white men `u32`, black men `u32`, men in hand
//! `u8 u8`, side to move `u8` (0 White), pending removal `u8`, no-capture `u16`, turns
//! `u16`, occurrences `u8`, flags `u8` (bit 0: full search, bit 1: explored, bit 2: a
//! surprise follows), result `i8` (+1/0/−1 for the player to move), search win/draw/loss
//! `3 × f32`, the policy surprise `f32` where bit 2 says so (shards written before it was
//! recorded have none), policy entries `u16`, then per entry action `u16` and probability
//! `f32`. The header lists the games, each with its final board where recorded.

use std::path::Path;

use kvarn_game::{Bitboard, Color, ENCODING_VERSION, Position, Rules, Setup};
use kvarn_storage::{ContainerError, read_container, write_container};
use serde::{Deserialize, Serialize};

/// Magic bytes of a shard.
pub const SHARD_MAGIC: &[u8; 8] = b"KVSHARD1";
/// Version of the shard layout.
pub const SHARD_FORMAT_VERSION: u32 = 1;
/// File extension of shards.
pub const SHARD_EXTENSION: &str = "kvsp";

/// One searched position.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The position.
    pub position: Position,
    /// How often it had occurred in its game (repetition counter the encoding reads).
    pub occurrences: u8,
    /// Whether it had a full search (playout cap randomisation): only those are policy
    /// targets.
    pub full_search: bool,
    /// The game's result for the player to move: +1, 0 or −1.
    pub result: i8,
    /// The search's win/draw/loss for the player to move.
    pub search_wdl: [f32; 3],
    /// The search policy: `(action, probability)` over the legal actions.
    pub policy: Vec<(u16, f32)>,
    /// Whether the move played here was drawn by the late temperature
    /// (`search.late_temperature`) instead of the search's most visited move, and is worse
    /// by more than `search.explored_value_gap`: the game's result after it is not that of
    /// the search's choice. Bit 1 of the flags byte, 0 in shards written before it was
    /// recorded.
    pub explored: bool,
    /// The search's policy surprise ([`crate::SearchResult::surprise`]); 0 in samples not
    /// from a search (exact samples) and in shards written before it was recorded.
    pub surprise: f32,
}

/// One game of a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSummary {
    /// Index of the game in its self-play run (what its random generator was seeded with).
    pub index: u64,
    /// Result for White: +1, 0 or −1.
    pub result: i8,
    /// Plies played.
    pub plies: u32,
    /// Samples it contributed.
    pub samples: u32,
    /// The men of White and Black on its final board (where the endgame databases
    /// adjudicated it, the board they judged), as bitboards (absent in shards written
    /// before it was recorded): the target of the network's ownership head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_men: Option<[u32; 2]>,
}

impl GameSummary {
    /// The final board's men of White and Black, where recorded.
    ///
    /// # Errors
    /// The bitboards are not disjoint sets of `rules`' points.
    pub fn final_board(&self, rules: &Rules) -> Result<Option<[Bitboard; 2]>, String> {
        let Some([white, black]) = self.final_men else {
            return Ok(None);
        };
        let points = rules.board().points().bits();
        if white & black != 0 || (white | black) & !points != 0 {
            return Err(format!(
                "game {}: final men {white:#x} and {black:#x} are not disjoint sets of the board's points",
                self.index
            ));
        }
        let bits = |b| Bitboard::from_bits(b).ok_or_else(|| format!("bad bitboard {b:#x}"));
        Ok(Some([bits(white)?, bits(black)?]))
    }
}

/// What a shard says about itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardHeader {
    /// Encoding version the samples are meant for.
    pub encoding_version: u32,
    /// The rules played.
    pub rules: Rules,
    /// Games in the shard.
    pub games: u32,
    /// Samples in the shard.
    pub samples: u64,
    /// The games in the shard, in the order their samples appear.
    pub game_list: Vec<GameSummary>,
    /// The model that played (file name or description).
    pub model: String,
    /// Where the samples come from (absent: games).
    #[serde(default, skip_serializing_if = "SampleSource::is_games")]
    pub source: SampleSource,
    /// The seed the samples were drawn with (the job's, from which each game's is
    /// derived), so that a run can tell its own shards from a stray one of another seed;
    /// absent in shards written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// Where a shard's samples come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleSource {
    /// Self-play games, each listed in the header with its samples.
    #[default]
    Games,
    /// Positions drawn from the endgame databases and labelled exactly
    /// ([`crate::exact`]): no games.
    Databases,
}

impl SampleSource {
    /// Whether the samples are games' (the default, left out of headers).
    pub fn is_games(&self) -> bool {
        *self == SampleSource::Games
    }
}

/// Why a shard could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// The container is unreadable, of another kind or version, or damaged.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The content does not make sense.
    #[error("{path}: {reason}")]
    Invalid {
        /// The shard.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

impl ShardError {
    /// [`ShardError::Invalid`] for the file or folder `path`.
    pub fn invalid(path: &Path, reason: String) -> ShardError {
        ShardError::Invalid {
            path: path.display().to_string(),
            reason,
        }
    }
}

fn encode_sample(s: &Sample, out: &mut Vec<u8>) {
    let setup = s.position.setup();
    out.extend_from_slice(&setup.men[0].bits().to_le_bytes());
    out.extend_from_slice(&setup.men[1].bits().to_le_bytes());
    out.extend_from_slice(&setup.in_hand);
    out.push(u8::from(setup.side == Color::Black));
    out.push(u8::from(setup.pending_removal));
    out.extend_from_slice(&setup.no_capture.to_le_bytes());
    out.extend_from_slice(&setup.turns.to_le_bytes());
    out.push(s.occurrences);
    out.push(u8::from(s.full_search) | u8::from(s.explored) << 1 | SURPRISE_FLAG);
    out.push(s.result as u8);
    for v in s.search_wdl {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&s.surprise.to_le_bytes());
    out.extend_from_slice(&(s.policy.len() as u16).to_le_bytes());
    for &(a, p) in &s.policy {
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&p.to_le_bytes());
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or("payload cut short inside a sample")?;
        self.at += N;
        Ok(slice.try_into().expect("N bytes"))
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take()?))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take()?))
    }
}

fn decode_sample(rules: &Rules, actions: usize, c: &mut Cursor) -> Result<Sample, String> {
    let bits = |b: u32| Bitboard::from_bits(b).ok_or_else(|| format!("bad bitboard {b:#x}"));
    let men = [bits(c.u32()?)?, bits(c.u32()?)?];
    let in_hand = [c.u8()?, c.u8()?];
    let side = match c.u8()? {
        0 => Color::White,
        1 => Color::Black,
        x => return Err(format!("bad side to move {x}")),
    };
    let pending_removal = c.u8()? != 0;
    let no_capture = c.u16()?;
    let turns = c.u16()?;
    let position = Position::from_setup(
        rules,
        &Setup {
            men,
            in_hand,
            side,
            pending_removal,
            no_capture,
            turns,
        },
    )
    .map_err(|e| format!("bad position: {e}"))?;
    let occurrences = c.u8()?;
    let flags = c.u8()?;
    if flags > 7 {
        return Err(format!("bad flags {flags:#x}"));
    }
    let (full_search, explored) = (flags & 1 == 1, flags & 2 == 2);
    let result = c.u8()? as i8;
    if !(-1..=1).contains(&result) {
        return Err(format!("bad result {result}"));
    }
    let search_wdl = [c.f32()?, c.f32()?, c.f32()?];
    if !search_wdl.iter().all(|v| v.is_finite()) {
        return Err(format!("search value {search_wdl:?} is not finite"));
    }
    let surprise = if flags & SURPRISE_FLAG != 0 {
        c.f32()?
    } else {
        0.0
    };
    if !(surprise.is_finite() && surprise >= 0.0) {
        return Err(format!(
            "policy surprise {surprise} is not a finite divergence"
        ));
    }
    let n = c.u16()?;
    let mut policy = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        let (action, p) = (c.u16()?, c.f32()?);
        if usize::from(action) >= actions || !p.is_finite() {
            return Err(format!(
                "policy entry ({action}, {p}) outside the {actions} actions or not finite"
            ));
        }
        policy.push((action, p));
    }
    Ok(Sample {
        position,
        occurrences,
        full_search,
        result,
        search_wdl,
        policy,
        explored,
        surprise,
    })
}

/// Flag bit saying that a policy surprise follows the search value.
const SURPRISE_FLAG: u8 = 4;

/// Writes a shard atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_shard(
    path: &Path,
    header: &ShardHeader,
    samples: &[Sample],
) -> Result<(), ShardError> {
    let mut payload = Vec::with_capacity(samples.len() * 64);
    for s in samples {
        encode_sample(s, &mut payload);
    }
    write_container(path, SHARD_MAGIC, SHARD_FORMAT_VERSION, header, &payload)?;
    Ok(())
}

/// Reads a shard, refusing (with its name) one that is damaged, of another version or
/// encoding, or whose samples do not decode.
///
/// # Errors
/// See [`ShardError`].
pub fn read_shard(path: &Path) -> Result<(ShardHeader, Vec<Sample>), ShardError> {
    let (header, payload): (ShardHeader, Vec<u8>) = read_container(
        path,
        SHARD_MAGIC,
        "Kvarn self-play shard",
        SHARD_FORMAT_VERSION,
    )?;
    let invalid = |reason: String| ShardError::invalid(path, reason);
    if header.encoding_version != ENCODING_VERSION {
        return Err(invalid(format!(
            "encoding version {}, this build uses {ENCODING_VERSION}",
            header.encoding_version
        )));
    }
    let actions = kvarn_game::ActionSpace::new(&header.rules).len();
    let mut cursor = Cursor {
        bytes: &payload,
        at: 0,
    };
    // The header's count is not believed for the allocation: a damaged one asked for
    // terabytes. A sample takes at least 33 bytes.
    let mut samples = Vec::with_capacity((header.samples.min(payload.len() as u64 / 33)) as usize);
    while cursor.at < payload.len() {
        let i = samples.len();
        samples.push(
            decode_sample(&header.rules, actions, &mut cursor)
                .map_err(|e| invalid(format!("sample {i}: {e}")))?,
        );
    }
    let listed: u64 = match header.source {
        SampleSource::Games => header.game_list.iter().map(|g| u64::from(g.samples)).sum(),
        SampleSource::Databases => header.samples,
    };
    if listed != header.samples || header.game_list.len() != header.games as usize {
        return Err(invalid(format!(
            "header lists {} games with {listed} samples, says {} games with {}",
            header.game_list.len(),
            header.games,
            header.samples
        )));
    }
    for game in &header.game_list {
        game.final_board(&header.rules).map_err(invalid)?;
    }
    if samples.len() as u64 != header.samples {
        return Err(invalid(format!(
            "header says {} samples, payload holds {}",
            header.samples,
            samples.len()
        )));
    }
    Ok((header, samples))
}
