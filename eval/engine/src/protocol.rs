//! The text protocol of `kvarn engine`, in the style of UCI as mill programs use it:
//!
//! ```text
//! uci                                   -> id ..., option ..., uciok
//! isready                               -> readyok
//! ucinewgame
//! setoption name <X> value <Y>          Variant, Flying, Repetition, NoCaptureLimit,
//!                                       Depth, MoveTime, Nodes, Threads, Hash, Seed, Weights
//! position startpos [moves m1 m2 ...]
//! position fen <FEN or position string> [moves ...]
//! go [depth N] [movetime MS] [nodes N] [wtime .. btime .. winc .. binc ..] [infinite]
//!    [ponder] [searchmoves m1 m2 ...]
//!                                       -> info [multipv K] depth .. score cp|mate .. nodes .. pv ..
//!                                       -> bestmove <move>   (a removal is its own bestmove: xd2)
//! ponderhit                             the move pondered on was played: the search goes on
//!                                       for the go's time, then answers
//! stop
//! quit
//! ```
//!
//! `setoption name MultiPV value N` asks for the N best moves, each in its own `info
//! multipv K` line (the network's search from its root's children; the alpha-beta engine
//! by further searches among the moves not yet reported, after its own). `go searchmoves` restricts the moves chosen among at the root
//! (the legal ones of those named). `go ponder` searches without limit until `ponderhit`
//! (then for the go's `movetime`, or its share of the clock; at once where it gave only
//! a depth or nodes) or `stop` (then at once).
//!
//! Moves use the notation of `kvarn-game`. A `go` with no limit uses the Depth, MoveTime
//! and Nodes options (by default 1000 ms); with all three 0 ("no limit") it is
//! `go infinite`: it searches until `stop`, and any command but `isready` stops it.
//! The searcher behind the protocol is an [`EngineMaker`]'s: the alpha-beta engine
//! ([`serve`]), or a network player from another crate ([`serve_with`]), which adds its
//! own options and `info` fields.
//! Errors, lines that are not UTF-8 included, are answered with `info string error: ...`
//! and the engine goes on. See [`serve`] for the order in which commands are carried out
//! and what the end of the input does.

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kvarn_game::{Color, Game, Move, Position, Rules, Variant};

use crate::evaluation::Weights;
use crate::search::{Engine, EngineOptions, Info, Limits};

/// Writes a line to the shared output and flushes it.
fn send<W: Write>(out: &Mutex<W>, line: &str) {
    let mut w = out.lock().unwrap_or_else(|p| p.into_inner());
    // A closed output means the other side has gone; nothing useful is left to do.
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// An `info` line for a completed iteration.
pub fn info_line(info: &Info) -> String {
    let score = match info.mate_in() {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", info.score),
    };
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    format!(
        "info depth {} score {score} nodes {} nps {} time {} pv {}",
        info.depth,
        info.nodes,
        info.nps(),
        info.elapsed.as_millis(),
        pv.join(" ")
    )
}

/// What a `go` asks of a searcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// When to stop (none: until `stop`).
    pub limits: Limits,
    /// The root moves to choose among, each legal (`go searchmoves`); empty: all.
    pub searchmoves: Vec<Move>,
    /// Lines to report, best first (the `MultiPV` option; 1: the best alone).
    pub multipv: usize,
}

impl Request {
    /// A search within `limits` among all moves, reporting one line.
    pub fn within(limits: Limits) -> Request {
        Request {
            limits,
            searchmoves: Vec::new(),
            multipv: 1,
        }
    }
}

/// A searcher the protocol drives, in a thread of its own while it searches.
pub trait ProtocolEngine: Send {
    /// The rules it plays.
    fn rules(&self) -> Rules;
    /// Forgets earlier games (hash tables, caches).
    fn new_game(&mut self);
    /// Searches `game` as `request` asks, or until `stop` is set, sending its `info`
    /// lines through `info`; the move to play (one of `request.searchmoves` where they
    /// are given), `None` where it has none.
    fn search(
        &mut self,
        game: &Game,
        request: &Request,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&str),
    ) -> Option<Move>;
}

/// Makes the protocol's searchers and owns the options that are not rules or limits.
pub trait EngineMaker: Send {
    /// The name after `id name`.
    fn name(&self) -> String;
    /// Its `option name ...` lines.
    fn options(&self) -> Vec<String>;
    /// Applies `setoption` for `name` (lower case): `Ok(false)` where it is not one of its
    /// options, an error naming what is wrong with `value`.
    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String>;
    /// A searcher for `rules` with the current options.
    fn make(&self, rules: Rules) -> Result<Box<dyn ProtocolEngine>, String>;
}

