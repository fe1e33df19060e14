// A small tree search over the network in the page: PUCT as Kvarn's (selfplay/src), with
// the network's win/draw/loss as leaf values and the rules' results at the end of the game.
// With one simulation it plays the raw policy's best move. The player who moves twice in a
// row (a removal after a mill) is followed by side, not by ply.
//
// The settings a model file records for its measured player (`provenance.player` in the
// card, e.g. `move_choice=lcb,symmetries=16`) are read by `playerSettings`, so that the
// page plays the player whose figures were measured.

import { actionIndex, encode } from "./model.js";
import { offset } from "./rules.js";

/** Share of the most visited move's visits a move needs for the LCB choice (Kvarn's
 * `LCB_MIN_VISIT_SHARE`). */
const LCB_MIN_VISIT_SHARE = 0.15;

/** A loss, draw and win for the player to move as win/draw/loss. */
const WDL = { win: [1, 0, 0], draw: [0, 1, 0], loss: [0, 0, 1] };

class Node {
  constructor(move, prior) {
    this.move = move;
    this.prior = prior;
    this.visits = 0;
    this.wdlSum = [0, 0, 0]; // for `side`
    this.side = null; // the player to move here, once reached
    this.children = null;
    this.terminal = null; // win/draw/loss for `side` where the line ends here
    this.wdl = null; // the network's win/draw/loss for `side`
  }

  /** Mean value (win less loss) for player `side`. */
  value(side) {
    if (this.visits === 0) return 0;
    const v = (this.wdlSum[0] - this.wdlSum[2]) / this.visits;
    return side === this.side ? v : -v;
  }

  /** Mean win/draw/loss for `side`. */
  meanWdl(side) {
    const n = Math.max(this.visits, 1);
    const [w, d, l] = this.wdlSum.map((x) => x / n);
    return side === this.side ? [w, d, l] : [l, d, w];
  }

  /** The value's lower confidence bound for `side` (Kvarn's `Node::lower_bound`, draws
   * worth 0): the mean less `stdevs` standard errors. */
  lowerBound(side, stdevs) {
    if (this.visits === 0) return -Infinity;
    const q = this.value(side);
    const [w, , l] = this.meanWdl(side);
    const variance = Math.max(w + l - q * q, 0);
    return q - stdevs * Math.sqrt(variance / this.visits);
  }
}

/**
 * The player's settings from the card's `provenance.player` text (`key=value,...`), with
 * Kvarn's defaults. `unsupported` lists the settings the page does not play as Kvarn does.
 */
export function playerSettings(text = "") {
  const s = { cPuct: 1.5, fpuReduction: 0.25, moveChoice: "visits", lcbStdevs: 2, symmetries: 1, twofoldDraws: false, rootValue: "mean", unsupported: [] };
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [key, value = ""] = part.split("=").map((x) => x.trim());
    if (key === "c_puct") s.cPuct = Number(value);
    else if (key === "fpu_reduction") s.fpuReduction = Number(value);
    else if (key === "move_choice") s.moveChoice = value;
    else if (key === "lcb_stdevs") s.lcbStdevs = Number(value);
    else if (key === "symmetries") s.symmetries = Number(value);
    else if (key === "twofold_draws") s.twofoldDraws = value === "true";
    else if (key === "root_value") s.rootValue = value;
    else if (!["hash", "inference", "precision", "simulations", "movetime"].includes(key)) s.unsupported.push(part);
  }
  if (![1, 4, 8, 16].includes(s.symmetries)) {
    const averaged = [1, 4, 8].filter((k) => k <= s.symmetries).pop();
    s.unsupported.push(`symmetries=${s.symmetries} (the page averages ${averaged})`);
    s.symmetries = averaged;
  }
  return s;
}

/**
 * The board's symmetries as point permutations, in Kvarn's grouping: the first 4 are the
 * rotations, the first 8 add the reflections, all 16 the swap of the inner and outer
 * ring. Built from the points' coordinates, since the card lists points, not symmetries.
 */
