//! A deliberately plain second implementation of RULES.md, for the tests alone: point
//! names, lists and strings, no bitboards, no incremental state, repetition counted over
//! the whole game. The fast generator must agree with it everywhere.

#![allow(dead_code)]

use std::collections::BTreeSet;

/// The board as RULES.md lists it.
pub struct PlainBoard {
    pub points: Vec<&'static str>,
    pub mills: Vec<[&'static str; 3]>,
    /// Pairs of points joined by a drawn line.
    pub edges: Vec<(&'static str, &'static str)>,
}

fn triples(text: &'static str) -> Vec<[&'static str; 3]> {
    text.split(',')
        .map(|m| {
            let v: Vec<&str> = m.split_whitespace().collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

impl PlainBoard {
    /// Nine Men's Morris: three squares, 16 mills, lines along the mills.
    pub fn twenty_four() -> PlainBoard {
        let points = "a7 d7 g7 g4 g1 d1 a1 a4 b6 d6 f6 f4 f2 d2 b2 b4 c5 d5 e5 e4 e3 d3 c3 c4"
            .split_whitespace()
            .collect();
        let mills = triples(
            "a7 d7 g7, g7 g4 g1, g1 d1 a1, a1 a4 a7, \
             b6 d6 f6, f6 f4 f2, f2 d2 b2, b2 b4 b6, \
             c5 d5 e5, e5 e4 e3, e3 d3 c3, c3 c4 c5, \
             d7 d6 d5, g4 f4 e4, d1 d2 d3, a4 b4 c4",
        );
        let mut edges = Vec::new();
        for m in &mills {
            edges.push((m[0], m[1]));
            edges.push((m[1], m[2]));
        }
        PlainBoard {
            points,
            mills,
            edges,
        }
    }

    /// Six and Five Men's Morris: two squares, 8 mills, four short lines with no mill.
    pub fn sixteen() -> PlainBoard {
        let points = "b6 d6 f6 f4 f2 d2 b2 b4 c5 d5 e5 e4 e3 d3 c3 c4"
            .split_whitespace()
            .collect();
        let mills = triples(
            "b6 d6 f6, f6 f4 f2, f2 d2 b2, b2 b4 b6, c5 d5 e5, e5 e4 e3, e3 d3 c3, c3 c4 c5",
        );
        let mut edges = Vec::new();
        for m in &mills {
            edges.push((m[0], m[1]));
            edges.push((m[1], m[2]));
        }
        edges.extend([("b4", "c4"), ("d6", "d5"), ("f4", "e4"), ("d2", "d3")]);
        PlainBoard {
            points,
            mills,
            edges,
        }
    }

    pub fn adjacent(&self, a: &str, b: &str) -> bool {
        self.edges
            .iter()
            .any(|&(x, y)| (x == a && y == b) || (x == b && y == a))
    }
}

/// Rule switches, as plain values.
#[derive(Clone, Copy)]
pub struct PlainRules {
    pub men: u32,
    pub flying: bool,
    pub repetition: bool,
    pub no_capture_limit: Option<u32>,
}

/// `'W'`, `'B'`.
pub type Side = char;

fn other(s: Side) -> Side {
    if s == 'W' { 'B' } else { 'W' }
}

#[derive(Clone)]
pub struct PlainGame {
    pub board: &'static PlainBoard,
    pub rules: PlainRules,
    /// (point, owner) for every man on the board.
    pub men: Vec<(&'static str, Side)>,
    pub hand_w: u32,
    pub hand_b: u32,
    pub to_move: Side,
    pub must_remove: bool,
    pub turns_without_removal: u32,
    /// Every position of the game so far, as text, the current one last.
    pub seen: Vec<String>,
}

impl PlainGame {
    pub fn new(board: &'static PlainBoard, rules: PlainRules) -> PlainGame {
        let mut g = PlainGame {
            board,
            rules,
            men: Vec::new(),
            hand_w: rules.men,
            hand_b: rules.men,
            to_move: 'W',
            must_remove: false,
            turns_without_removal: 0,
            seen: Vec::new(),
        };
        g.seen.push(g.describe());
        g
    }

    pub fn describe(&self) -> String {
        let mut men: Vec<String> = self.men.iter().map(|(p, s)| format!("{p}{s}")).collect();
        men.sort();
        format!(
            "{} | {} {} | {} | {}",
            men.join(" "),
            self.hand_w,
            self.hand_b,
            self.to_move,
            self.must_remove
        )
    }

    fn owner(&self, p: &str) -> Option<Side> {
        self.men.iter().find(|(q, _)| *q == p).map(|&(_, s)| s)
    }

    fn hand(&self, s: Side) -> u32 {
        if s == 'W' { self.hand_w } else { self.hand_b }
    }

    fn on_board(&self, s: Side) -> u32 {
        self.men.iter().filter(|(_, o)| *o == s).count() as u32
    }

    fn in_mill(&self, p: &str, s: Side) -> bool {
        self.board
            .mills
            .iter()
            .filter(|m| m.contains(&p))
            .any(|m| m.iter().all(|q| self.owner(q) == Some(s)))
    }

    pub fn legal(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if self.status() != "ongoing" {
            return out;
        }
        let me = self.to_move;
        let empties: Vec<&str> = self
            .board
            .points
            .iter()
            .copied()
            .filter(|p| self.owner(p).is_none())
            .collect();
        if self.must_remove {
            let theirs: Vec<&str> = self
                .men
                .iter()
                .filter(|(_, s)| *s == other(me))
                .map(|(p, _)| *p)
                .collect();
            let free: Vec<&str> = theirs
                .iter()
                .copied()
                .filter(|p| !self.in_mill(p, other(me)))
                .collect();
            let pool = if free.is_empty() { theirs } else { free };
            for p in pool {
                out.insert(format!("x{p}"));
            }
        } else if self.hand(me) > 0 {
            for p in empties {
                out.insert(p.to_string());
            }
        } else {
            let fly = self.rules.flying && self.on_board(me) == 3;
            for (from, s) in &self.men {
                if *s != me {
                    continue;
                }
                for to in &empties {
                    if fly || self.board.adjacent(from, to) {
                        out.insert(format!("{from}-{to}"));
                    }
                }
            }
        }
        out
    }

    fn raw_moves_exist(&self) -> bool {
        let me = self.to_move;
        let empties = self
            .board
            .points
            .iter()
            .filter(|p| self.owner(p).is_none())
            .count();
        if self.must_remove {
            return self.on_board(other(me)) > 0;
        }
        if empties == 0 {
            return false;
        }
        if self.hand(me) > 0 || (self.rules.flying && self.on_board(me) == 3) {
            return true;
        }
        self.men.iter().filter(|(_, s)| *s == me).any(|(from, _)| {
            self.board
                .points
                .iter()
                .any(|to| self.owner(to).is_none() && self.board.adjacent(from, to))
        })
    }

    /// `ongoing`, `white_wins:too_few_men`, `black_wins:blocked`, `draw:repetition`,
    /// `draw:no_capture`.
    pub fn status(&self) -> String {
        for s in ['W', 'B'] {
            if self.on_board(s) + self.hand(s) < 3 {
                let w = if s == 'W' { "black" } else { "white" };
                return format!("{w}_wins:too_few_men");
            }
        }
        if self.must_remove {
            return "ongoing".into();
        }
        if !self.raw_moves_exist() {
            let w = if self.to_move == 'W' {
                "black"
            } else {
                "white"
            };
            return format!("{w}_wins:blocked");
        }
        let now = self.seen.last().unwrap();
        if self.rules.repetition && self.seen.iter().filter(|s| *s == now).count() >= 3 {
            return "draw:repetition".into();
        }
        if let Some(limit) = self.rules.no_capture_limit
            && self.turns_without_removal >= limit
        {
            return "draw:no_capture".into();
        }
        "ongoing".into()
    }

    /// Plays a move given in notation; it must be one of `legal()`.
    pub fn play(&mut self, mv: &str) {
        assert!(self.legal().contains(mv), "plain: {mv} is not legal");
        let me = self.to_move;
        if let Some(p) = mv.strip_prefix('x') {
            self.men.retain(|(q, _)| *q != p);
            self.must_remove = false;
            self.turns_without_removal = 0;
            self.to_move = other(me);
        } else {
            let to = match mv.split_once('-') {
                Some((from, to)) => {
                    self.men.retain(|(q, _)| *q != from);
                    to
                }
                None => {
                    if me == 'W' {
                        self.hand_w -= 1
                    } else {
                        self.hand_b -= 1
                    }
                    mv
                }
            };
            let to: &'static str = self
                .board
                .points
                .iter()
                .copied()
                .find(|p| *p == to)
                .unwrap();
            self.men.push((to, me));
            let closes = self
                .board
                .mills
                .iter()
                .filter(|m| m.contains(&to))
                .any(|m| m.iter().all(|q| self.owner(q) == Some(me)));
            if closes && self.on_board(other(me)) > 0 {
                self.must_remove = true;
            } else {
                self.turns_without_removal += 1;
                self.to_move = other(me);
            }
        }
        self.seen.push(self.describe());
    }
}