/// The alpha-beta engine's options: threads, hash, seed and evaluation weights.
#[derive(Debug, Clone)]
pub struct AlphaBetaMaker {
    threads: usize,
    hash_mb: usize,
    seed: Option<u64>,
    weights: Option<PathBuf>,
}

impl Default for AlphaBetaMaker {
    fn default() -> Self {
        AlphaBetaMaker {
            threads: 1,
            hash_mb: 16,
            seed: None,
            weights: None,
        }
    }
}

impl EngineMaker for AlphaBetaMaker {
    fn name(&self) -> String {
        format!("Kvarn {}", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<String> {
        vec![
            "option name Threads type spin default 1 min 1 max 256".into(),
            "option name Hash type spin default 16 min 1 max 4096".into(),
            "option name Seed type string default <random>".into(),
            "option name Weights type string default <built-in>".into(),
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name {
            "threads" => self.threads = spin_value(value, 1, 256)? as usize,
            "hash" => self.hash_mb = spin_value(value, 1, 4096)? as usize,
            "seed" => self.seed = seed_option(value)?,
            "weights" => {
                self.weights = match value.trim() {
                    "" | "<built-in>" => None,
                    path => {
                        Weights::load(std::path::Path::new(path)).map_err(|e| e.to_string())?;
                        Some(PathBuf::from(path))
                    }
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn make(&self, rules: Rules) -> Result<Box<dyn ProtocolEngine>, String> {
        let weights = match &self.weights {
            Some(path) => Weights::load(path).map_err(|e| e.to_string())?,
            None => Weights::default(),
        };
        Ok(Box::new(Engine::new(
            rules,
            EngineOptions {
                threads: self.threads,
                hash_mb: self.hash_mb,
                seed: self.seed,
                weights: Arc::new(weights),
            },
        )))
    }
}

impl ProtocolEngine for Engine {
    fn rules(&self) -> Rules {
        *Engine::rules(self)
    }

    fn new_game(&mut self) {
        Engine::new_game(self);
    }

    fn search(
        &mut self,
        game: &Game,
        request: &Request,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&str),
    ) -> Option<Move> {
        let (among, limits) = (&request.searchmoves, request.limits);
        let result = Engine::search_among(self, game, among, limits, Some(stop), |i| {
            info(&info_line(i))
        });
        let best = result.as_ref().and_then(|i| i.pv.first().copied());
        if let Some(main) = result.filter(|_| request.multipv > 1) {
            self.further_lines(game, request, &main, stop, info);
        }
        best
    }
}

impl Engine {
    /// MultiPV for alpha-beta: after the search, the next best moves one by one, each by
    /// a search to the depth the main one completed among the moves not yet reported,
    /// sent as `info multipv K` lines (the first being the main search's own line).
    fn further_lines(
        &mut self,
        game: &Game,
        request: &Request,
        main: &Info,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&str),
    ) {
        let mut reported: Vec<Move> = main.pv.first().copied().into_iter().collect();
        info(&info_line(main).replacen("info ", "info multipv 1 ", 1));
        let candidates: Vec<Move> = if request.searchmoves.is_empty() {
            game.legal_moves().to_vec()
        } else {
            request.searchmoves.clone()
        };
        let depth = Limits {
            depth: Some(main.depth.max(1)),
            ..Limits::default()
        };
        for k in 2..=request.multipv {
            let rest: Vec<Move> = candidates
                .iter()
                .copied()
                .filter(|m| !reported.contains(m))
                .collect();
            if rest.is_empty() || stop.load(Ordering::Relaxed) {
                return;
            }
            let Some(line) = Engine::search_among(self, game, &rest, depth, Some(stop), |_| {})
            else {
                return;
            };
            let Some(&first) = line.pv.first().filter(|m| rest.contains(m)) else {
                return;
            };
            reported.push(first);
            info(&info_line(&line).replacen("info ", &format!("info multipv {k} "), 1));
        }
    }
}

/// A whole number option value.
pub fn whole_number(v: &str) -> Result<u64, String> {
    v.trim()
        .parse::<u64>()
        .map_err(|_| format!("`{v}` is not a whole number"))
}

/// A spin option's value: a whole number in `min..=max` as its `option` line says, or why
/// not (the option then keeps its value: a value out of range is refused, not clamped).
///
/// # Errors
/// Not a whole number, or out of the range.
pub fn spin_value(v: &str, min: u64, max: u64) -> Result<u64, String> {
    let n = whole_number(v)?;
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "{n} is not in {min}..={max}: the option keeps its value"
        ))
    }
}

/// A `check` option value: `true`, `on` or `1`, or `false`, `off` or `0`.
pub fn flag_option(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(format!("`{v}` is not true or false")),
    }
}

/// The `Seed` option: a number, or `<random>` (or nothing) for none.
pub fn seed_option(v: &str) -> Result<Option<u64>, String> {
    match v.trim() {
        "" | "<random>" => Ok(None),
        v => whole_number(v).map(Some),
    }
}

/// The protocol's own settings: the rules and the default limits.
struct Settings {
    variant: Variant,
    flying: Option<bool>,
    repetition: bool,
    no_capture_limit: Option<u16>,
    default_limits: Limits,
    /// Lines a search reports (`MultiPV`).
    multipv: usize,
}

impl Settings {
    /// The settings a session starts with: `rules`, and a search of 1000 ms per move.
    fn new(rules: Rules) -> Settings {
        Settings {
            variant: rules.variant(),
            // Remember flying only where it differs from the variant's default, so that a
            // later change of variant starts from that variant's default.
            flying: (rules.flying() != Rules::new(rules.variant()).flying())
                .then_some(rules.flying()),
            repetition: rules.repetition(),
            no_capture_limit: rules.no_capture_limit(),
            default_limits: Limits {
                movetime: Some(Duration::from_millis(1000)),
                ..Limits::default()
            },
            multipv: 1,
        }
    }

