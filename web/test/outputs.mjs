// The page's network against Kvarn's: for positions given as move lists with Kvarn's
// input vectors and outputs, the page's rules replay the moves, its encoder must give the
// same vector and onnxruntime-web (the page's runtime, here under Node) the same policy
// logits and win/draw/loss within 1e-4.
//
//   node web/test/outputs.mjs SITE-DIR CASES.json

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-web";
import { Model, encode } from "../src/model.js";
import { Game, Rules } from "../src/rules.js";

const [site, casesPath] = process.argv.slice(2);
const card = JSON.parse(readFileSync(join(site, "model-card.json"), "utf8"));
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
ort.env.wasm.numThreads = 1;
const model = await Model.load(ort, readFileSync(join(site, "model.onnx")), card);
const rules = new Rules(card);

let worst = 0;
let failures = 0;
for (const c of cases) {
  const game = new Game(rules);
  for (const m of c.moves) game.play(m);
  const x = encode(rules, card, game.position, game.occurrences);
  const badFeature = c.features.findIndex((v, i) => v !== x[i]);
  if (badFeature >= 0) {
    if (failures++ < 5) console.error(`moves "${c.moves.join(" ")}": feature ${card.input.features[badFeature]} is ${x[badFeature]}, Kvarn's ${c.features[badFeature]}`);
    continue;
  }
  const [out] = await model.evaluate([x]);
  const diff = Math.max(
    ...c.policy_logits.map((v, i) => Math.abs(v - out.logits[i])),
    ...c.wdl.map((v, i) => Math.abs(v - out.wdl[i])),
  );
  worst = Math.max(worst, diff);
  if (diff > 1e-4 && failures++ < 5) console.error(`moves "${c.moves.join(" ")}": outputs differ by ${diff}`);
}
console.log(`${cases.length} positions: ${failures} differences, largest output difference ${worst.toExponential(2)}`);
process.exit(failures === 0 ? 0 : 1);
