// bench.js: the allocator comparison (`bench`, as heapreplay --bench --json
// writes it): the table (best of each column marked, run-to-run spread where
// the JSON has min and max, ratios to glibc, as the text report), each allocator's paired differences to glibc with their
// intervals and what a replay cannot see (when the JSON has them), and the
// RSS-over-the-replay chart (uPlot, x = operation index: live bytes
// requested and each allocator's RSS curve).
// Must not touch anything outside the bench section; draws nothing when
// `bench` is null (the page hides the section).
const HeaprecBench = (function () {
  "use strict";
  const fmt = HeaprecFormat;

  const COLUMNS = [
    { id: "wall", title: "Wall", key: "wall_s", show: (v) => fmt.duration(v * 1e9) },
    { id: "cpu", title: "CPU", key: "cpu_s", show: (v) => fmt.duration(v * 1e9) },
    // The allocator's start-up time beyond glibc's (about 0 for glibc): no ratio.
    { id: "startup", title: "Start-up", key: "startup_s", show: (v) => fmt.duration(v * 1e9), noRatio: true },
    { id: "ns_per_op", title: "ns/op", key: "ns_per_op", show: (v) => v.toFixed(1) },
    { id: "peak_rss", title: "Peak RSS", key: "peak_rss_bytes", show: fmt.bytes, bytes: true },
    { id: "fragmentation", title: "Fragmentation", key: "fragmentation", show: (v) => v.toFixed(2) },
    { id: "end_rss", title: "End RSS", key: "end_rss_bytes", show: fmt.bytes, bytes: true },
    { id: "released", title: "Released", key: "released_rss_bytes", show: fmt.bytes, bytes: true },
  ];
  const PALETTE = ["#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563"];

  function table(el, bench) {
    const al = bench.allocators || [];
    const ref = al.find((a) => a.name === "glibc") || al[0];
    let h = "<thead><tr><th>Allocator</th>";
    for (const c of COLUMNS) h += '<th class="num" data-col="' + c.id + '">' + c.title + "</th>";
    h += "</tr></thead><tbody>";
    const best = {};
    for (const c of COLUMNS) {
      const vals = al.map((a) => a[c.key]).filter((v) => typeof v === "number");
      best[c.id] = vals.length ? Math.min(...vals) : null;
    }
    for (const a of al) {
      h += '<tr data-name="' + fmt.html(a.name) + '"><th class="name" title="' +
        fmt.html((a.library || "built in") + (a.release ? "; release: " + a.release : "")) + '">' +
        fmt.html(a.name) + "</th>";
      for (const c of COLUMNS) {
        const v = a[c.key];
        if (typeof v !== "number") {
          h += '<td class="num">\u2013</td>';
          continue;
        }
        const isBest = al.length > 1 && v === best[c.id];
        const r = !c.noRatio && ref && typeof ref[c.key] === "number" && ref[c.key] > 0 ? v / ref[c.key] : null;
        let title = c.bytes ? fmt.count(v) + " bytes" : String(v);
        if (c.id === "wall" && typeof a.wall_s_min === "number" && v > 0) {
          title += "; min " + fmt.duration(a.wall_s_min * 1e9) + ", max " +
            fmt.duration(a.wall_s_max * 1e9) + " over " + a.runs + " run(s)";
        }
        // The run-to-run spread, as the text's "+-N%": (max - min) / median.
        const lo = a[c.key + "_min"], hi = a[c.key + "_max"];
        const spread = typeof lo === "number" && typeof hi === "number" && v > 0
          ? ' <span class="spread" data-min="' + lo + '" data-max="' + hi + '" data-median="' + v +
            '" title="spread over ' + (a.runs || "the") + ' run(s): (max \u2212 min) / median">\u00b1' +
            Math.round((100 * (hi - lo)) / v) + "%</span>" : "";
        h += '<td class="num' + (isBest ? " best" : "") + '" title="' + fmt.html(title) + '">' +
          c.show(v) + spread + (r === null ? "" : ' <span class="ratio">' + r.toFixed(2) + "\u00d7</span>") +
          (isBest ? ' <span class="star" title="best in the column">\u2605</span>' : "") + "</td>";
      }
      h += "</tr>";
    }
    h += "</tbody>";
    el.innerHTML = h;
    return ref ? ref.name : "";
  }

  // The differences to the reference (vs_reference), hidden for JSON saved
  // before they existed.
  function differences(box, bench) {
    const al = (bench.allocators || []).filter((a) => a.vs_reference);
    box.hidden = !al.length;
    if (!al.length) return;
    const ref = bench.reference || "glibc";
    box.querySelector("#bench-diff-title").textContent = "Against " + ref + ", run by run";
    // Wall and CPU: the program's allocator cost, start-up + replayed calls
    // (the start-up column: its part, absent from JSON saved before it).
    const withStartup = al.some((a) => a.vs_reference.startup_s);
    const cols = [[withStartup ? "Wall incl. start-up" : "Wall", "wall_s", "s"],
      [withStartup ? "CPU incl. start-up" : "CPU", "cpu_s", "s"], ["Peak RSS", "peak_rss_bytes", "bytes"]];
    if (withStartup) cols.splice(2, 0, ["Start-up", "startup_s", "s"]);
    let h = "<thead><tr><th>Allocator</th>";
    for (const c of cols) h += "<th>" + c[0] + " \u2212 " + fmt.html(ref) + "</th>";
    h += "</tr></thead><tbody>";
    for (const a of al) {
      h += '<tr data-name="' + fmt.html(a.name) + '"><th class="name">' + fmt.html(a.name) + "</th>";
      for (const c of cols) {
        const d = a.vs_reference[c[1]];
        h += '<td class="num' + (d && d.beyond_noise ? (d.median < 0 ? " best" : "") : " noise") + '">' +
          fmt.html(fmt.difference(d, c[2])) + "</td>";
      }
      h += "</tr>";
    }
    box.querySelector("#bench-diff-table").innerHTML = h + "</tbody>";
    const m = bench.difference || {};
    box.querySelector("#bench-diff-note").textContent =
      "Median of the paired runs' differences, [" + Math.round(100 * (m.confidence || 0.9)) +
      "% bootstrap interval]; negative = saved. Fastest beyond noise: " +
      (bench.fastest_beyond_noise || "none (no allocator is faster than " + ref + " beyond noise)") +
      ". " + (bench.replay_cannot_see || "");
  }

  // uPlot data from curves of [ops, bytes] points with different x values.
  function curves(bench) {
    const list = [];
    if (Array.isArray(bench.live_curve) && bench.live_curve.length) {
      list.push({ label: "live bytes requested", points: bench.live_curve, live: true });
    }
    for (const a of bench.allocators || []) {
      if (Array.isArray(a.rss_curve) && a.rss_curve.length) {
        list.push({ label: a.name + " RSS", points: a.rss_curve });
      }
    }
    if (!list.length) return null;
    const xs = Array.from(new Set(list.flatMap((c) => c.points.map((p) => p[0])))).sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const data = [xs];
    for (const c of list) {
      const ys = new Array(xs.length).fill(null);
      for (const [x, y] of c.points) ys[at.get(x)] = y;
      data.push(ys);
    }
    return { list, data };
  }

  function render(section, bench) {
    if (!bench) {
      section.hidden = true;
      return null;
    }
    section.hidden = false;
    const meta = section.querySelector("#bench-meta");
    meta.textContent = fmt.count(bench.ops || 0) + " ops on " + (bench.threads || 0) +
      " thread(s), peak live " + fmt.bytes(bench.peak_live_bytes || 0) + "; medians of " +
      (bench.repeat || 1) + " run(s), touch " + (bench.touch || "?") +
      (typeof bench.null_wall_s === "number" ? "; replayer's own cost " + fmt.duration(bench.null_wall_s * 1e9) : "");
    const refName = table(section.querySelector("#bench-table"), bench);
    const skipped = (bench.unknown_frees || 0) + (bench.failed_calls || 0);
    section.querySelector("#bench-legend").textContent =
      "RSS is above the replayer's own baseline; fragmentation = peak RSS / peak live bytes; " +
      "\u00d7 = ratio to " + (refName || "the first allocator") + "; \u2605 = best (lowest) in the column." +
      (skipped ? " Skipped: " + fmt.count(bench.unknown_frees || 0) + " frees of blocks not live, " +
        fmt.count(bench.failed_calls || 0) + " failed calls." : "");
    differences(section.querySelector("#bench-diff"), bench);
    const el = section.querySelector("#bench-rss");
    const c = curves(bench);
    if (!c) {
      el.innerHTML = '<p class="note">No RSS curves in this run (heapreplay --bench --plot records them).</p>';
      return null;
    }
    const series = [{ label: "op", value: (u, v) => (v == null ? "\u2013" : fmt.count(v)) }];
    let k = 0;
    for (const s of c.list) {
      series.push({
        label: s.label,
        stroke: s.live ? "#2563eb" : PALETTE[k++ % PALETTE.length],
        fill: s.live ? "rgba(37,99,235,0.10)" : undefined,
        width: s.live ? 2 : 1.5,
        spanGaps: true,
        points: { show: false },
        value: (u, v) => (v == null ? "\u2013" : fmt.bytes(v)),
      });
    }
    const u = new uPlot({
      width: Math.max(300, el.clientWidth),
      height: 240,
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1024] } },
      axes: [
        { label: "operation", grid: { stroke: "#eef0f3" }, values: (u, s) => s.map((v) => fmt.count(v)) },
        { size: 78, incrs: fmt.BYTE_INCRS, grid: { stroke: "#eef0f3" }, values: (u, s) => s.map((v) => fmt.bytes(v)) },
      ],
      series,
    }, c.data, el);
    return {
      resize: () => {
        const w = Math.max(300, el.clientWidth);
        if (w !== u.width) u.setSize({ width: w, height: 240 });
      },
    };
  }

  return { render, curves };
})();