    fn rules(&self) -> Result<Rules, String> {
        let mut rules = Rules::new(self.variant).with_repetition(self.repetition);
        if let Some(f) = self.flying {
            rules = rules.with_flying(f).map_err(|e| e.to_string())?;
        }
        rules
            .with_no_capture_limit(self.no_capture_limit)
            .map_err(|e| e.to_string())
    }
}

/// A search running in its own thread, so that `stop` and `isready` are answered.
struct Running {
    stop: Arc<AtomicBool>,
    /// While set, a search that has ended holds its `bestmove` back (`go infinite`, and
    /// `go ponder` until `ponderhit`); cleared by `stop`, and by `ponderhit`.
    hold: Arc<AtomicBool>,
    /// `go infinite` (or no limit at all): runs until `stop`, and any other command
    /// stops it rather than waiting for it.
    infinite: bool,
    /// `go ponder` before `ponderhit`: the time it searches for after `ponderhit`
    /// (`None`: it stops then).
    pondering: Option<Option<Duration>>,
    handle: JoinHandle<Box<dyn ProtocolEngine>>,
}

/// The most lines a search reports (`MultiPV`).
pub const MAX_MULTIPV: usize = 64;

/// The longest line read whole; a longer one is answered with an error and skipped.
pub const MAX_LINE: usize = 16 << 20;

/// What the reader thread hands to the session: input is read as bytes, so that a line
/// that is not UTF-8 is answered rather than fatal.
enum Input {
    /// One line, without its end.
    Line(Vec<u8>),
    /// A line longer than [`MAX_LINE`] bytes (its length), skipped.
    TooLong(usize),
    /// The end of the input.
    End,
    /// Reading the input failed.
    Failed(io::Error),
}

/// Reads one line of bytes into `buf` (at most [`MAX_LINE`] of them, the rest skipped);
/// returns its whole length, or `None` at the end of the input.
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> io::Result<Option<usize>> {
    let mut total = 0usize;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok((total > 0).then_some(total));
        }
        let (take, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let keep = take.min(MAX_LINE.saturating_sub(buf.len()));
        buf.extend_from_slice(&available[..keep]);
        total = total.saturating_add(take);
        input.consume(take);
        if done {
            return Ok(Some(total));
        }
    }
}

/// The lines of the input, read ahead by a thread of their own so that `isready` and
/// `stop` are seen while a command waits for a search, and the lines that arrived
/// meanwhile, kept in order.
struct Inbox {
    rx: Receiver<Input>,
    queued: VecDeque<Input>,
    /// When the end of the input (or a failure to read it) was queued: from then on,
    /// nothing can come to stop a search, so waits are bounded by [`CLOSED_WAIT`].
    closed_at: Option<Instant>,
}

