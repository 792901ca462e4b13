// main.js: the page: reads the data object, renders the header, owns the
// page state (range, view, table, difference mode, search, filter, leak
// kinds) and wires the timeline, the chart by call stack, flame graph, call
// trees (trees.js), tables, leak kinds and bench modules to it; with several
// processes (processes.js) renders the page of the one picked; exposes the
// test hook window.heaprecPage.
// Must not compute views itself (model.js) or draw charts (timeline.js,
// flame.js, bench.js); loads nothing from anywhere (no fetch, no URLs).
//
// Test hook, window.heaprecPage:
//   ready              true once the page has rendered (false until then, or
//                      if loading failed: then `error` holds the message)
//   error              the loading error's message, or null
//   loadMs             ms from navigation start to ready (performance.now())
//   setupMs            of which the page's own work (parse, model, first draw)
//   lastUpdateMs       ms the last range, view or mode change took to compute
//                      and draw (synchronous part); lastTimings: its parts
//   timeToClientX(ns)  viewport x (CSS px, what page.mouse takes) of time ns
//                      on the heap chart; scroll the chart into view first
//   chartClientY()     viewport y of the middle of the heap chart's plot
//   bytesToClientY(b)  viewport y of b bytes on the heap chart
//   selectTime(t0, t1) selects the buckets overlapping [t0, t1] ns, as a drag
//   setView(name)      shows a flame graph view (leaks, peak, allocated,
//                      calls, temporaries), as a click on its tab
//   state()            {view, table, orient ("icicle" | "flame"), depth:
//                      {drawn, all} (flame graph levels), range: {b0, b1, t0,
//                      t1} | null, diff, search, boxes (flame boxes built),
//                      trees: {tab, term, sandwich, rows} (trees.js)}
//   sites()            the chart by call stack (site_chart.js state()):
//                      {visible, fn, time_ns, cursor, bands: [{node,
//                      function, via, live, highest}], other, total, heap}
//   sitesTimeToClientX(ns), sitesClientY()  as timeToClientX, chartClientY
//                      on that chart (once shown)
//   process()          with several processes: {index, pid} of the one
//                      shown (null for a page of one trace); ready turns
//                      false while another is rendered
(function () {
  "use strict";
  const fmt = HeaprecFormat;
  const M = HeaprecModel;
  const $ = (sel) => document.querySelector(sel);
  // Flame graph boxes built per view: the widest ones; narrower ones could
  // not be seen (and hierarchy/partition cost grows with them).
  const FLAME_MAX_BOXES = 10000;

  const hook = {
    ready: false,
    error: null,
    loadMs: null,
    lastUpdateMs: null,
    lastTimings: null,
    timeToClientX: () => NaN,
    bytesToClientY: () => NaN,
    chartClientY: () => NaN,
    selectTime: () => {},
    setView: () => {},
    state: () => null,
  };
  window.heaprecPage = hook;

  function fatal(message) {
    hook.error = message;
    const el = $("#fatal");
    el.hidden = false;
    el.textContent = "This heaprec report cannot be shown: " + message;
    $("#page").hidden = true;
  }

  // The data element holds JSON, or (large data) base64 of its gzip, which
  // the browser's DecompressionStream inflates (DATA.md).
  async function readData() {
    const el = document.getElementById("heaprec-data");
    const text = (el ? el.textContent : "").trim();
    if (!text || text.startsWith("/*@HEAPREC_" + "DATA")) {
      throw new Error("the page holds no data (open a page written by heapreplay --html)");
    }
    if (text[0] === "{") return JSON.parse(text);
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot inflate the page's data (DecompressionStream: " +
        "Chromium 80, Firefox 113, Safari 16.4 or newer)");
    }
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  function stat(label, key, value, shown, title, sub) {
    return '<div class="stat" data-stat="' + key + '"><div class="stat-label">' + label +
      '</div><div class="stat-value" data-key="' + key + '" data-value="' + value + '" title="' +
      fmt.html(title) + '">' + shown + "</div>" + (sub ? '<div class="stat-sub">' + sub + "</div>" : "") +
      "</div>";
  }

  // A base's value and the change beside a header number.
  function baseLine(now, base, isBytes) {
    if (base === undefined || base === null) return "";
    const d = now - base;
    const cls = d > 0 ? "up" : d < 0 ? "down" : "same";
    const rel = fmt.change(now, base);
    return '<div class="stat-base" title="base: ' + fmt.count(base) + (isBytes ? " bytes" : "") + '">base ' +
      (isBytes ? fmt.bytes(base) : fmt.count(base)) + '</div><div class="stat-change delta ' + cls +
      '" title="change: ' + fmt.signedCount(d) + (isBytes ? " bytes" : "") + '">' +
      (isBytes ? fmt.signedBytes(d) : fmt.signedCount(d)) + (rel && d ? " (" + rel + ")" : "") + "</div>";
  }

  // memcheck's words for the kinds of heapreplay --leak-kinds ("definite,possible").
  const KIND_WORDS = { definite: "definitely lost", indirect: "indirectly lost",
    possible: "possibly lost", reachable: "still reachable" };
  const KIND_KEYS = [["definitely_lost", "definitely lost"], ["indirectly_lost", "indirectly lost"],
    ["possibly_lost", "possibly lost"], ["still_reachable", "still reachable"], ["suppressed", "suppressed"]];

  // The "Leaked" number: the blocks of the kinds the page shows (data.leaks,
  // from heapreplay's leak scan), or every block live at the end when the
  // kinds are unknown (a trace without a scan, a page of an older heapreplay).
  function leakedStat(model, bv) {
    const s = model.summary || {}, lk = model.data.leaks || null;
    const bl = model.base && model.data.base.leaks ? model.data.base.leaks : null;
    const bytes = lk ? lk.bytes : s.leaked_bytes, blocks = lk ? lk.blocks : s.leaked_blocks;
    const baseBytes = bl ? bl.bytes : bv("leaked_bytes"), baseBlocks = bl ? bl.blocks : bv("leaked_blocks");
    let label = "Leaked", title = fmt.count(bytes) + " bytes";
    if (lk && lk.kinds) {
      const shown = lk.shown_kinds === "all" ? "all kinds" : lk.shown_kinds === "none" ? "no kinds" :
        lk.shown_kinds.split(",").map((k) => KIND_WORDS[k] || k).join(", ");
      label = 'Leaked <span class="stat-kinds" data-key="leak_kinds">(' + fmt.html(shown) + ")</span>";
      title += "\n" + KIND_KEYS.map(([k, words]) => words + ": " + fmt.count(lk.kinds[k].bytes) +
        " bytes in " + fmt.count(lk.kinds[k].blocks) + " blocks").join("\n");
    } else if (lk && lk.kinds_unknown) {
      label = 'Live at the end <span class="stat-kinds" data-key="leak_kinds">(leak kinds unknown)</span>';
      title += "\nleak kinds unknown: " + lk.kinds_unknown;
    }
    const sub = 'in <span data-key="leaked_blocks" data-value="' + blocks + '">' + fmt.count(blocks) +
      "</span> block" + (blocks === 1 ? "" : "s") +
      (baseBlocks !== undefined ? " (base " + fmt.count(baseBlocks) + ")" : "");
    return stat(label, "leaked_bytes", bytes, fmt.bytes(bytes), title,
      sub + baseLine(bytes, baseBytes, true));
  }

  function renderHeader(model) {
    const tr = model.trace || {}, s = model.summary || {};
    const prog = tr.program || "";
    $("#program").textContent = prog.split("/").pop() || "(unknown program)";
    $("#program").title = prog;
    document.title = "heaprec: " + ($("#program").textContent);
    $("#command").textContent = fmt.commandLine(tr.args && tr.args.length ? tr.args : [prog]);
    const meta = [
      ["pid", tr.pid],
      ["host", tr.hostname],
      ["started", tr.start_realtime_ns ? fmt.realtime(tr.start_realtime_ns) : "unknown"],
      ["exit", tr.exit || "unknown"],
      ["parent", tr.parent ? tr.parent + (tr.ppid ? " (pid " + tr.ppid + ")" : "") : (tr.ppid ? "pid " + tr.ppid : undefined)],
      ["trace", tr.path],
      ["format", tr.format_version],
    ].filter((x) => x[1] !== undefined && x[1] !== "");
    $("#trace-meta").innerHTML = meta.map(([k, v]) => '<span class="meta-item"><span class="meta-key">' +
      k + '</span> <span class="meta-value">' +
      fmt.html(v) + "</span></span>").join("");

    const warnings = (model.warnings || []).slice();
    if (tr.truncated && !warnings.some((w) => /truncat/i.test(w))) {
      warnings.unshift("The trace is truncated: the recording was cut short, so the numbers cover only what was recorded.");
    }
    const w = $("#warnings");
    if (warnings.length) {
      w.hidden = false;
      w.innerHTML = '<div class="warnings-title">' + (warnings.length === 1 ? "Warning" : warnings.length + " warnings") +
        "</div><ul>" + warnings.map((x) => "<li>" + fmt.html(x) + "</li>").join("") + "</ul>";
    }

    const b = model.base ? model.base.summary || {} : null;
    const bv = (k) => (b ? b[k] : undefined);
    const bytesStat = (label, key, sub) => stat(label, key, s[key], fmt.bytes(s[key]),
      fmt.count(s[key]) + " bytes", (sub || "") + baseLine(s[key], bv(key), true));
    const countStat = (label, key, sub) => stat(label, key, s[key], fmt.count(s[key]),
      fmt.count(s[key]), (sub || "") + baseLine(s[key], bv(key), false));
    $("#summary").innerHTML = [
      countStat("Allocations", "allocations"),
      countStat("Frees", "frees"),
      bytesStat("Allocated", "bytes_allocated"),
      bytesStat("Peak", "peak_bytes", 'at <span data-key="peak_time_ns" data-value="' + s.peak_time_ns +
        '" title="' + fmt.count(s.peak_time_ns) + ' ns">' + fmt.seconds(s.peak_time_ns) + "</span>"),
      leakedStat(model, bv),
      countStat("Temporaries", "temporaries"),
      s.recorded_whole_life === false
        ? countStat("Freed, allocated before recording", "freed_before_recording",
          '<div class="stat-base">recorded part of the run: not leaks, not mismatches</div>')
        : "",
      stat("Duration", "duration_ns", s.duration_ns, fmt.duration(s.duration_ns || 0),
        fmt.count(s.duration_ns || 0) + " ns", b ? '<div class="stat-base">base ' +
          fmt.duration(b.duration_ns || 0) + "</div>" : ""),
    ].join("");

    if (model.base) {
      const n = $("#base-note");
      n.hidden = false;
      n.innerHTML = "Compared with the base trace <b>" + fmt.html(model.base.path || "") + "</b>" +
        (model.base.program ? " (" + fmt.html(model.base.program.split("/").pop()) +
          (model.base.pid ? ", pid " + fmt.html(model.base.pid) : "") + ")" : "") +
        ": red is more than the base, blue less. A time range selected below compares that part " +
        "of this trace with the whole base.";
    }
    $("#footer").textContent = "heaprec report \u00b7 data format " + model.data.format +
      (tr.path ? " \u00b7 " + tr.path : "");
  }

  // The page of one trace; with several (DATA.md "processes"), the process
  // table above it, and a pick renders the page again for that process from
  // the markup as it was first loaded.
  async function start() {
    const t0 = performance.now();
    const data = await readData();
    const models = [];
    let pristine = null, dispose = null;
    const show = (index, page, since) => {
      hook.ready = false;
      if (dispose) {
        dispose();
        $("#page").innerHTML = pristine;
      } else {
        pristine = $("#page").innerHTML;
      }
      const model = models[index] || (models[index] = M.load(page)); // throws on bad data: run() shows it
      dispose = render(model, since);
    };
    const processes = HeaprecProcesses.create($("#processes"), data, {
      onPick: (index, page) => {
        try {
          show(index, page, performance.now());
        } catch (e) {
          fatal(e && e.message ? e.message : String(e));
        }
      },
    });
    hook.process = () => (processes ? processes.current() : null);
    show(0, processes ? processes.first : data, t0);
  }

  // Renders the page of `model`; returns what undoes it (listeners, charts).
  function render(model, t0) {
    const gone = new AbortController();
    renderHeader(model);

    // The first view: the peak unless the leaks are a large part of it.
    const first = M.firstView(model);
    const state = {
      range: null, // {b0, b1} or null for the whole trace
      view: first.view,
      table: M.VIEWS[first.view].table,
      orient: "icicle", // or "flame" (root at the bottom)
      depth: 0, // flame graph levels drawn (0: as many as fit the window)
      diff: !!model.base,
      search: "",
      filterField: "any",
      filterTerm: "",
      computed: null,
      tree: null,
      mask: null,
      leakMask: null, // the leak kinds counted (HeaprecLeakKinds); null: heapreplay's
    };

    // Timeline.
    const timeline = HeaprecTimeline.create($("#heap-chart"), model, {
      onSelect: (t0, t1) => selectTime(t0, t1),
    });
    // Live bytes by call stack, the other tab of the heap chart.
    const sitesChart = HeaprecSiteChart.create({ tabs: $("#chart-tabs"), heap: $("#heap-chart"),
      chart: $("#sites-chart"), legend: $("#sites-legend"), head: $("#sites-head") }, model, {
      onSelect: (t0, t1) => selectTime(t0, t1),
      onHeapShown: () => timeline.resize(),
    });
    const chartFunction = (name) => {
      sitesChart.showFunction(name);
      $("#timeline-section").scrollIntoView({ block: "start" });
    };

    // Quick ranges between markers.
    const quick = M.markerRanges(model);
    const qEl = $("#quick-ranges");
    if (quick.length) {
      qEl.innerHTML = '<span class="quick-label">Between markers:</span>' + quick.map((q, i) =>
        '<button type="button" class="btn chip" data-quick="' + i + '" title="' + fmt.seconds(q.t0) +
        " \u2013 " + fmt.seconds(q.t1) + '">' + fmt.html(q.label) + "</button>").join("");
      qEl.addEventListener("click", (e) => {
        const btn = e.target.closest("[data-quick]");
        if (btn) setRange(quick[+btn.dataset.quick].range);
      });
    } else {
      qEl.innerHTML = '<span class="quick-label">' + (model.markers.length ? "" :
        "No markers in this trace (heaprec_mark() adds them).") + "</span>";
    }

    // Flame graph tabs.
    const tabs = $("#flame-tabs");
    tabs.innerHTML = M.VIEW_NAMES.map((v) => '<button type="button" role="tab" class="tab" data-view="' + v +
      '"><span class="tab-title">' + M.VIEWS[v].title + '</span><span class="tab-total"></span></button>').join("");
    tabs.addEventListener("click", (e) => {
      const btn = e.target.closest("button[data-view]");
      if (btn) setView(btn.dataset.view);
    });

    // Call trees; the flame graph's zoomed box, a right-click on a box and
    // a Functions row's button open a function's callers and callees.
    const calltrees = HeaprecCallTrees.create($("#calltree-section"), model);
    const boxFunction = (box) => (box && box.m > 0 ? M.boxFrame(model, box.m).function : null);
    let zoomedFunction = null;
    const flame = HeaprecFlame.create($("#flame"), model, {
      onZoom: (zoomed, box) => {
        $("#flame-reset").disabled = !zoomed;
        zoomedFunction = zoomed ? boxFunction(box) : null;
        $("#flame-sandwich").disabled = !zoomedFunction;
        $("#flame-sandwich").title = zoomedFunction ? "Callers and callees of " + zoomedFunction
          : "Zoom into a box (click it) to see its function's callers and callees";
      },
      onContext: (box, x, y) => calltrees.contextMenu(boxFunction(box), x, y),
    });
    $("#flame-reset").addEventListener("click", () => flame.resetZoom());
    $("#flame-sandwich").addEventListener("click", () => {
      if (zoomedFunction) calltrees.openSandwich(zoomedFunction);
    });
    $("#flame-why").textContent = first.why;

    // Icicle (root at the top, first) or flame (root at the bottom).
    $("#flame-orient").addEventListener("click", (e) => {
      const btn = e.target.closest("button[data-orient]");
      if (!btn || btn.dataset.orient === state.orient) return;
      state.orient = btn.dataset.orient;
      timed(() => part("flame", renderFlame));
      // Flame: the root (the widest boxes) is at the bottom: keep it in view.
      const r = $("#flame").getBoundingClientRect();
      if (state.orient === "flame" && r.bottom > window.innerHeight) {
        window.scrollBy(0, Math.min(r.top, r.bottom - window.innerHeight));
      }
    });
    // The drawn depth: as many levels as fit the window, then more on request.
    $("#flame-deeper").addEventListener("click", () => {
      state.depth = shownDepth() + fitDepth();
      timed(() => part("flame", renderFlame));
    });
    $("#flame-all-levels").addEventListener("click", () => {
      state.depth = Infinity;
      timed(() => part("flame", renderFlame));
    });

    // Search: highlight as one types (debounced), matched amount beside it.
    let searchTimer = 0;
    $("#flame-search").addEventListener("input", (e) => {
      clearTimeout(searchTimer);
      const v = e.target.value;
      searchTimer = setTimeout(() => {
        state.search = v.trim();
        flame.search(state.search);
        showMatched();
      }, 120);
    });

    // Difference toggle.
    if (model.base) {
      $("#diff-control").hidden = false;
      $("#diff-toggle").checked = state.diff;
      $("#diff-toggle").addEventListener("change", (e) => {
        state.diff = e.target.checked;
        timed(() => {
          renderTotals();
          renderFlame();
          renderTrees();
          renderTables();
        });
      });
    }

    // The leak kinds the leak views count.
    HeaprecLeakKinds.create($("#leak-kinds"), model, {
      onChange: (mask) => {
        state.leakMask = mask;
        M.setBaseLeakKinds(model, mask);
        timed(() => {
          state.computed = part("compute", () => M.compute(model, state.range, state.computed, state.leakMask));
          part("totals", renderTotals);
          part("flame", renderFlame);
          part("trees", renderTrees);
          part("tables", renderTables);
        });
      },
    });

    // Tables.
    const tTabs = $("#table-tabs");
    tTabs.innerHTML = M.TABLE_NAMES.map((t) => '<button type="button" role="tab" class="tab small" data-table="' +
      t + '">' + M.TABLES[t].title + "</button>").join("") +
      '<button type="button" role="tab" class="tab small" data-table="functions" title="flat and cum by ' +
      'function for the flame graph\'s view, as the text report\'s top table">Functions</button>';
    tTabs.addEventListener("click", (e) => {
      const btn = e.target.closest("button[data-table]");
      if (btn) showTable(btn.dataset.table);
    });
    const tables = HeaprecTables.create(model, {
      leaks: $("#table-leaks"), peak: $("#table-peak"), temporaries: $("#table-temporaries"), hot: $("#table-hot"),
    }, { onChart: chartFunction });
    // The function table (the text's `top`) of the flame graph's view; a
    // row picked searches the flame graph for its function.
    const functions = HeaprecFunctions.create($("#table-functions"), {
      onPick: (name) => {
        const box = $("#flame-search");
        box.value = name;
        state.search = name;
        flame.search(name);
        showMatched();
        box.scrollIntoView({ block: "nearest" });
      },
      onSandwich: (name) => calltrees.openSandwich(name),
      onChart: chartFunction,
    });
    function renderFunctions() {
      if (state.table !== "functions") return;
      const def = M.VIEWS[state.view];
      functions.render(M.functionTable(model, state.computed.values[def.metric]), def.unit, def.title, rangeText());
    }
    let filterTimer = 0;
    const onFilter = () => {
      clearTimeout(filterTimer);
      filterTimer = setTimeout(() => {
        state.filterField = $(".table-filter-field").value;
        state.filterTerm = $(".table-filter").value;
        state.mask = M.filterMask(model, state.filterField, state.filterTerm);
        timed(renderTables);
      }, 200);
    };
    $(".table-filter").addEventListener("input", onFilter);
    $(".table-filter-field").addEventListener("change", onFilter);

    // Bench.
    const bench = HeaprecBench.render($("#bench-section"), model.bench);

    function timed(fn) {
      const a = performance.now();
      hook.lastTimings = {};
      fn();
      hook.lastUpdateMs = performance.now() - a;
    }
    // Times a part of an update into heaprecPage.lastTimings.
    function part(name, fn) {
      const a = performance.now();
      const r = fn();
      if (hook.lastTimings) hook.lastTimings[name] = Math.round(performance.now() - a);
      return r;
    }

    function rangeText() {
      if (!state.range) return "";
      const bk = model.buckets;
      return fmt.seconds(bk.start[state.range.b0]) + " \u2013 " + fmt.seconds(bk.end[state.range.b1]);
    }

    // How much of the run a range holds, in the reader's words: "205 of 212
    // allocation calls" (exact: the calls made in the range's buckets).
    let allCalls = 0;
    function shareText() {
      const n = state.computed.totals.calls_n;
      return fmt.count(n) + " of " + fmt.count(allCalls) + " allocation call" + (allCalls === 1 ? "" : "s");
    }

    function diffOn() {
      return state.diff && !!model.base;
    }

    function viewTotal(v) {
      const c = state.computed;
      return c.totals[M.VIEWS[v].metric];
    }

    // The numbers of the views for the range: tab labels and #view-totals.
    function renderTotals() {
      const c = state.computed, t = c.totals, base = model.base;
      for (const btn of tabs.querySelectorAll("button[data-view]")) {
        const v = btn.dataset.view, def = M.VIEWS[v];
        const now = viewTotal(v);
        let text = fmt.value(now, def.unit);
        if (diffOn()) {
          const d = now - base.totals[def.metric];
          text += " (" + fmt.signedValue(d, def.unit) + ")";
        }
        btn.querySelector(".tab-total").textContent = text;
        btn.classList.toggle("active", v === state.view);
        btn.setAttribute("aria-selected", v === state.view ? "true" : "false");
      }
      // The base has no time axis: a range compares this part of the trace
      // with the whole base, and says so.
      const where = (state.range ? "In " + rangeText() : "Whole trace") +
        (state.range && model.base && state.diff ? ", against the whole base trace" : "");
      const item = (key, value, shown, title) => '<span data-key="' + key + '" data-value="' + value +
        '" title="' + fmt.html(title) + '">' + shown + "</span>";
      $("#view-totals").innerHTML = '<span class="where">' + where + ":</span> " +
        "leaked " + item("leaked_bytes", t.leak_b, fmt.bytes(t.leak_b), fmt.count(t.leak_b) + " bytes") + " in " +
        item("leaked_blocks", t.leak_n, fmt.count(t.leak_n), "") + " blocks \u00b7 peak " +
        item("peak_bytes", c.peak.bytes, fmt.bytes(c.peak.bytes), fmt.count(c.peak.bytes) + " bytes") + " at " +
        item("peak_time_ns", c.peak.time_ns, fmt.seconds(c.peak.time_ns), fmt.count(c.peak.time_ns) + " ns") +
        " \u00b7 allocated " + item("bytes_allocated", t.calls_b, fmt.bytes(t.calls_b), fmt.count(t.calls_b) + " bytes") +
        " in " + item("allocations", t.calls_n, fmt.count(t.calls_n), "") + " calls \u00b7 " +
        item("temporaries", t.temp_n, fmt.count(t.temp_n), "") + " temporaries";
    }

    // Levels of boxes that fit the window under the graph's toolbar (18 px
    // each, and three rows the graph keeps free), at least 12.
    function fitDepth() {
      const free = window.innerHeight - 160;
      return Math.max(12, Math.floor(free / 18) - 3);
    }
    function shownDepth() {
      return state.depth > 0 ? state.depth : fitDepth();
    }

    function renderFlame() {
      const def = M.VIEWS[state.view];
      const c = state.computed;
      const base = diffOn() ? model.base.values[def.metric] : null;
      const maxDepth = shownDepth();
      const tree = M.flameTree(model, c.values[def.metric], base, { maxBoxes: FLAME_MAX_BOXES, maxDepth });
      state.tree = tree;
      for (const b of $("#flame-orient").querySelectorAll("button[data-orient]")) {
        b.setAttribute("aria-pressed", b.dataset.orient === state.orient ? "true" : "false");
      }
      const deep = $("#flame-depth");
      deep.hidden = !(tree.depth > tree.drawnDepth);
      if (!deep.hidden) {
        $("#flame-depth-text").textContent = "Showing the top " + tree.drawnDepth + " of " + tree.depth +
          " levels, to fit the window.";
        const more = Math.min(fitDepth(), tree.depth - tree.drawnDepth);
        $("#flame-deeper").textContent = more + " level" + (more === 1 ? "" : "s") + " deeper";
      }
      const legend = $("#flame-legend");
      if (base) {
        legend.innerHTML = '<span class="swatch grown"></span>grew <span class="swatch shrunk"></span>shrank ' +
          '<span class="swatch new"></span>new <span class="swatch same"></span>unchanged \u00b7 width: the larger of base and this';
      } else {
        legend.textContent = "width: " + def.title.toLowerCase();
      }
      const note = $("#flame-note");
      note.textContent = tree.nonZero > tree.boxes - 1
        ? "Showing the " + fmt.count(tree.boxes - 1) + " widest of " + fmt.count(tree.nonZero) +
          " boxes; the others are too narrow to see (zoom in with a click)."
        : "";
      if (!(tree.width > 0)) {
        flame.showEmpty(def.empty + (state.range ? " in this range." : ".") +
          (base ? " (Nor in the base.)" : ""));
        $("#flame-reset").disabled = true;
      } else {
        flame.render(tree, def.unit, !!base, state.orient === "icicle");
      }
      showMatched();
    }

    // "matched: 20.0 KiB of 27.8 KiB (73.6%)" (and the base's, against one).
    function showMatched() {
      const el = $("#flame-matched");
      if (!state.search || !state.tree) {
        el.textContent = "";
        delete el.dataset.value;
        delete el.dataset.base;
        return;
      }
      const unit = M.VIEWS[state.view].unit, t = state.tree;
      const part = (m, total) => fmt.value(m, unit) + " of " + fmt.value(total, unit) +
        (total ? " (" + fmt.percent(m, total) + ")" : "");
      const m = M.matchedTotal(model, t.inc, state.search);
      let text = "matched: " + part(m, t.total);
      el.dataset.value = m;
      if (t.baseInc) {
        const b = M.matchedTotal(model, t.baseInc, state.search);
        text += " \u00b7 base " + part(b, t.baseTotal);
        el.dataset.base = b;
      }
      el.textContent = text;
    }

    function renderTables() {
      tables.update({ computed: state.computed, diff: diffOn(), mask: state.mask, rangeText: rangeText() });
      renderFunctions();
    }

    function renderTrees() {
      calltrees.update(state.computed, M.VIEWS[state.view], rangeText(), diffOn());
    }

    function showTable(name) {
      state.table = name;
      for (const b of tTabs.querySelectorAll("button[data-table]")) {
        b.classList.toggle("active", b.dataset.table === name);
        b.setAttribute("aria-selected", b.dataset.table === name ? "true" : "false");
      }
      tables.show(name);
      $("#table-functions").hidden = name !== "functions";
      $(".table-toolbar .filter").hidden = name === "functions";
      renderFunctions();
    }

    function setView(v) {
      if (!M.VIEWS[v]) return;
      timed(() => {
        state.view = v;
        $("#flame-why").textContent = v === first.view ? first.why : "";
        part("totals", renderTotals);
        part("flame", renderFlame);
        part("trees", renderTrees);
        // The function table follows the view; site tables switch to its table.
        part("tables", () => showTable(state.table === "functions" ? "functions" : M.VIEWS[v].table));
      });
    }

    function setRange(range) {
      timed(() => {
        state.range = range && !M.isFullRange(model, range) ? range : null;
        state.computed = part("compute", () => M.compute(model, state.range, state.computed, state.leakMask));
        if (!state.range) allCalls = state.computed.totals.calls_n;
        const label = $("#range-label");
        label.hidden = !state.range;
        $("#range-clear").hidden = !state.range;
        label.textContent = state.range ? "Range: " + rangeText() + " \u00b7 " + shareText() : "";
        for (const b of qEl.querySelectorAll("[data-quick]")) {
          const q = quick[+b.dataset.quick].range;
          b.classList.toggle("active", !!state.range && q.b0 === state.range.b0 && q.b1 === state.range.b1);
        }
        part("timeline", () => {
          timeline.setRange(state.range, state.computed.peak);
          sitesChart.setRange(state.range, state.computed.peak);
        });
        part("totals", renderTotals);
        part("flame", renderFlame);
        part("trees", renderTrees);
        part("tables", renderTables);
      });
    }

    function selectTime(t0, t1) {
      const r = M.rangeFromTimes(model, t0, t1);
      if (r) setRange(r);
      else {
        timeline.setRange(state.range, state.computed.peak);
        const label = $("#range-label");
        label.hidden = false;
        label.textContent = "No events between " + fmt.seconds(Math.min(t0, t1)) + " and " +
          fmt.seconds(Math.max(t0, t1)) + (state.range ? "; range kept: " + rangeText() : "");
      }
    }

    $("#range-clear").addEventListener("click", () => setRange(null));

    // Resizing redraws the charts at the new width.
    let resizeTimer = 0, lastWidth = window.innerWidth;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (window.innerWidth === lastWidth) return;
        lastWidth = window.innerWidth;
        timeline.resize();
        sitesChart.resize();
        if (bench) bench.resize();
        renderFlame();
      }, 200);
    }, { signal: gone.signal });

    // First drawing: the whole trace, the first view (M.firstView) and its table.
    showTable(M.VIEWS[state.view].table);
    setRange(null);

    Object.assign(hook, {
      timeToClientX: (ns) => timeline.timeToClientX(ns),
      bytesToClientY: (bytes) => timeline.bytesToClientY(bytes),
      chartClientY: () => timeline.clientY(),
      selectTime,
      setView,
      // The "by call stack" chart: what it shows, and where a time is on it.
      sites: () => sitesChart.state(),
      sitesTimeToClientX: (ns) => sitesChart.timeToClientX(ns),
      sitesClientY: () => sitesChart.clientY(),
      state: () => ({
        view: state.view,
        table: state.table,
        orient: state.orient,
        depth: state.tree ? { drawn: state.tree.drawnDepth, all: state.tree.depth } : null,
        range: state.range ? { b0: state.range.b0, b1: state.range.b1,
          t0: model.buckets.start[state.range.b0], t1: model.buckets.end[state.range.b1] } : null,
        diff: diffOn(),
        search: state.search,
        boxes: state.tree ? state.tree.boxes : 0,
        trees: calltrees.state(),
      }),
    });
    hook.loadMs = performance.now();
    hook.setupMs = performance.now() - t0;
    hook.ready = true;
    return () => {
      gone.abort();
      if (timeline.plot) timeline.plot.destroy();
      sitesChart.destroy();
      flame.destroy();
    };
  }

  function run() {
    start().catch((e) => {
      fatal(e && e.message ? e.message : String(e));
      console.error(e);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
  else run();
})();
