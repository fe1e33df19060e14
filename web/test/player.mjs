// The page's measured player (search.js) on an exported site: the card's player settings
// read as Kvarn reads them, the 16 board symmetries true automorphisms (lines and mills
// kept), the evaluator over symmetric images the same for a position and each of its
// images (win/draw/loss equal, logits carried over), and the search's move choice by lower
// confidence bound among moves with enough visits.
//
//   node web/test/player.mjs SITE-DIR (a site whose card records a player, e.g. Six's)

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-web";
import { Model, actionIndex } from "../src/model.js";
import { Game, Rules } from "../src/rules.js";
import { Evaluator, playerSettings, search, symmetries } from "../src/search.js";

const [site] = process.argv.slice(2);
const card = JSON.parse(readFileSync(join(site, "model-card.json"), "utf8"));
ort.env.wasm.numThreads = 1;
const model = await Model.load(ort, readFileSync(join(site, "model.onnx")), card);
const rules = new Rules(card);
const fail = (what) => {
  console.error(what);
  process.exit(1);
};

const player = playerSettings(card.provenance?.player ?? "");
if (player.unsupported.length) fail(`settings not played: ${player.unsupported}`);
const parsed = playerSettings("root_value=best,twofold_draws=true,move_choice=lcb,symmetries=16,lcb_stdevs=3,c_puct=2");
if (!(parsed.rootValue === "best" && parsed.twofoldDraws && parsed.moveChoice === "lcb" && parsed.symmetries === 16 && parsed.lcbStdevs === 3 && parsed.cPuct === 2)) fail(`parsed ${JSON.stringify(parsed)}`);
if (playerSettings("symmetries=6,db=x").unsupported.length !== 2) fail("unsupported settings not named");

// Symmetries: 16 distinct permutations that keep every line and every mill.
const syms = symmetries(rules);
const keyOf = (perm) => perm.join(",");
if (new Set(syms.map(keyOf)).size !== 16) fail("the 16 symmetries are not distinct");
const lines = new Set(card.board.adjacency.flatMap((list, i) => list.map((j) => `${Math.min(i, j)}-${Math.max(i, j)}`)));
const mills = new Set(card.board.mills.map((m) => [...m].sort((a, b) => a - b).join(",")));
for (const perm of syms) {
  if (perm.some((x) => x === undefined) || new Set(perm).size !== rules.n) fail(`not a permutation: ${perm}`);
  for (const l of lines) {
    const [i, j] = l.split("-").map(Number);
    if (!lines.has(`${Math.min(perm[i], perm[j])}-${Math.max(perm[i], perm[j])}`)) fail(`line ${l} not kept`);
  }
  for (const m of mills) if (!mills.has(m.split(",").map((i) => perm[Number(i)]).sort((a, b) => a - b).join(","))) fail(`mill ${m} not kept`);
}

// The averaged evaluator: a position and its images answer alike.
const evaluator = new Evaluator(model, rules, 16);
const image = (moves, perm) => moves.map((m) => {
  const g = new Game(rules);
  const mv = g.parse(m);
  const map = (i) => (i === undefined ? undefined : perm[i]);
  return g.name({ kind: mv.kind, from: map(mv.from), to: map(mv.to) });
});
let worst = 0;
let state = 7;
const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
for (let k = 0; k < 20; k++) {
  const game = new Game(rules);
  const n = Math.floor(random() * 30);
  for (let i = 0; i < n && !game.status().over; i++) {
    const legal = game.legalMoves();
    game.play(legal[Math.floor(random() * legal.length)]);
  }
  if (game.status().over) continue;
  const a = await evaluator.evaluate(game);
  for (const perm of syms) {
    const other = new Game(rules);
    for (const m of image(game.moves(), perm)) other.play(m);
    const b = await evaluator.evaluate(other);
    for (let j = 0; j < 3; j++) worst = Math.max(worst, Math.abs(a.wdl[j] - b.wdl[j]));
    for (const m of game.legalMoves()) {
      const mapped = { kind: m.kind, from: m.from === undefined ? undefined : perm[m.from], to: m.to === undefined ? undefined : perm[m.to] };
      worst = Math.max(worst, Math.abs(a.logits[actionIndex(rules, m)] - b.logits[actionIndex(rules, mapped)]));
    }
  }
}
if (worst > 1e-4) fail(`the averaged evaluator differs between images by ${worst}`);

// The LCB choice: among moves with at least 15% of the most visits, the highest bound.
const game = new Game(rules);
const lcb = await search(game, model, 200, { player: { ...player, symmetries: 1, moveChoice: "lcb" } });
const visits = await search(new Game(rules), model, 200, { player: { ...player, symmetries: 1, moveChoice: "visits" } });
const top = visits.moves.reduce((a, b) => (b.visits > a.visits || (b.visits === a.visits && b.prior > a.prior) ? b : a));
const chosen = lcb.moves.find((m) => game.name(m.move) === game.name(lcb.move));
if (chosen.visits < 0.15 * Math.max(...lcb.moves.map((m) => m.visits))) fail("the LCB choice took a move with too few visits");
if (game.name(visits.move) !== game.name(top.move)) fail("the visits choice is not the most visited move");
console.log(`${card.rules.variant}: player ${JSON.stringify(card.provenance?.player)}; 16 symmetries keep ${lines.size} lines and ${mills.size} mills; images agree within ${worst.toExponential(1)}; LCB chose ${game.name(lcb.move)}, visits ${game.name(visits.move)}`);