/// How long after the end of its input the session may still wait for searches before it
/// stops them, so that a script's commands are carried out in order but nothing hangs.
pub const CLOSED_WAIT: Duration = Duration::from_secs(5);

impl Inbox {
    fn start<R: BufRead + Send + 'static>(mut input: R) -> Inbox {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let item = match read_line(&mut input, &mut buf) {
                    Ok(None) => Input::End,
                    Ok(Some(n)) if n > MAX_LINE => Input::TooLong(n),
                    Ok(Some(_)) => {
                        while buf.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
                            buf.pop();
                        }
                        Input::Line(std::mem::take(&mut buf))
                    }
                    Err(e) => Input::Failed(e),
                };
                let last = matches!(item, Input::End | Input::Failed(_));
                if tx.send(item).is_err() || last {
                    break;
                }
            }
        });
        Inbox {
            rx,
            queued: VecDeque::new(),
            closed_at: None,
        }
    }

    /// The next input in order: a queued one first.
    fn next(&mut self) -> Input {
        self.queued
            .pop_front()
            .unwrap_or_else(|| self.rx.recv().unwrap_or(Input::End))
    }
}

/// The first word of a line, where the line is UTF-8.
fn first_word(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()?.split_whitespace().next()
}

/// Serves the protocol from `input` to `output` until `quit` or the end of the input,
/// starting with `rules` (which `setoption` may change).
///
/// Commands are carried out in order; a command that comes while a limited search runs
/// waits for it to end, but `isready` is answered at once and `stop` stops the search at
/// once, whatever waits. `quit`, and the end of the input, stop any search and end the
/// session when they are reached: in a script, each search that another command follows
/// runs to its limit, but once the input has ended, searches that commands wait for are
/// stopped [`CLOSED_WAIT`] after that end, so that the session always ends. A line that is not UTF-8, or longer than
/// [`MAX_LINE`] bytes, is answered with `info string error: ...` and skipped.
///
/// # Errors
/// When reading the input fails.
pub fn serve<R: BufRead + Send + 'static, W: Write + Send + 'static>(
    rules: Rules,
    input: R,
    output: W,
) -> io::Result<()> {
    serve_with(rules, Box::new(AlphaBetaMaker::default()), input, output)
}

