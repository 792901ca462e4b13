// Opens a heapreplay --html page from disk in Firefox (Debian's firefox-esr,
// headless) and says whether it renders: drives Firefox over WebDriver BiDi
// (built into Firefox; playwright-core's bundled WebSocket client talks to
// it), waits for window.heaprecPage.ready, reports page errors and the
// header numbers it shows, and saves a screenshot. A manual check beside the
// automated one in Chromium (tests/html); exit 1 if the page did not render.
//   node tools/check_html_firefox.mjs REPORT.html [OUT.png]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [html, png = "firefox.png"] = process.argv.slice(2);
if (!html) {
  console.error("usage: node tools/check_html_firefox.mjs REPORT.html [OUT.png]");
  process.exit(2);
}
const modules = process.env.HEAPREC_NODE_MODULES ||
  path.join(path.dirname(new URL(import.meta.url).pathname), "../third_party/js/node_modules");
// A private file of playwright-core, by path (its "exports" do not list it).
const { ws: WebSocket } = createRequire(import.meta.url)(
  path.join(modules, "playwright-core/lib/utilsBundle.js"));

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "heaprec-ff-"));
const port = 9300 + (process.pid % 500);
const firefox = spawn("firefox-esr", ["--headless", "--no-remote", "--profile", profile,
  "--remote-debugging-port", String(port), "--window-size=1280,1000"], { stdio: "ignore" });
const stop = (code) => { firefox.kill(); fs.rmSync(profile, { recursive: true, force: true }); process.exit(code); };
setTimeout(() => { console.log("FAIL: timed out"); stop(1); }, 120000).unref();

let socket;
for (let i = 0; i < 100 && !socket; i++) {
  await new Promise((r) => setTimeout(r, 200));
  socket = await new Promise((resolve) => {
    const s = new WebSocket("ws://127.0.0.1:" + port + "/session");
    s.on("open", () => resolve(s));
    s.on("error", () => resolve(null));
  });
}
if (!socket) { console.log("FAIL: firefox did not start"); stop(1); }
let next = 0;
const waiting = new Map(), errors = [];
socket.on("message", (raw) => {
  const m = JSON.parse(raw.toString());
  if (m.id !== undefined && waiting.has(m.id)) {
    waiting.get(m.id)(m);
    waiting.delete(m.id);
  } else if (m.method === "log.entryAdded" && m.params.level === "error") {
    errors.push(m.params.text);
  }
});
const send = (method, params) => new Promise((resolve, reject) => {
  const id = next++;
  waiting.set(id, (m) => (m.type === "error" ? reject(new Error(method + ": " + m.message)) : resolve(m.result)));
  socket.send(JSON.stringify({ id, method, params }));
});

await send("session.new", { capabilities: {} });
await send("session.subscribe", { events: ["log.entryAdded"] });
const { contexts } = await send("browsingContext.getTree", {});
const context = contexts[0].context;
const t0 = Date.now();
await send("browsingContext.navigate", { context, url: "file://" + path.resolve(html), wait: "complete" });
const evaluate = async (expression) => (await send("script.evaluate",
  { target: { context }, expression, awaitPromise: true, resultOwnership: "none" })).result;
let ready = false;
for (let i = 0; i < 200 && !ready; i++) {
  const r = await evaluate("!!(window.heaprecPage && window.heaprecPage.ready)");
  ready = r.value === true;
  if (!ready) await new Promise((r) => setTimeout(r, 250));
}
await new Promise((r) => setTimeout(r, 1000));  // the flame graph's first frame
const shown = await evaluate("JSON.stringify(Array.from(document.querySelectorAll('#summary [data-key]'))" +
  ".map(e => e.dataset.key + '=' + e.dataset.value).concat(['flame boxes=' + " +
  "document.querySelectorAll('#flame svg g').length, 'leak rows=' + " +
  "document.querySelectorAll('#table-leaks tr.site').length]))");
const shot = await send("browsingContext.captureScreenshot", { context, origin: "document" });
fs.writeFileSync(png, Buffer.from(shot.data, "base64"));
console.log((ready ? "ok   ready after " + (Date.now() - t0) + " ms" : "FAIL never ready") +
  "\n     " + JSON.parse(shown.value).join(", ") + "\n     errors: " +
  (errors.length ? errors.join("; ") : "none") + "\n     screenshot: " + png);
stop(ready && errors.length === 0 ? 0 : 1);
