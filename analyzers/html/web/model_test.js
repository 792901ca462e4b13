// model_test.js: unit tests of model.js (and format.js) on the sample data in
// testdata/, for Node's built-in runner:
//   node --test analyzers/html/web/model_test.js
// Must not depend on a browser or on anything outside this directory.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const M = require("./model.js");
const fmt = require("./format.js");

const readSample = (name) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "testdata", name), "utf8"));
const phases = M.load(readSample("phases.json"));
const withBase = M.load(readSample("phases_base_bench.json"));

// Sum of a metric per innermost function, zero entries dropped.
const byFn = (model, values) => M.totalsByFunction(model, values);

test("load decodes the columns and merges the name tree", () => {
  assert.equal(phases.nodeCount, 6);
  assert.equal(phases.buckets.count, 4);
  assert.equal(phases.cells.count, 5);
  assert.equal(phases.merged.count, 6); // no two frames share a name here
  assert.deepEqual(phases.names, ["__libc_start_call_main", "main", "load_table", "churn", "grow"]);
  assert.deepEqual(M.stack(phases, 5).map((f) => f.function), ["grow", "main", "__libc_start_call_main"]);
  assert.equal(M.site(phases, 3).location, "/src/tests/programs/phases.c:20");
  assert.equal(M.site(phases, 3).module, "phases");
});

test("no range: every view equals the summary", () => {
  const r = M.compute(phases, null);
  const s = phases.summary;
  assert.equal(r.totals.leak_b, s.leaked_bytes);
  assert.equal(r.totals.leak_b, 20480);
  assert.equal(r.totals.leak_n, 5);
  assert.deepEqual(byFn(phases, r.values.leak_b), { grow: 20480 });
  assert.equal(r.peak.bytes, 28480);
  assert.equal(r.peak.time_ns, s.peak_time_ns);
  assert.equal(r.totals.peak_b, 28480);
  assert.deepEqual(byFn(phases, r.values.peak_b), { grow: 20480, load_table: 8000 });
  assert.equal(r.totals.calls_b, 31680);
  assert.equal(r.totals.calls_n, 113);
  assert.equal(r.totals.calls_n, s.allocations);
  assert.equal(r.totals.temp_n, 100);
  assert.deepEqual(byFn(phases, r.values.temp_n), { churn: 100 });
});

test("range buckets 0..1: no leaks, peak 8032 = load_table 8000 + churn 32", () => {
  const r = M.compute(phases, { b0: 0, b1: 1 });
  assert.equal(r.totals.leak_b, 0);
  assert.deepEqual(byFn(phases, r.values.leak_b), {});
  assert.equal(r.peak.bucket, 0); // the first of the two buckets at 8032
  assert.equal(r.peak.bytes, 8032);
  assert.equal(r.totals.peak_b, 8032);
  assert.deepEqual(byFn(phases, r.values.peak_b), { load_table: 8000, churn: 32 });
  assert.deepEqual(byFn(phases, r.values.peak_n), { load_table: 8, churn: 1 });
  assert.equal(r.totals.calls_n, 108);
  assert.equal(r.totals.temp_n, 100);
});

test("range bucket 3 only: peak counts the nets before it", () => {
  const r = M.compute(phases, { b0: 3, b1: 3 });
  assert.equal(r.peak.bytes, 27480);
  assert.deepEqual(byFn(phases, r.values.peak_b), { load_table: 7000, grow: 20480 });
  assert.equal(r.totals.peak_b, 27480);
  assert.equal(r.totals.calls_n, 0);
  assert.equal(r.totals.leak_b, 0);
});

test("times snap to the buckets they overlap", () => {
  assert.deepEqual(M.rangeFromTimes(phases, 10e6, 90e6), { b0: 0, b1: 1 });
  assert.deepEqual(M.rangeFromTimes(phases, 90e6, 10e6), { b0: 0, b1: 1 });
  assert.deepEqual(M.rangeFromTimes(phases, 210e6, 305e6), { b0: 2, b1: 3 });
  assert.deepEqual(M.rangeFromTimes(phases, 50e6, 51e6), { b0: 0, b1: 1 }); // touches both
  assert.equal(M.rangeFromTimes(phases, 120e6, 150e6), null); // between buckets
  assert.ok(M.isFullRange(phases, { b0: 0, b1: 3 }));
  assert.ok(!M.isFullRange(phases, { b0: 0, b1: 2 }));
});

