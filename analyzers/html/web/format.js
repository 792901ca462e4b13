// format.js: pure formatting of numbers, bytes, times and HTML text for the
// heapreplay --html page (byte sizes as heapreplay's text reports print them:
// 1024-based, "20.0 KiB").
// Must not touch the DOM or any global state; also loads in Node for tests.
const HeaprecFormat = (function () {
  "use strict";

  // As analyzers/human_bytes.cc: "512 B", "20.0 KiB", "1.5 MiB", "2.00 GiB".
  function bytes(n) {
    if (n < 0) return "-" + bytes(-n);
    if (n < 1024) return Math.round(n) + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    if (n < 1073741824) return (n / 1048576).toFixed(1) + " MiB";
    return (n / 1073741824).toFixed(2) + " GiB";
  }

  // "+8.0 KiB", "-2000 B", "0 B".
  function signedBytes(n) {
    return n > 0 ? "+" + bytes(n) : bytes(n);
  }

  // 1234567 -> "1,234,567" (fixed grouping: independent of the locale).
  function count(n) {
    const neg = n < 0;
    let s = String(Math.round(Math.abs(n)));
    let out = "";
    while (s.length > 3) {
      out = "," + s.slice(-3) + out;
      s = s.slice(0, -3);
    }
    return (neg ? "-" : "") + s + out;
  }

  function signedCount(n) {
    return n > 0 ? "+" + count(n) : count(n);
  }

  // A value of a view in its unit ("bytes" or a count noun such as "calls").
  function value(n, unit) {
    return unit === "bytes" ? bytes(n) : count(n);
  }

  function signedValue(n, unit) {
    return unit === "bytes" ? signedBytes(n) : signedCount(n);
  }

  // A time since the start of the recording: "0.250 s", "12.500 s",
  // "125.0 s"; under a millisecond in µs ("40.0 µs").
  function seconds(ns) {
    const a = Math.abs(ns);
    if (a === 0) return "0 s";
    if (a < 1e6) return (ns / 1e3).toFixed(1) + " \u00b5s";
    if (a >= 100e9) return (ns / 1e9).toFixed(1) + " s";
    return (ns / 1e9).toFixed(3) + " s";
  }

  // A duration in ns for people: "310 ms", "4.2 s", "2 min 5 s", "40.0 µs".
  function duration(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return Math.round(ns) + " ns";
    if (a < 1e6) return (ns / 1e3).toFixed(1) + " µs";
    if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 2 : 0) + " ms";
    if (a < 60e9) return (ns / 1e9).toFixed(a < 1e10 ? 2 : 1) + " s";
    const min = Math.floor(ns / 60e9);
    return min + " min " + Math.round((ns - min * 60e9) / 1e9) + " s";
  }

  function percent(part, total) {
    if (!total) return "";
    const p = (100 * part) / total;
    return (Math.abs(p) >= 10 ? p.toFixed(1) : p.toFixed(2)) + "%";
  }

  // Relative change: "+40.0%", "-12.5%", "new" (base 0, now > 0).
  function change(now, base) {
    if (base === 0) return now === 0 ? "" : "new";
    const p = (100 * (now - base)) / Math.abs(base);
    return (p > 0 ? "+" : "") + p.toFixed(1) + "%";
  }

  // A paired difference X - glibc (DIFF of docs/DESIGN.md, in seconds or
  // bytes) as the text report writes it: "-12.3 ms [-14.0 ms, -10.1 ms]:
  // saves 12.3 ms", "... : no difference beyond noise", "+0.4 ms (one run:
  // no interval)".
  function difference(d, unit) {
    if (!d || !d.pairs) return "\u2013";
    const show = unit === "bytes" ? bytes : (v) => duration(v * 1e9);
    const signed = (v) => (v > 0 ? "+" : "") + show(v);
    let s = signed(d.median);
    if (d.pairs < 2) return s + " (one run: no interval)";
    s += " [" + signed(d.low) + ", " + signed(d.high) + "]: ";
    if (!d.beyond_noise) return s + "no difference beyond noise";
    return s + (d.median < 0 ? "saves " : "costs ") + show(Math.abs(d.median));
  }

  // Wall-clock start of the trace, local time: "2025-11-24 16:00:00".
  function realtime(ns) {
    const d = new Date(Math.floor(ns / 1e6));
    if (isNaN(d.getTime())) return "unknown";
    const p = (x) => String(x).padStart(2, "0");
    return (
      d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
      p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds())
    );
  }

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  function html(s) {
    return String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  // A command line for display: arguments with spaces or quotes are quoted.
  function commandLine(args) {
    return args
      .map((a) => (a === "" || /[\s"'\\$`]/.test(a) ? "'" + a.replace(/'/g, "'\\''") + "'" : a))
      .join(" ");
  }

  // The small button of a table row that charts function `fn`'s live bytes
  // over time (an area-chart icon; site_chart.js draws the chart).
  function chartButton(fn) {
    return '<button type="button" class="chart-fn" data-fn="' + html(fn) + '" title="Live bytes over time of ' +
      "the stacks through " + html(fn) + '" aria-label="Chart ' + html(fn) + ' over time">' +
      '<svg viewBox="0 0 12 10" width="12" height="10" aria-hidden="true"><path d="M0 10V7l4-3 3 2 5-5v9z"/></svg>' +
      "</button>";
  }

  // Tick increments for a byte axis (uPlot `incrs`): 1, 2, 4, ... 512 times
  // each power of 1024, so ticks land on round binary sizes.
  const BYTE_INCRS = [];
  for (let k = 0; k < 6; k++) {
    for (let m = 1; m < 1024; m *= 2) BYTE_INCRS.push(m * Math.pow(1024, k));
  }

  return { BYTE_INCRS, bytes, signedBytes, count, signedCount, value, signedValue, seconds, duration,
    percent, change, difference, realtime, html, commandLine, chartButton };
})();
if (typeof module !== "undefined") module.exports = HeaprecFormat;
