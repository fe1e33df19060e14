// The page: draws the board from the model card, lets a person play either colour against
// the model by taps, clicks, drags or the keyboard, refuses an illegal move with Kvarn's
// reason, marks the model's moves, shows the game's counters, its moves (to step through)
// and the model's view, and announces the end. The model searches in a worker
// (worker.js), so the page answers at once while it thinks.

import { Game, offset, Rules, statusText, variantName, whyIllegal } from "./rules.js";
import { playerSettings } from "./search.js";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
const COLOUR = ["White", "Black"];

/** How far from a point's centre a tap still chooses it, in board units (neighbouring
 * points are at least one unit apart). */
const TAP_RADIUS = 0.5;
/** The radius of a point's invisible hit circle: at a phone's 390 px width it is over
 * 44 px across. */
const HIT_RADIUS = 0.48;

/** Grid coordinates of a point named like `d6`: file a-g left to right, rank 1-7 with 7
 * at the top. */
const grid = (name) => {
  const [dx, dy] = offset(name);
  return [dx + 3, 3 - dy];
};

const el = (parent, tag, attrs = {}, text = null) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  parent.appendChild(e);
  return e;
};

/** The site's models: `models.json` where the site holds several, else the one beside
 * the page. */
async function manifest() {
  const res = await fetch("models.json").catch(() => null);
  if (res && res.ok) return (await res.json()).models;
  return [{ name: "model", dir: "." }];
}

/** The moves and game named in the URL's fragment (`#game=nine&moves=d6,d2`). */
function fragment() {
  const p = new URLSearchParams(location.hash.slice(1));
  const moves = (p.get("moves") || "").split(/[,\s]+/).filter(Boolean);
  return { game: p.get("game"), moves };
}

class Page {
  constructor(models) {
    this.models = models;
    this.human = 0;
    this.flipped = false;
    this.searchId = 0;
    this.thinking = false; // the model is choosing its move
    this.analysis = null;
    this.view = null; // a frame index when stepping through the game, else null (live)
    this.focus = 0;
  }

  /** Loads model `entry` (a manifest row), its worker, and a new game (or `moves`). */
  async open(entry, moves = []) {
    this.entry = entry;
    const base = new URL(`${entry.dir.replace(/\/?$/, "/")}`, location.href);
    const res = await fetch(new URL("model-card.json", base));
    if (!res.ok) throw new Error(`model-card.json: HTTP ${res.status}`);
    this.card = await res.json();
    this.rules = new Rules(this.card);
    this.player = playerSettings(this.card.provenance?.player ?? "");
    this.startWorker(new URL("model.onnx", base).href);
    this.describe();
    this.buildBoard();
    this.game = new Game(this.rules);
    this.selected = null;
    this.load(moves);
  }

  describe() {
    const r = this.card.rules;
    const gen = this.card.provenance?.generation;
    $("about").textContent = `${variantName(this.rules)} (flying ${r.flying ? "on" : "off"}, repetition ${r.repetition ? "on" : "off"}, ` +
      `no-capture limit ${r.no_capture_limit}); network ${this.card.network.kind} ${this.card.network.hidden ?? this.card.network.channels ?? ""}` +
      `${gen != null ? `, generation ${gen}` : ""}.`;
    const p = this.player;
    const parts = [`move choice: ${p.moveChoice === "lcb" ? `lower confidence bound (${p.lcbStdevs} standard errors)` : "most visits"}`,
      `${p.symmetries} symmetric image${p.symmetries > 1 ? "s" : ""} a leaf`];
    if (p.twofoldDraws) parts.push("a repetition inside the search is a draw");
    let text = `The model plays as its figures were measured (${parts.join(", ")}), at the strength chosen here.`;
    if (p.unsupported.length) text += ` Not played as measured: ${p.unsupported.join(", ")}.`;
    $("player").textContent = text;
  }

  startWorker(onnx) {
    this.worker?.terminate();
    this.modelReady = false;
    delete document.body.dataset.modelReady;
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.worker = worker;
    worker.onmessage = ({ data }) => this.fromWorker(data);
    worker.onerror = (e) => {
      e.preventDefault?.();
      this.stopThinking();
      this.say(`The model's worker could not start (${e.message || "no reason given"}). Serve the folder with a web server, e.g. python3 -m http.server 8000, and open http://localhost:8000.`, true);
    };
    worker.postMessage({ type: "load", card: this.card, onnx });
  }

