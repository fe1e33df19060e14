// A small tree search over the network in the page: PUCT as Kvarn's, with the network's
// win/draw/loss as leaf values and the rules' results at the end of the game. With one
// simulation it plays the raw policy's best move. The player who moves twice in a row
// (a removal after a mill) is followed by side, not by ply.

import { actionIndex, encode } from "./model.js";

class Node {
  constructor(move, prior) {
    this.move = move;
    this.prior = prior;
    this.visits = 0;
    this.total = 0; // sum of values for `side`
    this.side = null; // the player to move here, once reached
    this.children = null;
    this.terminal = null; // the exact value for `side` at the end of the game
  }

  /** Mean value for player `side`. */
  value(side) {
    if (this.visits === 0) return 0;
    const v = this.total / this.visits;
    return side === this.side ? v : -v;
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

/** Expands the leaf where `game` stands; its value for the player to move there. */
async function expand(node, game, model) {
  node.side = game.position.side;
  const status = game.status();
  if (status.over) {
    node.terminal = status.winner == null ? 0 : status.winner === node.side ? 1 : -1;
    return node.terminal;
  }
  const rules = game.rules;
  const x = encode(rules, model.card, game.position, game.occurrences);
  const [out] = await model.evaluate([x]);
  const moves = game.legalMoves();
  const p = priors(rules, moves, out.logits);
  node.children = moves.map((m, i) => new Node(m, p[i]));
  node.wdl = out.wdl;
  return out.wdl[0] - out.wdl[2];
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

/**
 * Searches `game`'s position with `simulations` network evaluations at most; returns the
 * move to play, the root's win/draw/loss (network) and each move's visits and prior.
 */
export async function search(game, model, simulations, { cPuct = 1.5, fpuReduction = 0.25 } = {}) {
  const root = new Node(null, 1);
  await expand(root, game, model);
  root.visits = 1;
  root.total = 0;
  for (let s = 1; s < simulations && root.children.length > 1; s++) {
    const path = [root];
    let node = root;
    while (node.children && node.terminal === null) {
      node = select(node, cPuct, fpuReduction);
      game.play(node.move);
      path.push(node);
      if (node.visits === 0 && node.terminal === null) break;
    }
    const value = node.terminal !== null ? node.terminal : await expand(node, game, model);
    const side = node.side;
    for (const n of path) {
      n.visits += 1;
      n.total += n.side === side ? value : -value;
    }
    for (let i = 1; i < path.length; i++) game.undo();
  }
  const children = root.children;
  // Most visits, then prior: with one simulation, the raw policy's best move.
  const best = children.reduce((a, b) => (b.visits > a.visits || (b.visits === a.visits && b.prior > a.prior) ? b : a));
  return {
    move: best.move,
    wdl: root.wdl,
    moves: children.map((c) => ({ move: c.move, visits: c.visits, prior: c.prior })),
  };
}
