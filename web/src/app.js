// The page: draws the board from the model card, lets a person play either colour against
// the model by clicks or drags, refuses illegal moves with the reason, shows the model's
// win/draw/loss and where it would move, and announces the end with its reason.

import * as ort from "../ort/ort.wasm.min.mjs";
import { Model } from "./model.js";
import { Game, Rules } from "./rules.js";
import { search } from "./search.js";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const REASONS = {
  too_few_men: "fewer than three men left",
  blocked: "no legal move",
  repetition: "the same position a third time",
  no_capture: "too many turns without a removal",
};

/** Board coordinates of a point named like `d6`: file a-g, rank 1-7 (top is rank 7). */
const xy = (name) => [name.charCodeAt(0) - 97, 7 - Number(name.slice(1))];

class Page {
  constructor(card, model) {
    this.card = card;
    this.rules = new Rules(card);
    this.model = model;
    this.human = 0;
    this.selected = null;
    this.dragFrom = null;
    this.thinking = false; // the model is choosing its move
    this.token = 0; // the search whose answer is still wanted
    this.analysis = null;
    this.newGame();
  }

  newGame() {
    this.cancel();
    this.game = new Game(this.rules);
    this.selected = null;
    this.analysis = null;
    this.after();
  }

  say(text, refused = false) {
    $("message").textContent = text;
    $("message").className = refused ? "refused" : "";
  }

  /** After every change: redraw, then let the model move or think about the position. */
  async after() {
    this.draw();
    const status = this.game.status();
    if (status.over) {
      const who = status.winner == null ? "Draw" : `${status.winner === 0 ? "White" : "Black"} wins`;
      this.say(`${who}: ${REASONS[status.reason]}.`);
      document.body.dataset.result = status.winner == null ? "draw" : status.winner === 0 ? "white_wins" : "black_wins";
      return;
    }
    delete document.body.dataset.result;
    const pos = this.game.position;
    const modelsTurn = pos.side !== this.human;
    await this.think(modelsTurn);
  }

  /** Forgets the search running, if any: its answer will be ignored. */
  cancel() {
    this.token += 1;
    this.thinking = false;
    delete document.body.dataset.thinking;
  }

  /** The model's move (`play`) or its view of the person's position, searched on a copy
   * of the game so that nothing the person does meanwhile is disturbed. */
  async think(play) {
    const token = ++this.token;
    this.thinking = play;
    document.body.dataset.thinking = "1";
    const simulations = Number($("strength").value);
    if (play) this.say("The model is thinking…");
    let result;
    try {
      result = await search(this.game.clone(), this.model, play ? simulations : Math.min(simulations, 64));
    } catch (e) {
      if (token === this.token) {
        this.cancel();
        this.say(`The model could not search: ${e.message}`, true);
      }
      return;
    }
    if (token !== this.token) return; // a new game, an undo or a move came meanwhile
    this.thinking = false;
    delete document.body.dataset.thinking;
    this.analysis = result;
    if (play) {
      this.game.play(result.move);
      this.analysis = null;
      return this.after();
    }
    this.draw();
    this.say(this.prompt());
  }

  prompt() {
    const pos = this.game.position;
    const you = pos.side === 0 ? "White" : "Black";
    if (pos.pending) return `${you}: you closed a mill; click an opposing man to remove.`;
    if (pos.hand[pos.side] > 0) return `${you}: place a man on an empty point (${pos.hand[pos.side]} in hand).`;
    if (pos.canFly(this.rules, pos.side)) return `${you}: you have three men; move one to any empty point.`;
    return `${you}: slide a man to an adjacent empty point (click it, then the target, or drag it).`;
  }

  /** A person chose point `i` (a click, or the end of a drag from `from`). */
  choose(i, from = null) {
    if (this.thinking || this.game.status().over || this.game.position.side !== this.human) return;
    const pos = this.game.position;
    const own = pos.men[pos.side] & (1 << i);
    let move;
    if (pos.pending) move = { kind: "remove", from: i };
    else if (pos.hand[pos.side] > 0) move = { kind: "place", to: i };
    else if (from != null && from !== i) move = { kind: "shift", from, to: i };
    else if (own) {
      this.selected = i;
      return this.draw();
    } else if (this.selected !== null) move = { kind: "shift", from: this.selected, to: i };
    else return this.say("Click one of your men first.", true);
    const name = this.game.name(move);
    const legal = this.game.legalMoves().map((m) => this.game.name(m));
    if (!legal.includes(name)) {
      this.selected = null;
      this.draw();
      return this.say(`${name} is not legal here. ${this.prompt()}`, true);
    }
    this.selected = null;
    this.analysis = null;
    this.cancel();
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
    this.analysis = null;
    this.after();
  }

