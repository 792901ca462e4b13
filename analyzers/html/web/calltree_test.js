// calltree_test.js: unit tests of calltree.js (top-down, bottom-up and
// sandwich trees) on small hand-made stacks whose answers are known exactly,
// recursion included, for Node's built-in runner:
//   node --test analyzers/html/web/calltree_test.js
// Must not depend on a browser or on anything outside this directory.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const M = require("./model.js");
const T = require("./calltree.js");

// A data object (DATA.md) from sites given innermost frame first, each frame
// "function" or "function:line" (another line is another frame of the same
// function), with values per site in one bucket. One leaked block per
// `leak_b`, `calls_n` allocation calls; other columns 0.
function makeData(sites, allocators) {
  const strings = [""], sid = new Map([["", 0]]);
  const S = (s) => {
    if (!sid.has(s)) {
      sid.set(s, strings.length);
      strings.push(s);
    }
    return sid.get(s);
  };
  const frames = { function: [], file: [], module: [], line: [], address: [], offset: [], inlined: [], allocator: [] };
  const frameOf = new Map();
  const frame = (spec) => {
    if (frameOf.has(spec)) return frameOf.get(spec);
    const [fn, line] = spec.split(":");
    const f = frames.function.length;
    frames.function.push(S(fn));
    frames.file.push(S("/src/t.c"));
    frames.module.push(S("t"));
    frames.line.push(Number(line || 1));
    frames.address.push("0x" + (0x1000 + f * 16).toString(16));
    frames.offset.push("0x" + (0x1000 + f * 16).toString(16));
    frames.inlined.push(0);
    frames.allocator.push((allocators || []).includes(fn) ? 1 : 0);
    frameOf.set(spec, f);
    return f;
  };
  const nodes = { parent: [-1], frame: [-1] }, nodeOf = new Map();
  const cols = ["calls_n", "calls_b", "net_n", "net_b", "peak_n", "peak_b", "temp_n", "temp_b", "leak_n", "leak_b"];
  const cells = { node: [], bucket: [] };
  for (const c of cols) cells[c] = [];
  let buckets = 1;
  for (const site of sites) {
    let n = 0;
    for (const spec of site.stack.slice().reverse()) {
      const f = frame(spec), key = n + "/" + f;
      if (!nodeOf.has(key)) {
        nodeOf.set(key, nodes.parent.length);
        nodes.parent.push(n);
        nodes.frame.push(f);
      }
      n = nodeOf.get(key);
    }
    cells.node.push(n);
    cells.bucket.push(site.bucket || 0);
    buckets = Math.max(buckets, (site.bucket || 0) + 1);
    for (const c of cols) cells[c].push(c === "leak_n" ? 1 : site[c] || 0);
  }
  const B = Array.from({ length: buckets }, (_, b) => b);
  return {
    format: 1, trace: { program: "t" }, summary: {}, strings, frames, nodes,
    buckets: { start_ns: B.map((b) => b * 10), end_ns: B.map((b) => b * 10 + 5), live_end: B.map(() => 0),
      max_live: B.map(() => 0), max_time_ns: B.map((b) => b * 10) },
    markers: [], cells,
  };
}

// Six stacks, values powers of ten (leaked bytes) and of two (calls), so
// every sum tells which stacks it holds. xmalloc is an allocator wrapper;
// f recurses directly (S3) and through g (S4); g is called from main at two
// lines (S5, S6: one row).
const SITES = [
  { stack: ["g", "f", "main"], leak_b: 100, calls_n: 1 }, // S1
  { stack: ["xmalloc", "g", "f", "main"], leak_b: 10, calls_n: 2 }, // S2: via g
  { stack: ["f", "f", "main"], leak_b: 1000, calls_n: 4 }, // S3
  { stack: ["h", "f", "g", "f", "main"], leak_b: 1, calls_n: 8 }, // S4
  { stack: ["g:2", "main"], leak_b: 10000, calls_n: 16 }, // S5
  { stack: ["g", "main"], leak_b: 100000, calls_n: 32, bucket: 1 }, // S6, in the second bucket
  { stack: ["h", "main"], leak_b: 0, calls_n: 64 }, // S7: no leak, so in no leak tree (nor its calls)
];
const model = M.load(makeData(SITES, ["xmalloc"]));
const all = M.compute(model, null);
const ctxOf = (range, term, metric) => {
  const r = M.compute(model, range);
  return T.prepare(model, r.values[metric || "leak_b"], r.values.calls_n, term);
};
const ctx = ctxOf(null);
const fnId = (name) => T.functionId(model, name);
// A row as [name, total, self, calls].
const cols = (r) => [r.name, r.total, r.self, r.calls];
// Rows and their children as nested arrays, opening everything.
const dump = (c, rows) => rows.map((r) => {
  const kids = T.children(c, r);
  return kids.length ? [cols(r), dump(c, kids)] : [cols(r)];
});

