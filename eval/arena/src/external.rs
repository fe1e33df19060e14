//! An agent that is another program speaking the protocol of [`kvarn_engine::protocol`]:
//! `kvarn engine` itself, or any mill engine that understands it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use kvarn_game::{Game, Move, Rules};

use kvarn_engine::search::Limits;

use crate::error::ArenaError;

/// How long an engine may take to answer `uci` or `isready`.
const HANDSHAKE: Duration = Duration::from_secs(20);

/// A running engine process.
pub struct ExternalEngine {
    cmd: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    limits: Limits,
}

impl ExternalEngine {
    /// Starts `cmd` (program and arguments separated by spaces), completes the handshake
    /// and sets the rules.
    ///
    /// # Errors
    /// [`ArenaError::Engine`] when the program cannot be started or does not answer.
    pub fn start(cmd: &str, rules: Rules, limits: Limits) -> Result<ExternalEngine, ArenaError> {
        let err = |reason: String| ArenaError::Engine {
            cmd: cmd.to_string(),
            reason,
        };
        let mut parts = cmd.split_whitespace();
        let program = parts.next().ok_or_else(|| err("empty command".into()))?;
        let mut child = Command::new(program)
            .args(parts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| err(format!("cannot start: {e}")))?;
        let stdin = child.stdin.take().ok_or_else(|| err("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| err("no stdout".into()))?;
        // A reader thread, so that waiting for an answer can time out.
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = ExternalEngine {
            cmd: cmd.to_string(),
            child,
            stdin,
            lines: rx,
            limits,
        };
        engine.send("uci")?;
        engine.wait_for(|l| l == "uciok", HANDSHAKE)?;
        let onoff = |b: bool| if b { "true" } else { "false" };
        engine.send(&format!(
            "setoption name Variant value {}",
            rules.variant().key()
        ))?;
        if rules.variant().offers_flying() {
            engine.send(&format!(
                "setoption name Flying value {}",
                onoff(rules.flying())
            ))?;
        }
        engine.send(&format!(
            "setoption name Repetition value {}",
            onoff(rules.repetition())
        ))?;
        engine.send(&format!(
            "setoption name NoCaptureLimit value {}",
            rules.no_capture_limit().unwrap_or(0)
        ))?;
        engine.send("isready")?;
        engine.wait_for(|l| l == "readyok", HANDSHAKE)?;
        Ok(engine)
    }

    fn fail(&self, reason: String) -> ArenaError {
        ArenaError::Engine {
            cmd: self.cmd.clone(),
            reason,
        }
    }

    fn send(&mut self, line: &str) -> Result<(), ArenaError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| self.fail(format!("writing `{line}`: {e}")))
    }

    /// Reads lines until one satisfies `done`, returning it.
    fn wait_for(
        &mut self,
        done: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Result<String, ArenaError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if done(line.trim()) => return Ok(line.trim().to_string()),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.fail(format!("no answer within {} s", timeout.as_secs())));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.fail("the program closed its output".into()));
                }
            }
        }
    }
}

/// What the engine does as an agent (the agent module implements `Agent` with these).
impl ExternalEngine {
    /// Its name in reports: `engine:` and the command.
    pub fn name(&self) -> String {
        format!("engine:{}", self.cmd)
    }

    /// Starts a new game: `ucinewgame`, then waits for `readyok`.
    ///
    /// # Errors
    /// [`ArenaError::Engine`] when the program does not answer.
    pub fn new_game(&mut self) -> Result<(), ArenaError> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for(|l| l == "readyok", HANDSHAKE).map(|_| ())
    }

    /// Sends the game and `go` with the limits, and reads the `bestmove`.
    ///
    /// # Errors
    /// [`ArenaError::Engine`] when the program fails or breaks the protocol,
    /// [`ArenaError::IllegalChoice`] for a move that is not legal.
    pub fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let rules = *game.rules();
        let start = game.start_position();
        let head = if *start == kvarn_game::Position::start(&rules) {
            "startpos".to_string()
        } else {
            format!("fen {}", start.to_position_string(&rules))
        };
        let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
        let position = if moves.is_empty() {
            format!("position {head}")
        } else {
            format!("position {head} moves {}", moves.join(" "))
        };
        self.send(&position)?;
        let mut go = String::from("go");
        if let Some(d) = self.limits.depth {
            go += &format!(" depth {d}");
        }
        if let Some(t) = self.limits.movetime {
            go += &format!(" movetime {}", t.as_millis());
        }
        if let Some(n) = self.limits.nodes {
            go += &format!(" nodes {n}");
        }
        self.send(&go)?;
        // Depth- and node-limited searches have no deadline of their own: allow a minute.
        let timeout = self
            .limits
            .movetime
            .map_or(Duration::from_secs(60), |t| t * 2 + Duration::from_secs(10));
        let line = self.wait_for(|l| l.starts_with("bestmove"), timeout)?;
        let text = line.split_whitespace().nth(1).unwrap_or("");
        let mv: Move = text
            .parse()
            .map_err(|e| self.fail(format!("bestmove `{text}`: {e}")))?;
        game.check_move(mv).map_err(|e| ArenaError::IllegalChoice {
            agent: self.name(),
            source: e,
        })?;
        Ok(mv)
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give it a moment to leave, then make sure it does.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
