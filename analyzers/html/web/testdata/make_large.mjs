// make_large.mjs: writes a synthetic heapreplay --html data file (DATA.md)
// with many distinct stacks, to check the page stays responsive:
//   node analyzers/html/web/testdata/make_large.mjs OUT.json [--stacks 100000]
//        [--buckets 200] [--base] [--seed 1]
// Stacks are 20-30 frames deep and share prefixes as real ones do; each site
// has 1-4 cells (leaks, transient blocks freed later, temporaries, mixed);
// buckets, peak and summary are consistent with the cells. Deterministic for
// a seed. Must not be used as a golden file: it is random data.
import fs from "node:fs";

const args = process.argv.slice(2);
const out = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
const flag = (name, def) => {
  const i = args.indexOf("--" + name);
  return i >= 0 && i + 1 < args.length && /^\d+$/.test(args[i + 1]) ? +args[i + 1] : def;
};
if (!out) {
  console.error("usage: node make_large.mjs OUT.json [--stacks N] [--buckets B] [--base] [--seed S]");
  process.exit(2);
}
const STACKS = flag("stacks", 100000);
const B = flag("buckets", 200);
const WITH_BASE = args.includes("--base");
let seed = flag("seed", 1) >>> 0;

// mulberry32
function rand() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n) => Math.floor(rand() * n);
const pick = (a) => a[ri(a.length)];

// Strings.
const strings = ["", "??"];
const intern = new Map(strings.map((s, i) => [s, i]));
const S = (s) => {
  let i = intern.get(s);
  if (i === undefined) {
    i = strings.length;
    strings.push(s);
    intern.set(s, i);
  }
  return i;
};
const namespaces = ["app", "net", "db", "ui", "core", "util", "io", "json", "http", "cache", "sched", "img"];
const classes = ["Parser", "Buffer", "Session", "Table", "Index", "Widget", "Request", "Response", "Pool",
  "Arena", "Codec", "Stream", "Node", "Graph", "Queue", "Timer", "Map", "Vector", "Loader", "Store"];
const methods = ["read", "write", "parse", "flush", "resize", "insert", "lookup", "update", "render",
  "encode", "decode", "append", "grow", "build", "merge", "split", "load", "commit", "visit", "dispatch"];
const modules = { app: "server", net: "libnet.so.3", db: "libdb.so.1", ui: "server", core: "libcore.so",
  util: "libcore.so", io: "libio.so.2", json: "libjson.so.1", http: "libnet.so.3", cache: "server",
  sched: "libcore.so", img: "libimg.so.7" };

// Functions (about 6000) and frames (20000: functions at several lines).
const functions = [];
for (let i = 0; i < 6000; i++) {
  const ns = pick(namespaces), cls = pick(classes), m = pick(methods);
  functions.push({ name: ns + "::" + cls + (i % 7) + "::" + m + "_" + (i % 97) + "(" +
    (i % 3 ? "int" : "std::string const&") + ")", file: "/src/" + ns + "/" + cls.toLowerCase() + (i % 7) + ".cc",
    module: modules[ns] });
}
const frames = { function: [], file: [], module: [], line: [], address: [], offset: [], inlined: [] };
function addFrame(fn, file, module, line, inlined) {
  frames.function.push(S(fn));
  frames.file.push(S(file));
  frames.module.push(S(module));
  frames.line.push(line);
  frames.address.push("0x" + (0x400000 + frames.address.length * 0x37).toString(16));
  frames.offset.push("0x" + (frames.offset.length * 0x37).toString(16));
  frames.inlined.push(inlined ? 1 : 0);
  return frames.function.length - 1;
}
const fStart = addFrame("__libc_start_call_main", "", "libc.so.6", 0, false);
const fMain = addFrame("main", "/src/app/main.cc", "server", 42, false);
const fNoName = addFrame("??", "", "libplugin.so", 0, false);
const F0 = frames.function.length;
for (let i = 0; i < 20000; i++) {
  const f = functions[ri(functions.length)];
  addFrame(f.name, f.file, f.module, 1 + ri(2000), rand() < 0.05);
}
const F = frames.function.length;
// Hot frames: a few are used far more often, so the graph has wide boxes.
const hot = Array.from({ length: 60 }, () => F0 + ri(F - F0));
const randomFrame = () => (rand() < 0.35 ? pick(hot) : rand() < 0.01 ? fNoName : F0 + ri(F - F0));