test("quick ranges between markers", () => {
  const q = M.markerRanges(phases);
  assert.deepEqual(q.map((x) => x.label), ["start \u2192 loaded", "loaded \u2192 worked", "worked \u2192 end"]);
  assert.deepEqual(q[0].range, { b0: 0, b1: 0 });
  assert.deepEqual(q[1].range, { b0: 0, b1: 2 });
  assert.deepEqual(q[2].range, { b0: 3, b1: 3 });
});

test("frames without a name are MODULE+0xOFFSET, as --folded names them", () => {
  const data = readSample("phases.json");
  const unknown = data.strings.indexOf("??");
  // churn and grow lose their names; grow moves to libc.
  data.frames.function[3] = unknown;
  data.frames.function[4] = unknown;
  const m1 = M.load(JSON.parse(JSON.stringify(data)));
  const unnamed = (m) => m.names.filter((n) => n.includes("+0x"));
  assert.deepEqual(unnamed(m1).sort(), ["phases+0x1170", "phases+0x1180"]);
  // The stack view, the tables and the function filter use the same name.
  assert.equal(M.frameInfo(m1, 4).function, "phases+0x1180");
  assert.equal(M.frameInfo(m1, 4).offset, "0x1180");
  const mask = M.filterMask(m1, "function", "phases+0x118");
  assert.ok(mask.some((x) => x === 1));
  data.frames.module[4] = data.strings.indexOf("libc.so.6");
  assert.deepEqual(unnamed(M.load(data)).sort(), ["libc.so.6+0x1180", "phases+0x1170"]);
  data.frames.module[4] = 0; // no module either: the address
  assert.ok(M.load(data).names.includes("0x555500001180"));
});

test("quick ranges between markers that name their buckets are exact", () => {
  const data = readSample("phases.json");
  data.markers = [{ label: "loaded", time_ns: 2000000, bucket: 1, exact: true },
    { label: "worked", time_ns: 260000000, bucket: 3, exact: true }];
  const q = M.markerRanges(M.load(data));
  assert.deepEqual(q.map((x) => [x.label, x.range]), [
    ["start \u2192 loaded", { b0: 0, b1: 0 }],
    ["loaded \u2192 worked", { b0: 1, b1: 2 }],
    ["worked \u2192 end", { b0: 3, b1: 3 }]]);
  // Two markers before the same event: the range between them is empty.
  data.markers.push({ label: "again", time_ns: 260000000, bucket: 3, exact: true });
  assert.deepEqual(M.markerRanges(M.load(data)).map((x) => x.label),
    ["start \u2192 loaded", "loaded \u2192 worked", "again \u2192 end"]);
});

test("flame tree: inclusive values, sorted children, search", () => {
  const r = M.compute(phases, null);
  const t = M.flameTree(phases, r.values.peak_b, null);
  assert.equal(t.total, 28480);
  assert.equal(t.root.value, 28480);
  const main = t.root.children[0].children[0];
  assert.equal(main.name, "main");
  assert.deepEqual(main.children.map((c) => [c.name, c.value]), [["grow", 20480], ["load_table", 8000]]);
  assert.equal(M.matchedTotal(phases, t.inc, "GROW"), 20480);
  assert.equal(M.matchedTotal(phases, t.inc, "main"), 28480);
  assert.equal(M.matchedTotal(phases, t.inc, "a.b"), 0); // no regular expression
  assert.equal(M.matchedTotal(phases, t.inc, ""), 0);
  // Leaks hold grow only: other stacks have no box.
  const l = M.flameTree(phases, r.values.leak_b, null);
  assert.deepEqual(l.root.children[0].children[0].children.map((c) => c.name), ["grow"]);
  // A small budget keeps the widest boxes only, still a tree.
  const small = M.flameTree(phases, r.values.peak_b, null, { maxBoxes: 3 });
  assert.ok(small.boxes <= 4);
  assert.equal(small.root.children[0].children[0].name, "main");
});

test("flame tree: maxDepth draws the top levels and says how deep the tree is", () => {
  const r = M.compute(phases, null);
  const all = M.flameTree(phases, r.values.peak_b, null);
  assert.equal(all.depth, 3); // __libc_start_call_main, main, grow/load_table
  assert.equal(all.drawnDepth, 3);
  const capped = M.flameTree(phases, r.values.peak_b, null, { maxDepth: 2 });
  assert.equal(capped.depth, 3);
  assert.equal(capped.drawnDepth, 2);
  const main = capped.root.children[0].children[0];
  assert.equal(main.name, "main");
  assert.equal(main.value, 28480); // its width is still every byte under it
  assert.equal(main.children, undefined);
});