test("the data holds what the stacks say", () => {
  assert.equal(all.totals.leak_b, 111111);
  assert.equal(all.totals.calls_n, 127);
  assert.equal(T.functionId(model, "nothing"), -1);
  assert.equal(ctx.total, 111111);
  assert.equal(ctx.grandTotal, 111111);
});

test("top-down: every frame from the outermost down, self at the via frame", () => {
  assert.deepEqual(dump(ctx, T.topDown(ctx)), [
    [["main", 111111, 0, 63], [
      // g from two lines of main: one row (S5 + S6).
      [["g", 110000, 110000, 48]],
      [["f", 1111, 0, 15], [
        [["f", 1000, 1000, 4]], // S3, its own self
        [["g", 111, 110, 11], [ // S1 + S2 (xmalloc allocated for g)
          [["xmalloc", 10, 0, 2]],
          [["f", 1, 0, 8], [[["h", 1, 1, 8]]]],
        ]],
      ]],
    ]],
  ]);
});

test("bottom-up: functions that allocated, then their callers; self is the flat, total the cum", () => {
  assert.deepEqual(dump(ctx, T.bottomUp(ctx)), [
    [["g", 110111, 110110, 59], [
      [["main", 110000, 110000, 48]], // S5 and S6 reach main from one node
      [["f", 111, 110, 11], [[["main", 111, 110, 11]]]],
    ]],
    // f once per stack: S3's inner f is inside the outer one.
    [["f", 1111, 1000, 15], [[["main", 1111, 1000, 15]]]],
    [["h", 1, 1, 8], [[["f", 1, 1, 8], [[["g", 1, 1, 8], [[["f", 1, 1, 8], [[["main", 1, 1, 8]]]]]]]]]],
  ]);
  // The roots agree with the Functions table (flat, cum).
  const table = M.functionTable(model, all.values.leak_b);
  for (const r of T.bottomUp(ctx)) {
    const t = table.rows.find((x) => x.name === r.name);
    assert.deepEqual([r.self, r.total], [t.flat, t.cum]);
  }
  const sumSelf = T.bottomUp(ctx).reduce((s, r) => s + r.self, 0);
  assert.equal(sumSelf, 111111); // every byte has one via
});

test("sandwich of a recursive function: once per stack", () => {
  const s = T.sandwich(ctx, fnId("f"));
  assert.deepEqual([s.name, s.self, s.total, s.calls], ["f", 1000, 1111, 15]);
  assert.deepEqual(dump(ctx, [s.callers]), [[["f", 1111, 1000, 15], [[["main", 1111, 1000, 15]]]]]);
  assert.deepEqual(dump(ctx, [s.callees]), [
    [["f", 1111, 0, 15], [
      [["f", 1000, 1000, 4]],
      [["g", 111, 110, 11], [[["xmalloc", 10, 0, 2]], [["f", 1, 0, 8], [[["h", 1, 1, 8]]]]]],
    ]],
  ]);
});

test("sandwich merges every occurrence: g under main (two lines) and under f", () => {
  const s = T.sandwich(ctx, fnId("g"));
  assert.deepEqual([s.self, s.total, s.calls], [110110, 110111, 59]);
  assert.deepEqual(dump(ctx, [s.callers]), [
    [["g", 110111, 110110, 59], [[["main", 110000, 110000, 48]], [["f", 111, 110, 11], [[["main", 111, 110, 11]]]]]],
  ]);
  assert.deepEqual(dump(ctx, [s.callees]), [
    [["g", 110111, 110110, 59], [[["xmalloc", 10, 0, 2]], [["f", 1, 0, 8], [[["h", 1, 1, 8]]]]]],
  ]);
  // An allocator wrapper: total but no self; its callers up to main.
  const x = T.sandwich(ctx, fnId("xmalloc"));
  assert.deepEqual([x.self, x.total, x.calls], [0, 10, 2]);
  assert.deepEqual(dump(ctx, [x.callers]), [
    [["xmalloc", 10, 0, 2], [[["g", 10, 0, 2], [[["f", 10, 0, 2], [[["main", 10, 0, 2]]]]]]]]]);
  assert.deepEqual(dump(ctx, [x.callees]), [[["xmalloc", 10, 0, 2]]]);
  // The outermost function: everything, no callers.
  const m = T.sandwich(ctx, fnId("main"));
  assert.deepEqual([m.self, m.total], [0, 111111]);
  assert.deepEqual(T.children(ctx, m.callers), []);
  assert.equal(T.hasChildren(ctx, m.callers), false);
  assert.equal(T.sandwich(ctx, -1), null);
});

test("the sandwich agrees with the Functions table for every function and metric", () => {
  for (const metric of M.METRICS) {
    const c = ctxOf(null, "", metric);
    const table = M.functionTable(model, all.values[metric]);
    for (const t of table.rows) {
      const s = T.sandwich(c, fnId(t.name));
      assert.deepEqual([t.name, s.self, s.total], [t.name, t.flat, t.cum], metric);
    }
  }
});

