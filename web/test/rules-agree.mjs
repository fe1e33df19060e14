// The page's rules against Kvarn's: seeded random games by the page's rules, and at every
// ply its legal moves and status compared with `kvarn moves --stdin` on the same move
// list; at every ply too a random decision (a placement, slide, flight or removal, legal or
// not) whose refusal reason by the page (`whyIllegal`) must be the referee's word for word.
// Exits non-zero on a difference, naming the game and the moves.
//
//   node web/test/rules-agree.mjs MODEL-CARD.json KVARN [GAMES] [SEED]

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Game, Rules, whyIllegal } from "../src/rules.js";

const [cardPath, kvarn, gamesArg = "300", seedArg = "1"] = process.argv.slice(2);
if (!cardPath || !kvarn) {
  console.error("usage: node rules-agree.mjs MODEL-CARD.json KVARN [GAMES] [SEED]");
  process.exit(2);
}
const card = JSON.parse(readFileSync(cardPath, "utf8"));
const rules = new Rules(card);

// mulberry32: a small seeded generator, so that a failure can be replayed.
let state = Number(seedArg) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const statusName = (s) => (!s.over ? "ongoing" : s.winner === 0 ? "white_wins" : s.winner === 1 ? "black_wins" : "draw");

// Every prefix of every game, with what the page says of it.
const lines = [];
const expected = [];
const games = Number(gamesArg);
for (let g = 0; g < games; g++) {
  const game = new Game(rules);
  for (let ply = 0; ply <= 400; ply++) {
    const legal = game.legalMoves().map((m) => game.name(m)).sort();
    const s = game.status();
    lines.push(game.moves().join(" "));
    expected.push({ game: g, legal, status: statusName(s), reason: s.over ? s.reason : null });
    // A random decision of a random kind, named as Kvarn names it.
    const point = () => Math.floor(random() * rules.n);
    const kind = ["place", "shift", "remove"][Math.floor(random() * 3)];
    const candidate = kind === "place" ? { kind, to: point() } : kind === "remove" ? { kind, from: point() } : { kind, from: point(), to: point() };
    if (kind !== "shift" || candidate.from !== candidate.to) {
      lines.push(`${game.moves().join(" ")} ${game.name(candidate)}`.trim());
      expected.push({ game: g, move: game.name(candidate), refusal: whyIllegal(game, candidate) });
    }
    if (legal.length === 0) break;
    game.play(game.legalMoves()[Math.floor(random() * legal.length)]);
  }
}

const r = card.rules;
const args = ["moves", "--variant", r.variant, "--repetition", r.repetition ? "on" : "off",
  "--no-capture-limit", String(r.no_capture_limit ?? "off"), "--stdin"];
if (r.variant === "nine") args.push("--flying", r.flying ? "on" : "off");
const run = spawnSync(kvarn, args, { input: lines.join("\n") + "\n", maxBuffer: 1 << 30 });
if (run.status !== 0) {
  console.error(`kvarn moves failed: ${run.stderr}`);
  process.exit(1);
}
const answers = run.stdout.toString().trim().split("\n").map((l) => JSON.parse(l));
if (answers.length !== lines.length) {
  console.error(`kvarn answered ${answers.length} lines for ${lines.length}`);
  process.exit(1);
}
let differences = 0;
let refusals = 0;
answers.forEach((a, i) => {
  const e = expected[i];
  if ("refusal" in e) {
    // Kvarn: `move N (`m`): illegal move m: REASON`, or the position after a legal move.
    const said = a.error ? a.error.slice(a.error.indexOf(`illegal move ${e.move}: `) + `illegal move ${e.move}: `.length) : null;
    if (a.error && !a.error.includes(`illegal move ${e.move}: `)) {
      if (differences++ < 5) console.error(`game ${e.game}, moves "${lines[i]}": kvarn refused otherwise: ${a.error}`);
      return;
    }
    if (said) refusals++;
    if (said !== e.refusal && differences++ < 5) console.error(`game ${e.game}, moves "${lines[i]}":\n  page:  ${e.refusal}\n  kvarn: ${said}`);
    return;
  }
  const legal = [...a.legal].sort();
  const same = a.status === e.status && (a.reason ?? null) === e.reason && legal.join() === e.legal.join();
  if (!same && differences++ < 5) {
    console.error(`game ${e.game}, moves "${lines[i]}":\n  page:  ${JSON.stringify(e)}\n  kvarn: ${JSON.stringify({ legal, status: a.status, reason: a.reason })}`);
  }
});
const ends = {};
for (const e of expected) if (e.reason) ends[e.reason] = (ends[e.reason] || 0) + 1;
const positions = expected.filter((e) => !("refusal" in e)).length;
console.log(`${r.variant} (flying ${r.flying ? "on" : "off"}): ${games} games, ${positions} positions, ends ${JSON.stringify(ends)}, ${refusals} refusals compared, ${differences} differences`);
process.exit(differences === 0 ? 0 : 1);
