// The page's search against the page's raw policy, played by the page's own code under
// Node (rules.js, model.js, search.js and onnxruntime-web): GAMES games from varied
// openings (two random decisions, each opening played with colours swapped), the search at
// SIMULATIONS (default 64, the page's default strength) against one simulation (the
// policy's best move). Prints wins, draws, losses, the score with its 95% interval and
// the Elo difference.
//
//   node web/test/search-vs-policy.mjs SITE-DIR [GAMES] [SIMULATIONS]

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-web";
import { Model } from "../src/model.js";
import { Game, Rules } from "../src/rules.js";
import { search } from "../src/search.js";

const [site, gamesArg = "200", simsArg = "64"] = process.argv.slice(2);
const card = JSON.parse(readFileSync(join(site, "model-card.json"), "utf8"));
ort.env.wasm.numThreads = 1;
const model = await Model.load(ort, readFileSync(join(site, "model.onnx")), card);
const rules = new Rules(card);
const games = Number(gamesArg);
const sims = Number(simsArg);

let state = 12345;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const tally = { wins: 0, draws: 0, losses: 0 };
let opening = [];
for (let g = 0; g < games; g++) {
  const game = new Game(rules);
  if (g % 2 === 0) {
    opening = [];
    for (let k = 0; k < 2; k++) {
      const legal = game.legalMoves();
      const m = legal[Math.floor(random() * legal.length)];
      opening.push(game.name(m));
      game.play(m);
    }
  } else {
    for (const m of opening) game.play(m);
  }
  const searcher = g % 2; // colour of the searching side: white in even games
  while (!game.status().over && game.frames.length < 600) {
    const n = game.position.side === searcher ? sims : 1;
    game.play((await search(game, model, n)).move);
  }
  const s = game.status();
  if (!s.over || s.winner == null) tally.draws++;
  else if (s.winner === searcher) tally.wins++;
  else tally.losses++;
  if ((g + 1) % 20 === 0) console.error(`${g + 1} games: ${JSON.stringify(tally)}`);
}
const n = games;
const score = (tally.wins + tally.draws / 2) / n;
// The interval from the per-game variance of the score (wins 1, draws ½, losses 0).
const variance = (tally.wins * (1 - score) ** 2 + tally.draws * (0.5 - score) ** 2 + tally.losses * score ** 2) / n;
const half = 1.96 * Math.sqrt(variance / n);
const elo = (p) => (p <= 0 ? -Infinity : p >= 1 ? Infinity : -400 * Math.log10(1 / p - 1));
console.log(
  `search at ${sims} simulations vs the raw policy, ${n} games: ${tally.wins} wins, ${tally.draws} draws, ${tally.losses} losses; ` +
    `score ${(100 * score).toFixed(1)}% (95% interval ${(100 * (score - half)).toFixed(1)}% to ${(100 * (score + half)).toFixed(1)}%), ` +
    `Elo ${elo(score).toFixed(0)} (${elo(score - half).toFixed(0)} to ${elo(score + half).toFixed(0)})`,
);