test("the first view: the peak unless the leaks are a quarter of it or more", () => {
  const d = readSample("phases.json");
  const open = (leaked, peak) => {
    const x = JSON.parse(JSON.stringify(d));
    x.summary.leaked_bytes = leaked;
    x.summary.peak_bytes = peak;
    delete x.leaks;
    return M.firstView(M.load(x));
  };
  assert.equal(M.LEAKS_FIRST_SHARE, 0.25);
  assert.equal(open(20480, 28480).view, "leaks"); // 72%
  assert.equal(open(2499, 10000).view, "peak");
  assert.equal(open(2500, 10000).view, "leaks");
  assert.equal(open(0, 10000).view, "peak");
  assert.equal(open(0, 0).view, "allocated");
  assert.match(open(800, 10000).why, /leaks are 8\.0% of it/);
  // The kinds shown (data.leaks) count, not every block live at the end.
  const x = JSON.parse(JSON.stringify(d));
  x.leaks = { bytes: 100, blocks: 1, shown_kinds: "definite,possible", kinds: null, kinds_unknown: "" };
  assert.equal(M.firstView(M.load(x)).view, "peak");
});

test("a site's via: its first frame outside the allocator", () => {
  const d = readSample("phases.json");
  const m0 = M.load(d);
  assert.equal(M.viaNode(m0, 5), 5); // no allocator column: the site itself
  d.frames.allocator = d.frames.function.map(() => 0);
  d.frames.allocator[m0.frame[5]] = 1; // grow is a wrapper
  const m = M.load(d);
  assert.equal(m.frames.label[m.frame[M.viaNode(m, 5)]], "main");
  assert.equal(M.stack(m, 5)[0].allocator, true);
});

test("function table: flat at the via frame, cum once per site, as the text's top", () => {
  const r = M.compute(phases, null);
  const t = M.functionTable(phases, r.values.peak_b);
  assert.equal(t.total, 28480);
  assert.deepEqual(t.rows.map((x) => [x.name, x.flat, x.cum]), [
    ["grow", 20480, 20480], ["load_table", 8000, 8000],
    ["__libc_start_call_main", 0, 28480], ["main", 0, 28480]]);
  // grow folded into the allocator: its bytes are main's flat.
  const d = readSample("phases.json");
  d.frames.allocator = d.frames.function.map(() => 0);
  d.frames.allocator[phases.frame[5]] = 1;
  const m = M.load(d);
  const f = M.functionTable(m, M.compute(m, null).values.peak_b);
  assert.deepEqual(f.rows.map((x) => [x.name, x.flat, x.cum]), [
    ["main", 20480, 28480], ["load_table", 8000, 8000], ["__libc_start_call_main", 0, 28480],
    ["grow", 0, 20480]]);
});

test("function table: a recursive function's cum counts each site once", () => {
  const d = readSample("phases.json");
  // Name grow (node 5, under main) "main" too: main -> main.
  d.frames.function[phases.frame[5]] = d.frames.function[phases.frame[2]];
  const m = M.load(d);
  const t = M.functionTable(m, M.compute(m, null).values.peak_b);
  const main = t.rows.find((x) => x.name === "main");
  assert.equal(main.cum, 28480);
  assert.equal(main.flat, 20480);
});

test("frames of one name under one parent merge; inlined frames are marked", () => {
  const d = readSample("phases.json");
  // Give node 4 (churn) the name of node 3 (load_table) at another line, and
  // make grow inlined.
  d.frames.function[3] = d.frames.function[2];
  d.frames.inlined[4] = 1;
  const m = M.load(d);
  assert.equal(m.merged.count, 5);
  assert.ok(m.merged.multi[m.merged.of[3]]);
  const r = M.compute(m, null);
  const t = M.flameTree(m, r.values.calls_n, null);
  const main = t.root.children[0].children[0];
  assert.deepEqual(main.children.map((c) => [c.name, c.value]), [["grow (inlined)", 5], ["load_table", 108]]);
});

