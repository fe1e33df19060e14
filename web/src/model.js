// An exported Kvarn network in the page: the position's input vector as the model card
// lists its features, the action index of each decision, and the network's policy logits
// and win/draw/loss through onnxruntime-web (passed in as `ort`, so that the same code
// runs in the browser and in Node's tests).

/** The card's input vector of `pos` (a rules.js Position) that occurred `occurrences` times. */
export function encode(rules, card, pos, occurrences) {
  const n = rules.n;
  const s = pos.side;
  const o = 1 - s;
  const x = new Float32Array(card.input.length);
  for (let i = 0; i < n; i++) {
    const bit = 1 << i;
    x[i] = pos.men[s] & bit ? 1 : 0;
    x[n + i] = pos.men[o] & bit ? 1 : 0;
    x[2 * n + i] = (pos.men[0] | pos.men[1]) & bit ? 0 : 1;
  }
  const limit = rules.noCaptureLimit;
  const scalars = [
    pos.hand[s] / rules.men,
    pos.hand[o] / rules.men,
    s === 1 ? 1 : 0,
    pos.pending ? 1 : 0,
    pos.canFly(rules, s) ? 1 : 0,
    pos.canFly(rules, o) ? 1 : 0,
    limit ? Math.min(pos.noCapture, limit) / limit : 0,
    rules.repetition ? Math.min((occurrences - 1) / 2, 1) : 0,
  ];
  x.set(scalars, 3 * n);
  return x;
}

/** The action index of a decision (the card's action space). */
export function actionIndex(rules, move) {
  const n = rules.n;
  if (move.kind === "place") return move.to;
  if (move.kind === "shift") return n + move.from * n + move.to;
  return n + n * n + move.from;
}

/** A network and its card. */
export class Model {
  constructor(ort, session, card) {
    this.ort = ort;
    this.session = session;
    this.card = card;
    this.actions = card.actions.names.length;
  }

  /** Loads `model.onnx` (bytes or URL) with onnxruntime-web. */
  static async load(ort, onnx, card) {
    const session = await ort.InferenceSession.create(onnx, { executionProviders: ["wasm"] });
    return new Model(ort, session, card);
  }

  /** Policy logits and win/draw/loss for each input vector of `rows`. */
  async evaluate(rows) {
    const len = this.card.input.length;
    const data = new Float32Array(rows.length * len);
    rows.forEach((r, i) => data.set(r, i * len));
    const features = new this.ort.Tensor("float32", data, [rows.length, len]);
    const out = await this.session.run({ features });
    const logits = out.policy_logits.data;
    const wdl = out.wdl.data;
    return rows.map((_, i) => ({
      logits: logits.subarray(i * this.actions, (i + 1) * this.actions),
      wdl: [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]],
    }));
  }
}