  fromWorker(data) {
    if (data.type === "loaded") {
      this.modelReady = true;
      document.body.dataset.modelReady = "1";
      return;
    }
    if (data.id !== this.searchId) return; // a search whose answer is no longer wanted
    if (data.type === "error") {
      this.stopThinking();
      this.say(`The model could not search: ${data.message}`, true);
    } else if (data.type === "progress") {
      this.analysis = data.result;
      if (this.thinking) $("thinking-text").textContent = `The model is thinking… ${data.result.simulations} of ${this.simulations} simulations`;
      this.drawHints();
      this.showEvaluation();
    } else if (data.type === "done") {
      const wasMove = this.thinking;
      if (wasMove) this.lastMoveSearch = { simulations: data.result.simulations, stopped: data.stopped };
      this.stopThinking();
      this.analysis = data.result;
      if (wasMove) {
        this.analysis = null;
        this.game.play(data.result.move);
        this.after();
      } else {
        this.drawHints();
        this.showEvaluation();
      }
    }
  }

  /** Plays `moves` from the start (a shared link), stopping at the first illegal one. */
  load(moves) {
    this.cancel();
    this.game = new Game(this.rules);
    for (const m of moves) {
      let move;
      try {
        move = this.game.parse(m);
      } catch (e) {
        this.after();
        return this.say(`The link's move ${m} was not played: ${e.message}.`, true);
      }
      const why = whyIllegal(this.game, move);
      if (why) {
        this.after();
        return this.say(`The link's move ${m} was not played: ${why}.`, true);
      }
      this.game.play(move);
    }
    this.selected = null;
    this.view = null;
    this.after();
    this.say("");
  }

  newGame() {
    this.load([]);
  }

  say(text, refused = false, reason = null) {
    $("message").textContent = text;
    $("message").className = refused ? "refused" : "";
    if (reason) $("message").dataset.reason = reason;
    else delete $("message").dataset.reason;
  }

  /** After every change: redraw, keep the link, then let the model move or analyse. */
  after() {
    this.analysis = null;
    this.draw();
    this.keepLink();
    const status = this.game.status();
    if (status.over) {
      this.cancel();
      const result = status.winner == null ? "draw" : status.winner === 0 ? "white_wins" : "black_wins";
      document.body.dataset.result = result;
      return;
    }
    delete document.body.dataset.result;
    this.think(this.game.position.side !== this.human);
  }

  /** Asks the worker to search: the model's move (`play`), or a short look at the
   * person's position for the evaluation and hints. */
  think(play) {
    this.cancel();
    const id = ++this.searchId;
    const strength = Number($("strength").value);
    this.simulations = play ? strength : Math.min(strength, 64);
    this.thinking = play;
    if (play) {
      document.body.dataset.thinking = "1";
      $("thinking-text").textContent = "The model is thinking…";
    }
    this.worker.postMessage({ type: "search", id, moves: this.game.moves(), simulations: this.simulations });
    this.drawTurn();
  }

  /** Forgets the search running, if any: the worker ends it and its answer is ignored. */
  cancel() {
    if (this.searchId) this.worker?.postMessage({ type: "cancel", id: this.searchId });
    this.searchId += 1;
    this.stopThinking();
  }

  stopThinking() {
    this.thinking = false;
    delete document.body.dataset.thinking;
  }

  /** The Stop button: the model plays the best move it has found so far. */
  stop() {
    if (this.thinking) this.worker.postMessage({ type: "stop", id: this.searchId });
  }

  prompt() {
    const pos = this.game.position;
    const other = COLOUR[1 - pos.side];
    if (pos.pending) return `You closed a mill: choose a ${other} man to remove (ringed in red).`;
    if (pos.hand[pos.side] > 0) return `Place a man on an empty point (${pos.hand[pos.side]} in hand).`;
    if (pos.canFly(this.rules, pos.side)) return "You have three men: choose one, then any empty point.";
    return "Choose a man, then an empty neighbouring point (or drag it).";
  }

