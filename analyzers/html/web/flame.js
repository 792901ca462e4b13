// flame.js: draws one flame graph (d3-flame-graph) from a tree built by
// HeaprecModel.flameTree: click to zoom, reset, search highlighting, the
// hover tooltip (function, file:line, module, exact value, percent; base,
// this and change against a base), the differential colours, icicle (root at
// the top) or flame (root at the bottom) direction, and labels in black or
// white, whichever reads better on each box's colour; a right-click on a box
// hands it to opts.onContext (the page offers its callers and callees), and
// opts.onZoom(zoomed, box) says which box a click zoomed to.
// Must not compute values or build trees (model.js does, once per view) and
// must not touch elements other than its container and its tooltip.
const HeaprecFlame = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const M = HeaprecModel;
  // Boxes narrower than this (px) are not drawn: with 100,000 stacks most are
  // below it, and each drawn box costs DOM (rect, label, transition).
  const MIN_FRAME_PX = 2;

  function create(container, model, opts) {
    const make = typeof flamegraph === "function" ? flamegraph : flamegraph.default;
    let chart = null;
    let tip = null;
    let shown = null; // {tree, unit, diff}
    let term = "";

    function tooltipHtml(d) {
      const box = d.data, s = shown;
      const unit = s.unit;
      const f = M.boxFrame(model, box.m);
      const exact = (v) => (unit === "bytes"
        ? fmt.count(v) + " bytes" + (Math.abs(v) >= 1024 ? " (" + fmt.bytes(v) + ")" : "")
        : fmt.count(v) + " " + unit);
      let h = '<div class="tip-name">' + fmt.html(box.name) + "</div>";
      if (f) {
        const where = box.m > 0 && model.merged.multi[box.m]
          ? f.location + " and other lines" : f.location;
        h += '<div class="tip-where">' + fmt.html(where || "no source location") +
          (f.module ? ' <span class="tip-module">' + fmt.html(f.module) + "</span>" : "") + "</div>";
      }
      if (s.diff) {
        h += '<table class="tip-values"><tr><th>base</th><td>' + exact(box.b) + "</td><td>" +
          fmt.percent(box.b, s.tree.baseTotal) + "</td></tr>" +
          "<tr><th>this</th><td>" + exact(box.t) + "</td><td>" + fmt.percent(box.t, s.tree.total) +
          "</td></tr><tr><th>change</th><td>" +
          (unit === "bytes" ? fmt.signedBytes(box.delta) + " (" + (box.delta > 0 ? "+" : "") +
            fmt.count(box.delta) + " bytes)" : fmt.signedCount(box.delta) + " " + unit) +
          "</td><td>" + fmt.change(box.t, box.b) + "</td></tr></table>";
      } else {
        h += '<div class="tip-value">' + exact(box.t) + ", " +
          (fmt.percent(box.t, s.tree.total) || "0%") + " of " + fmt.value(s.tree.total, unit) + "</div>";
      }
      if (box.m > 0 && opts.onContext) {
        h += '<div class="tip-hint">click: zoom \u00b7 right-click: callers and callees</div>';
      }
      return h;
    }

    // A right-click on a box hands its data to opts.onContext (the page's
    // menu: callers and callees); a click still zooms.
    container.addEventListener("contextmenu", (e) => {
      const g = e.target.closest && e.target.closest("g.frame");
      if (!g || !opts.onContext) return;
      const d = d3.select(g).datum();
      if (!d || !d.data || !(d.data.m > 0)) return;
      e.preventDefault();
      if (tip) tip.hide();
      opts.onContext(d.data, e.clientX, e.clientY);
    });

    function destroy() {
      if (chart) chart.destroy();
      chart = null;
      container.textContent = "";
    }

    // Relative luminance of a CSS colour (WCAG 2), or -1 if it cannot be read.
    function luminance(css) {
      const c = d3.color(css);
      if (!c) return -1;
      const rgb = c.rgb();
      const lin = (v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      };
      return 0.2126 * lin(rgb.r) + 0.7152 * lin(rgb.g) + 0.0722 * lin(rgb.b);
    }
    // Each box's label in the colour with the larger contrast on its fill
    // (the boxes are drawn at 0.9 opacity on white: counted in). Run after
    // every draw, zoom and search (they set the fills).
    function contrastLabels() {
      for (const g of container.querySelectorAll("svg g.frame")) {
        const rect = g.querySelector("rect"), label = g.querySelector(".d3-flame-graph-label");
        if (!rect || !label) continue;
        const c = d3.color(rect.getAttribute("fill"));
        if (!c) continue;
        const rgb = c.rgb();
        const onWhite = d3.rgb(0.9 * rgb.r + 25.5, 0.9 * rgb.g + 25.5, 0.9 * rgb.b + 25.5);
        const l = luminance(onWhite);
        // Contrast with black (L=0) vs with white (L=1): (l+.05)/.05 vs 1.05/(l+.05).
        label.style.color = (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#111" : "#fff";
      }
    }

    // Draws `tree` ({root, total, ...} from HeaprecModel.flameTree) with
    // values in `unit`; `diff` colours by the change against the base;
    // `inverted` draws the root at the top (icicle).
    function render(tree, unit, diff, inverted) {
      destroy();
      shown = { tree, unit, diff };
      const width = Math.max(320, container.clientWidth);
      tip = flamegraph.tooltip.defaultFlamegraphTooltip().html(tooltipHtml);
      chart = make()
        .width(width)
        .cellHeight(18)
        .minFrameSize(MIN_FRAME_PX)
        .transitionDuration(0) // drawn at once; zooms animate (below)
        .sort(false) // children come sorted by name from the model
        .selfValue(false)
        .tooltip(tip)
        .setSearchMatch((d, t) => M.nameMatches(d.data.name, t))
        .setSearchHandler(() => {})
        .inverted(!!inverted)
        .onClick((d) => {
          contrastLabels();
          opts.onZoom(!!d.parent, d.data);
        });
      if (diff) chart.setColorMapper(flamegraph.colorMapper.differentialColorMapper);
      d3.select(container).datum(tree.root).call(chart);
      chart.transitionDuration(tree.boxes > 3000 ? 0 : 250);
      if (term) chart.search(term);
      contrastLabels();
      opts.onZoom(false);
    }

    // Highlights boxes whose name holds `t` (case-insensitive substring).
    function search(t) {
      term = t || "";
      if (!chart) return;
      if (term) chart.search(term);
      else chart.clear();
      contrastLabels();
    }

    function resetZoom() {
      if (chart) chart.resetZoom();
      contrastLabels();
      opts.onZoom(false);
    }

    function showEmpty(text) {
      destroy();
      shown = null;
      const p = document.createElement("div");
      p.className = "empty";
      p.textContent = text;
      container.appendChild(p);
    }

    return { render, search, resetZoom, showEmpty, destroy, current: () => shown };
  }

  return { create };
})();