  draw() {
    const svg = $("board");
    svg.replaceChildren();
    const { points, adjacency } = this.card.board;
    const el = (tag, attrs) => {
      const e = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      svg.appendChild(e);
      return e;
    };
    adjacency.forEach((list, i) => {
      for (const j of list) {
        if (j < i) continue;
        const [x1, y1] = xy(points[i]);
        const [x2, y2] = xy(points[j]);
        el("line", { x1, y1, x2, y2 });
      }
    });
    const shade = this.shading();
    const pos = this.game.position;
    const last = this.game.top.move;
    points.forEach((name, i) => {
      const [cx, cy] = xy(name);
      el("circle", { cx, cy, r: 0.12, class: "point", "data-point": name }).addEventListener("pointerup", () => this.choose(i, this.dragFrom));
      if (shade[i] > 0) el("circle", { cx, cy, r: 0.3, class: "hint", "fill-opacity": (0.15 + 0.6 * shade[i]).toFixed(2) });
      for (const c of [0, 1]) {
        if (!(pos.men[c] & (1 << i))) continue;
        const man = el("circle", {
          cx, cy, r: 0.3, "data-point": name, "data-man": c === 0 ? "white" : "black",
          class: `man ${c === 0 ? "white" : "black"}${this.selected === i ? " selected" : ""}`,
        });
        man.addEventListener("pointerdown", (e) => {
          this.dragFrom = c === pos.side ? i : null;
          // Touch captures the pointer on the man; release it so that the pointer's
          // release lands on the point it is over.
          if (e.target.hasPointerCapture?.(e.pointerId)) e.target.releasePointerCapture(e.pointerId);
        });
        man.addEventListener("pointerup", () => this.choose(i, this.dragFrom));
      }
      if (last && (last.to === i || (last.kind === "remove" && last.from === i))) el("circle", { cx, cy, r: 0.4, class: "last" });
    });
    document.onpointerup = () => setTimeout(() => (this.dragFrom = null), 0);
    this.showAnalysis();
    $("moves").textContent = this.game.moves().join(" ");
  }

  /** Share of the search (or prior) per target point, scaled to the largest. */
  shading() {
    const out = new Array(this.rules.n).fill(0);
    if (!this.analysis) return out;
    const total = this.analysis.moves.reduce((a, m) => a + m.visits, 0);
    for (const m of this.analysis.moves) {
      const at = m.move.kind === "remove" ? m.move.from : m.move.to;
      out[at] += total > 1 ? m.visits / total : m.prior;
    }
    const max = Math.max(...out, 1e-9);
    return out.map((x) => x / max);
  }

  showAnalysis() {
    const wdl = this.analysis?.wdl;
    const bars = $("wdl").children;
    if (!wdl) {
      for (const b of bars) b.style.width = "0";
      $("wdl-text").textContent = "";
      return;
    }
    wdl.forEach((p, k) => (bars[k].style.width = `${(100 * p).toFixed(1)}%`));
    $("wdl-text").textContent = `win ${(100 * wdl[0]).toFixed(0)}%, draw ${(100 * wdl[1]).toFixed(0)}%, loss ${(100 * wdl[2]).toFixed(0)}%`;
  }
}

async function main() {
  const card = await (await fetch("model-card.json")).json();
  ort.env.wasm.wasmPaths = new URL("../ort/", import.meta.url).href;
  ort.env.wasm.numThreads = 1;
  const onnx = new Uint8Array(await (await fetch("model.onnx")).arrayBuffer());
  const model = await Model.load(ort, onnx, card);
  const r = card.rules;
  const gen = card.provenance?.generation;
  $("about").textContent = `${r.variant[0].toUpperCase()}${r.variant.slice(1)} Men's Morris (flying ${r.flying ? "on" : "off"}, repetition ${r.repetition ? "on" : "off"}, no-capture limit ${r.no_capture_limit}); ` +
    `network ${card.network.kind} ${card.network.hidden ?? card.network.channels ?? ""}${gen != null ? `, generation ${gen}` : ""}.`;
  const page = new Page(card, model);
  window.kvarnPage = page;
  $("new").onclick = () => page.newGame();
  $("undo").onclick = () => page.undo();
  $("colour").onchange = () => {
    page.human = Number($("colour").value);
    page.newGame();
  };
  document.body.dataset.ready = "1";
}

main().catch((e) => {
  $("message").textContent = `The page could not start: ${e.message}`;
  $("message").className = "refused";
});
