// report_browser.mjs: end-to-end test of a heapreplay --html page in headless
// Chromium (Debian's /usr/bin/chromium driven by playwright-core): opens the
// file by file:// URL and uses it as a person would (real mouse and keyboard),
// checking what EXPECT.json says; prints one line per check ("ok ..." or
// "FAIL ...") and exits 1 if any failed (2 on bad usage).
//
//   node tests/html/report_browser.mjs --html REPORT.html --expect EXPECT.json \
//        [--screenshot OUT.png] [--perf] [--width 1280] [--height 900]
//
// EXPECT.json (every field optional):
//   summary      {name: number}: #summary [data-key=name] data-value
//   summary_text {name: text}: #summary [data-key=name] shows the text
//   first_view   the view the page opens on (M.firstView: the peak unless
//                the leaks are 25% of it or more), with #flame-why saying why
//   orientation  true: the graph opens as an icicle (root box above its
//                children), the Flame button puts the root below them, and
//                Icicle brings it back
//   fits         true: the graph is no taller than the window
//   depth        true: the tree is deeper than the window: #flame-depth says
//                so, "deeper" draws more levels, and "All levels" (or
//                "deeper" when that is enough) all of them
//   labels       true: every drawn label has a contrast of 4.5 or more with
//                its box's colour (WCAG AA), also while a search highlights
//   steps        {from_ns, to_ns, bytes}: a stretch with no events: the heap
//                chart's line is flat there, at `bytes` (a step, not a slope)
//   keyboard     true: Enter and Space on a focused #table-leaks row open and
//                close its stack (focus kept, the page not scrolled), and
//                Enter on a column header sorts by it
//   no_internal_words  true: no "bucket" in the page's text, on load and
//                with a range selected
//   functions    {rows: {fn: [flat, cum]}, pick: fn}: the Functions table
//                (the text's top) for flame_view has these raw values; it
//                stays when another view is picked, and a click on pick's row
//                searches the flame graph for it
//   flame_view   view whose tab to use (default "leaks")
//   flame_click  name of a flame box to click: it must zoom to the full width,
//                and #flame-reset must bring it back
//   search       text typed into #flame-search: a box must be highlighted and
//                #flame-matched must report a non-zero amount
//   range        {from_ns, to_ns, leaks_present: [fn], leaks_absent: [fn],
//                 totals: {name: number} (#view-totals [data-key=name])}:
//                dragged on the heap chart; then Clear, and
//   leaks_all    [fn]: all in #table-leaks again
//   marker_range {label, leaks_present: [fn], leaks_absent: [fn]}: the quick
//                range button with this label (e.g. "loaded → worked") is
//                clicked; then Clear
//   diff         true: #diff-toggle exists and the leaks table has a change
//                column (gone when the toggle is off)
//   bench        [allocator name]: a #bench-table row for each, its wall
//                time with the run-to-run spread ("±N%", (max - min) /
//                median); null: the bench section is hidden
//   trees        {views: [{view, sites, calls}], search, sandwich,
//                 zoom_sandwich}: for each view (its flame tab picked),
//                every row of the top-down and bottom-up trees holds the
//                total, self (and with `calls`, the calls) that `sites`
//                (heapreplay --json's, as treeExpect takes them) give; on
//                the first view: the first bottom-up root opens with the
//                right arrow, a top-down row opens and closes by click and
//                by keyboard (arrows, Enter), `search` typed in the trees'
//                search box leaves the stacks through matching functions,
//                a right-click on flame box `sandwich` opens a menu whose
//                item shows its callers/callees (self, total, calls, every
//                row checked), and so does #flame-sandwich once the graph is
//                zoomed on `zoom_sandwich`; with `range`, the top-down roots
//                hold the range's total
//   sites_via    {table, rows: [[function, via], ...]}: #table-TABLE has
//                exactly these rows (innermost function and "via" column),
//                in any order
//   sites        {peak_bytes, peak_time_ns, at_peak: {fn: bytes} (the bands
//                with bytes at the peak, by function), hover: [{ns, total}]
//                (the bands' sum under the cursor at ns), range_label (a
//                quick range: drawn, legend at its peak), function: {name,
//                at_peak} (the Functions table's chart button), row: {table,
//                function, at_peak} (a site row's chart button, by keyboard)}:
//                the chart by call stack (the heap chart's other tab)
//   leak_kinds   {checked: [kind], totals: {kind: bytes}, held_by: [[root,
//                bytes]]}: the kinds filter starts as heapreplay shows them;
//                each kind adds its bytes (leaked total, Leaked tab, Functions
//                table); with still reachable the leaks table's Held by
//                column holds held_by; no kind leaves nothing leaked
//   processes    {rows: [{pid, ppid, allocations, peak_bytes, leaked_bytes}],
//                summaries: {pid: {key: number}}}: a page of several traces:
//                the process table; a click and Enter switch the page
// --perf also prints the time a view switch and a range selection take.
// Env HEAPREC_NODE_MODULES: where playwright-core is (default
// /work/main/third_party/js/node_modules). Nothing but the file may be loaded.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

function usage(msg) {
  if (msg) console.error("report_browser: " + msg);
  console.error("usage: node report_browser.mjs --html REPORT.html --expect EXPECT.json " +
    "[--screenshot OUT.png] [--perf] [--width PX] [--height PX]");
  process.exit(2);
}

const opt = { perf: false, width: 1280, height: 900 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => (i + 1 < argv.length ? argv[++i] : usage(a + " needs a value"));
  if (a === "--html") opt.html = val();
  else if (a === "--expect") opt.expect = val();
  else if (a === "--screenshot") opt.screenshot = val();
  else if (a === "--perf") opt.perf = true;
  else if (a === "--width") opt.width = +val();
  else if (a === "--height") opt.height = +val();
  else usage("unknown argument " + a);
}
if (!opt.html || !opt.expect) usage();

const modules = process.env.HEAPREC_NODE_MODULES || "/work/main/third_party/js/node_modules";
const require = createRequire(path.join(path.resolve(modules), "_"));
const { chromium } = require("playwright-core");

let expect;
try {
  expect = JSON.parse(fs.readFileSync(opt.expect, "utf8"));
} catch (e) {
  usage("cannot read " + opt.expect + ": " + e.message);
}
if (!fs.existsSync(opt.html)) usage("no such file: " + opt.html);
const fileUrl = pathToFileURL(path.resolve(opt.html)).href;

let failed = 0;
function check(what, ok, detail) {
  if (ok) console.log("ok " + what);
  else {
    failed++;
    console.log("FAIL " + what + (detail !== undefined && detail !== "" ? ": " + detail : ""));
  }
  return ok;
}

