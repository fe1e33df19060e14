// The model's search off the page's main thread, so that the board stays live while it
// thinks. Messages in:
//   {type: "load", card, onnx}: the card and the URL of model.onnx, answered "loaded" or
//     "error";
//   {type: "search", id, moves, simulations}: search the position after `moves`, answered
//     "progress" (every 100 ms) and then "done" with the search's report;
//   {type: "stop", id}: end search `id` now and answer "done" with the best move so far;
//   {type: "cancel", id}: end search `id` without an answer (a new game, an undo).
// A search yields to these messages every 15 ms, so a stop or a cancel waits no longer.

import * as ort from "../ort/ort.wasm.min.mjs";
import { Model } from "./model.js";
import { Game, Rules } from "./rules.js";
import { Evaluator, playerSettings, search } from "./search.js";

let state = null; // {rules, model, evaluator, player}
let current = null; // the search running: {id, stop, cancel}
let latest = null; // the id of the search last asked for: older ones queued are skipped
let queue = Promise.resolve();

/** Lets the worker's messages in: a macrotask turn, without setTimeout's 4 ms clamp. */
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
const pause = () => new Promise((resolve) => {
  waiting.push(resolve);
  channel.port2.postMessage(0);
});

async function load({ card, onnx }) {
  ort.env.wasm.wasmPaths = new URL("../ort/", import.meta.url).href;
  ort.env.wasm.numThreads = 1;
  const bytes = new Uint8Array(await (await fetch(onnx)).arrayBuffer());
  const model = await Model.load(ort, bytes, card);
  const rules = new Rules(card);
  const player = playerSettings(card.provenance?.player ?? "");
  state = { rules, model, player, evaluator: new Evaluator(model, rules, player.symmetries) };
  postMessage({ type: "loaded", player });
}

async function run({ id, moves, simulations }) {
  if (id !== latest) return;
  const job = { id, stop: false, cancel: false };
  current = job;
  try {
    const game = new Game(state.rules);
    for (const m of moves) game.play(m);
    const result = await search(game, state.model, simulations, {
      player: state.player,
      evaluator: state.evaluator,
      every: 15,
      pause,
      stopped: () => job.stop || job.cancel,
      progress: (r) => {
        const now = performance.now();
        if (!job.lastProgress || now - job.lastProgress >= 100) {
          job.lastProgress = now;
          postMessage({ type: "progress", id, result: r });
        }
      },
    });
    if (!job.cancel) postMessage({ type: "done", id, result, stopped: job.stop });
  } catch (e) {
    if (!job.cancel) postMessage({ type: "error", id, message: e.message });
  } finally {
    if (current === job) current = null;
  }
}

onmessage = ({ data }) => {
  if (data.type === "load") {
    queue = queue.then(() => load(data)).catch((e) => postMessage({ type: "error", message: e.message }));
  } else if (data.type === "search") {
    // A new search ends the one running: its answer is no longer wanted.
    if (current) current.cancel = true;
    latest = data.id;
    queue = queue.then(() => run(data));
  } else if (data.type === "cancel" && latest === data.id && current?.id !== data.id) {
    latest = null; // still queued: never started
  } else if (current && current.id === data.id) {
    if (data.type === "stop") current.stop = true;
    else if (data.type === "cancel") current.cancel = true;
  }
};