/// [`serve`] with the searchers of `maker`.
///
/// # Errors
/// When reading the input fails.
pub fn serve_with<R: BufRead + Send + 'static, W: Write + Send + 'static>(
    rules: Rules,
    maker: Box<dyn EngineMaker>,
    input: R,
    output: W,
) -> io::Result<()> {
    let mut server = Server::new(rules, maker, output);
    let mut inbox = Inbox::start(input);
    loop {
        let bytes = match inbox.next() {
            Input::Line(bytes) => bytes,
            Input::TooLong(n) => {
                server.send(&format!(
                    "info string error: a line of {n} bytes is longer than {MAX_LINE}; ignored"
                ));
                continue;
            }
            Input::End => {
                server.finish(true);
                return Ok(());
            }
            Input::Failed(e) => {
                server.finish(true);
                return Err(e);
            }
        };
        let line = match std::str::from_utf8(&bytes) {
            Ok(line) => line,
            Err(e) => {
                server.send(&format!(
                    "info string error: a line that is not UTF-8 ({e}); ignored"
                ));
                continue;
            }
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = words.first() else {
            continue;
        };
        // `isready` is answered while a search runs, and `stop` and `quit` end it; every
        // other command first waits for it to finish.
        match command {
            "isready" => {
                server.send("readyok");
                continue;
            }
            "stop" => {
                server.finish(true);
                continue;
            }
            "ponderhit" => {
                server.ponderhit();
                continue;
            }
            "quit" => {
                server.finish(true);
                return Ok(());
            }
            _ => server.wait(&mut inbox),
        }
        if let Err(e) = server.command(command, &words) {
            server.send(&format!("info string error: {e}"));
        }
    }
}

/// The state of a protocol session between commands, with one method per command so
/// that each can be read on its own.
struct Server<W> {
    out: Arc<Mutex<W>>,
    settings: Settings,
    maker: Box<dyn EngineMaker>,
    /// Kept between searches (for its hash table) until a setting changes.
    engine: Option<Box<dyn ProtocolEngine>>,
    /// `None` after a `position` command that failed: `go` then has nothing to search.
    game: Option<Game>,
    running: Option<Running>,
}

impl<W: Write + Send + 'static> Server<W> {
    fn new(rules: Rules, maker: Box<dyn EngineMaker>, output: W) -> Server<W> {
        Server {
            out: Arc::new(Mutex::new(output)),
            settings: Settings::new(rules),
            maker,
            engine: None,
            game: Some(Game::new(rules)),
            running: None,
        }
    }

    fn send(&self, line: &str) {
        send(&self.out, line);
    }

    /// Waits for a running search: a limited one ends by itself; an infinite one, or any
    /// one when `stop_it`, is told to stop first.
    fn finish(&mut self, stop_it: bool) {
        if let Some(r) = self.running.take() {
            if stop_it || r.infinite || r.pondering.is_some() {
                r.stop.store(true, Ordering::Relaxed);
                r.hold.store(false, Ordering::Relaxed);
            }
            match r.handle.join() {
                Ok(e) => self.engine = Some(e),
                Err(_) => self.engine = None,
            }
        }
    }

    /// Waits for a running limited search to end before the next command (an infinite
    /// one is stopped), reading on meanwhile: `isready` is answered and `stop` stops the
    /// search at once, other lines wait their turn. Once the input has ended, the search
    /// is stopped [`CLOSED_WAIT`] after that end.
    fn wait(&mut self, inbox: &mut Inbox) {
        loop {
            let Some(running) = self.running.as_ref() else {
                return;
            };
            let closed_long_ago = inbox.closed_at.is_some_and(|t| t.elapsed() >= CLOSED_WAIT);
            let unlimited = running.infinite || running.pondering.is_some();
            if unlimited || closed_long_ago || running.handle.is_finished() {
                self.finish(closed_long_ago);
                return;
            }
            if inbox.closed_at.is_some() {
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            let item = match inbox.rx.recv_timeout(Duration::from_millis(2)) {
                Ok(item) => item,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => Input::End,
            };
            match item {
                Input::Line(bytes) => match first_word(&bytes) {
                    Some("isready") => self.send("readyok"),
                    Some("stop") => {
                        self.finish(true);
                        return;
                    }
                    Some("ponderhit") => self.ponderhit(),
                    _ => inbox.queued.push_back(Input::Line(bytes)),
                },
                Input::TooLong(n) => inbox.queued.push_back(Input::TooLong(n)),
                end @ (Input::End | Input::Failed(_)) => {
                    inbox.closed_at = Some(Instant::now());
                    inbox.queued.push_back(end);
                }
            }
        }
    }

    /// Runs one of the commands that wait for a running search to finish first.
    fn command(&mut self, command: &str, words: &[&str]) -> Result<(), String> {
        match command {
            "uci" => {
                self.uci();
                Ok(())
            }
            "ucinewgame" => self.new_game(),
            "setoption" => self.set_option(words),
            "position" => self.position(words),
            "go" => self.go(words),
            other => Err(format!("unknown command `{other}`")),
        }
    }

    /// `uci`: the engine's name and its options.
    fn uci(&self) {
        let head = [
            format!("id name {}", self.maker.name()),
            "id author the Kvarn developers".to_string(),
            "option name Variant type combo default nine var nine var six var five".into(),
            "option name Flying type check default true".into(),
            "option name Repetition type check default true".into(),
            "option name NoCaptureLimit type spin default 50 min 0 max 65535".into(),
            "option name Depth type spin default 0 min 0 max 64".into(),
            "option name MoveTime type spin default 1000 min 0 max 86400000".into(),
            "option name Nodes type spin default 0 min 0 max 1000000000000".into(),
            format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
        ];
        for l in head.into_iter().chain(self.maker.options()) {
            self.send(&l);
        }
        self.send("uciok");
    }

    /// `ucinewgame`: clears the engine's memory of earlier games and starts from the
    /// initial position.
    fn new_game(&mut self) -> Result<(), String> {
        if let Some(e) = self.engine.as_mut() {
            e.new_game();
        }
        self.settings
            .rules()
            .map(|rules| self.game = Some(Game::new(rules)))
    }

    /// `setoption`: the next `go` builds an engine with the new settings, and a change of
    /// rules starts a new game.
    fn set_option(&mut self, words: &[&str]) -> Result<(), String> {
        set_option(&mut self.settings, self.maker.as_mut(), words).map(|changed_rules| {
            self.engine = None;
            if changed_rules && let Ok(rules) = self.settings.rules() {
                self.game = Some(Game::new(rules));
            }
        })
    }

    /// `position`: a position that fails to parse leaves no game to search.
    fn position(&mut self, words: &[&str]) -> Result<(), String> {
        let parsed = self
            .settings
            .rules()
            .and_then(|rules| set_position(rules, words));
        self.game = parsed.as_ref().ok().cloned();
        parsed.map(|_| ())
    }

    /// `go`: starts a search of the current game in its own thread, or answers
    /// `bestmove (none)` at once where there is nothing to search.
    fn go(&mut self, words: &[&str]) -> Result<(), String> {
        let mover = self.game.as_ref().map(|g| g.position().side_to_move());
        let go = parse_go(words, &self.settings.default_limits, mover);
        for note in &go.notes {
            self.send(&format!("info string error: {note}"));
        }
        let Some(g) = &self.game else {
            self.send(
                "info string error: no valid position to search (the last `position` failed)",
            );
            self.send("bestmove (none)");
            return Ok(());
        };
        if g.status().is_over() {
            self.send(&format!("info string game over: {}", g.status()));
            self.send("bestmove (none)");
            return Ok(());
        }
        let built = match self.engine.take() {
            Some(e) if e.rules() == *g.rules() => Ok(e),
            _ => self.maker.make(*g.rules()),
        };
        match built {
            Err(e) => {
                self.send(&format!("info string error: {e}"));
                self.send("bestmove (none)");
            }
            Ok(engine) => {
                let (request, notes) = go.request(g, self.settings.multipv);
                for note in notes {
                    self.send(&format!("info string error: {note}"));
                }
                self.running = Some(spawn_search(&self.out, engine, g.clone(), request, &go));
            }
        }
        Ok(())
    }

    /// `ponderhit`: the move pondered on was played, so the pondering search becomes the
    /// search for this move: it goes on for the `go`'s time and then answers (at once
    /// where the `go` gave no time). Without a pondering search it is an error.
    fn ponderhit(&mut self) {
        let Some(running) = self.running.as_mut() else {
            self.send("info string error: ponderhit without a go ponder");
            return;
        };
        let Some(time) = running.pondering.take() else {
            self.send("info string error: ponderhit, but the search is not pondering");
            return;
        };
        running.hold.store(running.infinite, Ordering::Relaxed);
        match time {
            None => running.stop.store(true, Ordering::Relaxed),
            Some(t) => {
                let stop = Arc::clone(&running.stop);
                std::thread::spawn(move || {
                    std::thread::sleep(t);
                    stop.store(true, Ordering::Relaxed);
                });
            }
        }
    }
}

/// Searches `game` in a thread of its own, which sends the `info` lines and the
/// `bestmove` and hands the engine back when joined.
fn spawn_search<W: Write + Send + 'static>(
    out: &Arc<Mutex<W>>,
    mut engine: Box<dyn ProtocolEngine>,
    game: Game,
    request: Request,
    go: &Go,
) -> Running {
    let stop = Arc::new(AtomicBool::new(false));
    let hold = Arc::new(AtomicBool::new(go.infinite || go.ponder));
    let (stop2, hold2) = (Arc::clone(&stop), Arc::clone(&hold));
    let out = Arc::clone(out);
    let handle = std::thread::spawn(move || {
        let best = engine.search(&game, &request, &stop2, &mut |line| send(&out, line));
        // An infinite or pondering search answers only when told to stop (or, pondering,
        // after ponderhit), even where it ended by itself (a mate found sets `stop` too).
        while hold2.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
        match best {
            Some(m) => send(&out, &format!("bestmove {m}")),
            None => send(&out, "bestmove (none)"),
        }
        engine
    });
    Running {
        stop,
        hold,
        infinite: go.infinite,
        pondering: go.ponder.then_some(go.limits.movetime),
        handle,
    }
}