// Polls fn (in Node) until it returns a truthy value or the time is up.
async function until(fn, ms = 4000) {
  const end = Date.now() + ms;
  let v;
  for (;;) {
    v = await fn();
    if (v || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// What each call tree row should hold, from sites of heapreplay --json:
// [{bytes, count, stack: [{fn, alloc}]}], stack innermost frame first, fn
// as the page names frames. A stack's "via" is its first frame, innermost
// first, outside the allocator; a function's occurrence that counts is its
// outermost in the stack (once per stack, as the page's trees do).
//   down(path, anchor)  a top-down row (anchor null) or a callees row of
//                       function `anchor`: path of names from the root row
//   up(path)            a bottom-up or callers row: [function, caller, ...]
//   fn(name)            a function's self, total and calls
// Each returns {total, self, calls} (bytes, bytes, count) of the stacks.
function treeExpect(sites) {
  const S = sites.filter((s) => s.bytes > 0).map((s) => {
    let via = s.stack.findIndex((f) => !f.alloc);
    if (via < 0) via = 0;
    return { bytes: s.bytes, count: s.count, fns: s.stack.map((f) => f.fn).reverse(), via: s.stack.length - 1 - via };
  });
  const sum = (pick) => {
    const out = { total: 0, self: 0, calls: 0 };
    for (const st of S) {
      const r = pick(st);
      if (!r) continue;
      out.total += st.bytes;
      out.calls += st.count;
      if (r.self) out.self += st.bytes;
    }
    return out;
  };
  return {
    down: (path, anchor) => sum((st) => {
      const k = anchor === null ? 0 : st.fns.indexOf(anchor);
      if (k < 0 || k + path.length > st.fns.length) return null;
      for (let i = 0; i < path.length; i++) if (st.fns[k + i] !== path[i]) return null;
      return { self: st.via === k + path.length - 1 };
    }),
    up: (path) => sum((st) => {
      const k = st.fns.indexOf(path[0]);
      if (k < 0 || k - (path.length - 1) < 0) return null;
      for (let i = 1; i < path.length; i++) if (st.fns[k - i] !== path[i]) return null;
      return { self: st.fns[st.via] === path[0] };
    }),
    fn: (name) => sum((st) => (st.fns.includes(name) ? { self: st.fns[st.via] === name } : null)),
  };
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const errors = [];
const requests = [];
try {
  const context = await browser.newContext({ viewport: { width: opt.width, height: opt.height } });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push("page error: " + e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push("console error: " + m.text());
  });
  page.on("request", (r) => {
    if (r.url() !== fileUrl) requests.push(r.url());
  });
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (u === fileUrl) return route.continue();
    requests.push(u);
    return route.abort();
  });

  const t0 = Date.now();
  await page.goto(fileUrl, { waitUntil: "load", timeout: 120000 });
  await page.waitForFunction(() => window.heaprecPage && (window.heaprecPage.ready || window.heaprecPage.error),
    null, { timeout: 120000 }).catch(() => {});
  const loaded = await page.evaluate(() => ({
    ready: !!(window.heaprecPage && window.heaprecPage.ready),
    error: window.heaprecPage ? window.heaprecPage.error : "no window.heaprecPage",
    loadMs: window.heaprecPage ? window.heaprecPage.loadMs : null,
  }));
  if (!check("page renders (" + (loaded.loadMs !== null ? loaded.loadMs.toFixed(0) + " ms in the page, " : "") +
      (Date.now() - t0) + " ms in all)", loaded.ready, loaded.error)) {
    throw new Error("stop");
  }

  // The raw number behind a shown one: `within`'s [data-key=key] data-value.
  const checkValues = async (what, within, wanted) => {
    for (const [key, want] of Object.entries(wanted || {})) {
      const got = await page.evaluate(([w, k]) => {
        const el = document.querySelector(w + " [data-key=" + CSS.escape(k) + "]");
        return el ? el.dataset.value : null;
      }, [within, key]);
      check(what + " " + key + " = " + want, got !== null && Number(got) === Number(want), "page shows " + got);
    }
  };

  // Header numbers.
  await checkValues("summary", "#summary", expect.summary);
  for (const [key, want] of Object.entries(expect.summary_text || {})) {
    const got = await page.evaluate((k) => {
      const el = document.querySelector("#summary [data-key=" + CSS.escape(k) + "]");
      return el ? el.textContent : null;
    }, key);
    check("summary " + key + " shows '" + want + "'", got !== null && got.includes(want),
      "page shows " + JSON.stringify(got));
  }

  // The view the page opens on, before any click.
  if (expect.first_view) {
    const got = await page.evaluate(() => ({ view: window.heaprecPage.state().view,
      why: document.querySelector("#flame-why").textContent,
      active: (document.querySelector("#flame-tabs button.active") || {}).dataset }));
    check("the page opens on the " + expect.first_view + " view (" + got.why + ")",
      got.view === expect.first_view && got.active && got.active.view === expect.first_view && got.why.length > 0,
      JSON.stringify(got));
  }

  // Icicle first; the toggle flips the root below its children and back.
  const rootAboveChild = () => page.evaluate(() => {
    const gs = Array.from(document.querySelectorAll("#flame svg g.frame"));
    const root = gs.find((g) => g.getAttribute("name") === "all");
    if (!root) return null;
    const top = (g) => g.querySelector("rect").getBoundingClientRect().top;
    const child = gs.find((g) => g !== root && Math.abs(top(g) - top(root)) > 1);
    return child ? top(root) < top(child) : null;
  });
  if (expect.orientation) {
    check("the graph opens as an icicle (root at the top)", (await rootAboveChild()) === true &&
      (await page.evaluate(() => window.heaprecPage.state().orient)) === "icicle");
    await page.locator("#flame-orient button[data-orient=flame]").click();
    check("Flame draws the root at the bottom", (await until(async () => (await rootAboveChild()) === false)) &&
      (await page.locator("#flame-orient button[data-orient=flame]").getAttribute("aria-pressed")) === "true");
    await page.locator("#flame-orient button[data-orient=icicle]").click();
    check("Icicle brings the root back to the top", await until(async () => (await rootAboveChild()) === true));
  }
  if (expect.fits) {
    const h = await page.evaluate(() => document.querySelector("#flame svg").getBoundingClientRect().height);
    check("the flame graph (" + h.toFixed(0) + " px) fits the window (" + opt.height + " px)", h <= opt.height);
  }
  if (expect.depth) {
    const depth = () => page.evaluate(() => window.heaprecPage.state().depth);
    const d0 = await depth();
    check("a deep tree is drawn to a depth that fits (" + JSON.stringify(d0) + ")",
      d0 && d0.drawn < d0.all && (await page.locator("#flame-depth").isVisible()));
    await page.locator("#flame-deeper").click();
    const d1 = await depth();
    check("'deeper' draws more levels (" + JSON.stringify(d1) + ")", d1.drawn > d0.drawn);
    // Still not every level: "All levels" draws the rest.
    if (await page.locator("#flame-depth").isVisible()) await page.locator("#flame-all-levels").click();
    const d2 = await depth();
    check("'All levels' draws them all (" + JSON.stringify(d2) + ")", d2.drawn === d2.all &&
      !(await page.locator("#flame-depth").isVisible()));
  }
  // The worst contrast (WCAG 2) between a drawn label and its box, the box's
  // fill blended at its opacity over the white page.
  const worstContrast = () => page.evaluate(() => {
    const channels = (css) => css.match(/[0-9.]+/g).map(Number);
    const luminance = (rgb) => {
      const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
    };
    let worst = Infinity, where = "";
    for (const g of document.querySelectorAll("#flame svg g.frame")) {
      const label = g.querySelector(".d3-flame-graph-label");
      if (!label || getComputedStyle(label).display === "none" || !label.textContent) continue;
      const style = getComputedStyle(g.querySelector("rect"));
      const op = Number(style.fillOpacity || 1);
      const box = luminance(channels(style.fill).slice(0, 3).map((c) => op * c + (1 - op) * 255));
      const text = luminance(channels(getComputedStyle(label).color));
      const ratio = (Math.max(box, text) + 0.05) / (Math.min(box, text) + 0.05);
      if (ratio < worst) { worst = ratio; where = g.getAttribute("name") + " on " + style.fill; }
    }
    return { worst, where };
  });
  if (expect.labels) {
    const c = await worstContrast();
    check("every flame label reads on its box (worst contrast " + c.worst.toFixed(2) + ", " + c.where + ")",
      c.worst >= 4.5);
  }

  const internalWords = () => page.evaluate(() => (document.body.innerText.match(/[^\n]*\bbuckets?\b[^\n]*/i) || [""])[0]);
  if (expect.no_internal_words) {
    const w = await internalWords();
    check("no internal words on the page", !w, w);
  }

  // A stretch without events: the live heap line is flat at `bytes`.
  if (expect.steps) {
    const st = expect.steps;
    await page.locator("#heap-chart").scrollIntoViewIfNeeded();
    // The y (viewport px) of the live heap line (its solid blue) at viewport x.
    const lineY = (x) => page.evaluate((cx) => {
      const canvas = document.querySelector("#heap-chart canvas");
      const r = canvas.getBoundingClientRect(), k = canvas.width / r.width;
      const px = Math.round((cx - r.left) * k);
      const data = canvas.getContext("2d").getImageData(px, 0, 1, canvas.height).data;
      const ys = [];
      for (let y = 0; y < canvas.height; y++) {
        const [red, green, blue, alpha] = data.slice(4 * y, 4 * y + 4);
        if (alpha > 200 && red < 90 && green < 150 && blue > 190) ys.push(y);
      }
      return ys.length ? r.top + ys[ys.length >> 1] / k : null;
    }, x);
    const span = st.to_ns - st.from_ns;
    // The chart draws on an animation frame: on a loaded machine the first
    // look may come before it; look again for up to 5 s before judging.
    let at = [], want = 0;
    for (let tries = 0; tries < 20; tries++) {
      if (tries > 0) await page.waitForTimeout(250);
      at = [];
      for (const f of [0.1, 0.5, 0.9]) {
        const x = await page.evaluate((ns) => window.heaprecPage.timeToClientX(ns), st.from_ns + f * span);
        at.push(await lineY(x));
      }
      want = await page.evaluate((b) => window.heaprecPage.bytesToClientY(b), st.bytes);
      if (at.every((y) => y !== null && Math.abs(y - want) <= 2.5)) break;
    }
    check("the heap line is flat across a stretch without events (y " + JSON.stringify(at.map((y) => y && +y.toFixed(1))) +
      ", " + st.bytes + " bytes at " + want.toFixed(1) + ")",
      at.every((y) => y !== null && Math.abs(y - want) <= 2.5));
  }

  // Rows and headers from the keyboard.
  if (expect.keyboard) {
    await page.locator("#table-tabs button[data-table=leaks]").click();
    const row = page.locator("#table-leaks tr.site").first();
    const node = await row.getAttribute("data-node");
    const rowState = () => page.evaluate((n) => {
      const tr = document.querySelector('#table-leaks tr.site[data-node="' + n + '"]');
      const next = tr.nextElementSibling;
      return { open: tr.getAttribute("aria-expanded") === "true" && !!next && next.classList.contains("stack-row"),
        focused: document.activeElement === tr, scrollY: window.scrollY };
    }, node);
    await row.focus();
    const s0 = await rowState();
    await page.keyboard.press("Enter");
    const s1 = await rowState();
    check("Enter on a focused row opens its stack, focus kept", !s0.open && s1.open && s1.focused, JSON.stringify([s0, s1]));
    await page.keyboard.press(" ");
    const s2 = await rowState();
    check("Space closes it, without scrolling the page", !s2.open && s2.focused && s2.scrollY === s1.scrollY,
      JSON.stringify(s2));
    const th = page.locator("#table-leaks th[data-col=function]");
    await th.focus();
    await page.keyboard.press("Enter");
    const sorted = await page.evaluate(() => {
      const h = document.querySelector("#table-leaks th[data-col=function]");
      return h.getAttribute("aria-sort") + (document.activeElement === h ? ", focused" : "");
    });
    check("Enter on a column header sorts by it (" + sorted + ")", sorted === "ascending, focused");
  }

  // A flame graph view: click a box to zoom, then reset.
  const view = expect.flame_view || "leaks";
  await page.locator("#flame-tabs button[data-view=" + view + "]").click();
  check("flame tab " + view + " is shown", await page.evaluate((v) =>
    document.querySelector("#flame-tabs button[data-view=" + v + "]").classList.contains("active") &&
    window.heaprecPage.state().view === v, view));
  if (expect.flame_click) {
    const name = expect.flame_click;
    // Let the graph's transitions settle: two equal readings of its boxes.
    const boxWidths = () => page.evaluate(() => Array.from(document.querySelectorAll("#flame svg rect"))
      .map((r) => r.getBoundingClientRect().width.toFixed(1)).join());
    let last = null;
    await until(async () => {
      await new Promise((r) => setTimeout(r, 150));
      const now = await boxWidths();
      const settled = now === last && /[1-9]/.test(now);
      last = now;
      return settled;
    }, 8000);
    // The widest box of that name.
    const box = await page.evaluate((n) => {
      const gs = Array.from(document.querySelectorAll("#flame svg g")).filter((g) => g.getAttribute("name") === n);
      let best = -1, width = -1;
      gs.forEach((g, i) => {
        const w = g.querySelector("rect").getBoundingClientRect().width;
        if (w > width) { best = i; width = w; }
      });
      if (best < 0) return null;
      gs.forEach((g, i) => g.toggleAttribute("data-test-target", i === best));
      return { width, svg: document.querySelector("#flame svg").getBoundingClientRect().width };
    }, name);
    if (check("flame box " + name + " exists", !!box)) {
      const target = page.locator("#flame svg g[data-test-target]");
      await target.locator("rect").click();
      const rectWidth = () => page.evaluate(() =>
        document.querySelector("#flame svg g[data-test-target] rect").getBoundingClientRect().width);
      const zoomed = await until(async () => Math.abs((await rectWidth()) - box.svg) < 1.5);
      check("click on " + name + " zooms it to the full width (" + (await rectWidth()).toFixed(1) + " of " +
        box.svg.toFixed(1) + " px)", zoomed);
      check("#flame-reset is enabled when zoomed", await page.locator("#flame-reset").isEnabled());
      await page.locator("#flame-reset").click();
      const back = await until(async () => Math.abs((await rectWidth()) - box.width) < 1.5);
      check("reset zoom brings " + name + " back to " + box.width.toFixed(1) + " px", back,
        "now " + (await rectWidth()).toFixed(1));
    }
  }

  // Search.
  if (expect.search) {
    await page.locator("#flame-search").click();
    await page.keyboard.type(expect.search, { delay: 20 });
    const highlighted = () => page.evaluate(() => Array.from(document.querySelectorAll("#flame svg rect"))
      .filter((r) => (r.getAttribute("fill") || "").toLowerCase() === "#e600e6").length);
    await until(async () => (await highlighted()) > 0);
    const n = await highlighted();
    check("search '" + expect.search + "' highlights boxes (" + n + ")", n > 0);
    if (expect.labels) {
      const c = await worstContrast();
      check("labels read on highlighted boxes too (worst contrast " + c.worst.toFixed(2) + ", " + c.where + ")",
        c.worst >= 4.5);
    }
    const matched = await until(() => page.evaluate(() => {
      const el = document.querySelector("#flame-matched");
      return el.textContent ? { text: el.textContent, value: Number(el.dataset.value || 0),
        base: Number(el.dataset.base || 0) } : null;
    }));
    check("#flame-matched reports a non-zero amount (" + (matched ? matched.text : "nothing") + ")",
      !!matched && (matched.value > 0 || matched.base > 0));
    await page.locator("#flame-search").fill("");
    await until(() => page.evaluate(() => !document.querySelector("#flame-matched").textContent));
  }

  // The function table of the view shown.
  if (expect.functions) {
    const fx = expect.functions;
    await page.locator("#table-tabs button[data-table=functions]").click();
    const rows = await page.evaluate(() => Object.fromEntries(Array.from(
      document.querySelectorAll("#table-functions tr.function")).map((tr) =>
      [tr.dataset.function, [Number(tr.dataset.flat), Number(tr.dataset.cum)]])));
    for (const [fn, want] of Object.entries(fx.rows)) {
      check("Functions (" + view + "): " + fn + " flat " + want[0] + ", cum " + want[1],
        JSON.stringify(rows[fn]) === JSON.stringify(want), "page shows " + JSON.stringify(rows[fn]));
    }
    await page.locator("#flame-tabs button[data-view=allocated]").click();
    const other = await page.evaluate(() => ({ table: window.heaprecPage.state().table,
      visible: !document.querySelector("#table-functions").hidden,
      what: (document.querySelector("#table-functions .what") || {}).textContent }));
    check("Functions stays when another view is picked (" + other.what + ")",
      other.table === "functions" && other.visible && /allocated bytes/.test(other.what || ""), JSON.stringify(other));
    await page.locator("#flame-tabs button[data-view=" + view + "]").click();
    if (fx.pick) {
      await page.locator("#table-functions tr.function", { has: page.locator("td.fn", { hasText: fx.pick }) })
        .first().click();
      const picked = await until(() => page.evaluate(() => ({ search: document.querySelector("#flame-search").value,
        matched: document.querySelector("#flame-matched").textContent })).then((x) => (x.matched ? x : null)));
      check("a click on " + fx.pick + " searches the flame graph for it (" + (picked ? picked.matched : "nothing") + ")",
        !!picked && picked.search === fx.pick);
      await page.locator("#flame-search").fill("");
      await page.locator("#flame-search").dispatchEvent("input");
      await until(() => page.evaluate(() => !document.querySelector("#flame-matched").textContent));
    }
  }

  const leakFunctions = async () => {
    await page.locator("#table-tabs button[data-table=leaks]").click();
    // Show every row.
    for (let i = 0; i < 1000; i++) {
      const more = page.locator("#table-leaks .show-more");
      if (!(await more.count())) break;
      await more.click();
    }
    return page.evaluate(() => Array.from(document.querySelectorAll("#table-leaks tr.site"))
      .map((tr) => tr.dataset.function));
  };

  // The range label once a range is selected (null if none comes).
  const rangeLabel = () => until(() => page.evaluate(() => {
    const el = document.querySelector("#range-label");
    return el && !el.hidden && window.heaprecPage.state().range ? el.textContent : null;
  }));
  // The leak table's rows hold every function of `present`, none of `absent`.
  const checkLeakRows = async (what, present, absent) => {
    const fns = await leakFunctions();
    for (const f of present || []) {
      check(what + ": #table-leaks has " + f, fns.includes(f), "rows: " + JSON.stringify(fns));
    }
    for (const f of absent || []) {
      check(what + ": #table-leaks has no " + f, !fns.includes(f), "rows: " + JSON.stringify(fns));
    }
  };
  const clearRange = async () => {
    await page.locator("#range-clear").click();
    return until(() => page.evaluate(() =>
      document.querySelector("#range-label").hidden && window.heaprecPage.state().range === null));
  };

  // A time range dragged on the heap chart, then Clear.
  if (expect.range) {
    const r = expect.range;
    await page.locator("#heap-chart").scrollIntoViewIfNeeded();
    const pos = await page.evaluate(([a, b]) => ({
      x0: window.heaprecPage.timeToClientX(a), x1: window.heaprecPage.timeToClientX(b),
      y: window.heaprecPage.chartClientY() }), [r.from_ns, r.to_ns]);
    await page.mouse.move(pos.x0, pos.y);
    await page.mouse.down();
    await page.mouse.move(pos.x1, pos.y, { steps: 12 });
    await page.mouse.up();
    const label = await rangeLabel();
    check("dragging " + r.from_ns + " \u2013 " + r.to_ns + " ns selects a range (" + (label || "no label") + ")", !!label);
    if (expect.no_internal_words) {
      const w = await internalWords();
      check("no internal words with a range selected", !w, w);
    }
    await checkValues("range total", "#view-totals", r.totals);
    await checkLeakRows("range", r.leaks_present, r.leaks_absent);
    check("Clear removes the range", await clearRange());
  }
  if (expect.marker_range) {
    const r = expect.marker_range;
    const button = page.locator("[data-quick]", { hasText: r.label });
    check("quick range button '" + r.label + "' exists", (await button.count()) === 1);
    if ((await button.count()) === 1) {
      await button.click();
      const label = await rangeLabel();
      check("'" + r.label + "' selects a range (" + (label || "no label") + ")", !!label);
      await checkLeakRows("'" + r.label + "'", r.leaks_present, r.leaks_absent);
      check("Clear removes '" + r.label + "'", await clearRange());
    }
  }
  if (expect.leaks_all) {
    const fns = await leakFunctions();
    for (const f of expect.leaks_all) {
      check("whole trace: #table-leaks has " + f, fns.includes(f), "rows: " + JSON.stringify(fns));
    }
  }

  // The call trees (top-down, bottom-up, callers/callees) against the sites
  // of heapreplay --json for each view: every row shown holds what the
  // stacks say (treeExpect, below); rows open by click and by keyboard; the
  // search filters; the callers/callees view opens from the flame graph.
  if (expect.trees) {
    const tx = expect.trees;
    const panelRows = (tree) => page.evaluate((t) => {
      const panel = document.querySelector('#calltree-section .ctree-panel[data-tree="' + t.panel + '"]');
      const box = t.part ? panel.querySelector(".sw-" + t.part) : panel;
      const rows = Array.from(box.querySelectorAll(".ctree-row")).sort((a, b) => a.dataset.i - b.dataset.i);
      const path = [];
      return rows.map((r) => {
        const d = +r.dataset.depth;
        path.length = d;
        path.push(r.dataset.function);
        return { path: path.slice(), i: +r.dataset.i, total: +r.dataset.total, self: +r.dataset.self,
          calls: +r.dataset.calls, expanded: r.getAttribute("aria-expanded"), match: r.classList.contains("match") };
      });
    }, tree);
    // Checks every row of a tree against `want(path)`.
    const checkRows = async (what, tree, want, withCalls) => {
      const rows = await panelRows(tree);
      const bad = rows.filter((r) => {
        const w = want(r.path);
        return w.total !== r.total || w.self !== r.self || (withCalls && w.calls !== r.calls);
      }).map((r) => ({ path: r.path.join(" > "), page: [r.total, r.self, r.calls], json: want(r.path) }));
      check(what + ": " + rows.length + " rows hold what heapreplay --json's stacks say", rows.length > 0 && !bad.length,
        JSON.stringify(bad.slice(0, 3)));
      return rows;
    };
    const treeTab = async (name) => {
      await page.locator('#calltree-section button[data-tree="' + name + '"]').click();
      await until(() => page.evaluate((n) => window.heaprecPage.state().trees.tab === n, name));
    };
    const setView = async (v) => {
      await page.locator("#flame-tabs button[data-view=" + v + "]").click();
      await until(() => page.evaluate((x) => window.heaprecPage.state().view === x, v));
    };
    const TOP = { panel: "top" }, BOTTOM = { panel: "bottom" };
    const CALLERS = { panel: "sandwich", part: "callers" }, CALLEES = { panel: "sandwich", part: "callees" };

    for (const [vi, vw] of tx.views.entries()) {
      const want = treeExpect(vw.sites);
      await setView(vw.view);
      await treeTab("top");
      await checkRows("top-down (" + vw.view + ")", TOP, (p) => want.down(p, null), vw.calls);
      await treeTab("bottom");
      await checkRows("bottom-up (" + vw.view + ")", BOTTOM, (p) => want.up(p), vw.calls);
      if (vi > 0) continue;

      // Bottom-up: the first root opens with the keyboard (its callers).
      const body = (t) => page.locator('#calltree-section .ctree-panel[data-tree="' + t + '"] .ctree-body');
      await body("bottom").focus();
      await page.keyboard.press("Home");
      await page.keyboard.press("ArrowRight");
      const bu = await checkRows("bottom-up, first root opened with the right arrow", BOTTOM, (p) => want.up(p), vw.calls);
      check("the right arrow opened the first bottom-up root (" + bu.length + " rows)",
        bu.length > 1 && bu[0].expanded === "true" && bu[1].path.length === 2);

      // Top-down: a row opens and closes by click, and from the keyboard.
      await treeTab("top");
      let rows = await panelRows(TOP);
      const closed = rows.find((r) => r.expanded === "false");
      const target = closed || rows.filter((r) => r.expanded === "true").pop();
      if (check("top-down has a row with children", !!target)) {
        const rowLoc = () => page.locator('#calltree-section .ctree-panel[data-tree="top"] .ctree-row[data-i="' +
          target.i + '"]');
        const state = async () => (await rowLoc().getAttribute("aria-expanded"));
        const count = async () => (await panelRows(TOP)).length;
        const n0 = await count(), s0 = await state();
        await rowLoc().click();
        const n1 = await count(), s1 = await state();
        check("a click " + (s0 === "false" ? "opens" : "closes") + " row " + target.path.join(" > ") + " (" + n0 +
          " \u2192 " + n1 + " rows)", s1 !== s0 && (s0 === "false" ? n1 > n0 : n1 < n0));
        await rowLoc().click();
        check("a second click brings it back", (await state()) === s0 && (await count()) === n0);
        await checkRows("top-down after clicks", TOP, (p) => want.down(p, null), vw.calls);
        // Keyboard: Home, Down to the row, Left/Right, Enter, Right to the first child, Left to the parent.
        await body("top").focus();
        await page.keyboard.press("Home");
        for (let i = 0; i < target.i; i++) await page.keyboard.press("ArrowDown");
        const activeRow = () => page.evaluate(() => {
          const b = document.querySelector('#calltree-section .ctree-panel[data-tree="top"] .ctree-body');
          const r = document.getElementById(b.getAttribute("aria-activedescendant") || "");
          return r ? { i: +r.dataset.i, depth: +r.dataset.depth, expanded: r.getAttribute("aria-expanded"),
            focused: document.activeElement === b } : null;
        });
        let a = await activeRow();
        check("Home and the down arrow reach row " + target.i + " (" + JSON.stringify(a) + ")",
          !!a && a.i === target.i && a.focused);
        await page.keyboard.press(s0 === "false" ? "ArrowRight" : "ArrowLeft");
        a = await activeRow();
        check((s0 === "false" ? "the right arrow opens" : "the left arrow closes") + " the row",
          !!a && a.expanded !== s0 && (await count()) !== n0, JSON.stringify(a));
        await page.keyboard.press("Enter");
        a = await activeRow();
        check("Enter toggles it back", !!a && a.expanded === s0 && (await count()) === n0, JSON.stringify(a));
        if (s0 === "false") await page.keyboard.press("Enter");
        await page.keyboard.press("ArrowRight");
        a = await activeRow();
        check("the right arrow on an open row moves to its first child", !!a && a.i === target.i + 1 &&
          a.depth === target.path.length, JSON.stringify(a));
        await page.keyboard.press("ArrowLeft");
        a = await activeRow();
        check("the left arrow on a closed child moves to its parent", !!a && a.i === target.i, JSON.stringify(a));
        await checkRows("top-down after the keyboard", TOP, (p) => want.down(p, null), vw.calls);
      }

      // Search: only stacks through a matching function; the rows open down to it.
      if (tx.search) {
        const term = tx.search.toLowerCase();
        const only = treeExpect(vw.sites.filter((s) => s.stack.some((f) => f.fn.toLowerCase().includes(term))));
        await page.locator("#calltree-section .ctree-search").fill(tx.search);
        await until(() => page.evaluate((t) => window.heaprecPage.state().trees.term === t, tx.search));
        rows = await checkRows("top-down searched for '" + tx.search + "'", TOP, (p) => only.down(p, null), vw.calls);
        check("the search opens the rows down to a match", rows.some((r) => r.match));
        await treeTab("bottom");
        await checkRows("bottom-up searched for '" + tx.search + "'", BOTTOM, (p) => only.up(p), vw.calls);
        await page.locator("#calltree-section .ctree-search").fill("");
        await until(() => page.evaluate(() => window.heaprecPage.state().trees.term === ""));
        await treeTab("top");
      }

      // The callers/callees view of a function, from a right-click on its
      // flame graph box, and from the button of a zoomed box.
      const checkSandwich = async (how, fn) => {
        const got = await until(() => page.evaluate((f) => {
          const s = window.heaprecPage.state().trees;
          if (s.tab !== "sandwich" || s.sandwich !== f) return null;
          const v = (k) => Number(document.querySelector("#calltree-section [data-key=" + k + "]").dataset.value);
          return { self: v("sw-self"), total: v("sw-total"), calls: v("sw-calls") };
        }, fn));
        const w = want.fn(fn);
        check(how + " opens the callers/callees of " + fn + " (self " + (got && got.self) + ", total " +
          (got && got.total) + ", calls " + (got && got.calls) + ")", !!got && got.self === w.self &&
          got.total === w.total && (!vw.calls || got.calls === w.calls), JSON.stringify({ page: got, json: w }));
        await checkRows("callers of " + fn, CALLERS, (p) => want.up(p), vw.calls);
        await checkRows("callees of " + fn, CALLEES, (p) => want.down(p, fn), vw.calls);
      };
      if (tx.sandwich) {
        await page.locator("#flame").scrollIntoViewIfNeeded();
        const box = page.locator('#flame svg g.frame[name="' + tx.sandwich + '"] rect').first();
        await box.click({ button: "right" });
        const item = page.locator(".ctx-menu button");
        if (check("a right-click on flame box " + tx.sandwich + " opens a menu", await until(async () =>
          (await item.count()) === 1))) {
          await item.click();
          await checkSandwich("the menu", tx.sandwich);
        }
        check("the flame graph is not zoomed by the right-click", await page.locator("#flame-reset").isDisabled());
      }
      if (tx.zoom_sandwich) {
        await page.locator("#flame").scrollIntoViewIfNeeded();
        await page.locator('#flame svg g.frame[name="' + tx.zoom_sandwich + '"] rect').first().click();
        check("a click still zooms the flame graph", await until(() => page.locator("#flame-reset").isEnabled()));
        await page.locator("#flame-sandwich").click();
        await checkSandwich("#flame-sandwich of the zoomed box", tx.zoom_sandwich);
        await page.locator("#flame-reset").click();
        check("#flame-sandwich is off once the zoom is reset", await until(() => page.locator("#flame-sandwich").isDisabled()));
      }
    }

    // The trees follow the range: the top-down roots hold the range's total.
    if (expect.range && tx.views.length) {
      const r = expect.range, vw = tx.views[0];
      await setView(vw.view);
      await treeTab("top");
      const key = { leaks: "leaked_bytes", allocated: "bytes_allocated", calls: "allocations",
        temporaries: "temporaries", peak: "peak_bytes" }[vw.view];
      const whole = (await panelRows(TOP)).filter((x) => x.path.length === 1).reduce((s, x) => s + x.total, 0);
      await page.evaluate(([a, b]) => window.heaprecPage.selectTime(a, b), [r.from_ns, r.to_ns]);
      const got = await until(async () => {
        const rows = await panelRows(TOP);
        const sum = rows.filter((x) => x.path.length === 1).reduce((s, x) => s + x.total, 0);
        const want = await page.evaluate((k) => Number(document.querySelector("#view-totals [data-key=" + k + "]")
          .dataset.value), key);
        return sum === want && sum !== whole ? { sum, want } : null;
      });
      check("the top-down tree follows the range (" + JSON.stringify(got) + ", whole trace " + whole + ")", !!got);
      check("Clear removes the range (trees)", await clearRange());
    }
  }

  // Each site row names its innermost function and its "via" frame.
  if (expect.sites_via) {
    const t = expect.sites_via.table;
    await page.locator("#table-tabs button[data-table=" + t + "]").click();
    const rows = await page.evaluate((name) => Array.from(document.querySelectorAll("#table-" + name + " tr.site"))
      .map((tr) => [tr.dataset.function, tr.dataset.via,
        tr.querySelector("td.via") ? tr.querySelector("td.via").textContent : null]), t);
    const key = (r) => r[0] + " via " + r[1];
    const got = rows.map(key).sort(), want = expect.sites_via.rows.map(key).sort();
    check("#table-" + t + " rows by function and via: " + JSON.stringify(want),
      JSON.stringify(got) === JSON.stringify(want), JSON.stringify(got));
    check("#table-" + t + " shows each via in its column", rows.every((r) => r[1] === r[2]), JSON.stringify(rows));
  }

  // Difference against a base.
  if (expect.diff) {
    const toggle = page.locator("#diff-toggle");
    if (check("#diff-toggle exists", (await toggle.count()) === 1 && (await toggle.isVisible()))) {
      await page.locator("#table-tabs button[data-table=leaks]").click();
      const changeColumn = () => page.locator("#table-leaks th[data-col=change]").count();
      check("difference mode is on at the start", await toggle.isChecked());
      check("#table-leaks shows the change column", (await changeColumn()) === 1);
      await toggle.click();
      check("toggling off shows this trace alone (no change column)",
        await until(async () => (await changeColumn()) === 0));
      await toggle.click();
      check("toggling on brings the change column back", await until(async () => (await changeColumn()) === 1));
    }
  }

  // Allocator comparison.
  if (Array.isArray(expect.bench)) {
    check("#bench-section is shown", await page.locator("#bench-section").isVisible());
    for (const name of expect.bench) {
      const n = await page.locator("#bench-table tbody tr")
        .evaluateAll((trs, nm) => trs.filter((tr) => tr.dataset.name === nm).length, name);
      check("#bench-table has a row for " + name, n === 1, n + " rows");
      const spread = await page.locator("#bench-table tbody tr").evaluateAll((trs, nm) => {
        const tr = trs.find((x) => x.dataset.name === nm);
        const sp = tr && tr.querySelector("td .spread");
        if (!sp) return null;
        const d = sp.dataset;
        return { text: sp.textContent, want: "\u00b1" + Math.round((100 * (d.max - d.min)) / d.median) + "%" };
      }, name);
      check("#bench-table shows " + name + "'s run-to-run spread (" + (spread ? spread.text : "none") + ")",
        !!spread && spread.text === spread.want, JSON.stringify(spread));
    }
    // Each allocator but the first (glibc) against it, with the note on what
    // a replay cannot see.
    for (const name of expect.bench.slice(1)) {
      const cells = await page.locator("#bench-diff-table tbody tr")
        .evaluateAll((trs, nm) => trs.filter((tr) => tr.dataset.name === nm)
          .map((tr) => tr.querySelector("td").textContent), name);
      check("#bench-diff-table has a row for " + name + " with its wall difference",
        cells.length === 1 && /^[+-]?[0-9.]+ [a-z\u00b5]+/.test(cells[0]), JSON.stringify(cells));
    }
    const note = await page.locator("#bench-diff-note").textContent();
    check("#bench-diff-note says what a replay cannot see",
      note.includes("cannot see") && note.includes("heaprec --compare-allocators"), note);
  } else if ("bench" in expect && expect.bench === null) {
    check("#bench-section is hidden without bench data", !(await page.locator("#bench-section").isVisible()));
  }

  // The chart by call stack (the heap chart's other tab): its bands against
  // heapreplay's numbers, under the cursor, in a range, and for a function
  // picked in a table (with the mouse and from the keyboard).
  if (expect.sites) {
    const x = expect.sites;
    const sites = () => page.evaluate(() => window.heaprecPage.sites());
    const legendTotal = () => page.evaluate(() => {
      const el = document.querySelector('#sites-legend tr[data-band=total] [data-key=live]');
      return el ? Number(el.dataset.value) : null;
    });
    await page.locator("#chart-tabs button[data-chart=sites]").click();
    const shown = await page.evaluate(() => ({ heap: !document.querySelector("#heap-chart").hidden,
      sites: !document.querySelector("#sites-chart").hidden && !!document.querySelector("#sites-chart canvas") }));
    check("'By call stack' shows the chart by call stack instead of the heap chart", shown.sites && !shown.heap,
      JSON.stringify(shown));
    let st = await sites();
    const atPeak = Object.fromEntries(st.bands.filter((b) => b.live).map((b) => [b.function, b.live]));
    check("at the peak the bands add up to the peak, " + x.peak_bytes + " (" + st.total + ", legend " +
      (await legendTotal()) + ")", st.total === x.peak_bytes && (await legendTotal()) === x.peak_bytes &&
      st.time_ns === x.peak_time_ns && st.other === null, JSON.stringify(st));
    check("each band at the peak holds what heapreplay --peak --json says: " + JSON.stringify(x.at_peak),
      JSON.stringify(atPeak, Object.keys(x.at_peak).sort()) === JSON.stringify(x.at_peak, Object.keys(x.at_peak).sort()) &&
      Object.keys(atPeak).length === Object.keys(x.at_peak).length, JSON.stringify(atPeak));
    // Under the cursor: the live bytes heapreplay --timeline gives then.
    await page.locator("#sites-chart").scrollIntoViewIfNeeded();
    for (const h of x.hover || []) {
      const pos = await page.evaluate((ns) => ({ x: window.heaprecPage.sitesTimeToClientX(ns),
        y: window.heaprecPage.sitesClientY() }), h.ns);
      await page.mouse.move(pos.x, pos.y);
      const got = await until(async () => {
        const v = await sites();
        return v.cursor ? v : null;
      });
      check("under the cursor at " + h.ns + " ns the bands add up to " + h.total + " (heapreplay --timeline)",
        !!got && got.total === h.total && (await legendTotal()) === h.total, JSON.stringify(got));
    }
    await page.mouse.move(0, 0);
    // A range: the selection drawn on this chart too, the legend at the range's peak.
    if (x.range_label) {
      await page.locator("[data-quick]", { hasText: x.range_label }).click();
      await rangeLabel();
      st = await sites();
      // The selection box covers where the range starts (it is at least 2 px wide).
      const sel = await page.evaluate(() => {
        const el = document.querySelector("#sites-chart .u-select");
        const r = el ? el.getBoundingClientRect() : { left: NaN, width: 0 };
        return { left: r.left, width: r.width, at: window.heaprecPage.sitesTimeToClientX(window.heaprecPage.state().range.t0) };
      });
      const rangePeak = await page.evaluate(() => Number(document.querySelector("#view-totals [data-key=peak_bytes]").dataset.value));
      check("a range is drawn on the chart by call stack (" + sel.width.toFixed(0) + " px at x " + sel.left.toFixed(0) +
        ") and its legend holds the range's peak (" + st.total + " of " + rangePeak + ")",
        sel.width >= 1.5 && sel.left - 1 <= sel.at && sel.at <= sel.left + sel.width + 1 && st.total === rangePeak && !st.cursor,
        JSON.stringify([sel, st]));
      check("Clear removes the range here too", await clearRange());
    }
    // A function from the Functions table, then a site row's "via" from the keyboard.
    if (x.function) {
      await page.locator("#flame-tabs button[data-view=peak]").click();
      await page.locator("#table-tabs button[data-table=functions]").click();
      await page.locator("#table-functions tr.function", { has: page.locator("td.fn", { hasText: x.function.name }) })
        .first().locator("button.chart-fn").click();
      st = await until(async () => {
        const v = await sites();
        return v.fn === x.function.name ? v : null;
      });
      check("the Functions table's chart button on " + x.function.name + " charts its stacks: " + x.function.at_peak +
        " at the peak", !!st && st.total === x.function.at_peak && st.heap === x.peak_bytes &&
        (await page.locator("#sites-head .fn-name").textContent()) === x.function.name, JSON.stringify(st));
      check("the table's search is not changed by the chart button",
        (await page.locator("#flame-search").inputValue()) === "");
    }
    if (x.row) {
      await page.locator("#table-tabs button[data-table=" + x.row.table + "]").click();
      const button = page.locator("#table-" + x.row.table + " tr.site[data-via=" + JSON.stringify(x.row.function) + "] button.chart-fn").first();
      await button.focus();
      await page.keyboard.press("Enter");
      st = await until(async () => {
        const v = await sites();
        return v.fn === x.row.function ? v : null;
      });
      const open = await page.locator("#table-" + x.row.table + " tr.site.open").count();
      check("Enter on a " + x.row.table + " row's chart button charts " + x.row.function + ": " + x.row.at_peak +
        " at the peak (the row stays closed)", !!st && st.total === x.row.at_peak && open === 0, JSON.stringify(st));
      await page.locator("#sites-head [data-action=all-stacks]").click();
      st = await sites();
      check("'All call stacks' brings every stack back", st.fn === null && st.total === x.peak_bytes, JSON.stringify(st));
    }
    await page.locator("#chart-tabs button[data-chart=heap]").click();
    check("'Live heap' brings the heap chart back", await page.evaluate(() =>
      !document.querySelector("#heap-chart").hidden && document.querySelector("#sites-chart").hidden));
  }

  // The leak kinds the leak views count: the default as heapreplay --leaks
  // shows them, then others (keyboard and mouse), with what holds the still
  // reachable blocks, as heapreplay --leaks --leak-kinds=all --json says.
  if (expect.leak_kinds) {
    const x = expect.leak_kinds;
    await page.locator("#flame-tabs button[data-view=leaks]").click();
    await page.locator("#table-tabs button[data-table=leaks]").click();
    const checked = () => page.evaluate(() => Array.from(document.querySelectorAll("#leak-kinds label.kind"))
      .filter((l) => l.querySelector("input").checked).map((l) => l.dataset.kind));
    const leaked = () => page.evaluate(() => Number(document.querySelector("#view-totals [data-key=leaked_bytes]").dataset.value));
    const flat = () => page.evaluate(() => Array.from(document.querySelectorAll("#table-functions tr.function"))
      .reduce((a, tr) => a + Number(tr.dataset.flat), 0));
    const sum = (kinds) => kinds.reduce((a, k) => a + x.totals[k], 0);
    check("the kinds checked are heapreplay's: " + x.checked.join(","),
      JSON.stringify(await checked()) === JSON.stringify(x.checked), JSON.stringify(await checked()));
    check("leaked at first: " + sum(x.checked) + " bytes", (await leaked()) === sum(x.checked), String(await leaked()));
    // Still reachable from the keyboard.
    await page.locator("#leak-kinds input[data-kind='4']").focus();
    await page.keyboard.press(" ");
    const withReachable = x.checked.concat(["reachable"]);
    await until(async () => (await leaked()) === sum(withReachable));
    check("Space on 'still reachable' adds its " + x.totals.reachable + " bytes (" + (await leaked()) + ")",
      (await leaked()) === sum(withReachable));
    const tab = await page.evaluate(() => document.querySelector("#flame-tabs button[data-view=leaks] .tab-total").textContent);
    check("the Leaked tab follows (" + tab + ")", tab.length > 0 && !/^0 B/.test(tab));
    const held = await page.evaluate(() => Array.from(document.querySelectorAll("#table-leaks td.held [data-held]"))
      .flatMap((el) => JSON.parse(el.dataset.held)).map((h) => h[0] + " = " + h[1]).sort());
    const want = x.held_by.map((h) => h[0] + " = " + h[1]).sort();
    check("the leaks table's Held by column is heapreplay's held_by: " + JSON.stringify(want),
      JSON.stringify(held) === JSON.stringify(want), JSON.stringify(held));
    const kinds = await page.evaluate(() => Array.from(document.querySelectorAll("#table-leaks tr.site td.kinds"))
      .map((td) => td.textContent));
    check("each leak row names its kinds", kinds.length > 0 && kinds.every((k) => k.length > 0) &&
      kinds.some((k) => k.includes("still reachable")), JSON.stringify(kinds));
    await page.locator("#table-tabs button[data-table=functions]").click();
    check("the Functions table counts them too (flat adds up to " + sum(withReachable) + ")",
      (await flat()) === sum(withReachable), String(await flat()));
    // Every kind, then none.
    for (const k of ["definite", "indirect", "possible", "reachable"]) {
      const box = page.locator("#leak-kinds label.kind[data-kind=" + k + "] input");
      if (!(await box.isChecked())) await box.click();
    }
    const all = ["definite", "indirect", "possible", "reachable"];
    check("every kind: " + sum(all) + " bytes", (await until(async () => (await leaked()) === sum(all))) &&
      (await flat()) === sum(all), String(await leaked()));
    for (const k of all) await page.locator("#leak-kinds label.kind[data-kind=" + k + "] input").click();
    await page.locator("#table-tabs button[data-table=leaks]").click();
    check("no kind: nothing leaked", (await until(async () => (await leaked()) === 0)) &&
      (await page.locator("#table-leaks tr.site").count()) === 0 &&
      /Nothing leaked/.test(await page.locator("#flame").textContent()));
  }

  // A page of several processes: the process table as heapreplay --json
  // T1 T2 prints it, and each process's page on a click or Enter.
  if (expect.processes) {
    const x = expect.processes;
    const rows = await page.evaluate(() => Array.from(document.querySelectorAll("#processes tr.process")).map((tr) =>
      Object.fromEntries(Array.from(tr.querySelectorAll("[data-key]")).map((td) => [td.dataset.key, Number(td.dataset.value)]))));
    const want = x.rows.map((r) => ({ pid: r.pid, ppid: r.ppid, allocations: r.allocations, peak_bytes: r.peak_bytes,
      leaked_bytes: r.leaked_bytes }));
    check("the process table is heapreplay's, largest peak first: " + JSON.stringify(want),
      JSON.stringify(rows) === JSON.stringify(want), JSON.stringify(rows));
    const shows = async (pid) => {
      const ok = await until(() => page.evaluate((p) => window.heaprecPage.ready && window.heaprecPage.process().pid === p &&
        document.querySelector("#trace-meta").textContent.includes("pid " + p), pid), 20000);
      if (!ok) return false;
      for (const [key, value] of Object.entries(x.summaries[pid])) {
        const got = await page.evaluate((k) => {
          const el = document.querySelector("#summary [data-key=" + k + "]");
          return el ? Number(el.dataset.value) : null;
        }, key);
        if (!check("  pid " + pid + ": summary " + key + " = " + value, got === value, "page shows " + got)) return false;
      }
      return true;
    };
    check("the page opens on the first process, pid " + want[0].pid, await shows(want[0].pid));
    await page.locator("#processes tr.process").nth(1).click();
    check("a click on pid " + want[1].pid + " shows its page", await shows(want[1].pid));
    await page.locator("#flame-tabs button[data-view=allocated]").click();
    check("its views work (the allocated tab)", await until(() => page.evaluate(() =>
      window.heaprecPage.state().view === "allocated" && document.querySelectorAll("#flame svg g.frame").length > 1)));
    await page.locator("#processes tr.process").nth(0).focus();
    await page.keyboard.press("Enter");
    check("Enter on pid " + want[0].pid + "'s row shows it again", await shows(want[0].pid));
    check("one heap chart and one flame graph after switching", await page.evaluate(() =>
      document.querySelectorAll("#heap-chart canvas").length === 1 && document.querySelectorAll("#flame svg").length === 1));
  }

  if (opt.perf) {
    // A view switch: click a tab; time to the next frame after the click's work.
    for (const v of ["peak", "allocated", "leaks"]) {
      const ms = await page.evaluate((vv) => new Promise((resolve) => {
        const t = performance.now();
        document.querySelector("#flame-tabs button[data-view=" + vv + "]").click();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t), 0));
      }), v);
      const inner = await page.evaluate(() => [window.heaprecPage.lastUpdateMs, window.heaprecPage.lastTimings]);
      console.log("perf view switch to " + v + ": " + ms.toFixed(0) + " ms to the next frame (" +
        inner[0].toFixed(0) + " ms of work: " + JSON.stringify(inner[1]) + ")");
    }
    // A range selection with the real mouse.
    await page.locator("#heap-chart").scrollIntoViewIfNeeded();
    const span = await page.evaluate(() => {
      const r = document.querySelector("#heap-chart .u-over").getBoundingClientRect();
      return { y: r.top + r.height / 2, x0: r.left, x1: r.right };
    });
    const from = span.x0 + (span.x1 - span.x0) * 0.3, to = span.x0 + (span.x1 - span.x0) * 0.6;
    await page.mouse.move(from, span.y);
    await page.mouse.down();
    await page.mouse.move(to, span.y, { steps: 5 });
    await page.evaluate(() => {
      window.__t = performance.now();
      document.addEventListener("mouseup", () => {
        requestAnimationFrame(() => setTimeout(() => { window.__dt = performance.now() - window.__t; }, 0));
      }, { once: true, capture: false });
    });
    await page.mouse.up();
    await until(() => page.evaluate(() => window.__dt !== undefined), 20000);
    const sel = await page.evaluate(() => ({ dt: window.__dt, work: window.heaprecPage.lastUpdateMs,
      parts: window.heaprecPage.lastTimings, range: window.heaprecPage.state().range }));
    console.log("perf range selection (drag): " + sel.dt.toFixed(0) + " ms to the next frame (" +
      sel.work.toFixed(0) + " ms of work: " + JSON.stringify(sel.parts) + "), buckets " +
      (sel.range ? sel.range.b0 + "-" + sel.range.b1 : "none"));
    const clr = await page.evaluate(() => new Promise((resolve) => {
      const t = performance.now();
      document.querySelector("#range-clear").click();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t), 0));
    }));
    console.log("perf range clear: " + clr.toFixed(0) + " ms to the next frame");
    // The views added since (issue 25): a click on each, timed the same way
    // (to the next frame after the click's work); a view the page lacks is
    // reported as such.
    // On the peak's view (the leaks' may hold no rows: still reachable blocks
    // are not counted by default).
    await page.evaluate(() => document.querySelector("#flame-tabs button[data-view=peak]").click());
    const clicks = [
      ["call trees: Bottom-up", "#calltree-section button[data-tree=bottom]"],
      ["call trees: Top-down", "#calltree-section button[data-tree=top]"],
      ["call trees: a row's callers/callees", "#calltree-section .ctree-sw"],
      ["chart: By call stack", "button[data-chart=sites]"],
      ["chart: one function's stacks", "button.chart-fn"],
      ["chart: Live heap", "button[data-chart=heap]"],
      ["leak kinds: toggle the first", "#leak-kinds input[data-kind]"],
      ["leak kinds: toggle it back", "#leak-kinds input[data-kind]"],
    ];
    for (const [what, sel] of clicks) {
      await page.waitForSelector(sel, { state: "attached", timeout: 3000 }).catch(() => null);
      const ms = await page.evaluate((ss) => new Promise((resolve) => {
        const el = document.querySelector(ss);
        if (!el) return resolve(null);
        const t = performance.now();
        el.click();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t), 0));
      }), sel);
      console.log("perf " + what + ": " + (ms === null ? "not on this page" : ms.toFixed(0) + " ms to the next frame"));
    }
  }

  if (opt.screenshot) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(1000);  // the flame graph's zoom transitions end
    await page.screenshot({ path: opt.screenshot, fullPage: true });
    console.log("screenshot: " + opt.screenshot);
  }
} catch (e) {
  if (e.message !== "stop") check("the test ran to its end", false, e.stack || String(e));
} finally {
  await browser.close();
}
check("no page or console errors", errors.length === 0, errors.join("; "));
check("no network requests but the page itself", requests.length === 0, Array.from(new Set(requests)).join(", "));
console.log(failed ? "FAILED: " + failed + " check(s)" : "PASS");
process.exit(failed ? 1 : 0);
