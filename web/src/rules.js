// Kvarn's rules of the mill games (docs/RULES.md), read from a model card: the board's
// points, lines and mills and the rule switches come from the card, so one page plays
// every variant a model was trained for. The same module runs in the browser and in
// Node, where the tests check it against `kvarn moves` move for move.
//
// Points are indices in the card's order; men are bitmasks over them (at most 24 bits).
// A decision is a placement, a slide or flight, or a removal after a mill, named as
// Kvarn names them: `d6`, `d3-d2`, `xd2`.

/** The rules of one variant, from a model card. */
export class Rules {
  constructor(card) {
    const board = card.board;
    this.points = board.points;
    this.n = board.points.length;
    this.adjacency = board.adjacency.map((list) => list.reduce((m, j) => m | (1 << j), 0));
    this.mills = board.mills.map((mill) => mill.reduce((m, j) => m | (1 << j), 0));
    this.millsAt = this.points.map((_, i) => this.mills.filter((m) => m & (1 << i)));
    this.men = card.men_per_player;
    const r = card.rules;
    this.variant = r.variant;
    this.flying = Boolean(r.flying);
    this.repetition = r.repetition !== false;
    this.noCaptureLimit = r.no_capture_limit === "off" || r.no_capture_limit == null ? null : r.no_capture_limit;
    this.index = new Map(this.points.map((p, i) => [p, i]));
  }

  /** Whether `men` holds a whole mill through point `i`. */
  closesMill(men, i) {
    return this.millsAt[i].some((m) => (men & m) === m);
  }

  /** The men of `men` that stand in one of their owner's mills. */
  inMills(men) {
    let out = 0;
    for (const m of this.mills) if ((men & m) === m) out |= m;
    return out;
  }

  full() {
    return this.n === 32 ? -1 : (1 << this.n) - 1;
  }
}

const count = (bits) => {
  let c = 0;
  for (let b = bits; b; b &= b - 1) c++;
  return c;
};

const indices = (bits) => {
  const out = [];
  for (let i = 0; bits >>> i; i++) if (bits & (1 << i)) out.push(i);
  return out;
};

/** One position: men per side, men in hand, side to move, pending removal, counters. */
export class Position {
  constructor(rules) {
    this.men = [0, 0];
    this.hand = [rules.men, rules.men];
    this.side = 0;
    this.pending = false;
    this.noCapture = 0;
    this.turns = 0;
  }

  clone() {
    const p = Object.create(Position.prototype);
    Object.assign(p, this, { men: [...this.men], hand: [...this.hand] });
    return p;
  }

  /** What makes two positions the same for repetition (RULES.md). */
  key() {
    return `${this.men[0]},${this.men[1]},${this.hand[0]},${this.hand[1]},${this.side},${this.pending ? 1 : 0}`;
  }

  menLeft(c) {
    return count(this.men[c]) + this.hand[c];
  }

  canFly(rules, c) {
    return rules.flying && this.hand[c] === 0 && count(this.men[c]) === 3;
  }

  /** The opponent's men that a removal may take: those outside mills, or any where
   * every one stands in a mill. */
  removable(rules) {
    const opp = this.men[1 - this.side];
    const free = opp & ~rules.inMills(opp);
    return free || opp;
  }

  /** The legal decisions of the side to move (the game's end is not looked at). */
  legalMoves(rules) {
    const us = this.side;
    const empty = rules.full() & ~(this.men[0] | this.men[1]);
    if (this.pending) return indices(this.removable(rules)).map((from) => ({ kind: "remove", from }));
    if (this.hand[us] > 0) return indices(empty).map((to) => ({ kind: "place", to }));
    const fly = this.canFly(rules, us);
    const out = [];
    for (const from of indices(this.men[us])) {
      const targets = fly ? empty : rules.adjacency[from] & empty;
      for (const to of indices(targets)) out.push({ kind: "shift", from, to });
    }
    return out;
  }

  /** Plays a legal decision. */
  play(rules, move) {
    const us = this.side;
    if (move.kind === "remove") {
      this.men[1 - us] &= ~(1 << move.from);
      this.pending = false;
      this.endTurn(true);
      return;
    }
    if (move.kind === "place") {
      this.men[us] |= 1 << move.to;
      this.hand[us] -= 1;
    } else {
      this.men[us] = (this.men[us] & ~(1 << move.from)) | (1 << move.to);
    }
    // A closed mill earns a removal when the opponent has a man on the board.
    if (this.men[1 - us] && rules.closesMill(this.men[us], move.to)) this.pending = true;
    else this.endTurn(false);
  }