// Nodes: prefix sharing with the previous stack.
const parent = [-1], frame = [-1];
const childOf = new Map();
const child = (p, f) => {
  const key = p * F + f;
  let n = childOf.get(key);
  if (n === undefined) {
    n = parent.length;
    parent.push(p);
    frame.push(f);
    childOf.set(key, n);
  }
  return n;
};
const sites = [];
const isSite = new Set();
let prevPath = [];
for (let s = 0; s < STACKS; s++) {
  let cut;
  if (!prevPath.length) cut = 0;
  else if (rand() < 0.06) cut = 2 + ri(5);
  else {
    let g = 1;
    while (rand() < 0.55) g++;
    cut = Math.max(2, prevPath.length - g);
  }
  const depth = Math.max(cut + 1, 20 + ri(11));
  const path = prevPath.slice(0, cut);
  if (!path.length) {
    path.push(child(0, fStart));
    path.push(child(path[0], fMain));
  }
  while (path.length < depth || isSite.has(path[path.length - 1])) {
    path.push(child(path[path.length - 1], randomFrame()));
  }
  const leaf = path[path.length - 1];
  isSite.add(leaf);
  sites.push(leaf);
  prevPath = path;
}
const N = parent.length;

// Cells.
const cols = ["node", "bucket", "calls_n", "calls_b", "net_n", "net_b", "peak_n", "peak_b",
  "temp_n", "temp_b", "leak_n", "leak_b"];
const cells = Object.fromEntries(cols.map((c) => [c, []]));
function cell(node, bucket, v) {
  cells.node.push(node);
  cells.bucket.push(bucket);
  for (const c of cols.slice(2)) cells[c].push(v[c] || 0);
}
const allocBucket = () => Math.min(B - 1, Math.floor(B * Math.pow(rand(), 0.9)));
for (const n of sites) {
  const size = 1 << (3 + ri(12));
  const k = 1 + Math.floor(Math.exp(rand() * 4.5));
  const r = rand();
  const a = allocBucket();
  if (r < 0.15) { // leaked
    cell(n, a, { calls_n: k, calls_b: k * size, net_n: k, net_b: k * size, peak_n: k, peak_b: k * size,
      leak_n: k, leak_b: k * size });
  } else if (r < 0.7) { // transient: freed later
    const f = a + 1 + ri(40);
    if (f < B) {
      cell(n, a, { calls_n: k, calls_b: k * size, net_n: k, net_b: k * size, peak_n: k, peak_b: k * size });
      cell(n, f, { net_n: -k, net_b: -k * size });
    } else {
      cell(n, a, { calls_n: k, calls_b: k * size, net_n: k, net_b: k * size, peak_n: k, peak_b: k * size,
        leak_n: k, leak_b: k * size });
    }
  } else if (r < 0.9) { // temporaries in 1-3 buckets
    const times = 1 + ri(3);
    const seen = new Set();
    for (let t = 0; t < times; t++) {
      const b = allocBucket();
      if (seen.has(b)) continue;
      seen.add(b);
      cell(n, b, { calls_n: k, calls_b: k * size, temp_n: k, temp_b: k * size });
    }
  } else { // mixed: a batch in a (part of it freed in b1), another in b1, leaked
    const b1 = Math.min(B - 1, a + 1 + ri(20));
    const kept = Math.max(1, k >> 1);
    if (b1 === a) {
      cell(n, a, { calls_n: k, calls_b: k * size, net_n: k, net_b: k * size, peak_n: k, peak_b: k * size,
        leak_n: k, leak_b: k * size });
    } else {
      cell(n, a, { calls_n: k, calls_b: k * size, net_n: k, net_b: k * size, peak_n: k, peak_b: k * size,
        leak_n: kept, leak_b: kept * size });
      // k made in b1 (all leaked), then k - kept of the first batch freed
      // (after the bucket's highest moment).
      cell(n, b1, { calls_n: k, calls_b: k * size, net_n: kept, net_b: kept * size,
        peak_n: k, peak_b: k * size, leak_n: k, leak_b: k * size });
    }
  }
}
const C = cells.node.length;