  /** A person chose point `i` (a tap, a click, Enter, or the end of a drag from `from`). */
  choose(i, from = null) {
    if (!this.game) return;
    if (this.view !== null) {
      this.view = null;
      this.draw();
      return this.say("Back at the current position.");
    }
    const status = this.game.status();
    if (status.over) return this.say(`The game is over (${statusText(status)}). Start a new game to play again.`);
    const pos = this.game.position;
    if (pos.side !== this.human) return this.say("The model is to move: wait for it, or press Stop.");
    const own = pos.men[pos.side] & (1 << i);
    let move;
    if (pos.pending) move = { kind: "remove", from: i };
    else if (pos.hand[pos.side] > 0) move = { kind: "place", to: i };
    else if (from != null && from !== i) move = { kind: "shift", from, to: i };
    else if (own) {
      this.selected = this.selected === i ? null : i;
      this.say(this.selected === null ? "" : `${this.rules.points[i]} chosen: now its destination.`);
      return this.draw();
    } else if (this.selected !== null) move = { kind: "shift", from: this.selected, to: i };
    else return this.say(`Choose one of your men first. ${this.prompt()}`, true);
    const name = this.game.name(move);
    const why = whyIllegal(this.game, move);
    if (why) {
      this.say(`${name} is not legal: ${why}.`, true, why);
      return this.draw();
    }
    this.selected = null;
    this.say("");
    this.game.play(move);
    this.after();
  }

  undo() {
    this.cancel();
    // Back to the start of the person's last turn (before a mill's removal too): undo the
    // model's decisions and the person's last.
    while (this.game.frames.length > 1) {
      this.game.undo();
      const pos = this.game.position;
      if (pos.side === this.human && !pos.pending) break;
    }
    this.selected = null;
    this.view = null;
    this.say("");
    this.after();
  }

  /** Steps the board to frame `k` of the game (null: the current position). */
  show(k) {
    const last = this.game.frames.length - 1;
    this.view = k === null || k >= last ? null : Math.max(0, k);
    this.selected = null;
    this.draw();
  }

  /** The URL keeps the game: a link or a bookmark brings it back. */
  keepLink() {
    const p = new URLSearchParams();
    p.set("game", this.entry.name);
    const moves = this.game.moves();
    if (moves.length) p.set("moves", moves.join(","));
    history.replaceState(null, "", `#${p.toString().replaceAll("%2C", ",")}`);
  }

  // ---- the board ----

  /** Board units of a point after the flip. */
  at(i) {
    const [x, y] = grid(this.rules.points[i]);
    return this.flipped ? [6 - x, 6 - y] : [x, y];
  }

  /** The board's static layers: lines, points, coordinates and the hit circles. */
  buildBoard() {
    const svg = $("board");
    svg.replaceChildren();
    const xs = this.rules.points.map((_, i) => this.at(i));
    const lo = Math.min(...xs.map(([x]) => x));
    const hi = Math.max(...xs.map(([x]) => x));
    // The frame fits the variant's points: Six and Five have no outer ring.
    const pad = 0.75;
    svg.setAttribute("viewBox", `${lo - pad} ${lo - pad} ${hi - lo + 2 * pad} ${hi - lo + 2 * pad}`);
    const { adjacency } = this.card.board;
    const base = el(svg, "g", { "aria-hidden": "true" });
    adjacency.forEach((list, i) => {
      for (const j of list) {
        if (j < i) continue;
        const [x1, y1] = this.at(i);
        const [x2, y2] = this.at(j);
        el(base, "line", { x1, y1, x2, y2, class: "edge" });
      }
    });
    for (let i = 0; i < this.rules.n; i++) {
      const [cx, cy] = this.at(i);
      el(base, "circle", { cx, cy, r: 0.1, class: "dot" });
    }
    // Coordinates: files under the board, ranks at its left.
    const files = new Set(this.rules.points.map((p) => p[0]));
    const ranks = new Set(this.rules.points.map((p) => p.slice(1)));
    for (const f of files) {
      const [x] = this.flipped ? [6 - grid(`${f}1`)[0]] : grid(`${f}1`);
      el(base, "text", { x, y: hi + pad * 0.55, class: "coord" }, f);
    }
    for (const r of ranks) {
      const y = this.flipped ? 6 - grid(`a${r}`)[1] : grid(`a${r}`)[1];
      el(base, "text", { x: lo - pad * 0.55, y, class: "coord" }, r);
    }
    this.layers = {
      marks: el(svg, "g", { "aria-hidden": "true" }),
      men: el(svg, "g", { "aria-hidden": "true" }),
      hints: el(svg, "g", { "aria-hidden": "true" }),
      hits: el(svg, "g"),
    };
    this.hits = this.rules.points.map((name, i) => {
      const [cx, cy] = this.at(i);
      const hit = el(this.layers.hits, "circle", { cx, cy, r: HIT_RADIUS, class: "hit", role: "button", tabindex: i === this.focus ? 0 : -1, "data-point": name });
      hit.addEventListener("focus", () => (this.focus = i));
      return hit;
    });
  }