export function symmetries(rules) {
  const at = rules.points.map(offset);
  const rings = at.map(([x, y]) => Math.max(Math.abs(x), Math.abs(y)));
  const inner = Math.min(...rings);
  const outer = Math.max(...rings);
  const key = (x, y) => `${x},${y}`;
  const index = new Map(at.map(([x, y], i) => [key(x, y), i]));
  const out = [];
  for (let s = 0; s < 16; s++) {
    out.push(at.map(([x0, y0], i) => {
      let [x, y] = [x0, y0];
      if (s & 8) {
        const r = rings[i];
        const to = r === inner ? outer : r === outer ? inner : r;
        [x, y] = [(x / r) * to, (y / r) * to];
      }
      if (s & 4) x = -x;
      for (let k = 0; k < (s & 3); k++) [x, y] = [y, -x];
      return index.get(key(x, y));
    }));
  }
  return out;
}

/** Evaluates positions as the mean of their symmetric images' answers, as Kvarn's
 * `SymmetryAveraged`: features moved to each image, logits read back through it. */
export class Evaluator {
  constructor(model, rules, images = 1) {
    this.model = model;
    this.rules = rules;
    const n = rules.n;
    const actions = model.card.actions.names.length;
    this.images = symmetries(rules).slice(0, images).map((perm) => {
      const action = new Int32Array(actions);
      for (let a = 0; a < actions; a++) {
        if (a < n) action[a] = perm[a];
        else if (a < n + n * n) {
          const from = Math.floor((a - n) / n);
          action[a] = n + perm[from] * n + perm[(a - n) % n];
        } else action[a] = n + n * n + perm[a - n - n * n];
      }
      return { perm, action };
    });
  }

  /** Policy logits and win/draw/loss for `game`'s position. */
  async evaluate(game) {
    const x = encode(this.rules, this.model.card, game.position, game.occurrences);
    if (this.images.length === 1) return (await this.model.evaluate([x]))[0];
    const n = this.rules.n;
    const rows = this.images.map(({ perm }) => {
      const y = new Float32Array(x);
      for (let plane = 0; plane < 3; plane++) for (let i = 0; i < n; i++) y[plane * n + perm[i]] = x[plane * n + i];
      return y;
    });
    const outs = await this.model.evaluate(rows);
    const share = 1 / outs.length;
    const logits = new Float32Array(outs[0].logits.length);
    const wdl = [0, 0, 0];
    outs.forEach((o, k) => {
      const action = this.images[k].action;
      for (let a = 0; a < logits.length; a++) logits[a] += o.logits[action[a]] * share;
      for (let j = 0; j < 3; j++) wdl[j] += o.wdl[j] * share;
    });
    return { logits, wdl };
  }
}

