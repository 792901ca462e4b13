// site_series.js: live bytes over time per call stack, for the page's "by
// call stack" chart (as heaptrack_gui's "Consumed"): the top sites by their
// highest live bytes as stacked bands and the rest as one "other" band, or
// the same within the stacks that hold one function. Pure computation on a
// model of model.js, from the cells' net_* and peak_* (DATA.md): a stack's
// live bytes after bucket b are the sum of its net_b up to b, and at the
// bucket's highest moment the sum before b plus its peak_b, so the bands of
// all stacks add up to the heap chart's line at every point, and at the peak
// to the peak. Must not touch the DOM; loads in Node (site_series_test.js).
// O(cells) once per model, then O(nodes + cells + series x buckets) per
// chart.
const HeaprecSiteSeries = (function () {
  "use strict";

  // Each node's highest live bytes at the chart's points (every bucket's
  // highest moment and its end), and what it held at the trace's peak (the
  // peak view's value), once per model: {peak, atPeak} (Float64Array each).
  function nodePeaks(model) {
    if (model.sitePeaks) return model.sitePeaks;
    const c = model.cells, C = c.count, N = model.nodeCount;
    // Cells in (node, bucket) order (heapreplay writes them so; sort if not).
    let order = null;
    for (let i = 1; i < C; i++) {
      if (c.node[i] < c.node[i - 1] || (c.node[i] === c.node[i - 1] && c.bucket[i] <= c.bucket[i - 1])) {
        order = Int32Array.from({ length: C }, (_, k) => k)
          .sort((a, b) => c.node[a] - c.node[b] || c.bucket[a] - c.bucket[b]);
        break;
      }
    }
    const B = model.buckets.count;
    const p = B ? HeaprecModel.peakBucket(model, 0, B - 1) : -1;
    const peak = new Float64Array(N), atPeak = new Float64Array(N);
    let node = -1, live = 0, seen = true; // seen: the node's value at the peak is known
    for (let k = 0; k < C; k++) {
      const i = order ? order[k] : k;
      if (c.node[i] !== node) {
        if (!seen) atPeak[node] = live;
        node = c.node[i];
        live = 0;
        seen = false;
      }
      const b = c.bucket[i];
      if (!seen && b >= p) {
        atPeak[node] = b === p ? live + c.peak_b[i] : live;
        seen = true;
      }
      const atMax = live + c.peak_b[i];
      live += c.net_b[i];
      const high = Math.max(atMax, live);
      if (high > peak[node]) peak[node] = high;
    }
    if (!seen) atPeak[node] = live;
    model.sitePeaks = { peak, atPeak };
    return model.sitePeaks;
  }

  // Which nodes' stacks hold a frame of function `name` (the page's function
  // name: frames.label): Uint8Array per node.
  function functionMask(model, name) {
    const fr = model.frames, hit = new Uint8Array(fr.count);
    for (let f = 0; f < fr.count; f++) hit[f] = fr.label[f] === name ? 1 : 0;
    const N = model.nodeCount, mask = new Uint8Array(N);
    for (let n = 1; n < N; n++) mask[n] = mask[model.parent[n]] | hit[model.frame[n]];
    return mask;
  }

  // The chart's series. opts: {top (sites drawn, default 10), fn (a function
  // name: only stacks holding it; null: every stack)}. Returns
  //   {fn, bands: [{node, peak}] (largest first: the bottom band first),
  //    other: true when some stacks are in no band (the last series then),
  //    x: [ns] (sorted, distinct: each bucket's highest moment and end, and 0),
  //    y: [Float64Array per band, then other], heap: Float64Array (the whole
  //    heap at each x: the heap chart's line), peakIndex (x index of the
  //    trace's peak), bucketX: {max: Int32Array, end: Int32Array} (x index of
  //    each bucket's highest moment and end)}.
  function series(model, opts) {
    const top = (opts && opts.top) || 10;
    const fn = opts && opts.fn ? opts.fn : null;
    const N = model.nodeCount, bk = model.buckets, B = bk.count;
    const { peak: peaks, atPeak } = nodePeaks(model);
    const mask = fn ? functionMask(model, fn) : null;
    // The `top` nodes with the highest peaks (ties: the one holding more at
    // the trace's peak, then the lower node).
    const above = (a, b) => peaks[a] > peaks[b] || (peaks[a] === peaks[b] && atPeak[a] > atPeak[b]);
    const best = [];
    let others = 0;
    for (let n = 1; n < N; n++) {
      if (!(peaks[n] > 0) || (mask && !mask[n])) continue;
      if (best.length === top && !above(n, best[top - 1])) {
        others++;
        continue;
      }
      let at = best.length;
      while (at > 0 && above(n, best[at - 1])) at--;
      best.splice(at, 0, n);
      if (best.length > top) {
        best.pop();
        others++;
      }
    }
    const S = best.length + (others ? 1 : 0);
    const of = new Int32Array(N).fill(-1);
    for (let n = 1; n < N; n++) if (peaks[n] > 0 && (!mask || mask[n])) of[n] = S - 1;
    best.forEach((n, k) => { of[n] = k; });
    // Per series and bucket: the change to its end, and to its highest moment.
    const dNet = new Float64Array(S * B), dPeak = new Float64Array(S * B);
    const c = model.cells;
    for (let i = 0; i < c.count; i++) {
      const s = of[c.node[i]];
      if (s < 0) continue;
      dNet[s * B + c.bucket[i]] += c.net_b[i];
      dPeak[s * B + c.bucket[i]] += c.peak_b[i];
    }
    const atMax = new Float64Array(S * B), atEnd = new Float64Array(S * B);
    for (let s = 0; s < S; s++) {
      let live = 0;
      for (let b = 0; b < B; b++) {
        atMax[s * B + b] = live + dPeak[s * B + b];
        live += dNet[s * B + b];
        atEnd[s * B + b] = live;
      }
    }
    // The points, in time order; at one time the higher sum of the bands
    // (the heap chart keeps the highest too).
    const x = [0], pick = [null], heap = [0];
    const sum = (arr, b) => {
      let t = 0;
      for (let s = 0; s < S; s++) t += arr[s * B + b];
      return t;
    };
    const maxAt = new Int32Array(B), endAt = new Int32Array(B);
    const put = (t, arr, b, whole) => {
      const last = x.length - 1;
      if (t === x[last]) {
        if (!pick[last] || sum(arr, b) >= sum(pick[last].arr, pick[last].b)) pick[last] = { arr, b };
        heap[last] = Math.max(heap[last], whole);
      } else {
        x.push(t);
        pick.push({ arr, b });
        heap.push(whole);
      }
      return x.length - 1;
    };
    for (let b = 0; b < B; b++) {
      maxAt[b] = put(bk.maxTime[b], atMax, b, bk.maxLive[b]);
      endAt[b] = put(bk.end[b], atEnd, b, bk.liveEnd[b]);
    }
    const X = x.length, y = [];
    for (let s = 0; s < S; s++) {
      const ys = new Float64Array(X);
      for (let j = 0; j < X; j++) ys[j] = pick[j] ? pick[j].arr[s * B + pick[j].b] : 0;
      y.push(ys);
    }
    const p = B ? HeaprecModel.peakBucket(model, 0, B - 1) : -1;
    return { fn, bands: best.map((n) => ({ node: n, peak: peaks[n] })), other: others > 0, x,
      y, heap: Float64Array.from(heap), peakIndex: p < 0 ? 0 : maxAt[p], bucketX: { max: maxAt, end: endAt } };
  }

  // The x index of the point at or before time ns (a value holds until the
  // next point).
  function indexAt(s, ns) {
    let lo = 0, hi = s.x.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s.x[mid] <= ns) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // Each series' value at x index j, and their sum.
  function valuesAt(s, j) {
    const values = s.y.map((ys) => ys[j]);
    return { values, total: values.reduce((a, v) => a + v, 0), heap: s.heap[j] };
  }

  return { nodePeaks, functionMask, series, indexAt, valuesAt };
})();
if (typeof module !== "undefined") module.exports = HeaprecSiteSeries;