  /** The point nearest to a pointer event, within `TAP_RADIUS`, or null. */
  pointAt(e) {
    const svg = $("board");
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    let best = null;
    let bestD = TAP_RADIUS;
    for (let i = 0; i < this.rules.n; i++) {
      const [x, y] = this.at(i);
      const d = Math.hypot(p.x - x, p.y - y);
      if (d <= bestD) {
        best = i;
        bestD = d;
      }
    }
    return best;
  }

  /** Arrow keys: the focus ring to the nearest point in that direction. */
  move(dx, dy) {
    const best = this.step(this.focus, dx, dy);
    if (best !== null) this.setFocus(best);
  }

  /** The point an arrow key in direction (`dx`, `dy`) on screen leads to from point `from`
   * (null at the board's edge): the nearest ahead, points off the line counting double. */
  step(from, dx, dy) {
    const [x0, y0] = this.at(from);
    let best = null;
    let bestScore = Infinity;
    for (let i = 0; i < this.rules.n; i++) {
      const [x, y] = this.at(i);
      const along = (x - x0) * dx + (y - y0) * dy;
      if (along <= 0) continue;
      const across = Math.abs((x - x0) * dy - (y - y0) * dx);
      const score = along + 2 * across;
      if (score < bestScore) {
        best = i;
        bestScore = score;
      }
    }
    return best;
  }

  setFocus(i) {
    this.focus = i;
    this.hits.forEach((h, k) => h.setAttribute("tabindex", k === i ? 0 : -1));
    this.hits[i].focus();
  }

  /** The frame shown: the current one, or the one stepped back to. */
  frame() {
    return this.game.frames[this.view ?? this.game.frames.length - 1];
  }

  draw() {
    if (!this.layers) return;
    const { marks, men } = this.layers;
    marks.replaceChildren();
    men.replaceChildren();
    const frame = this.frame();
    const pos = frame.pos;
    const live = this.view === null;
    const p = this.rules.points;
    // The last turn: where it went from and to, and the man it took.
    const turn = this.lastTurn(this.view ?? this.game.frames.length - 1);
    for (const m of turn) {
      if (m.kind === "remove") {
        const [x, y] = this.at(m.from);
        el(marks, "path", { d: `M${x - 0.22} ${y - 0.22}L${x + 0.22} ${y + 0.22}M${x + 0.22} ${y - 0.22}L${x - 0.22} ${y + 0.22}`, class: "taken" });
        continue;
      }
      const [tx, ty] = this.at(m.to);
      el(marks, "circle", { cx: tx, cy: ty, r: 0.42, class: "last-to" });
      if (m.kind === "shift") {
        const [fx, fy] = this.at(m.from);
        el(marks, "circle", { cx: fx, cy: fy, r: 0.3, class: "last-from" });
        el(marks, "line", { x1: fx, y1: fy, x2: tx, y2: ty, class: "last-path" });
      }
    }
    // The person's choices: the chosen man, where it can go, which men may be removed.
    const legal = live && pos.side === this.human && !this.game.status().over ? this.game.legalMoves() : [];
    const targets = new Set();
    const removable = new Set();
    for (const m of legal) {
      if (m.kind === "remove") removable.add(m.from);
      else if (m.kind === "shift" && m.from === this.selected) targets.add(m.to);
    }
    for (let i = 0; i < this.rules.n; i++) {
      const [cx, cy] = this.at(i);
      for (const c of [0, 1]) {
        if (pos.men[c] & (1 << i)) el(men, "circle", { cx, cy, r: 0.3, class: `man ${c ? "black" : "white"}`, "data-man": c ? "black" : "white", "data-at": p[i] });
      }
      if (this.selected === i) el(men, "circle", { cx, cy, r: 0.4, class: "selected" });
      if (targets.has(i)) el(men, "circle", { cx, cy, r: 0.14, class: "target" });
      if (removable.has(i)) el(men, "circle", { cx, cy, r: 0.4, class: "removable" });
      const man = pos.men[0] & (1 << i) ? "white man" : pos.men[1] & (1 << i) ? "black man" : "empty";
      const extra = [this.selected === i ? "chosen" : null, targets.has(i) ? "can move here" : null, removable.has(i) ? "can be removed" : null].filter(Boolean);
      this.hits[i].setAttribute("aria-label", `${p[i]}, ${man}${extra.length ? `, ${extra.join(", ")}` : ""}`);
    }
    this.drawHints();
    this.drawTurn();
    this.drawSides(pos, frame);
    this.drawMoves();
    this.describeLast(turn, this.view ?? this.game.frames.length - 1);
    this.showEvaluation();
  }