  endTurn(removed) {
    this.noCapture = removed ? 0 : this.noCapture + 1;
    this.turns += 1;
    this.side = 1 - this.side;
  }

  /** The game's status here, the position having occurred `occurrences` times. */
  status(rules, occurrences) {
    for (const c of [0, 1]) {
      if (this.menLeft(c) < 3) return { over: true, winner: 1 - c, reason: "too_few_men" };
    }
    if (this.pending) return { over: false };
    if (this.legalMoves(rules).length === 0) return { over: true, winner: 1 - this.side, reason: "blocked" };
    if (rules.repetition && occurrences >= 3) return { over: true, winner: null, reason: "repetition" };
    if (rules.noCaptureLimit != null && this.noCapture >= rules.noCaptureLimit) {
      return { over: true, winner: null, reason: "no_capture" };
    }
    return { over: false };
  }
}

/** A game: positions since the start, with repetition counts, and undo. */
export class Game {
  constructor(rules, start = new Position(rules)) {
    this.rules = rules;
    this.frames = [];
    this.counts = new Map();
    this.push(start, null);
  }

  push(pos, move) {
    const key = pos.key();
    const occurrences = (this.counts.get(key) || 0) + 1;
    this.counts.set(key, occurrences);
    this.frames.push({ pos, move, key, occurrences, status: pos.status(this.rules, occurrences) });
  }

  /** A copy to search on: positions are never changed once played, so frames are shared. */
  clone() {
    const g = Object.create(Game.prototype);
    g.rules = this.rules;
    g.frames = [...this.frames];
    g.counts = new Map(this.counts);
    return g;
  }

  get top() {
    return this.frames[this.frames.length - 1];
  }

  get position() {
    return this.top.pos;
  }

  get occurrences() {
    return this.top.occurrences;
  }

  status() {
    return this.top.status;
  }

  /** The legal decisions; none once the game is over. */
  legalMoves() {
    return this.status().over ? [] : this.position.legalMoves(this.rules);
  }

  /** Plays `move` (an object or its name); throws with the reason when it is illegal. */
  play(move) {
    const m = typeof move === "string" ? this.parse(move) : move;
    const name = this.name(m);
    if (!this.legalMoves().some((x) => this.name(x) === name)) {
      throw new Error(`illegal move ${name}: ${whyIllegal(this, m)}`);
    }
    const pos = this.position.clone();
    pos.play(this.rules, m);
    this.push(pos, m);
  }

  undo() {
    if (this.frames.length < 2) return null;
    const f = this.frames.pop();
    const left = this.counts.get(f.key) - 1;
    if (left) this.counts.set(f.key, left);
    else this.counts.delete(f.key);
    return f.move;
  }

  name(m) {
    const p = this.rules.points;
    if (m.kind === "place") return p[m.to];
    if (m.kind === "shift") return `${p[m.from]}-${p[m.to]}`;
    return `x${p[m.from]}`;
  }

  parse(text) {
    const point = (s) => {
      const i = this.rules.index.get(s);
      if (i === undefined) throw new Error(`${s} is not a point of this board`);
      return i;
    };
    const t = text.trim();
    if (t.startsWith("x")) return { kind: "remove", from: point(t.slice(1)) };
    const [a, b] = t.split("-");
    return b === undefined ? { kind: "place", to: point(a) } : { kind: "shift", from: point(a), to: point(b) };
  }

  moves() {
    return this.frames.slice(1).map((f) => this.name(f.move));
  }

  /** Whether the position now repeats one at or after decision `ply` (Kvarn's
   * `Game::twofold_since`): a search from `ply` may score it as the draw it can become. */
  twofoldSince(ply) {
    if (!this.rules.repetition) return false;
    const key = this.top.key;
    for (let i = Math.max(ply, 0); i < this.frames.length - 1; i++) if (this.frames[i].key === key) return true;
    return false;
  }
}

const COLOUR = ["white", "black"];
const VARIANT = { nine: "Nine Men's Morris", six: "Six Men's Morris", five: "Five Men's Morris" };