/// Applies `setoption name X value Y` (options that are not rules or limits go to
/// `maker`); returns whether the rules changed.
fn set_option(
    s: &mut Settings,
    maker: &mut dyn EngineMaker,
    words: &[&str],
) -> Result<bool, String> {
    let name_at = words.iter().position(|w| w.eq_ignore_ascii_case("name"));
    let value_at = words.iter().position(|w| w.eq_ignore_ascii_case("value"));
    let (Some(n), Some(v)) = (name_at, value_at) else {
        return Err("expected setoption name <X> value <Y>".into());
    };
    if v <= n + 1 {
        return Err("the option name is missing".into());
    }
    let name = words[n + 1..v].join(" ").to_ascii_lowercase();
    let value = words[v + 1..].join(" ");
    let flag = flag_option;
    let limit = |n: u64| (n > 0).then_some(n);
    match name.as_str() {
        "variant" => {
            let variant: Variant = value
                .parse()
                .map_err(|e: kvarn_game::RulesError| e.to_string())?;
            let old = (s.variant, s.flying);
            s.variant = variant;
            if !variant.offers_flying() && s.flying == Some(true) {
                s.flying = None;
            }
            if let Err(e) = s.rules() {
                (s.variant, s.flying) = old;
                return Err(e);
            }
            Ok(true)
        }
        "flying" => {
            let old = s.flying;
            s.flying = Some(flag(&value)?);
            if let Err(e) = s.rules() {
                s.flying = old;
                return Err(e);
            }
            Ok(true)
        }
        "repetition" => {
            s.repetition = flag(&value)?;
            Ok(true)
        }
        "nocapturelimit" => {
            let n = spin_value(&value, 0, 65535)?;
            s.no_capture_limit = match n {
                0 => None,
                n => Some(u16::try_from(n).map_err(|_| format!("{n} is above 65535"))?),
            };
            Ok(true)
        }
        "depth" => {
            s.default_limits.depth = limit(spin_value(&value, 0, 64)?).map(|d| d as u32);
            Ok(false)
        }
        "movetime" => {
            s.default_limits.movetime =
                limit(spin_value(&value, 0, 86_400_000)?).map(Duration::from_millis);
            Ok(false)
        }
        "nodes" => {
            s.default_limits.nodes = limit(spin_value(&value, 0, 1_000_000_000_000)?);
            Ok(false)
        }
        "multipv" => {
            s.multipv = spin_value(&value, 1, MAX_MULTIPV as u64)? as usize;
            Ok(false)
        }
        other => match maker.set_option(other, &value)? {
            true => Ok(false),
            false => Err(format!("unknown option `{other}`")),
        },
    }
}