  /** The decisions of the turn that ended at frame `k` (a removal and the move before). */
  lastTurn(k) {
    const frames = this.game.frames;
    if (k < 1) return [];
    const out = [frames[k].move];
    if (frames[k].move.kind === "remove" && k >= 2) out.unshift(frames[k - 1].move);
    return out;
  }

  describeLast(turn, k) {
    if (!turn.length) return ($("last-move").textContent = "");
    const frames = this.game.frames;
    const mover = frames[k - turn.length].pos.side;
    const who = `${COLOUR[mover]}${mover === this.human ? " (you)" : " (the model)"}`;
    const p = this.rules.points;
    const parts = [];
    for (const m of turn) {
      if (m.kind === "place") parts.push(`placed a man on ${p[m.to]}`);
      else if (m.kind === "shift") parts.push(`moved ${p[m.from]} to ${p[m.to]}`);
      else parts.push(`took a man on ${p[m.from]}`);
    }
    const closing = frames[k].pos.pending ? " and closed a mill" : "";
    $("last-move").textContent = `${who} ${parts.join(" and ")}${closing}.`;
  }

  drawTurn() {
    if (!this.game) return;
    const status = this.game.status();
    const box = $("turn");
    const disc = box.querySelector(".disc");
    if (status.over) {
      box.classList.add("over");
      const mine = status.winner === this.human;
      const head = status.winner == null ? "Draw" : mine ? "You won" : "You lost";
      disc.className = `disc ${status.winner === 1 ? "black" : "white"}`;
      $("turn-text").textContent = `${head}: ${statusText(status)}.`;
      return;
    }
    box.classList.remove("over");
    const pos = this.game.position;
    disc.className = `disc ${pos.side ? "black" : "white"}`;
    const yours = pos.side === this.human;
    $("turn-text").textContent = `${COLOUR[pos.side]} to ${pos.pending ? "remove a man" : "move"}: ${yours ? "you" : "the model"}`;
    if (yours && !$("message").textContent) $("message").textContent = this.prompt();
  }

  drawSides(pos, frame) {
    const rows = [["", "White", "Black"]];
    const onBoard = (c) => this.rules.points.filter((_, i) => pos.men[c] & (1 << i)).length;
    rows.push(["in hand", pos.hand[0], pos.hand[1]]);
    rows.push(["on the board", onBoard(0), onBoard(1)]);
    rows.push(["lost", this.rules.men - pos.hand[0] - onBoard(0), this.rules.men - pos.hand[1] - onBoard(1)]);
    rows.push(["player", this.human === 0 ? "you" : "model", this.human === 1 ? "you" : "model"]);
    const box = $("sides");
    box.replaceChildren();
    rows.forEach((r, k) => r.forEach((cell) => {
      const d = document.createElement("div");
      d.textContent = String(cell);
      if (k === 0 || r.indexOf(cell) === 0) d.className = "h";
      box.appendChild(d);
    }));
    const limit = this.rules.noCaptureLimit;
    const noCapture = limit == null ? "no limit on turns without a capture" : `${pos.noCapture} of ${limit} turns without a capture`;
    const rep = this.rules.repetition ? `this position seen ${frame.occurrences} of 3 times` : "no draw by repetition";
    $("counters").textContent = `${noCapture}; ${rep}.`;
  }

