// timeline.js: the "heap over time" chart (uPlot): live bytes per bucket
// (live_end and the max_live envelope, so no peak is lost), the peak and the
// markers drawn on it, and drag-to-select a time range (no zoom) reported to
// the page through opts.onSelect; shows the page's snapped range as the
// selection. Its markers and range selection serve the page's other charts
// of time too (drawMarkers, rangeSelection: site_chart.js). Must not compute
// views or touch anything outside its element; the page decides what a
// selection means (main.js).
const HeaprecTimeline = (function () {
  "use strict";
  const fmt = HeaprecFormat;

  // Points of the chart: x in seconds (sorted, distinct), the live heap
  // through each bucket's highest moment and its end, and the envelope (each
  // bucket's max_live over its span, then its live_end until the next bucket
  // starts). Both are drawn as steps that hold each value until the next
  // point: between two buckets nothing happened, so the heap stays flat
  // (a straight line would invent a slope across the gap).
  function series(model) {
    const bk = model.buckets;
    const live = new Map(), env = new Map();
    const put = (map, tNs, v) => {
      const x = tNs / 1e9;
      const old = map.get(x);
      map.set(x, old === undefined ? v : Math.max(old, v));
    };
    for (let b = 0; b < bk.count; b++) {
      put(live, bk.maxTime[b], bk.maxLive[b]);
      put(live, bk.end[b], bk.liveEnd[b]);
      put(env, bk.start[b], bk.maxLive[b]);
      put(env, bk.end[b], bk.start[b] === bk.end[b] ? bk.maxLive[b] : bk.liveEnd[b]);
    }
    const xs = Array.from(new Set([0, ...live.keys(), ...env.keys()])).sort((a, b) => a - b);
    const y1 = xs.map((x) => (env.has(x) ? env.get(x) : null));
    const y2 = xs.map((x) => (live.has(x) ? live.get(x) : x === 0 ? 0 : null));
    return [xs, y1, y2];
  }

  // RSS (format 3.4; model.data.rss, null for older traces): the process's
  // resident memory as one more line beside the live heap. The chart's x
  // becomes the union of the buckets' and the samples' times; each series
  // is null where it has no point (uPlot spans the gaps).
  function withRssData(model, data) {
    const rss = model.data && model.data.rss;
    if (!rss || !rss.time_ns || !rss.time_ns.length) return data;
    const at = new Map();
    rss.time_ns.forEach((t, i) => at.set(t / 1e9, Math.max(at.get(t / 1e9) || 0, rss.rss[i])));
    const xs = Array.from(new Set([...data[0], ...at.keys()])).sort((a, b) => a - b);
    const index = new Map(data[0].map((x, i) => [x, i]));
    const column = (ys) => xs.map((x) => (index.has(x) ? ys[index.get(x)] : null));
    return [xs, ...data.slice(1).map(column), xs.map((x) => (at.has(x) ? at.get(x) : null))];
  }
  function withRssSeries(model, list) {
    const rss = model.data && model.data.rss;
    if (!rss || !rss.time_ns || !rss.time_ns.length) return list;
    const css = getComputedStyle(document.documentElement);
    const stroke = (css.getPropertyValue("--chart-rss") || "#d97706").trim();
    return list.concat([{ label: "RSS", stroke, width: 1.5, dash: [6, 3], spanGaps: true,
      points: { show: false }, value: (u, v) => (v == null ? "\u2013" : fmt.bytes(v)) }]);
  }

  // Markers on a uPlot chart whose x is seconds: dashed vertical lines,
  // labels staggered on three rows. Call from a draw hook (canvas pixels).
  function drawMarkers(u, markers, color) {
    const ctx = u.ctx, r = uPlot.pxRatio || window.devicePixelRatio || 1;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    ctx.font = 11 * r + "px system-ui, -apple-system, 'Segoe UI', sans-serif";
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    markers.forEach((m, i) => {
      const x = Math.round(u.valToPos(m.time_ns / 1e9, "x", true)) + 0.5;
      ctx.strokeStyle = color;
      ctx.lineWidth = r;
      ctx.setLineDash([4 * r, 3 * r]);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.setLineDash([]);
      const label = m.label;
      const tw = ctx.measureText(label).width;
      const y = top + (4 + (i % 3) * 14) * r;
      const tx = x + tw + 6 * r > left + width ? x - tw - 4 * r : x + 4 * r;
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(tx - 2 * r, y - r, tw + 4 * r, 13 * r);
      ctx.fillStyle = color;
      ctx.fillText(label, tx, y);
    });
    ctx.restore();
  }

  // The page's range as a uPlot chart's selection (x in seconds; its cursor
  // drags x without zooming): `hook` is
  // the chart's setSelect hook (a drag reports [t0, t1] ns to onSelect, a
  // click restores the page's range); show(range) draws the page's range
  // {b0, b1} (null: none) as the selection.
  function rangeSelection(model, onSelect) {
    let applying = false, range = null, plot = null;
    function show(r) {
      range = r;
      if (!plot) return;
      applying = true;
      const bk = model.buckets;
      if (range) {
        const a = plot.valToPos(bk.start[range.b0] / 1e9, "x");
        const b = plot.valToPos(bk.end[range.b1] / 1e9, "x");
        const left = Math.max(0, Math.min(a, b - 2));
        plot.setSelect({ left, top: 0, width: Math.max(2, b - left), height: plot.over.clientHeight }, false);
      } else {
        plot.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
      }
      applying = false;
    }
    function hook(u) {
      plot = u;
      if (applying) return;
      const s = u.select;
      if (s.width < 2) {
        show(range);
        return;
      }
      const t0 = u.posToVal(s.left, "x") * 1e9;
      const t1 = u.posToVal(s.left + s.width, "x") * 1e9;
      onSelect(Math.max(0, t0), Math.max(0, t1));
    }
    // attach(u): the chart, once made; redraw(): the range again (after a resize).
    return { hook, show, attach: (u) => { plot = u; show(range); }, redraw: () => show(range) };
  }

  function create(el, model, opts) {
    if (!model.buckets.count) {
      el.innerHTML = '<div class="empty">The trace holds no allocation or free: nothing to chart.</div>';
      return { setRange: () => {}, resize: () => {}, timeToClientX: () => NaN, bytesToClientY: () => NaN,
        clientY: () => NaN, plot: null };
    }
    const pxr = () => uPlot.pxRatio || window.devicePixelRatio || 1;
    const durationS = Math.max(model.durationNs, 1) / 1e9;
    const full = model.buckets.count ? HeaprecModel.peakBucket(model, 0, model.buckets.count - 1) : -1;
    let rangePeak = null; // {time_ns, bytes} of the range, when one is set
    const selection = rangeSelection(model, opts.onSelect);

    const css = getComputedStyle(document.documentElement);
    const color = (name, fallback) => (css.getPropertyValue(name) || fallback).trim();
    const lineColor = color("--chart-line", "#2563eb");
    const envColor = color("--chart-envelope", "rgba(37,99,235,0.14)");
    const markColor = color("--chart-marker", "#6b7280");
    const peakColor = color("--chart-peak", "#dc2626");
    const textColor = color("--text", "#1f2937");

    function drawOverlay(u) {
      drawMarkers(u, model.markers, markColor);
      const ctx = u.ctx, r = pxr();
      const { left, top, width, height } = u.bbox;
      ctx.save();
      ctx.beginPath();
      ctx.rect(left, top, width, height);
      ctx.clip();
      ctx.textBaseline = "top";
      ctx.textAlign = "left";
      // The peak (of the trace, and of the range when it is another).
      const drawPeak = (tNs, bytes, text, filled) => {
        const x = u.valToPos(tNs / 1e9, "x", true), y = u.valToPos(bytes, "y", true);
        ctx.beginPath();
        ctx.arc(x, y, 4.5 * r, 0, 2 * Math.PI);
        ctx.lineWidth = 2 * r;
        ctx.strokeStyle = peakColor;
        ctx.fillStyle = filled ? peakColor : "#fff";
        ctx.fill();
        ctx.stroke();
        ctx.font = "600 " + 11 * r + "px system-ui, -apple-system, 'Segoe UI', sans-serif";
        const tw = ctx.measureText(text).width;
        const tx = x + tw + 10 * r > left + width ? x - tw - 8 * r : x + 8 * r;
        const ty = Math.max(top + 2 * r, y - 6 * r);
        ctx.fillStyle = "rgba(255,255,255,0.85)";
        ctx.fillRect(tx - 2 * r, ty - r, tw + 4 * r, 14 * r);
        ctx.fillStyle = textColor;
        ctx.fillText(text, tx, ty);
      };
      if (rangePeak && (full < 0 || rangePeak.time_ns !== model.buckets.maxTime[full])) {
        drawPeak(rangePeak.time_ns, rangePeak.bytes,
          "range peak " + fmt.bytes(rangePeak.bytes) + " at " + fmt.seconds(rangePeak.time_ns), false);
      }
      if (full >= 0) {
        const t = model.buckets.maxTime[full], b = model.buckets.maxLive[full];
        drawPeak(t, b, "peak " + fmt.bytes(b) + " at " + fmt.seconds(t), true);
      }
      ctx.restore();
    }

    const height = opts.height || 260;
    // Each value holds until the next point (then the line steps).
    const steps = uPlot.paths.stepped({ align: 1 });
    const u = new uPlot({
      width: Math.max(300, el.clientWidth),
      height,
      cursor: {
        drag: { x: true, y: false, setScale: false },
        points: { show: false },
      },
      select: { show: true },
      legend: { show: true, live: true },
      scales: {
        x: { time: false, range: () => [0, durationS] },
        y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1024] },
      },
      axes: [
        { label: "time (s)", stroke: textColor, grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d8dce2" },
          values: (u, splits) => splits.map((v) => +v.toPrecision(6) + " s") },
        { stroke: textColor, size: 78, incrs: fmt.BYTE_INCRS, grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d8dce2" },
          values: (u, splits) => splits.map((v) => fmt.bytes(v)) },
      ],
      series: withRssSeries(model, [
        { label: "time", value: (u, v) => (v == null ? "\u2013" : v.toFixed(6).replace(/0+$/, "0") + " s") },
        { label: "highest live", stroke: "rgba(37,99,235,0.35)", width: 1, fill: envColor,
          spanGaps: true, points: { show: false }, paths: steps,
          value: (u, v) => (v == null ? "\u2013" : fmt.bytes(v)) },
        { label: "live heap", stroke: lineColor, width: 2, spanGaps: true, points: { show: false }, paths: steps,
          value: (u, v) => (v == null ? "\u2013" : fmt.bytes(v)) },
      ]),
      hooks: {
        draw: [drawOverlay],
        setSelect: [selection.hook],
      },
    }, withRssData(model, series(model)), el);
    selection.attach(u);

    function setRange(r, peak) {
      rangePeak = r ? peak : null;
      selection.show(r);
      u.redraw(false, false);
    }

    function resize() {
      const w = Math.max(300, el.clientWidth);
      if (w !== u.width) {
        u.setSize({ width: w, height });
        selection.redraw();
      }
    }

    return {
      setRange,
      resize,
      // Viewport x (CSS px, as page.mouse takes) of a time in ns.
      timeToClientX: (ns) => u.over.getBoundingClientRect().left + u.valToPos(ns / 1e9, "x"),
      // Viewport y of a number of bytes.
      bytesToClientY: (bytes) => u.over.getBoundingClientRect().top + u.valToPos(bytes, "y"),
      // Viewport y of the middle of the plotting area.
      clientY: () => {
        const r = u.over.getBoundingClientRect();
        return r.top + r.height / 2;
      },
      plot: u,
    };
  }

  return { create, series, drawMarkers, rangeSelection };
})();