/// `position startpos|fen <...> [moves ...]`.
fn set_position(rules: Rules, words: &[&str]) -> Result<Game, String> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let head = &words[1..moves_at.unwrap_or(words.len())];
    // `fen` takes a FEN or a position string: both are read by `Position::from_text`.
    let text = match head.first() {
        Some(&"startpos") if head.len() == 1 => "startpos".to_string(),
        Some(&"fen") if head.len() > 1 => head[1..].join(" "),
        _ => return Err("expected position startpos|fen <FEN> [moves ...]".into()),
    };
    let start = Position::from_text(&rules, &text).map_err(|e| e.to_string())?;
    let mut game = Game::from_position(rules, start).map_err(|e| e.to_string())?;
    if let Some(i) = moves_at {
        game.play_text(&words[i + 1..].join(" "))
            .map_err(|e| e.to_string())?;
    }
    Ok(game)
}

/// A `go` command read: its limits, its flags, the moves named after `searchmoves` and
/// what was wrong with it.
#[derive(Debug)]
struct Go {
    limits: Limits,
    /// Runs until `stop`.
    infinite: bool,
    /// Runs until `ponderhit` or `stop`; `limits` apply from `ponderhit` on.
    ponder: bool,
    searchmoves: Vec<String>,
    notes: Vec<String>,
}

impl Go {
    /// What the searcher is asked: while pondering (or infinite) no limit; the moves of
    /// `searchmoves` that are legal in `game` (the others named in the notes; all moves
    /// where none is).
    fn request(&self, game: &Game, multipv: usize) -> (Request, Vec<String>) {
        let mut notes = Vec::new();
        let legal = game.legal_moves();
        let mut searchmoves = Vec::new();
        for text in &self.searchmoves {
            match text.parse::<Move>() {
                Ok(m) if legal.contains(&m) => searchmoves.push(m),
                Ok(m) => notes.push(format!("searchmoves: {m} is not legal here, left out")),
                Err(e) => notes.push(format!("searchmoves: `{text}` is no move ({e}), left out")),
            }
        }
        if searchmoves.is_empty() && !self.searchmoves.is_empty() {
            notes.push("searchmoves: no legal move named, searching them all".into());
        }
        let limits = if self.ponder || self.infinite {
            Limits::default()
        } else {
            self.limits
        };
        let request = Request {
            limits,
            searchmoves,
            multipv,
        };
        (request, notes)
    }
}