  /** The moves, a numbered line per pair of turns; each turn steps the board to it. */
  drawMoves() {
    const list = $("moves");
    list.replaceChildren();
    const frames = this.game.frames;
    const turns = [];
    for (let k = 1; k < frames.length; k++) {
      const name = this.game.name(frames[k].move);
      if (frames[k].move.kind === "remove" && turns.length) {
        const t = turns[turns.length - 1];
        t.text += name;
        t.end = k;
      } else turns.push({ text: name, end: k, side: frames[k - 1].pos.side });
    }
    const shown = this.view ?? frames.length - 1;
    let li = null;
    turns.forEach((t) => {
      if (t.side === 0 || !li) {
        li = document.createElement("li");
        list.appendChild(li);
        if (t.side === 1) li.append("… ");
      } else li.append(" ");
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t.text;
      b.setAttribute("aria-label", `${COLOUR[t.side]} ${t.text}`);
      if (t.end === shown) b.setAttribute("aria-current", "step");
      b.onclick = () => this.show(t.end);
      li.appendChild(b);
    });
    if (this.view === null) list.scrollTop = list.scrollHeight;
    else list.querySelector("[aria-current]")?.scrollIntoView({ block: "nearest" });
    $("viewing").textContent = this.view === null ? "" : `Viewing decision ${this.view} of ${frames.length - 1}`;
  }

  /** Where the model's search went, above the men: destinations (placements, slides'
   * ends, removals) as green discs with their share, sources as purple rings. */
  drawHints() {
    const layer = this.layers?.hints;
    if (!layer) return;
    layer.replaceChildren();
    if (!$("hints").checked || !this.analysis || this.view !== null) return;
    const moves = this.analysis.moves;
    const total = moves.reduce((a, m) => a + m.visits, 0);
    const to = new Array(this.rules.n).fill(0);
    const from = new Array(this.rules.n).fill(0);
    for (const m of moves) {
      const share = total > 1 ? m.visits / total : m.prior;
      to[m.move.kind === "remove" ? m.move.from : m.move.to] += share;
      if (m.move.kind === "shift") from[m.move.from] += share;
    }
    for (let i = 0; i < this.rules.n; i++) {
      const [cx, cy] = this.at(i);
      if (from[i] >= 0.02) el(layer, "circle", { cx, cy, r: 0.36, class: "hint hint-from", "stroke-width": (0.03 + 0.09 * from[i]).toFixed(3), "data-hint": "from" });
      if (to[i] >= 0.02) {
        el(layer, "circle", { cx, cy, r: 0.17, class: "hint hint-to", "fill-opacity": (0.35 + 0.6 * to[i]).toFixed(2), "data-hint": "to" });
        el(layer, "text", { x: cx, y: cy - 0.24, class: "hint-text" }, `${Math.round(100 * to[i])}%`);
      }
    }
  }

  /** The model's win/draw/loss, always from White's side. */
  showEvaluation() {
    const bars = $("wdl").children;
    const a = this.view === null ? this.analysis : null;
    if (!a || !a.wdl) {
      for (const b of bars) b.style.width = "0";
      $("wdl-text").textContent = "";
      $("wdl").setAttribute("aria-label", "no evaluation yet");
      return;
    }
    const [w, d, l] = a.side === 0 ? a.wdl : [a.wdl[2], a.wdl[1], a.wdl[0]];
    [w, d, l].forEach((p, k) => (bars[k].style.width = `${(100 * p).toFixed(1)}%`));
    const text = `White wins ${(100 * w).toFixed(0)}%, draw ${(100 * d).toFixed(0)}%, Black wins ${(100 * l).toFixed(0)}% (after ${a.simulations} simulations)`;
    $("wdl-text").textContent = text;
    $("wdl").setAttribute("aria-label", text);
  }
}

