// dhat_view.mjs: loads a DHAT JSON file into valgrind's own viewer
// (/usr/libexec/valgrind/dh_view.html) in headless Chromium (Debian's
// /usr/bin/chromium driven by playwright-core), through its file input as a
// person would, and prints what the viewer shows as one JSON object:
//   {"error": text or null, "times": {"tgmax": n, "tend": n},
//    "root": {"total_bytes", "total_blocks", "gmax_bytes", "gmax_blocks",
//             "end_bytes", "end_blocks", "avg_lifetime"},
//    "pps": [{"frames": text, "total_bytes", "total_blocks", "max_bytes",
//             "max_blocks", "gmax_bytes", "end_bytes", "avg_lifetime"}]}
// numbers as the viewer wrote them (en-US), commas removed.
//   node dhat_view.mjs FILE.json [--screenshot OUT.png]
// Env HEAPREC_NODE_MODULES: where playwright-core is. Only file:// URLs
// under the viewer's folder and the file itself may load.
import path from "node:path";
import { createRequire } from "node:module";

const argv = process.argv.slice(2);
const file = argv[0];
const shot = argv[1] === "--screenshot" ? argv[2] : null;
if (!file) {
  console.error("usage: node dhat_view.mjs FILE.json [--screenshot OUT.png]");
  process.exit(2);
}
const modules = process.env.HEAPREC_NODE_MODULES || "/work/main/third_party/js/node_modules";
const require = createRequire(path.join(path.resolve(modules), "_"));
const { chromium } = require("playwright-core");
const viewer = "file:///usr/libexec/valgrind/dh_view.html";

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const errors = [];
let result;
try {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith("file:///usr/libexec/valgrind/")) return route.continue();
    errors.push("blocked request: " + u);
    return route.abort();
  });
  await page.goto(viewer, { waitUntil: "load" });
  await page.setInputFiles("input[type=file]", path.resolve(file));
  await page.waitForFunction(() => /PP 1\/1|error|Error/.test(document.body.innerText), null,
    { timeout: 30000 });
  if (shot) await page.screenshot({ path: shot, fullPage: true });
  const text = await page.evaluate(() => document.body.innerText);
  const num = (s) => Number(String(s).replace(/,/g, ""));
  const field = (block, re) => {
    const m = block.match(re);
    return m ? m.slice(1).map(num) : [null, null];
  };
  // The nodes: "PP 1/1 {" ... "}" blocks.
  const blocks = text.split(/\n(?=[^\n]*PP [\d.]+\/\d+ )/).filter((b) => /PP [\d.]+\/\d+ /.test(b));
  const parse = (b) => {
    const [totalBytes, totalBlocks] = field(b, /Total:\s+([\d,]+) bytes \([^)]*\) in ([\d,]+) blocks/);
    const [life] = field(b, /avg lifetime ([\d,.]+) µs/);
    const [maxBytes, maxBlocks] = field(b, /Max:\s+([\d,]+) bytes in ([\d,]+) blocks/);
    const [gBytes, gBlocks] = field(b, /At t-gmax:\s+([\d,]+) bytes \([^)]*\) in ([\d,]+) blocks/);
    const [eBytes, eBlocks] = field(b, /At t-end:\s+([\d,]+) bytes \([^)]*\) in ([\d,]+) blocks/);
    return { frames: (b.match(/#\d+: [^\n]*/g) || []).join(" | "), total_bytes: totalBytes,
      total_blocks: totalBlocks, avg_lifetime: life, max_bytes: maxBytes, max_blocks: maxBlocks,
      gmax_bytes: gBytes, gmax_blocks: gBlocks, end_bytes: eBytes, end_blocks: eBlocks };
  };
  const [tgmax] = field(text, /t-gmax: ([\d,]+) µs/);
  const [tend] = field(text, /t-end:\s+([\d,]+) µs/);
  const errorShown = /Error|error/.test(text.split("Invocation")[0]) ? text.slice(0, 300) : null;
  result = { error: errors.length ? errors.join("; ") : errorShown, times: { tgmax, tend },
    root: blocks.length ? parse(blocks[0]) : null, pps: blocks.slice(1).map(parse) };
} catch (e) {
  result = { error: String(e), times: {}, root: null, pps: [] };
} finally {
  await browser.close();
}
console.log(JSON.stringify(result, null, 1));
