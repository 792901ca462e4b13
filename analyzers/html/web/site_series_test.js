// site_series_test.js: unit tests of site_series.js (live bytes over time per
// call stack) on the sample data in testdata/, for Node's built-in runner:
//   node --test analyzers/html/web/site_series_test.js
// Must not depend on a browser or on anything outside this directory.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
global.HeaprecModel = require("./model.js");
const M = global.HeaprecModel;
const S = require("./site_series.js");

const readSample = (name) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "testdata", name), "utf8"));
const phases = M.load(readSample("phases.json"));
// phases.json's nodes: 3 load_table, 4 churn, 5 grow (cells not in node order).
const fnOf = (model, n) => model.frames.label[model.frame[n]];

test("each stack's highest live bytes, at the chart's points, and at the peak", () => {
  const { peak, atPeak } = S.nodePeaks(phases);
  assert.equal(peak[3], 8000); // load_table: 8 blocks of 1000 until bucket 3
  assert.equal(peak[4], 32); // churn: one 32-byte temporary at a time
  assert.equal(peak[5], 20480); // grow
  assert.equal(peak[0], 0);
  // At the peak: the peak view's values.
  const r = M.compute(phases, null);
  for (const n of [3, 4, 5]) assert.equal(atPeak[n], r.values.peak_b[n], "node " + n);
});

test("ties: the stack holding more at the peak first", () => {
  // a and b each held 1000 at their highest: a made and freed its block in
  // bucket 0, b made its own in bucket 1, where c's 500 make the peak.
  const zeros = [0, 0, 0];
  const m = M.load({
    format: 1, summary: { peak_bytes: 1500 }, strings: ["", "a", "b", "c"],
    frames: { function: [1, 2, 3], file: [0, 0, 0], module: [0, 0, 0], line: [0, 0, 0],
      address: ["0x1", "0x2", "0x3"], offset: ["", "", ""], inlined: [0, 0, 0] },
    nodes: { parent: [-1, 0, 0, 0], frame: [-1, 0, 1, 2] },
    buckets: { start_ns: [0, 10], end_ns: [5, 20], live_end: [0, 1500], max_live: [1000, 1500],
      max_time_ns: [1, 15] },
    cells: { node: [1, 2, 3], bucket: [0, 1, 1], calls_n: [1, 1, 1], calls_b: [1000, 1000, 500],
      net_n: [0, 1, 1], net_b: [0, 1000, 500], peak_n: [1, 1, 1], peak_b: [1000, 1000, 500],
      temp_n: zeros, temp_b: zeros, leak_n: zeros, leak_b: zeros },
  });
  assert.deepEqual(Array.from(S.nodePeaks(m).peak), [0, 1000, 1000, 500]);
  assert.deepEqual(Array.from(S.nodePeaks(m).atPeak), [0, 0, 1000, 500]);
  const one = S.series(m, { top: 1 });
  assert.deepEqual(one.bands.map((b) => b.node), [2]);
  assert.equal(one.other, true);
  assert.equal(S.valuesAt(one, one.peakIndex).total, 1500);
  assert.deepEqual(S.valuesAt(one, one.peakIndex).values, [1000, 500]);
});

test("bands: the top stacks, largest at the bottom, adding up to the heap line", () => {
  const s = S.series(phases, { top: 10 });
  assert.deepEqual(s.bands.map((b) => fnOf(phases, b.node)), ["grow", "load_table", "churn"]);
  assert.equal(s.other, false);
  assert.deepEqual(s.x, [0, 20e6, 50e6, 60e6, 100e6, 250e6, 301e6, 310e6]);
  assert.deepEqual(Array.from(s.y[0]), [0, 0, 0, 0, 0, 20480, 20480, 20480]);
  assert.deepEqual(Array.from(s.y[1]), [0, 8000, 8000, 8000, 8000, 8000, 7000, 0]);
  assert.deepEqual(Array.from(s.y[2]), [0, 32, 0, 32, 0, 0, 0, 0]);
  for (let j = 0; j < s.x.length; j++) {
    assert.equal(S.valuesAt(s, j).total, s.heap[j], "at " + s.x[j]);
  }
  // At the peak the bands hold the peak, as compute()'s peak view says.
  const at = S.valuesAt(s, s.peakIndex);
  assert.equal(s.x[s.peakIndex], phases.summary.peak_time_ns);
  assert.equal(at.total, phases.summary.peak_bytes);
  const r = M.compute(phases, null);
  s.bands.forEach((b, k) => assert.equal(at.values[k], r.values.peak_b[b.node]));
  // The end: what is live then (the leaks).
  assert.equal(S.valuesAt(s, s.x.length - 1).total, phases.summary.leaked_bytes);
});

test("the rest of the stacks is one band", () => {
  const s = S.series(phases, { top: 1 });
  assert.deepEqual(s.bands.map((b) => fnOf(phases, b.node)), ["grow"]);
  assert.equal(s.other, true);
  assert.equal(s.y.length, 2);
  assert.deepEqual(Array.from(s.y[1]), [0, 8032, 8000, 8032, 8000, 8000, 7000, 0]);
  assert.equal(S.valuesAt(s, s.peakIndex).total, 28480);
});

test("a function: only the stacks holding it", () => {
  const s = S.series(phases, { fn: "load_table" });
  assert.deepEqual(s.bands.map((b) => fnOf(phases, b.node)), ["load_table"]);
  assert.equal(s.other, false);
  assert.equal(S.valuesAt(s, s.peakIndex).total, 8000);
  assert.equal(S.valuesAt(s, s.peakIndex).heap, 28480); // the whole heap, for reference
  // main is in every stack: the same as no function.
  const all = S.series(phases, { fn: "main", top: 2 });
  assert.deepEqual(all.bands.map((b) => fnOf(phases, b.node)), ["grow", "load_table"]);
  assert.equal(all.other, true);
  for (let j = 0; j < all.x.length; j++) assert.equal(S.valuesAt(all, j).total, all.heap[j]);
  // A function in no stack: no band.
  const none = S.series(phases, { fn: "no_such_function" });
  assert.equal(none.bands.length, 0);
  assert.equal(none.y.length, 0);
  assert.equal(S.valuesAt(none, none.peakIndex).total, 0);
});

test("a time picks the point at or before it", () => {
  const s = S.series(phases, {});
  assert.equal(S.indexAt(s, 0), 0);
  assert.equal(S.indexAt(s, 55e6), 2); // 50 ms holds until 60 ms
  assert.equal(S.indexAt(s, 280e6), 5); // the peak holds until 301 ms
  assert.equal(S.indexAt(s, 1e12), s.x.length - 1);
  // Each bucket's points.
  assert.deepEqual(Array.from(s.bucketX.max), [1, 3, 5, 6]);
  assert.deepEqual(Array.from(s.bucketX.end), [2, 4, 5, 7]);
});