/** The game's end in Kvarn's words (`Status`'s display in game/src/status.rs). */
export function statusText(status) {
  if (!status.over) return "ongoing";
  if (status.winner == null) {
    return status.reason === "repetition" ? "draw by threefold repetition" : "draw: no man removed within the limit";
  }
  const winner = COLOUR[status.winner];
  const loser = COLOUR[1 - status.winner];
  return status.reason === "too_few_men" ? `${winner} wins: ${loser} has fewer than three men` : `${winner} wins: ${loser} cannot move`;
}

/**
 * Why `move` may not be played in `game`, in the words of Kvarn's referee
 * (`Game::check_move` and `Position::check_move` in game/src), or null where it is legal:
 * the page's refusals say what `kvarn moves` says of the same move.
 */
export function whyIllegal(game, move) {
  const rules = game.rules;
  const status = game.status();
  if (status.over) return `the game is over (${statusText(status)})`;
  const pos = game.position;
  const p = rules.points;
  const us = COLOUR[pos.side];
  const them = COLOUR[1 - pos.side];
  const bit = (i) => 1 << i;
  const occupied = pos.men[0] | pos.men[1];
  if (pos.pending && move.kind !== "remove") {
    const first = indices(pos.removable(rules))[0];
    return `${us} closed a mill and must first remove a ${them} man (e.g. x${first === undefined ? "?" : p[first]})`;
  }
  if (move.kind === "remove") {
    if (!pos.pending) return "no mill was closed, so there is nothing to remove";
    if (!(pos.men[1 - pos.side] & bit(move.from))) return `${p[move.from]} holds no ${them} man`;
    if (!(pos.removable(rules) & bit(move.from))) return `${p[move.from]} stands in a ${them} mill and ${them} has men outside mills`;
    return null;
  }
  if (move.kind === "place") {
    if (pos.hand[pos.side] === 0) {
      const first = firstInKvarnsOrder(rules, pos);
      return `${us} has no men in hand and must move a man${first ? ` (e.g. ${game.name(first)})` : ""}`;
    }
    if (occupied & bit(move.to)) return `${p[move.to]} is occupied`;
    return null;
  }
  if (pos.hand[pos.side] > 0) return `${us} still has ${pos.hand[pos.side]} men in hand and must place one`;
  if (!(pos.men[pos.side] & bit(move.from))) return `${p[move.from]} holds no ${us} man`;
  if (occupied & bit(move.to)) return `${p[move.to]} is occupied`;
  if (!(rules.adjacency[move.from] & bit(move.to)) && !pos.canFly(rules, pos.side)) {
    const why = !rules.flying ? "flying is off" : `${us} has ${count(pos.men[pos.side])} men, not three`;
    return `${p[move.from]} and ${p[move.to]} are not joined by a line, and ${us} may not fly (${why})`;
  }
  return null;
}

/** A point's place from the board's centre (d4), read from its name: `d6` is [0, 2], x
 * to the right and y up. */
export const offset = (name) => [name.charCodeAt(0) - 100, Number(name.slice(1)) - 4];

/** Where a point sits for Kvarn's move order: its ring (0 the outer) and its place on the
 * ring, clockwise from the top-left corner. */
function ringPlace(name) {
  const [dx, dy] = offset(name);
  const ring = 3 - Math.max(Math.abs(dx), Math.abs(dy));
  const places = { "-1,1": 0, "0,1": 1, "1,1": 2, "1,0": 3, "1,-1": 4, "0,-1": 5, "-1,-1": 6, "-1,0": 7 };
  return { ring, place: places[`${Math.sign(dx)},${Math.sign(dy)}`] };
}

/** The first legal decision in the order Kvarn lists them (`Position::legal_moves`): for
 * slides, direction by direction (clockwise, counter-clockwise, inward, outward), each by
 * point; otherwise the page's order, which is Kvarn's. */
function firstInKvarnsOrder(rules, pos) {
  const moves = pos.legalMoves(rules);
  if (!moves.length || moves[0].kind !== "shift" || pos.canFly(rules, pos.side)) return moves[0];
  const dir = (m) => {
    const a = ringPlace(rules.points[m.from]);
    const b = ringPlace(rules.points[m.to]);
    if (a.ring === b.ring) return b.place === (a.place + 1) % 8 ? 0 : 1;
    return b.ring > a.ring ? 2 : 3;
  };
  return moves.reduce((best, m) => {
    const d = dir(m) - dir(best);
    return d < 0 || (d === 0 && m.from < best.from) ? m : best;
  });
}

/** The variant's full name, as Kvarn writes it. */
export const variantName = (rules) => VARIANT[rules.variant] ?? rules.variant;