/// `go [depth N] [movetime MS] [nodes N] [infinite] [ponder] [wtime MS btime MS winc MS
/// binc MS] [searchmoves M ...]`. With only clock times, the search takes a twentieth of
/// the mover's time plus half its increment. A `go` always searches: a parameter that
/// does not read is left out and named in the notes, and a negative number (a clock past
/// zero) is read as 0, so that a program waiting for `bestmove` always gets one.
fn parse_go(words: &[&str], defaults: &Limits, mover: Option<Color>) -> Go {
    let mut go = Go {
        limits: Limits::default(),
        infinite: false,
        ponder: false,
        searchmoves: Vec::new(),
        notes: Vec::new(),
    };
    let mut clock = [None::<u64>; 4]; // wtime, btime, winc, binc
    let mut i = 1;
    while i < words.len() {
        let name = words[i];
        i += 1;
        match name {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while i < words.len() && !is_go_word(words[i]) {
                    go.searchmoves.push(words[i].to_string());
                    i += 1;
                }
            }
            _ => {
                let Some(slot) = go_slot(name) else {
                    go.notes
                        .push(format!("unknown go parameter `{name}`, left out"));
                    continue;
                };
                let value = go_value(name, words.get(i).copied(), &mut go.notes);
                i += 1;
                let Some(value) = value else {
                    continue;
                };
                let limits = &mut go.limits;
                match slot {
                    GoSlot::Depth => limits.depth = Some(value.clamp(1, 64) as u32),
                    GoSlot::MoveTime => limits.movetime = Some(Duration::from_millis(value.max(1))),
                    GoSlot::Nodes => limits.nodes = Some(value.max(1)),
                    GoSlot::Clock(k) => clock[k] = Some(value),
                    GoSlot::MovesToGo => {}
                }
            }
        }
    }
    if go.limits == Limits::default() && !go.infinite {
        go.limits = *defaults;
        let own = match mover {
            Some(Color::Black) => (clock[1], clock[3]),
            _ => (clock[0], clock[2]),
        };
        if let (Some(time), inc) = own {
            let budget = time / 20 + inc.unwrap_or(0) / 2;
            go.limits.movetime = Some(Duration::from_millis(budget.clamp(10, time.max(10))));
        }
    }
    // No limit at all (`MoveTime`, `Depth` and `Nodes` set to 0) is `go infinite`.
    go.infinite |= go.limits == Limits::default() && !go.ponder;
    go
}

/// Whether `word` is a `go` parameter (where a list of `searchmoves` ends).
fn is_go_word(word: &str) -> bool {
    matches!(word, "infinite" | "ponder" | "searchmoves") || go_slot(word).is_some()
}

/// Where a `go` parameter's value goes.
enum GoSlot {
    Depth,
    MoveTime,
    Nodes,
    /// wtime, btime, winc, binc.
    Clock(usize),
    MovesToGo,
}

fn go_slot(name: &str) -> Option<GoSlot> {
    Some(match name {
        "depth" => GoSlot::Depth,
        "movetime" => GoSlot::MoveTime,
        "nodes" => GoSlot::Nodes,
        "wtime" => GoSlot::Clock(0),
        "btime" => GoSlot::Clock(1),
        "winc" => GoSlot::Clock(2),
        "binc" => GoSlot::Clock(3),
        "movestogo" => GoSlot::MovesToGo,
        _ => return None,
    })
}

/// The value of `go` parameter `name`: a whole number, a negative one read as 0; `None`,
/// with a note, where it is missing or not a number.
fn go_value(name: &str, text: Option<&str>, notes: &mut Vec<String>) -> Option<u64> {
    let Some(text) = text else {
        notes.push(format!("`{name}` needs a value, left out"));
        return None;
    };
    match text.parse::<i64>() {
        Ok(v) if v < 0 => {
            notes.push(format!("{name} {v} is negative, read as 0"));
            Some(0)
        }
        Ok(v) => Some(v.unsigned_abs()),
        Err(_) => {
            notes.push(format!("{name} `{text}` is not a whole number, left out"));
            None
        }
    }
}
