// site_chart.js: the "by call stack" chart, a tab beside the heap chart
// (uPlot): live bytes over time of the call stacks that held the most as
// stacked bands, the rest as one "other" band, as heaptrack_gui's "Consumed"
// (HeaprecSiteSeries computes them), or of the stacks through one function
// picked in a table (showFunction). The markers and the page's range are
// drawn, and a drag selects a range as on the heap chart. Its legend table
// gives each band's live bytes at the peak (the range's, when one is
// selected) or under the cursor, and its highest.
// Must not compute values (site_series.js) or touch anything but its
// elements (els: tabs, heap (the heap chart, shown by the first tab), chart,
// legend, head).
const HeaprecSiteChart = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const M = HeaprecModel;
  const SS = HeaprecSiteSeries;
  const TOP = 10;
  // Tableau 10; "other" in grey.
  const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#8cd17d"];
  const OTHER = "#9ca3af";

  // A band's fill: its colour over white (opaque: each band is drawn over
  // the ones above it, from the top of the stack down).
  function fillOf(hex, alpha) {
    const v = parseInt(hex.slice(1), 16);
    const mix = (c) => Math.round(alpha * c + (1 - alpha) * 255);
    return "rgb(" + mix(v >> 16) + "," + mix((v >> 8) & 255) + "," + mix(v & 255) + ")";
  }

  function create(els, model, opts) {
    const height = opts.height || 260;
    const selection = HeaprecTimeline.rangeSelection(model, opts.onSelect);
    const css = getComputedStyle(document.documentElement);
    const markColor = (css.getPropertyValue("--chart-marker") || "#6b7280").trim();
    const peakColor = (css.getPropertyValue("--chart-peak") || "#dc2626").trim();
    const textColor = (css.getPropertyValue("--text") || "#1f2937").trim();
    const durationS = Math.max(model.durationNs, 1) / 1e9;
    let plot = null, s = null, fn = null, visible = false, stale = true;
    let range = null, rangePeak = null, cursor = null; // cursor: an x index or null

    const colorOf = (k) => (s.other && k === s.bands.length ? OTHER : PALETTE[k % PALETTE.length]);
    const via = (n) => model.frames.label[model.frame[M.viaNode(model, n)]];
    // The x index the legend shows when the cursor is not on the chart: the
    // range's peak, or the trace's.
    const restIndex = () => (range && rangePeak && rangePeak.bucket >= 0 ? s.bucketX.max[rangePeak.bucket] : s.peakIndex);
    const shownIndex = () => (cursor !== null ? cursor : restIndex());

    function headHtml() {
      if (!fn) {
        return '<span class="what">Live bytes by call stack:</span> the ' + TOP + " stacks that held the most " +
          "at their highest, the rest as \u201cother\u201d; the chart button of a Functions or Sites row " +
          "shows that function's stacks instead. Drag to select a time range.";
      }
      return '<span class="what">Live bytes of the stacks through <span class="fn-name">' + fmt.html(fn) +
        "</span>:</span> the " + TOP + " that held the most at their highest, the rest as \u201cother\u201d. " +
        '<button type="button" class="btn small-btn" data-action="all-stacks">All call stacks</button>';
    }

    function legend() {
      if (!s) return;
      const j = shownIndex();
      const at = SS.valuesAt(s, j);
      const when = fmt.seconds(s.x[j]);
      const what = cursor !== null ? "at " + when + " (cursor)" : (range ? "at the range's peak, " : "at the peak, ") + when;
      let h = '<div class="legend-what" data-index="' + j + '" data-time="' + s.x[j] + '">Live ' + fmt.html(what) +
        '</div><div class="table-wrap"><table class="grid sites-legend"><thead><tr><th></th><th>Function</th>' +
        '<th>Via</th><th>File:line</th><th class="num">Live</th><th class="num">%</th>' +
        '<th class="num" title="the most this stack held at once">Highest</th></tr></thead><tbody>';
      const cell = (key, v) => '<td class="num" data-key="' + key + '" data-value="' + v + '" title="' +
        fmt.count(v) + ' bytes">' + fmt.bytes(v) + "</td>";
      const whole = fn ? at.heap : at.total;
      for (let k = s.y.length - 1; k >= 0; k--) {
        const v = at.values[k];
        const swatch = '<td><span class="swatch" style="background:' + fillOf(colorOf(k), 0.55) +
          ";border-color:" + colorOf(k) + '"></span></td>';
        if (k === s.bands.length) {
          h += '<tr data-band="other">' + swatch + '<td colspan="3" class="muted">other ' +
            (fn ? "stacks through " + fmt.html(fn) : "call stacks") + "</td>" + cell("live", v) +
            '<td class="num">' + (fmt.percent(v, whole) || "0%") + "</td><td></td></tr>";
          continue;
        }
        const b = s.bands[k], n = b.node, f = M.site(model, n);
        const stack = M.stack(model, n).slice(0, 16).map((x) => x.function).join("\n");
        h += '<tr data-band="' + k + '" data-node="' + n + '" data-function="' + fmt.html(f.function) +
          '" data-via="' + fmt.html(via(n)) + '" title="' + fmt.html(stack) + '">' + swatch +
          '<td class="fn">' + fmt.html(f.function) + '</td><td class="via">' + fmt.html(via(n)) +
          '</td><td class="loc">' + fmt.html(f.location) + "</td>" + cell("live", v) +
          '<td class="num">' + (fmt.percent(v, whole) || "0%") + "</td>" + cell("highest", b.peak) + "</tr>";
      }
      h += '<tr class="total" data-band="total"><td></td><td colspan="3">' +
        (fn ? "stacks through " + fmt.html(fn) : "all call stacks") + "</td>" + cell("live", at.total) +
        '<td class="num">' + (fmt.percent(at.total, whole) || "0%") + "</td><td></td></tr>";
      if (fn) {
        h += '<tr class="total" data-band="heap"><td></td><td colspan="3" class="muted">the whole heap</td>' +
          cell("live", at.heap) + "<td></td><td></td></tr>";
      }
      if (!s.y.length) {
        h += '<tr><td></td><td colspan="6" class="muted">' + (fn ? "No stack through " + fmt.html(fn) +
          " held anything." : "Nothing was live.") + "</td></tr>";
      }
      els.legend.innerHTML = h + "</tbody></table></div>";
    }

    function drawOverlay(u) {
      HeaprecTimeline.drawMarkers(u, model.markers, markColor);
      if (!s) return;
      // The moment the legend shows when the cursor is elsewhere.
      const j = restIndex(), ctx = u.ctx, r = uPlot.pxRatio || window.devicePixelRatio || 1;
      const { left, top, width, height: h } = u.bbox;
      const x = Math.round(u.valToPos(s.x[j] / 1e9, "x", true)) + 0.5;
      ctx.save();
      ctx.strokeStyle = peakColor;
      ctx.lineWidth = 1.5 * r;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + h);
      ctx.stroke();
      ctx.font = "600 " + 11 * r + "px system-ui, -apple-system, 'Segoe UI', sans-serif";
      ctx.textBaseline = "top";
      ctx.textAlign = "left";
      const text = range ? "range peak" : "peak";
      const tw = ctx.measureText(text).width;
      const tx = x + tw + 8 * r > left + width ? x - tw - 6 * r : x + 4 * r;
      ctx.fillStyle = "rgba(255,255,255,0.85)";
      ctx.fillRect(tx - 2 * r, top + h - 17 * r, tw + 4 * r, 14 * r);
      ctx.fillStyle = textColor;
      ctx.fillText(text, tx, top + h - 16 * r);
      ctx.restore();
    }

    function build() {
      stale = false;
      s = SS.series(model, { top: TOP, fn });
      els.head.innerHTML = headHtml();
      if (plot) plot.destroy();
      plot = null;
      els.chart.textContent = "";
      if (!model.buckets.count) {
        els.chart.innerHTML = '<div class="empty">The trace holds no allocation or free: nothing to chart.</div>';
        els.legend.textContent = "";
        return;
      }
      // Cumulative sums, the top of the stack first: each series is drawn
      // over the ones before it.
      const S = s.y.length, X = s.x.length;
      const cum = [];
      let acc = new Float64Array(X);
      for (let k = 0; k < S; k++) {
        const next = new Float64Array(X);
        for (let j = 0; j < X; j++) next[j] = acc[j] + s.y[k][j];
        cum.push(next);
        acc = next;
      }
      const steps = uPlot.paths.stepped({ align: 1 });
      const series = [{ label: "time" }];
      const data = [s.x.map((t) => t / 1e9)];
      for (let k = S - 1; k >= 0; k--) {
        series.push({ label: k === s.bands.length ? "other" : M.site(model, s.bands[k].node).function,
          stroke: colorOf(k), width: 1, fill: fillOf(colorOf(k), 0.55), paths: steps, points: { show: false } });
        data.push(Array.from(cum[k]));
      }
      if (!S) {
        series.push({ label: "none", stroke: "transparent", points: { show: false } });
        data.push(s.x.map(() => 0));
      }
      plot = new uPlot({
        width: Math.max(300, els.chart.clientWidth),
        height,
        cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
        select: { show: true },
        legend: { show: false },
        scales: {
          x: { time: false, range: () => [0, durationS] },
          y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1024] },
        },
        axes: [
          { label: "time (s)", stroke: textColor, grid: { stroke: "#eef0f3" }, ticks: { stroke: "#d8dce2" },
            values: (u, splits) => splits.map((v) => +v.toPrecision(6) + " s") },
          { stroke: textColor, size: 78, incrs: fmt.BYTE_INCRS, grid: { stroke: "#eef0f3" },
            ticks: { stroke: "#d8dce2" }, values: (u, splits) => splits.map((v) => fmt.bytes(v)) },
        ],
        series,
        hooks: {
          draw: [drawOverlay],
          setSelect: [selection.hook],
          setCursor: [(u) => {
            // The point at or before the cursor (uPlot's idx is the nearest:
            // a step holds its value until the next point).
            const left = u.cursor.left;
            const next = left === null || left === undefined || left < 0 ? null
              : SS.indexAt(s, u.posToVal(left, "x") * 1e9);
            if (next !== cursor) {
              cursor = next;
              legend();
            }
          }],
        },
      }, data, els.chart);
      selection.attach(plot);
      selection.show(range);
      legend();
    }

    function show(on) {
      visible = on;
      els.chart.hidden = els.legend.hidden = els.head.hidden = !on;
      els.heap.hidden = on;
      for (const b of els.tabs.querySelectorAll("button[data-chart]")) {
        b.setAttribute("aria-pressed", (b.dataset.chart === "sites") === on ? "true" : "false");
      }
      if (on && (stale || !plot)) {
        build();
      } else if (on) {
        resize();
        selection.show(range);
        plot.redraw(false, false);
        legend();
      }
      if (!on && opts.onHeapShown) opts.onHeapShown();
    }

    els.tabs.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-chart]");
      if (b) show(b.dataset.chart === "sites");
    });
    els.head.addEventListener("click", (e) => {
      if (e.target.closest("[data-action=all-stacks]")) showFunction(null);
    });

    // The stacks through function `name` (null: every stack), shown at once.
    function showFunction(name) {
      fn = name || null;
      cursor = null;
      stale = true;
      show(true);
    }

    function setRange(r, peak) {
      range = r;
      rangePeak = r ? peak : null;
      selection.show(r);
      if (plot && visible) {
        plot.redraw(false, false);
        legend();
      }
    }

    function resize() {
      if (!plot || !visible) return;
      const w = Math.max(300, els.chart.clientWidth);
      if (w !== plot.width) {
        plot.setSize({ width: w, height });
        selection.redraw();
      }
    }

    function destroy() {
      if (plot) plot.destroy();
      plot = null;
    }

    // What the chart shows, for the page's test hook.
    function state() {
      if (!s) return { visible, fn, bands: [] };
      const j = shownIndex(), at = SS.valuesAt(s, j);
      return {
        visible, fn, index: j, time_ns: s.x[j], cursor: cursor !== null,
        bands: s.bands.map((b, k) => ({ node: b.node, function: M.site(model, b.node).function, via: via(b.node),
          live: at.values[k], highest: b.peak })),
        other: s.other ? at.values[s.bands.length] : null, total: at.total, heap: at.heap,
      };
    }

    return {
      show, showFunction, setRange, resize, destroy, state,
      timeToClientX: (ns) => (plot ? plot.over.getBoundingClientRect().left + plot.valToPos(ns / 1e9, "x") : NaN),
      clientY: () => {
        if (!plot) return NaN;
        const r = plot.over.getBoundingClientRect();
        return r.top + r.height / 2;
      },
    };
  }

  return { create, TOP };
})();