function wire(page) {
  const svg = $("board");
  let dragFrom = null;
  svg.addEventListener("pointerdown", (e) => {
    const i = page.pointAt(e);
    const pos = page.game?.position;
    dragFrom = null;
    if (i === null || !pos || page.view !== null) return;
    if (pos.men[pos.side] & (1 << i) && pos.hand[pos.side] === 0 && !pos.pending) {
      dragFrom = i;
      svg.setPointerCapture?.(e.pointerId);
    }
  });
  // A drag ends where the pointer is released; a click (or tap) chooses the nearest point.
  let dragged = false;
  let playedBy = null; // the point whose click last played a move
  svg.addEventListener("pointerup", (e) => {
    const i = page.pointAt(e);
    const from = dragFrom;
    dragFrom = null;
    dragged = from !== null && i !== null && i !== from;
    if (dragged) page.choose(i, from);
  });
  svg.addEventListener("click", (e) => {
    if (dragged) return void (dragged = false);
    const i = page.pointAt(e);
    if (i === null) return;
    // The second click of a double click whose first played a move is not a new choice,
    // unless it chooses a man to move (the person to move, in the moving phase).
    const pos = page.game?.position;
    const choosing = pos && pos.side === page.human && pos.hand[pos.side] === 0 && !pos.pending;
    if (e.detail > 1 && playedBy === i && !choosing) return;
    const before = page.game?.frames.length;
    page.choose(i);
    playedBy = page.game?.frames.length !== before ? i : null;
  });
  svg.addEventListener("keydown", (e) => {
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (dirs[e.key]) {
      e.preventDefault();
      page.move(...dirs[e.key]);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      page.choose(page.focus);
    } else if (e.key === "Escape") {
      page.selected = null;
      page.draw();
    }
  });
  $("new").onclick = () => page.newGame();
  $("undo").onclick = () => page.undo();
  $("stop").onclick = () => page.stop();
  $("flip").onclick = () => {
    page.flipped = !page.flipped;
    $("flip").setAttribute("aria-pressed", String(page.flipped));
    page.buildBoard();
    page.draw();
  };
  $("hints").onchange = () => page.drawHints();
  $("colour").onchange = () => {
    page.human = Number($("colour").value);
    page.newGame();
  };
  $("first").onclick = () => page.show(0);
  $("back").onclick = () => page.show((page.view ?? page.game.frames.length - 1) - 1);
  $("forward").onclick = () => page.show((page.view ?? page.game.frames.length - 1) + 1);
  $("live").onclick = () => page.show(null);
  $("share").onclick = async () => {
    page.keepLink();
    try {
      await navigator.clipboard.writeText(location.href);
      page.say("Link copied: it holds the game and its moves.");
    } catch {
      page.say(`The link to this game: ${location.href}`);
    }
  };
  $("model").onchange = () => {
    const entry = page.models.find((m) => m.name === $("model").value);
    page.open(entry).catch((e) => page.say(`The model could not be loaded: ${e.message}`, true));
  };
  addEventListener("hashchange", () => {
    const f = fragment();
    if (f.moves.join(",") === page.game.moves().join(",") && (!f.game || f.game === page.entry.name)) return;
    const entry = page.models.find((m) => m.name === f.game);
    if (entry && entry !== page.entry) page.open(entry, f.moves);
    else page.load(f.moves);
  });
}

async function main() {
  if (location.protocol === "file:") return; // index.html says why and what to do
  const models = await manifest();
  const page = new Page(models);
  window.kvarnPage = page;
  if (models.length > 1) {
    $("model-label").hidden = false;
    for (const m of models) {
      const o = document.createElement("option");
      o.value = m.name;
      o.textContent = m.label ?? m.name;
      $("model").appendChild(o);
    }
  }
  const f = fragment();
  const entry = models.find((m) => m.name === f.game) ?? models[0];
  $("model").value = entry.name;
  wire(page);
  await page.open(entry, f.moves);
  document.body.dataset.ready = "1";
}

main().catch((e) => {
  const how = " Serve the site's folder with a web server (e.g. python3 -m http.server 8000 in it) and open http://localhost:8000.";
  $("message").textContent = `The page could not start: ${e.message}.${/fetch|load|import/i.test(e.message) ? how : ""}`;
  $("message").className = "refused";
  $("turn-text").textContent = "Not loaded.";
});
