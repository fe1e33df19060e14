// The page in a real browser: serves an exported site on localhost, opens it in headless
// Chromium (playwright-core), and plays a whole game against the model by clicks on the
// board, a random legal move each turn; an illegal click must be refused on the page. Prints
// the moves the page shows and its result as JSON for the caller to check with Kvarn.
//
//   node web/test/browser.mjs SITE-DIR [SCREENSHOT.png] [SEED]

import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const [site, screenshot, seedArg = "1"] = process.argv.slice(2);
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".onnx": "application/octet-stream" };

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  const file = path === "/" ? "index.html" : path;
  try {
    const body = await readFile(join(site, file));
    res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/`;

let state = Number(seedArg) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const browser = await chromium.launch({
  executablePath: process.env.KVARN_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = null;
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready]", { timeout: 60000 });
  await page.selectOption("#strength", "16");
  const click = (point, man) => page.click(`circle[data-point="${point}"]${man ? `[data-man="${man}"]` : ".point"}`, { force: true });
  const idle = () => page.waitForFunction(() => !document.body.dataset.thinking && (document.body.dataset.result || window.kvarnPage.game.position.side === window.kvarnPage.human), null, { timeout: 60000 });

  // An illegal click is refused on the page: a removal-less placement on an occupied point
  // comes later; at the start, clicking nothing but an empty point is legal, so try a man
  // of the model's once there is one.
  let refused = false;
  let plies = 0;
  for (;;) {
    await idle();
    const info = await page.evaluate(() => {
      const p = window.kvarnPage;
      const g = p.game;
      return {
        over: Boolean(document.body.dataset.result),
        legal: g.legalMoves().map((m) => ({ kind: m.kind, from: m.from !== undefined ? g.rules.points[m.from] : null, to: m.to !== undefined ? g.rules.points[m.to] : null })),
        opponentMen: g.rules.points.filter((_, i) => g.position.men[1 - g.position.side] & (1 << i)),
        pending: g.position.pending,
        placing: g.position.hand[g.position.side] > 0,
      };
    });
    if (info.over) break;
    if (!refused && info.placing && !info.pending && info.opponentMen.length > 0) {
      await click(info.opponentMen[0], "black");
      const text = await page.textContent("#message");
      if (!/not legal/.test(text)) throw new Error(`a placement on an occupied point was not refused: "${text}"`);
      refused = true;
    }
    const m = info.legal[Math.floor(random() * info.legal.length)];
    const before = await page.evaluate(() => window.kvarnPage.game.frames.length);
    if (m.kind === "place") await click(m.to);
    else if (m.kind === "remove") await click(m.from, "black");
    else {
      await click(m.from, "white");
      await click(m.to);
    }
    const after = await page.evaluate(() => window.kvarnPage.game.frames.length);
    if (after <= before) throw new Error(`the click for ${JSON.stringify(m)} did not play it`);
    plies += 1;
    if (plies === 14 && screenshot) await page.screenshot({ path: screenshot });
  }
  const result = await page.evaluate(() => ({
    moves: document.getElementById("moves").textContent,
    result: document.body.dataset.result,
    message: document.getElementById("message").textContent,
  }));
  if (errors.length) throw new Error(`errors on the page: ${errors.join("; ")}`);
  if (!refused) throw new Error("no illegal click was tried");
  console.log(JSON.stringify(result));
} catch (e) {
  failed = e;
} finally {
  await browser.close();
  server.close();
}
if (failed) {
  console.error(failed.stack || String(failed));
  process.exit(1);
}