// Buckets from the cells: peak_* are the positive changes (frees after the max).
const netB = new Float64Array(B), peakB = new Float64Array(B);
for (let i = 0; i < C; i++) {
  netB[cells.bucket[i]] += cells.net_b[i];
  peakB[cells.bucket[i]] += cells.peak_b[i];
}
const duration = 60e9;
const buckets = { start_ns: [], end_ns: [], live_end: [], max_live: [], max_time_ns: [] };
let live = 0, peak = -1, peakTime = 0;
for (let b = 0; b < B; b++) {
  const start = Math.round((b * duration) / B) + 1000, end = Math.round(((b + 1) * duration) / B) - 1000;
  const max = live + peakB[b];
  live += netB[b];
  const t = start + Math.round(rand() * (end - start));
  buckets.start_ns.push(start);
  buckets.end_ns.push(end);
  buckets.live_end.push(live);
  buckets.max_live.push(max);
  buckets.max_time_ns.push(t);
  if (max > peak) {
    peak = max;
    peakTime = t;
  }
}
const sum = (c) => cells[c].reduce((a, b) => a + b, 0);
if (sum("net_b") !== sum("leak_b") || sum("net_n") !== sum("leak_n")) {
  throw new Error("make_large: live at the end is not what leaked");
}
const summary = {
  allocations: sum("calls_n"), frees: sum("calls_n") - sum("leak_n"), bytes_allocated: sum("calls_b"),
  peak_bytes: peak, peak_time_ns: peakTime, leaked_bytes: sum("leak_b"), leaked_blocks: sum("leak_n"),
  temporaries: sum("temp_n"), duration_ns: duration,
};

let base = null;
if (WITH_BASE) {
  const perNode = new Map();
  for (let i = 0; i < C; i++) {
    const n = cells.node[i];
    const v = perNode.get(n) || { calls_n: 0, calls_b: 0, peak_n: 0, peak_b: 0, temp_n: 0, temp_b: 0, leak_n: 0, leak_b: 0 };
    for (const c of ["calls_n", "calls_b", "temp_n", "temp_b", "leak_n", "leak_b"]) v[c] += cells[c][i];
    v.peak_n += Math.max(0, cells.net_n[i]) * 0.3;
    v.peak_b += Math.max(0, cells.net_b[i]) * 0.3;
    perNode.set(n, v);
  }
  const sites2 = { node: [], calls_n: [], calls_b: [], peak_n: [], peak_b: [], temp_n: [], temp_b: [], leak_n: [], leak_b: [] };
  for (const [n, v] of perNode) {
    if (rand() < 0.2) continue; // stacks new in this trace
    const scale = 0.5 + rand();
    sites2.node.push(n);
    for (const c of Object.keys(v)) sites2[c].push(Math.round(v[c] * scale));
  }
  const bsum = (c) => sites2[c].reduce((a, b) => a + b, 0);
  base = { path: "/tmp/large-base.zst", program: "/usr/bin/server", pid: 999,
    summary: { allocations: bsum("calls_n"), frees: bsum("calls_n") - bsum("leak_n"),
      bytes_allocated: bsum("calls_b"), peak_bytes: bsum("peak_b"), peak_time_ns: 30e9,
      leaked_bytes: bsum("leak_b"), leaked_blocks: bsum("leak_n"), temporaries: bsum("temp_n"),
      duration_ns: duration }, sites: sites2 };
}

const data = {
  format: 1,
  trace: { path: "/tmp/large.zst", program: "/usr/bin/server", args: ["/usr/bin/server", "--threads", "8"],
    pid: 31337, hostname: "synthetic", start_realtime_ns: 1764000000000000000, format_version: "2.1",
    truncated: false, ppid: 1, parent: null, exit: "exited 0", exit_code: 0, signal: null },
  summary,
  warnings: ["synthetic data from make_large.mjs: " + STACKS + " stacks, " + N + " nodes, " + C + " cells"],
  strings, frames, nodes: { parent, frame }, buckets,
  markers: [{ label: "loaded", time_ns: 10e9 }, { label: "warm", time_ns: 30e9 }, { label: "steady", time_ns: 50e9 }],
  cells, base, bench: null,
};
const text = JSON.stringify(data);
fs.writeFileSync(out, text);
console.log(out + ": " + STACKS + " stacks, " + N + " nodes, " + F + " frames, " + C + " cells, " +
  B + " buckets, " + (text.length / 1048576).toFixed(1) + " MiB");