test("base: differences per node and in the flame tree", () => {
  const r = M.compute(withBase, null);
  const b = withBase.base.values;
  const diff = (k) => {
    const out = {};
    for (const n of M.sites(withBase, [r.values[k], b[k]])) {
      out[M.site(withBase, n).function] = r.values[k][n] - b[k][n];
    }
    return out;
  };
  assert.deepEqual(diff("leak_b"), { load_table: -2000, grow: 8192 });
  assert.deepEqual(diff("peak_b"), { load_table: 0, grow: 8192 });
  assert.deepEqual(diff("calls_n"), { load_table: 0, churn: 50, grow: 2 });
  assert.deepEqual(diff("temp_n"), { churn: 50 });
  assert.equal(r.totals.leak_b - withBase.base.totals.leak_b, 20480 - 14288);
  assert.equal(withBase.base.totals.leak_b, withBase.base.summary.leaked_bytes);
  const t = M.flameTree(withBase, r.values.leak_b, b.leak_b);
  assert.equal(t.total, 20480);
  assert.equal(t.baseTotal, 14288);
  const main = t.root.children[0].children[0];
  // Width = max(base, this) per box, so load_table (leaked in base only) shows.
  assert.deepEqual(main.children.map((c) => [c.name, c.value, c.delta]),
    [["grow", 20480, 8192], ["load_table", 2000, -2000]]);
  assert.equal(main.value, 22480);
  assert.equal(main.delta, 6192);
});

test("filters match any frame of the stack", () => {
  assert.equal(M.filterMask(phases, "function", "  "), null);
  const byFunction = M.filterMask(phases, "function", "GROW");
  assert.deepEqual(Array.from(byFunction), [0, 0, 0, 0, 0, 1]);
  // "main" is also in __libc_start_call_main, the outermost frame.
  const byOuter = M.filterMask(phases, "function", "main");
  assert.deepEqual(Array.from(byOuter), [0, 1, 1, 1, 1, 1]);
  assert.deepEqual(Array.from(M.filterMask(phases, "function", "load_")), [0, 0, 0, 1, 0, 0]);
  const byModule = M.filterMask(phases, "module", "libc");
  assert.deepEqual(Array.from(byModule), [0, 1, 1, 1, 1, 1]);
  const byFile = M.filterMask(phases, "file", "phases.c");
  assert.deepEqual(Array.from(byFile), [0, 0, 1, 1, 1, 1]);
  assert.deepEqual(Array.from(M.filterMask(phases, "any", "phases")), [0, 0, 1, 1, 1, 1]);
});

test("bad data is refused", () => {
  const d = readSample("phases.json");
  d.nodes.parent[3] = 4;
  assert.throws(() => M.load(d), /node 3 has parent 4/);
  const e = readSample("phases.json");
  e.cells.leak_b.pop();
  assert.throws(() => M.load(e), /cells.leak_b/);
  assert.throws(() => M.load({ format: 2 }), /unsupported format/);
});

test("select finds the k-th smallest; compute reuses arrays without leftovers", () => {
  const vals = [5, 1, 9, 3, 3, 7, 2, 8, 6, 4];
  const sorted = vals.slice().sort((a, b) => a - b);
  for (let k = 0; k < vals.length; k++) assert.equal(M.select(Float64Array.from(vals), k), sorted[k]);
  const first = M.compute(phases, null);
  const again = M.compute(phases, { b0: 0, b1: 1 }, first);
  assert.equal(again.values.leak_b, first.values.leak_b); // the same array, refilled
  assert.deepEqual(byFn(phases, again.values.leak_b), {});
  assert.equal(again.totals.peak_b, 8032);
});

test("format: bytes as heapreplay prints them", () => {
  assert.equal(fmt.bytes(1000), "1000 B");
  assert.equal(fmt.bytes(20480), "20.0 KiB");
  assert.equal(fmt.bytes(28480), "27.8 KiB");
  assert.equal(fmt.bytes(3 * 1048576), "3.0 MiB");
  assert.equal(fmt.signedBytes(8192), "+8.0 KiB");
  assert.equal(fmt.signedBytes(-2000), "-2.0 KiB");
  assert.equal(fmt.signedBytes(-1000), "-1000 B");
  assert.equal(fmt.count(1234567), "1,234,567");
  assert.equal(fmt.percent(20480, 28480), "71.9%");
  assert.equal(fmt.html("<a&'\">"), "&lt;a&amp;&#39;&quot;&gt;");
  assert.equal(fmt.commandLine(["a b", "c"]), "'a b' c");
});

test("difference words a saving, a cost, noise and a single run", () => {
  assert.equal(fmt.difference({ pairs: 5, median: -0.0123, low: -0.014, high: -0.0101, beyond_noise: true }, "s"),
    "-12 ms [-14 ms, -10 ms]: saves 12 ms");
  assert.equal(fmt.difference({ pairs: 5, median: 2097152, low: 1048576, high: 3145728, beyond_noise: true }, "bytes"),
    "+2.0 MiB [+1.0 MiB, +3.0 MiB]: costs 2.0 MiB");
  assert.equal(fmt.difference({ pairs: 5, median: 0.0004, low: -0.001, high: 0.002, beyond_noise: false }, "s"),
    "+400.0 \u00b5s [-1.00 ms, +2.00 ms]: no difference beyond noise");
  assert.equal(fmt.difference({ pairs: 1, median: 0.5, low: 0.5, high: 0.5, beyond_noise: false }, "s"),
    "+500 ms (one run: no interval)");
  assert.equal(fmt.difference(null, "s"), "\u2013");
  assert.equal(fmt.difference({ pairs: 0 }, "s"), "\u2013");
});