test("other metrics and ranges: calls, and the first bucket only", () => {
  const calls = ctxOf(null, "", "calls_n");
  assert.deepEqual(T.topDown(calls).map(cols), [["main", 127, 0, 127]]);
  assert.deepEqual(T.children(calls, T.topDown(calls)[0]).map(cols),
    [["h", 64, 64, 64], ["g", 48, 48, 48], ["f", 15, 0, 15]]);
  assert.deepEqual(T.bottomUp(calls).map(cols), [["h", 72, 72, 72], ["g", 59, 51, 59], ["f", 15, 4, 15]]);
  // Bucket 0 leaves S6 out: g under main is S5 alone.
  const early = ctxOf({ b0: 0, b1: 0 });
  assert.equal(early.total, 11111);
  assert.deepEqual(T.children(early, T.topDown(early)[0]).map(cols), [["g", 10000, 10000, 16], ["f", 1111, 0, 15]]);
  assert.deepEqual(T.bottomUp(early).map(cols), [["g", 10111, 10110, 27], ["f", 1111, 1000, 15], ["h", 1, 1, 8]]);
  // Nothing in the second bucket but S6.
  const late = ctxOf({ b0: 1, b1: 1 });
  assert.deepEqual(dump(late, T.topDown(late)), [[["main", 100000, 0, 32], [[["g", 100000, 100000, 32]]]]]);
  assert.equal(T.sandwich(late, fnId("f")), null);
});

test("search keeps the stacks through a matching function and opens the rows down to it", () => {
  const c = ctxOf(null, "XMAL");
  assert.equal(c.total, 10);
  assert.equal(c.grandTotal, 111111); // percentages stay of everything
  const roots = T.topDown(c);
  assert.deepEqual(dump(c, roots),
    [[["main", 10, 0, 2], [[["f", 10, 0, 2], [[["g", 10, 10, 2], [[["xmalloc", 10, 0, 2]]]]]]]]]);
  const keys = T.openToMatches(c, T.topDown(c), 100);
  const main = fnId("main"), f = fnId("f"), g = fnId("g");
  assert.deepEqual(keys, ["t/" + main, "t/" + main + "/" + f, "t/" + main + "/" + f + "/" + g]);
  const open = new Set(keys);
  const fresh = T.topDown(c);
  assert.deepEqual(T.visible(c, fresh, (r) => open.has(r.key)).map((r) => [r.depth, r.name]),
    [[0, "main"], [1, "f"], [2, "g"], [3, "xmalloc"]]);
  // Bottom-up: g allocated it; its callers open to the outermost frame.
  const b = ctxOf(null, "xmalloc");
  assert.deepEqual(T.bottomUp(b).map(cols), [["g", 10, 10, 2]]);
  assert.equal(T.openToMatches(b, T.bottomUp(b), 100).length, 2); // g, f (main has no callers)
  // A limit caps the rows opened.
  assert.equal(T.openToMatches(c, T.topDown(c), 1).length, 1);
  // A matching row is not opened: its own children show once opened by hand.
  const h = ctxOf(null, "main");
  assert.deepEqual(T.openToMatches(h, T.topDown(h), 100), []);
});

test("a fresh tree opens its lone chain down to the first branching", () => {
  const main = fnId("main"), f = fnId("f"), g = fnId("g");
  assert.deepEqual(T.chain(ctx, T.topDown(ctx), 40), ["t/" + main]); // main has g and f
  const s = T.sandwich(ctx, fnId("h"));
  assert.deepEqual(T.chain(ctx, [s.callers], 40), ["r/" + fnId("h"), "r/" + fnId("h") + "/" + f,
    "r/" + fnId("h") + "/" + f + "/" + g, "r/" + fnId("h") + "/" + f + "/" + g + "/" + f]);
  assert.equal(T.chain(ctx, [s.callers], 2).length, 2);
  assert.deepEqual(T.chain(ctx, [s.callees], 40), []); // h calls nothing
});

test("visible rows: only open rows' children are built", () => {
  const roots = T.topDown(ctx);
  const main = roots[0];
  assert.deepEqual(T.visible(ctx, roots, () => false).map((r) => r.name), ["main"]);
  assert.equal(main.kids, null);
  assert.equal(T.hasChildren(ctx, main), true);
  const rows = T.visible(ctx, roots, (r) => r === main);
  assert.deepEqual(rows.map((r) => [r.depth, r.name]), [[0, "main"], [1, "g"], [1, "f"]]);
  assert.equal(rows[2].kids, null); // f not opened: not built
  assert.equal(T.hasChildren(ctx, rows[1]), false); // g under main is a leaf
  assert.equal(T.hasChildren(ctx, rows[2]), true);
});
