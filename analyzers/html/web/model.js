// model.js: the page's data model, pure computation on the data object that
// DATA.md specifies: decodes the columns into typed arrays once, builds the
// merged frame-name tree once, and per selected range of buckets computes each
// view's value per node (leaks, peak, allocated, calls, temporaries), the flame
// graph trees (plain or differential against `base`), table rows and filters.
// Must not touch the DOM, the page's state or any global other than its own
// name; must stay loadable in Node (model_test.js). Everything per interaction
// is a linear pass over typed arrays: never rebuild the name tree here.
const HeaprecModel = (function () {
  "use strict";

  // Per-node metrics a range yields (all from `cells`), and those a base has.
  const METRICS = ["calls_n", "calls_b", "peak_n", "peak_b", "temp_n", "temp_b", "leak_n", "leak_b"];
  const CELL_COLUMNS = ["calls_n", "calls_b", "net_n", "net_b", "peak_n", "peak_b",
    "temp_n", "temp_b", "leak_n", "leak_b"];

  // The flame graph views: `metric` is the box width, `unit` "bytes" or a noun.
  const VIEWS = {
    leaks: { title: "Leaked bytes", short: "Leaks", metric: "leak_b", unit: "bytes",
      empty: "Nothing leaked", table: "leaks" },
    peak: { title: "Bytes at peak", short: "Peak", metric: "peak_b", unit: "bytes",
      empty: "Nothing live at the peak", table: "peak" },
    allocated: { title: "Allocated bytes", short: "Allocated", metric: "calls_b", unit: "bytes",
      empty: "Nothing allocated", table: "hot" },
    calls: { title: "Allocation calls", short: "Calls", metric: "calls_n", unit: "calls",
      empty: "No allocation calls", table: "hot" },
    temporaries: { title: "Temporaries", short: "Temporaries", metric: "temp_n",
      unit: "temporaries", empty: "No temporaries", table: "temporaries" },
  };
  const VIEW_NAMES = ["leaks", "peak", "allocated", "calls", "temporaries"];

  // The tables: `primary` decides the default order and the percent column
  // (and, against a base, the base/this/change columns).
  const TABLES = {
    leaks: { title: "Leaks", bytes: "leak_b", count: "leak_n", countName: "blocks",
      primary: "bytes", empty: "Nothing leaked" },
    peak: { title: "Peak", bytes: "peak_b", count: "peak_n", countName: "blocks",
      primary: "bytes", empty: "Nothing live at the peak" },
    temporaries: { title: "Temporaries", bytes: "temp_b", count: "temp_n", countName: "calls",
      primary: "count", empty: "No temporaries" },
    hot: { title: "Hot sites", bytes: "calls_b", count: "calls_n", countName: "calls",
      primary: "count", empty: "No allocation calls" },
  };
  const TABLE_NAMES = ["leaks", "peak", "temporaries", "hot"];

  function ints(a, what) {
    if (!Array.isArray(a)) throw new Error("heaprec data: " + what + " is not an array");
    return Int32Array.from(a);
  }
  function nums(a, what) {
    if (!Array.isArray(a)) throw new Error("heaprec data: " + what + " is not an array");
    return Float64Array.from(a);
  }
  function sameLength(obj, names, what) {
    const n = obj[names[0]].length;
    for (const k of names) {
      if (obj[k].length !== n) throw new Error("heaprec data: " + what + "." + k + " has " +
        obj[k].length + " entries, " + what + "." + names[0] + " " + n);
    }
    return n;
  }

  // Decodes the data object into a model. Throws on data that breaks DATA.md.
  function load(data) {
    if (!data || data.format !== 1) {
      throw new Error("heaprec data: unsupported format " + (data && data.format));
    }
    const strings = data.strings;
    const str = (i) => (i >= 0 && i < strings.length ? strings[i] : "");

    // Frames.
    const fr = data.frames;
    const F = sameLength(fr, ["function", "file", "module", "line", "address", "offset", "inlined"],
      "frames");
    const frames = {
      count: F,
      fn: ints(fr.function, "frames.function"),
      file: ints(fr.file, "frames.file"),
      module: ints(fr.module, "frames.module"),
      line: ints(fr.line, "frames.line"),
      address: fr.address,
      offset: fr.offset,
      inlined: Uint8Array.from(fr.inlined),
      // The function is the allocator or one of its wrappers (absent in
      // pages of an older heapreplay: none is).
      allocator: Array.isArray(fr.allocator) && fr.allocator.length === F
        ? Uint8Array.from(fr.allocator) : new Uint8Array(F),
      label: new Array(F), // what people see: the function, or MODULE+0xOFFSET
      nameId: new Int32Array(F), // into names: label (+ " (inlined)")
    };
    // Names of flame graph boxes, interned: frames with one name share an id.
    // A function without a name is MODULE+0xOFFSET ("git+0x1f069"; its
    // address when even the module is unknown), as in --folded and
    // --flamegraph (FrameName).
    const names = [];
    const nameIds = new Map();
    for (let f = 0; f < F; f++) {
      const fn = str(frames.fn[f]), mod = str(frames.module[f]);
      const known = fn && fn !== "??";
      frames.label[f] = known ? fn : mod && frames.offset[f] ? mod + "+" + frames.offset[f] :
        frames.address[f] || "??";
      const name = frames.label[f] + (frames.inlined[f] ? " (inlined)" : "");
      let id = nameIds.get(name);
      if (id === undefined) {
        id = names.length;
        names.push(name);
        nameIds.set(name, id);
      }
      frames.nameId[f] = id;
    }

    // Nodes.
    const nd = data.nodes;
    const N = sameLength(nd, ["parent", "frame"], "nodes");
    const parent = ints(nd.parent, "nodes.parent");
    const frame = ints(nd.frame, "nodes.frame");
    if (N === 0 || parent[0] !== -1) throw new Error("heaprec data: node 0 must be the root");
    for (let i = 1; i < N; i++) {
      if (!(parent[i] >= 0 && parent[i] < i)) {
        throw new Error("heaprec data: node " + i + " has parent " + parent[i]);
      }
      if (!(frame[i] >= 0 && frame[i] < F)) {
        throw new Error("heaprec data: node " + i + " has frame " + frame[i]);
      }
    }

    // The merged tree: nodes with one name under one merged parent are one box
    // (as flamegraph.pl folds stacks). Merged ids keep parent < child.
    const mergedOf = new Int32Array(N);
    const mParentList = [-1];
    const mNameList = [-1];
    const mFrameList = [-1];
    const mMulti = [0]; // 1 when frames with different locations were merged
    const childKey = new Map();
    const NAMES = names.length + 1;
    for (let i = 1; i < N; i++) {
      const mp = mergedOf[parent[i]];
      const f = frame[i];
      const key = mp * NAMES + frames.nameId[f];
      let m = childKey.get(key);
      if (m === undefined) {
        m = mParentList.length;
        childKey.set(key, m);
        mParentList.push(mp);
        mNameList.push(frames.nameId[f]);
        mFrameList.push(f);
        mMulti.push(0);
      } else if (mFrameList[m] !== f) {
        const g = mFrameList[m];
        if (frames.file[g] !== frames.file[f] || frames.line[g] !== frames.line[f] ||
            frames.module[g] !== frames.module[f]) mMulti[m] = 1;
      }
      mergedOf[i] = m;
    }
    const M = mParentList.length;
    const merged = {
      count: M,
      of: mergedOf,
      parent: Int32Array.from(mParentList),
      name: Int32Array.from(mNameList),
      frame: Int32Array.from(mFrameList),
      multi: Uint8Array.from(mMulti),
      childStart: new Int32Array(M + 1),
      children: new Int32Array(Math.max(0, M - 1)),
    };
    // Children in CSR form, each list sorted by name (flamegraph.pl's order).
    for (let m = 1; m < M; m++) merged.childStart[merged.parent[m] + 1]++;
    for (let m = 0; m < M; m++) merged.childStart[m + 1] += merged.childStart[m];
    {
      const fill = merged.childStart.slice(0, M);
      for (let m = 1; m < M; m++) merged.children[fill[merged.parent[m]]++] = m;
      const byName = (a, b) => {
        const x = names[merged.name[a]], y = names[merged.name[b]];
        return x < y ? -1 : x > y ? 1 : 0;
      };
      for (let m = 0; m < M; m++) {
        const s = merged.childStart[m], e = merged.childStart[m + 1];
        if (e - s > 1) merged.children.subarray(s, e).sort(byName);
      }
    }

    // Buckets.
    const bk = data.buckets;
    const B = sameLength(bk, ["start_ns", "end_ns", "live_end", "max_live", "max_time_ns"], "buckets");
    const buckets = {
      count: B,
      start: nums(bk.start_ns, "buckets.start_ns"),
      end: nums(bk.end_ns, "buckets.end_ns"),
      liveEnd: nums(bk.live_end, "buckets.live_end"),
      maxLive: nums(bk.max_live, "buckets.max_live"),
      maxTime: nums(bk.max_time_ns, "buckets.max_time_ns"),
    };

    // Cells.
    const cl = data.cells;
    const C = sameLength(cl, ["node", "bucket"].concat(CELL_COLUMNS), "cells");
    const cells = { count: C, node: ints(cl.node, "cells.node"), bucket: ints(cl.bucket, "cells.bucket") };
    for (const k of CELL_COLUMNS) cells[k] = nums(cl[k], "cells." + k);
    for (let c = 0; c < C; c++) {
      if (!(cells.node[c] >= 0 && cells.node[c] < N) || !(cells.bucket[c] >= 0 && cells.bucket[c] < B)) {
        throw new Error("heaprec data: cell " + c + " is out of range");
      }
    }

    // Base: its totals per node.
    let base = null;
    if (data.base) {
      const s = data.base.sites;
      const S = sameLength(s, ["node"].concat(METRICS), "base.sites");
      base = { path: data.base.path, program: data.base.program, pid: data.base.pid,
        summary: data.base.summary, values: {}, totals: {} };
      for (const k of METRICS) {
        base.values[k] = new Float64Array(N);
        base.totals[k] = 0;
      }
      for (let j = 0; j < S; j++) {
        const n = s.node[j];
        if (!(n >= 0 && n < N)) throw new Error("heaprec data: base site " + j + " has node " + n);
        for (const k of METRICS) {
          base.values[k][n] += s[k][j];
          base.totals[k] += s[k][j];
        }
      }
    }

    const leakKinds = loadLeakKinds(data, N, B);
    if (base) base.leakKinds = loadBaseLeakKinds(data.base, N);

    const markers = (data.markers || []).slice().sort((a, b) => a.time_ns - b.time_ns ||
      (a.bucket || 0) - (b.bucket || 0));
    const durationNs = Math.max(data.summary ? data.summary.duration_ns || 0 : 0,
      B ? buckets.end[B - 1] : 0);

    return { data, strings, str, frames, names, nodeCount: N, parent, frame, merged,
      buckets, cells, base, markers, durationNs, trace: data.trace, summary: data.summary, leakKinds,
      warnings: data.warnings || [], bench: data.bench || null };
  }

  // memcheck's leak kinds by their number in the data (DATA.md, "leak_kinds":
  // format::LeakKind): 0 is a block no scan classified, always shown (as
  // heapreplay does); 1-4 are the kinds a page can pick.
  const LEAK_KINDS = [
    { key: "unknown", name: "unknown", words: "kind unknown" },
    { key: "definite", name: "definitely_lost", words: "definitely lost" },
    { key: "indirect", name: "indirectly_lost", words: "indirectly lost" },
    { key: "possible", name: "possibly_lost", words: "possibly lost" },
    { key: "reachable", name: "still_reachable", words: "still reachable" },
  ];

  // The kinds of heapreplay --leak-kinds ("definite,possible", "all", "none")
  // as a mask of 1 << kind, with the unknown kind (bit 0) always in.
  function leakKindMask(text) {
    if (text === "all") return 0x1f;
    let mask = 1;
    for (const word of String(text || "").split(",")) {
      const k = LEAK_KINDS.findIndex((x) => x.key === word);
      if (k > 0) mask |= 1 << k;
    }
    return mask;
  }

  // "leak_kinds" (null when the trace knows no kinds): the live blocks by
  // node, bucket and kind, and what holds the still reachable ones.
  function loadLeakKinds(data, N, B) {
    const lk = data.leak_kinds;
    if (!lk || !lk.cells) return null;
    const c = lk.cells;
    const C = sameLength(c, ["node", "bucket", "kind", "n", "b"], "leak_kinds.cells");
    const cells = { count: C, node: ints(c.node, "leak_kinds.cells.node"),
      bucket: ints(c.bucket, "leak_kinds.cells.bucket"), kind: Uint8Array.from(c.kind),
      n: nums(c.n, "leak_kinds.cells.n"), b: nums(c.b, "leak_kinds.cells.b") };
    const totals = LEAK_KINDS.map(() => ({ bytes: 0, blocks: 0 }));
    for (let i = 0; i < C; i++) {
      const k = cells.kind[i];
      if (!(cells.node[i] >= 0 && cells.node[i] < N) || !(cells.bucket[i] >= 0 && cells.bucket[i] < B) ||
          !(k < LEAK_KINDS.length)) {
        throw new Error("heaprec data: leak_kinds cell " + i + " is out of range");
      }
      totals[k].bytes += cells.b[i];
      totals[k].blocks += cells.n[i];
    }
    // node -> [{root, bytes}], largest first.
    const heldBy = new Map();
    const h = lk.held_by || { node: [], root: [], bytes: [] };
    const roots = lk.roots || [];
    for (let j = 0; j < h.node.length; j++) {
      if (!heldBy.has(h.node[j])) heldBy.set(h.node[j], []);
      heldBy.get(h.node[j]).push({ root: roots[h.root[j]] || "?", bytes: h.bytes[j] });
    }
    for (const list of heldBy.values()) list.sort((a, b) => b.bytes - a.bytes);
    const shown = data.leaks && data.leaks.shown_kinds;
    return { cells, totals, heldBy, defaultMask: leakKindMask(shown === undefined ? "definite,possible" : shown) };
  }

  function loadBaseLeakKinds(b, N) {
    const lk = b.leak_kinds;
    if (!lk || !lk.node) return null;
    const S = sameLength(lk, ["node", "kind", "n", "b"], "base.leak_kinds");
    for (let j = 0; j < S; j++) {
      if (!(lk.node[j] >= 0 && lk.node[j] < N)) throw new Error("heaprec data: base leak " + j + " has node " + lk.node[j]);
    }
    return { count: S, node: lk.node, kind: lk.kind, n: lk.n, b: lk.b };
  }

  // The base's leak values (base.values.leak_*, base.totals) for the kinds
  // of `mask` (the default kinds: as loaded). Changes model.base in place.
  function setBaseLeakKinds(model, mask) {
    const base = model.base;
    if (!base || !base.leakKinds) return;
    const lk = base.leakKinds, n = base.values.leak_n.fill(0), b = base.values.leak_b.fill(0);
    let tn = 0, tb = 0;
    for (let j = 0; j < lk.count; j++) {
      if (!((mask >> lk.kind[j]) & 1)) continue;
      n[lk.node[j]] += lk.n[j];
      b[lk.node[j]] += lk.b[j];
      tn += lk.n[j];
      tb += lk.b[j];
    }
    base.totals.leak_n = tn;
    base.totals.leak_b = tb;
  }

  // What holds a node's still reachable blocks (whole trace): [{root, bytes}].
  function heldBy(model, node) {
    return (model.leakKinds && model.leakKinds.heldBy.get(node)) || [];
  }

  // The highest moment of buckets [b0, b1]: the first bucket with the largest
  // max_live.
  function peakBucket(model, b0, b1) {
    const ml = model.buckets.maxLive;
    let p = -1;
    for (let b = b0; b <= b1; b++) if (p < 0 || ml[b] > ml[p]) p = b;
    return p;
  }

  // Every view's value per node for the range {b0, b1} (null: every bucket),
  // as DATA.md says. Returns {range, b0, b1, peak: {bucket, time_ns, bytes},
  // values: {metric: Float64Array(nodes)}, totals: {metric: number},
  // leakKinds: Uint8Array(nodes) of 1 << kind for the kinds of `leakMask`
  // each node leaked in the range (null without leak_kinds), leakMask: the
  // kinds counted (0 without leak_kinds)}.
  // `reuse`, a result of an earlier call no longer needed, lends its arrays
  // (less garbage per interaction with many nodes). `leakMask` (leakKindMask;
  // absent: the kinds heapreplay showed) picks the leak kinds counted.
  function compute(model, range, reuse, leakMask) {
    const B = model.buckets.count;
    const b0 = range ? range.b0 : 0;
    const b1 = range ? range.b1 : B - 1;
    const N = model.nodeCount;
    const values = {};
    for (const k of METRICS) {
      const old = reuse && reuse.values[k];
      values[k] = old && old.length === N ? old.fill(0) : new Float64Array(N);
    }
    const p = B ? peakBucket(model, b0, b1) : -1;
    const c = model.cells;
    const node = c.node, bucket = c.bucket;
    const callsN = values.calls_n, callsB = values.calls_b, tempN = values.temp_n,
      tempB = values.temp_b, leakN = values.leak_n, leakB = values.leak_b,
      peakN = values.peak_n, peakB = values.peak_b;
    const cCallsN = c.calls_n, cCallsB = c.calls_b, cTempN = c.temp_n, cTempB = c.temp_b,
      cLeakN = c.leak_n, cLeakB = c.leak_b, cNetN = c.net_n, cNetB = c.net_b,
      cPeakN = c.peak_n, cPeakB = c.peak_b;
    let tCallsN = 0, tCallsB = 0, tTempN = 0, tTempB = 0, tLeakN = 0, tLeakB = 0,
      tPeakN = 0, tPeakB = 0;
    for (let i = 0; i < c.count; i++) {
      const b = bucket[i], n = node[i];
      if (b >= b0 && b <= b1) {
        callsN[n] += cCallsN[i];
        callsB[n] += cCallsB[i];
        tempN[n] += cTempN[i];
        tempB[n] += cTempB[i];
        leakN[n] += cLeakN[i];
        leakB[n] += cLeakB[i];
        tCallsN += cCallsN[i];
        tCallsB += cCallsB[i];
        tTempN += cTempN[i];
        tTempB += cTempB[i];
        tLeakN += cLeakN[i];
        tLeakB += cLeakB[i];
      }
      if (b < p) {
        peakN[n] += cNetN[i];
        peakB[n] += cNetB[i];
        tPeakN += cNetN[i];
        tPeakB += cNetB[i];
      } else if (b === p) {
        peakN[n] += cPeakN[i];
        peakB[n] += cPeakB[i];
        tPeakN += cPeakN[i];
        tPeakB += cPeakB[i];
      }
    }
    const totals = { calls_n: tCallsN, calls_b: tCallsB, peak_n: tPeakN, peak_b: tPeakB,
      temp_n: tTempN, temp_b: tTempB, leak_n: tLeakN, leak_b: tLeakB };
    let kindsOf = null, mask = 0;
    const lk = model.leakKinds;
    if (lk) {
      mask = leakMask === undefined || leakMask === null ? lk.defaultMask : leakMask;
      // Other kinds than heapreplay's: the leaks come from the blocks by kind.
      const own = mask !== lk.defaultMask;
      if (own) {
        leakN.fill(0);
        leakB.fill(0);
        totals.leak_n = totals.leak_b = 0;
      }
      const old = reuse && reuse.leakKinds;
      kindsOf = old && old.length === N ? old.fill(0) : new Uint8Array(N);
      const k = lk.cells;
      for (let i = 0; i < k.count; i++) {
        const b = k.bucket[i];
        if (b < b0 || b > b1 || !((mask >> k.kind[i]) & 1)) continue;
        const n = k.node[i];
        kindsOf[n] |= 1 << k.kind[i];
        if (own) {
          leakN[n] += k.n[i];
          leakB[n] += k.b[i];
          totals.leak_n += k.n[i];
          totals.leak_b += k.b[i];
        }
      }
    }
    const peak = p < 0 ? { bucket: -1, time_ns: 0, bytes: 0 }
      : { bucket: p, time_ns: model.buckets.maxTime[p], bytes: model.buckets.maxLive[p] };
    return { range: range || null, b0, b1, peak, values, totals, leakKinds: kindsOf, leakMask: mask };
  }

  // Buckets that overlap [t0, t1] (ns) as {b0, b1}, or null when none does.
  // With `endExclusive`, a bucket starting exactly at t1 is not included (for
  // ranges between markers, so one at a marker lands in one range only).
  function rangeFromTimes(model, t0, t1, endExclusive) {
    if (t1 < t0) { const t = t0; t0 = t1; t1 = t; }
    const bk = model.buckets;
    let b0 = -1, b1 = -1;
    for (let b = 0; b < bk.count; b++) {
      const startsIn = endExclusive ? bk.start[b] < t1 : bk.start[b] <= t1;
      if (bk.end[b] >= t0 && startsIn) {
        if (b0 < 0) b0 = b;
        b1 = b;
      }
    }
    return b0 < 0 ? null : { b0, b1 };
  }

  function isFullRange(model, range) {
    return !range || (range.b0 === 0 && range.b1 === model.buckets.count - 1);
  }

  // Quick ranges between consecutive markers (with the trace's start and end):
  // [{label, t0, t1, range}], only those holding at least one bucket. Exact
  // when the data names each marker's bucket (DATA.md: markers[i].bucket);
  // by time otherwise.
  function markerRanges(model) {
    if (!model.markers.length || !model.buckets.count) return [];
    if (model.markers.every((m) => Number.isInteger(m.bucket))) return markerRangesByBucket(model);
    const points = [{ label: "start", t: 0 }];
    for (const m of model.markers) points.push({ label: m.label, t: m.time_ns });
    points.push({ label: "end", t: model.durationNs });
    const out = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i], b = points[i + 1];
      const last = i + 2 === points.length;
      const range = rangeFromTimes(model, a.t, b.t, !last);
      if (range) out.push({ label: a.label + " \u2192 " + b.label, t0: a.t, t1: b.t, range });
    }
    return out;
  }

  function markerRangesByBucket(model) {
    const n = model.buckets.count, ms = model.markers;
    const points = [{ label: "start", t: 0, bucket: 0 }];
    for (const m of ms) points.push({ label: m.label, t: m.time_ns, bucket: Math.min(m.bucket, n) });
    points.push({ label: "end", t: model.durationNs, bucket: n });
    const out = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i], b = points[i + 1];
      if (b.bucket > a.bucket) {
        out.push({ label: a.label + " \u2192 " + b.label, t0: a.t, t1: b.t,
          range: { b0: a.bucket, b1: b.bucket - 1 } });
      }
    }
    return out;
  }

  // The flame graph tree of one view: per node values `thisValues` (and the
  // base's `baseValues` for a difference). Values are summed into the merged
  // tree; a box's width is its inclusive value (against a base: the inclusive
  // sum of max(base, this) per box, so shrunk stacks stay visible) and `delta`
  // is this minus base. At most about `maxBoxes` boxes (the widest) are built
  // into objects; the rest are too narrow to draw. Returns {root, total,
  // baseTotal, width, boxes, nonZero, inc (Float64Array of this, per merged
  // box), baseInc, depth (levels below the root of the boxes kept), drawnDepth
  // (at most opts.maxDepth)}. Negative values (never expected) count as 0.
  function flameTree(model, thisValues, baseValues, opts) {
    const maxBoxes = (opts && opts.maxBoxes) || 30000;
    // Levels below the root drawn at most (the rest: `depth` says how many).
    const maxDepth = opts && opts.maxDepth > 0 ? opts.maxDepth : Infinity;
    const mg = model.merged, M = mg.count, N = model.nodeCount, of = mg.of;
    const inc = new Float64Array(M);
    for (let n = 1; n < N; n++) {
      const v = thisValues[n];
      if (v > 0) inc[of[n]] += v;
    }
    let binc = null, winc = inc;
    if (baseValues) {
      binc = new Float64Array(M);
      for (let n = 1; n < N; n++) {
        const v = baseValues[n];
        if (v > 0) binc[of[n]] += v;
      }
      winc = new Float64Array(M);
      for (let m = 1; m < M; m++) winc[m] = Math.max(inc[m], binc[m]);
    }
    // Self values are in place; make them inclusive (children have larger ids).
    const par = mg.parent;
    for (let m = M - 1; m > 0; m--) {
      inc[par[m]] += inc[m];
      if (binc) {
        binc[par[m]] += binc[m];
        winc[par[m]] += winc[m];
      }
    }
    let nonZero = 0;
    for (let m = 1; m < M; m++) if (winc[m] > 0) nonZero++;
    // The widest maxBoxes boxes: a parent is at least as wide as its child, so
    // a threshold keeps a connected tree.
    let threshold = 0;
    if (nonZero > maxBoxes) {
      const w = new Float64Array(nonZero);
      let j = 0;
      for (let m = 1; m < M; m++) if (winc[m] > 0) w[j++] = winc[m];
      threshold = select(w, nonZero - maxBoxes);
    }
    // The depth of the boxes kept (parents have smaller ids than children).
    const level = new Int32Array(M);
    let depth = 0;
    for (let m = 1; m < M; m++) {
      level[m] = level[par[m]] + 1;
      if (winc[m] > 0 && winc[m] >= threshold && level[m] > depth) depth = level[m];
    }
    const hardCap = maxBoxes + (maxBoxes >> 2);
    const total = inc[0], baseTotal = binc ? binc[0] : 0;
    const makeBox = (m, name) => {
      const box = { name, value: winc[m], m, t: inc[m] };
      if (binc) {
        box.b = binc[m];
        box.delta = inc[m] - binc[m];
      }
      return box;
    };
    const root = makeBox(0, "all");
    let boxes = 1;
    const queue = [root];
    for (let q = 0; q < queue.length; q++) {
      const box = queue[q];
      const m = box.m;
      for (let k = mg.childStart[m]; k < mg.childStart[m + 1]; k++) {
        const c = mg.children[k];
        const w = winc[c];
        if (!(w > 0) || w < threshold || boxes >= hardCap || level[c] > maxDepth) continue;
        const child = makeBox(c, model.names[mg.name[c]]);
        (box.children || (box.children = [])).push(child);
        queue.push(child);
        boxes++;
      }
    }
    return { root, total, baseTotal, width: winc[0], boxes, nonZero, inc, baseInc: binc, depth,
      drawnDepth: Math.min(depth, maxDepth) };
  }

  // The k-th smallest value of `a` (0-based; reorders `a`): quickselect.
  function select(a, k) {
    let lo = 0, hi = a.length - 1;
    while (hi > lo) {
      const pivot = a[(lo + hi) >> 1];
      let i = lo, j = hi;
      while (i <= j) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i <= j) {
          const t = a[i];
          a[i] = a[j];
          a[j] = t;
          i++;
          j--;
        }
      }
      if (k <= j) hi = j;
      else if (k >= i) lo = i;
      else break;
    }
    return a[k];
  }

  // How much of a flame tree's "this" total lies under boxes whose name holds
  // `term` (case-insensitive substring; no regular expression), counting a box
  // inside a matching box once. Works on the whole merged tree, drawn or not.
  function matchedTotal(model, inc, term) {
    const t = String(term || "").toLowerCase();
    if (!t) return 0;
    const nameMatch = new Uint8Array(model.names.length);
    for (let i = 0; i < model.names.length; i++) {
      nameMatch[i] = model.names[i].toLowerCase().includes(t) ? 1 : 0;
    }
    const mg = model.merged, M = mg.count;
    const under = new Uint8Array(M);
    let sum = 0;
    for (let m = 1; m < M; m++) {
      const p = mg.parent[m];
      if (under[p]) under[m] = 1;
      else if (nameMatch[mg.name[m]]) {
        under[m] = 1;
        sum += inc[m];
      }
    }
    return sum;
  }

  function nameMatches(name, term) {
    return !!term && name.toLowerCase().includes(String(term).toLowerCase());
  }

  // Sites: the nodes with a non-zero value in any of `arrays` (per-node
  // values; null entries are skipped), as an Int32Array.
  function sites(model, arrays) {
    const N = model.nodeCount;
    const list = arrays.filter((a) => a);
    const out = new Int32Array(N);
    let k = 0;
    for (let n = 1; n < N; n++) {
      for (let j = 0; j < list.length; j++) {
        if (list[j][n] !== 0) {
          out[k++] = n;
          break;
        }
      }
    }
    return out.slice(0, k);
  }

  // Which nodes' stacks hold a frame whose `field` ("function", "file",
  // "module" or "any") contains `term` (case-insensitive): Uint8Array per
  // node, or null for an empty term.
  function filterMask(model, field, term) {
    const t = String(term || "").trim().toLowerCase();
    if (!t) return null;
    const fr = model.frames, F = fr.count;
    const strMatch = new Int8Array(model.strings.length).fill(-1);
    const has = (s) => {
      if (strMatch[s] < 0) strMatch[s] = (model.strings[s] || "").toLowerCase().includes(t) ? 1 : 0;
      return strMatch[s] === 1;
    };
    const frameMatch = new Uint8Array(F);
    for (let f = 0; f < F; f++) {
      let ok = false;
      if (field === "function" || field === "any") {
        ok = ok || has(fr.fn[f]) || fr.label[f].toLowerCase().includes(t);
      }
      if (field === "file" || field === "any") ok = ok || has(fr.file[f]);
      if (field === "module" || field === "any") ok = ok || has(fr.module[f]);
      frameMatch[f] = ok ? 1 : 0;
    }
    const N = model.nodeCount, mask = new Uint8Array(N);
    for (let n = 1; n < N; n++) mask[n] = mask[model.parent[n]] | frameMatch[model.frame[n]];
    return mask;
  }

  // One frame for display.
  function frameInfo(model, f) {
    const fr = model.frames;
    const file = model.str(fr.file[f]);
    const line = fr.line[f];
    return {
      function: fr.label[f],
      file,
      line,
      location: file ? (line ? file + ":" + line : file) : "",
      module: model.str(fr.module[f]),
      address: fr.address[f] || "",
      offset: fr.offset[f] || "",
      inlined: !!fr.inlined[f],
      allocator: !!fr.allocator[f],
    };
  }

  // The stack of a node, innermost frame first.
  function stack(model, node) {
    const out = [];
    for (let n = node; n > 0; n = model.parent[n]) out.push(frameInfo(model, model.frame[n]));
    return out;
  }

  // What the function table (and calltree.js) needs and never changes: each
  // frame's function (its label, as FrameName: one id per name), each node's
  // "via" node, whether a node's function is not already on the path above it
  // (so a recursive function's cum counts each site once), and each node's
  // children (kids[start[n] .. start[n + 1]]). O(nodes), once.
  function functionIndex(model) {
    if (model.fnIndex) return model.fnIndex;
    const fr = model.frames, N = model.nodeCount, parent = model.parent, frame = model.frame;
    const ids = new Map(), names = [];
    const fnOfFrame = new Int32Array(fr.count);
    for (let f = 0; f < fr.count; f++) {
      let id = ids.get(fr.label[f]);
      if (id === undefined) {
        id = names.length;
        names.push(fr.label[f]);
        ids.set(fr.label[f], id);
      }
      fnOfFrame[f] = id;
    }
    const via = new Int32Array(N).fill(-1);
    for (let n = 1; n < N; n++) {
      via[n] = fr.allocator[frame[n]] ? via[parent[n]] : n;
    }
    for (let n = 1; n < N; n++) if (via[n] < 0) via[n] = n; // every frame inside: the site
    // Depth-first over the node tree (children from the parent column).
    const start = new Int32Array(N + 1);
    for (let n = 1; n < N; n++) start[parent[n] + 1]++;
    for (let n = 0; n < N; n++) start[n + 1] += start[n];
    const kids = new Int32Array(Math.max(N - 1, 0)), fill = start.slice(0, N);
    for (let n = 1; n < N; n++) kids[fill[parent[n]]++] = n;
    const first = new Uint8Array(N), onPath = new Int32Array(names.length);
    const stack = [0], next = new Int32Array(N);
    for (let n = 0; n < N; n++) next[n] = start[n];
    while (stack.length) {
      const n = stack[stack.length - 1];
      if (next[n] < start[n + 1]) {
        const c = kids[next[n]++];
        const f = fnOfFrame[frame[c]];
        first[c] = onPath[f] === 0 ? 1 : 0;
        onPath[f]++;
        stack.push(c);
      } else {
        stack.pop();
        if (n > 0) onPath[fnOfFrame[frame[n]]]--;
      }
    }
    model.fnIndex = { names, fnOfFrame, via, first, start, kids };
    return model.fnIndex;
  }

  // The text report's `top` table for per-node `values` (a view's metric):
  // per function, flat (the sites whose "via" frame, their first frame outside
  // the allocator, is the function) and cum (the sites with the function
  // anywhere in their stack, once per site). Rows with cum > 0, by flat, then
  // cum (largest first), then name. Returns {rows: [{name, flat, cum}],
  // total}. O(nodes) per call.
  function functionTable(model, values) {
    const ix = functionIndex(model), N = model.nodeCount, parent = model.parent, frame = model.frame;
    const F = ix.names.length;
    const flat = new Float64Array(F), cum = new Float64Array(F), inc = new Float64Array(N);
    let total = 0;
    for (let n = 1; n < N; n++) {
      const v = values[n] > 0 ? values[n] : 0;
      if (!v) continue;
      inc[n] = v;
      total += v;
      flat[ix.fnOfFrame[frame[ix.via[n]]]] += v;
    }
    for (let n = N - 1; n > 0; n--) {
      if (!inc[n]) continue;
      if (ix.first[n]) cum[ix.fnOfFrame[frame[n]]] += inc[n];
      inc[parent[n]] += inc[n];
    }
    const rows = [];
    for (let f = 0; f < F; f++) if (cum[f] > 0) rows.push({ name: ix.names[f], flat: flat[f], cum: cum[f] });
    rows.sort((a, b) => b.flat - a.flat || b.cum - a.cum || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { rows, total };
  }

  // The view the page opens on: the answer that matters in this trace. The
  // peak (what to shrink), unless the leaks are a large part of it (leaked >=
  // LEAKS_FIRST_SHARE of the peak), or there is no peak at all. Leaked: the
  // kinds the page shows (data.leaks), else every block live at the end.
  // Returns {view, why} (why: one sentence for the reader).
  const LEAKS_FIRST_SHARE = 0.25;
  function firstView(model) {
    const s = model.summary || {}, lk = model.data.leaks;
    const leaked = lk && typeof lk.bytes === "number" ? lk.bytes : s.leaked_bytes || 0;
    const peak = s.peak_bytes || 0;
    const pct = (x) => (100 * x).toFixed(x < 0.1 ? 1 : 0) + "%";
    if (peak > 0 && leaked < LEAKS_FIRST_SHARE * peak) {
      return { view: "peak", why: "Opened on the peak: " + (leaked > 0 ? "the leaks are " +
        pct(leaked / peak) + " of it" : "nothing leaked") + "." };
    }
    if (leaked > 0) {
      return { view: "leaks", why: "Opened on the leaks: they are " + pct(leaked / Math.max(peak, 1)) +
        " of the peak (" + pct(LEAKS_FIRST_SHARE) + " or more opens here)." };
    }
    return { view: "allocated", why: "" };
  }

  // A site's "via": the node of its first frame, innermost first, outside the
  // allocator and its wrappers (the site itself when every frame is inside).
  function viaNode(model, node) {
    const alloc = model.frames.allocator;
    for (let n = node; n > 0; n = model.parent[n]) {
      if (!alloc[model.frame[n]]) return n;
    }
    return node;
  }

  // The innermost frame of a site.
  function site(model, node) {
    return frameInfo(model, model.frame[node]);
  }

  // A merged box's representative frame (the first one merged into it).
  function boxFrame(model, m) {
    return m > 0 ? frameInfo(model, model.merged.frame[m]) : null;
  }

  // Totals of a function's sites in one metric (for tests and the header).
  function totalsByFunction(model, values) {
    const out = {};
    for (let n = 1; n < model.nodeCount; n++) {
      if (values[n] === 0) continue;
      const fn = site(model, n).function;
      out[fn] = (out[fn] || 0) + values[n];
    }
    return out;
  }

  return { METRICS, VIEWS, VIEW_NAMES, TABLES, TABLE_NAMES, LEAK_KINDS, leakKindMask, setBaseLeakKinds,
    heldBy, load, compute, peakBucket, select,
    rangeFromTimes, isFullRange, markerRanges, flameTree, matchedTotal, nameMatches, sites,
    filterMask, frameInfo, stack, site, viaNode, functionIndex, functionTable, firstView, LEAKS_FIRST_SHARE, boxFrame, totalsByFunction };
})();
if (typeof module !== "undefined") module.exports = HeaprecModel;