/** Priors over `moves` by a softmax of their logits. */
function priors(rules, moves, logits) {
  const l = moves.map((m) => logits[actionIndex(rules, m)]);
  const max = Math.max(...l);
  const e = l.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** Expands the leaf where `game` stands; its win/draw/loss for the player to move there. */
async function expand(node, game, evaluator, settings, rootPly) {
  node.side = game.position.side;
  const status = game.status();
  if (status.over) {
    node.terminal = status.winner == null ? WDL.draw : status.winner === node.side ? WDL.win : WDL.loss;
    return node.terminal;
  }
  if (settings.twofoldDraws && game.frames.length - 1 > rootPly && game.twofoldSince(rootPly)) {
    node.terminal = WDL.draw;
    return node.terminal;
  }
  const out = await evaluator.evaluate(game);
  const moves = game.legalMoves();
  const p = priors(game.rules, moves, out.logits);
  node.children = moves.map((m, i) => new Node(m, p[i]));
  node.wdl = out.wdl;
  return out.wdl;
}

function select(node, cPuct, fpuReduction) {
  const sqrt = Math.sqrt(Math.max(node.visits, 1));
  let visitedPrior = 0;
  for (const c of node.children) if (c.visits > 0) visitedPrior += c.prior;
  const fpu = node.value(node.side) - fpuReduction * Math.sqrt(visitedPrior);
  let best = null;
  let bestScore = -Infinity;
  for (const c of node.children) {
    const q = c.visits > 0 ? c.value(node.side) : fpu;
    const score = q + (cPuct * c.prior * sqrt) / (1 + c.visits);
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

/** The most visited child, then the higher prior: with one simulation, the raw policy's
 * best move. */
const mostVisited = (children) => children.reduce((a, b) => (b.visits > a.visits || (b.visits === a.visits && b.prior > a.prior) ? b : a));

/** The move played: the most visited, or (`moveChoice` "lcb") the child of the highest
 * lower confidence bound among those with enough visits, the most visited on ties. */
function choose(root, settings) {
  const best = mostVisited(root.children);
  if (settings.moveChoice !== "lcb") return best;
  const floor = LCB_MIN_VISIT_SHARE * best.visits;
  let chosen = best;
  for (const c of root.children) {
    if (c.visits >= floor && c.lowerBound(root.side, settings.lcbStdevs) > chosen.lowerBound(root.side, settings.lcbStdevs)) chosen = c;
  }
  return chosen;
}

/** The search's report: the move, the root's win/draw/loss and each move's figures. */
function report(root, settings, simulations) {
  const children = root.children;
  const move = choose(root, settings);
  const wdl = root.visits > 1 && settings.rootValue === "best" ? mostVisited(children).meanWdl(root.side) : root.visits > 1 ? root.meanWdl(root.side) : root.wdl;
  return {
    move: move.move,
    side: root.side,
    wdl,
    simulations,
    moves: children.map((c) => ({ move: c.move, visits: c.visits, prior: c.prior })),
  };
}

/**
 * Searches `game`'s position with `simulations` network evaluations at most; returns the
 * move to play, the root's win/draw/loss for the player to move and each move's visits
 * and prior. `options.player` holds `playerSettings`; `options.evaluator` an `Evaluator`
 * (one answering from the model alone where absent). Every `options.every` milliseconds
 * the search awaits `options.pause()` (where a worker lets its messages in) and calls
 * `options.progress(report)`; `options.stopped()` true ends it early with the best so far.
 */
export async function search(game, model, simulations, options = {}) {
  const settings = options.player ?? playerSettings();
  const evaluator = options.evaluator ?? new Evaluator(model, game.rules, 1);
  const rootPly = game.frames.length - 1;
  const root = new Node(null, 1);
  await expand(root, game, evaluator, settings, -1);
  root.visits = 1;
  root.wdlSum = [...root.wdl];
  const every = options.every ?? Infinity;
  let lastPause = performance.now();
  let s = 1;
  for (; s < simulations && root.children.length > 1; s++) {
    if (performance.now() - lastPause >= every) {
      if (options.pause) await options.pause();
      if (options.stopped?.()) break;
      options.progress?.(report(root, settings, s));
      lastPause = performance.now();
    }
    const path = [root];
    let node = root;
    while (node.children && node.terminal === null) {
      node = select(node, settings.cPuct, settings.fpuReduction);
      game.play(node.move);
      path.push(node);
      if (node.visits === 0 && node.terminal === null) break;
    }
    const wdl = node.terminal !== null ? node.terminal : await expand(node, game, evaluator, settings, rootPly);
    const side = node.side;
    for (const n of path) {
      const [w, d, l] = n.side === side ? wdl : [wdl[2], wdl[1], wdl[0]];
      n.visits += 1;
      n.wdlSum[0] += w;
      n.wdlSum[1] += d;
      n.wdlSum[2] += l;
    }
    for (let i = 1; i < path.length; i++) game.undo();
  }
  return report(root, settings, s);
}