// phases.json with a leak scan: grow's 5 blocks are 3 definitely lost and 2
// still reachable (held by g_keep); heapreplay showed definite,possible.
function withKinds() {
  const d = readSample("phases.json");
  d.leaks = { shown_kinds: "definite,possible", bytes: 12288, blocks: 3, kinds: null, kinds_unknown: "" };
  const at = d.cells.node.findIndex((n, i) => n === 5 && d.cells.bucket[i] === 2);
  d.cells.leak_n[at] = 3;
  d.cells.leak_b[at] = 12288;
  d.leak_kinds = {
    cells: { node: [5, 5], bucket: [2, 2], kind: [1, 4], n: [3, 2], b: [12288, 8192] },
    roots: ["g_keep"],
    held_by: { node: [5], root: [0], bytes: [8192] },
  };
  return d;
}

test("leak kinds: the default kinds are heapreplay's; others come from the blocks by kind", () => {
  const m = M.load(withKinds());
  assert.equal(M.leakKindMask("definite,possible"), 0b01011);
  assert.equal(M.leakKindMask("all"), 0b11111);
  assert.equal(M.leakKindMask("none"), 0b00001); // a block of unknown kind always counts
  assert.equal(m.leakKinds.defaultMask, 0b01011);
  assert.deepEqual(m.leakKinds.totals[4], { bytes: 8192, blocks: 2 });
  const shown = M.compute(m, null);
  assert.equal(shown.totals.leak_b, 12288);
  // The same kinds from the blocks by kind: what the cells hold.
  const own = M.compute(m, null, null, 0b01011 | 0x20); // bit 5: no kind; same selection
  assert.equal(own.totals.leak_b, 12288);
  assert.equal(own.values.leak_n[5], 3);
  const all = M.compute(m, null, null, M.leakKindMask("all"));
  assert.equal(all.totals.leak_b, 20480);
  assert.equal(all.totals.leak_n, 5);
  assert.equal(all.leakKinds[5], (1 << 1) | (1 << 4));
  const reachable = M.compute(m, null, null, M.leakKindMask("reachable"));
  assert.equal(reachable.totals.leak_b, 8192);
  assert.equal(reachable.leakKinds[5], 1 << 4);
  assert.deepEqual(byFn(m, reachable.values.leak_b), { grow: 8192 });
  const none = M.compute(m, null, null, M.leakKindMask("none"));
  assert.equal(none.totals.leak_b, 0);
  assert.deepEqual(byFn(m, none.values.leak_b), {});
  // A range without the blocks: nothing of any kind.
  assert.equal(M.compute(m, { b0: 0, b1: 1 }, null, M.leakKindMask("all")).totals.leak_b, 0);
  // The other views do not change.
  assert.equal(all.totals.peak_b, shown.totals.peak_b);
  assert.deepEqual(M.heldBy(m, 5), [{ root: "g_keep", bytes: 8192 }]);
  assert.deepEqual(M.heldBy(m, 3), []);
});

test("leak kinds: the base follows the kinds picked", () => {
  const d = withKinds();
  d.base = JSON.parse(JSON.stringify(readSample("phases_base_bench.json").base));
  d.base.leak_kinds = { node: [5, 5], kind: [1, 4], n: [1, 1], b: [4096, 4096] };
  const m = M.load(d);
  const before = m.base.totals.leak_b;
  M.setBaseLeakKinds(m, M.leakKindMask("reachable"));
  assert.equal(m.base.totals.leak_b, 4096);
  assert.equal(m.base.values.leak_b[5], 4096);
  M.setBaseLeakKinds(m, M.leakKindMask("all"));
  assert.equal(m.base.totals.leak_b, 8192);
  assert.ok(before >= 0);
});

test("leak kinds: a page without them (no scan, an older heapreplay) has none", () => {
  assert.equal(phases.leakKinds, null);
  assert.equal(M.compute(phases, null).leakKinds, null);
  assert.deepEqual(M.heldBy(phases, 5), []);
});
