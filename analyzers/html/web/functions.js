// functions.js: the function table, the text report's pprof-style `top`
// (HeaprecModel.functionTable) for the view shown and the page's range: per
// function flat, flat%, sum%, cum and cum%, largest flat first, at most PAGE
// rows drawn with "show more"; a click (or Enter) on a row hands its function
// to opts.onPick (the page searches the flame graph for it), its
// callers/callees button (or C on the row) to opts.onSandwich, its chart
// button to opts.onChart (its live bytes over time).
// Must not compute values (model.js does) or touch anything outside its
// element.
const HeaprecFunctions = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const PAGE = 200;

  function create(el, opts) {
    let shown = PAGE;
    let last = null; // {table, unit, title, where}

    function value(v, unit) {
      return unit === "bytes" ? '<span title="' + fmt.count(v) + ' bytes">' + fmt.bytes(v) + "</span>"
        : fmt.count(v);
    }

    function draw() {
      const { table, unit, title, where } = last;
      const rows = table.rows, total = table.total;
      let h = '<div class="table-summary"><span class="what">Functions by ' + fmt.html(title.toLowerCase()) +
        (where ? " in " + fmt.html(where) : "") + ":</span> " + fmt.count(rows.length) + " function" +
        (rows.length === 1 ? "" : "s") + ' \u00b7 <span class="hint">flat: sites whose first frame outside ' +
        "the allocator is the function (it allocated); cum: sites with the function anywhere in " +
        "their stack; click a row to find it in the flame graph</span></div>";
      if (!rows.length) {
        el.innerHTML = h + '<div class="empty">Nothing' + (where ? " in this range." : ".") + "</div>";
        return;
      }
      h += '<div class="table-wrap"><table class="grid functions"><thead><tr>' +
        '<th data-col="function">Function</th><th class="num" data-col="flat">Flat</th>' +
        '<th class="num" data-col="flat_pct">Flat%</th><th class="num" data-col="sum_pct">Sum%</th>' +
        '<th class="num" data-col="cum">Cum</th><th class="num" data-col="cum_pct">Cum%</th>' +
        (opts && opts.onSandwich ? '<th class="act"></th>' : "") + "</tr></thead><tbody>";
      const end = Math.min(rows.length, shown);
      let sum = 0;
      for (let i = 0; i < end; i++) {
        const r = rows[i];
        sum += r.flat;
        h += '<tr class="function" tabindex="0" data-function="' + fmt.html(r.name) + '" data-flat="' + r.flat +
          '" data-cum="' + r.cum + '"><td class="fn" title="' + fmt.html(r.name) + '">' +
          (opts && opts.onChart ? fmt.chartButton(r.name) : "") + fmt.html(r.name) +
          '</td><td class="num">' + value(r.flat, unit) + '</td><td class="num">' +
          (fmt.percent(r.flat, total) || "0%") + '</td><td class="num">' + (fmt.percent(sum, total) || "0%") +
          '</td><td class="num">' + value(r.cum, unit) + '</td><td class="num">' +
          (fmt.percent(r.cum, total) || "0%") + "</td>" + (opts && opts.onSandwich
          ? '<td class="act"><button type="button" class="ctree-sw" tabindex="-1" title="Callers and callees of ' +
            fmt.html(r.name) + ' (key C)" aria-label="callers and callees">\u21C5</button></td>' : "") + "</tr>";
      }
      h += "</tbody></table></div>";
      if (end < rows.length) {
        h += '<div class="more"><button type="button" class="btn show-more">Show ' +
          fmt.count(Math.min(PAGE, rows.length - end)) + ' more</button> <span class="hint">' +
          fmt.count(end) + " of " + fmt.count(rows.length) + " functions shown</span></div>";
      }
      el.innerHTML = h;
    }

    // `table` from HeaprecModel.functionTable, values in `unit` ("bytes" or
    // a noun), `title` the view's, `where` the range in words ("" = all).
    function render(table, unit, title, where) {
      last = { table, unit, title, where };
      shown = PAGE;
      draw();
    }

    el.addEventListener("click", (e) => {
      if (e.target.closest(".show-more")) {
        shown += PAGE;
        draw();
        return;
      }
      const chart = e.target.closest("button.chart-fn");
      if (chart) {
        opts.onChart(chart.dataset.fn);
        return;
      }
      const tr = e.target.closest("tr.function");
      if (tr && e.target.closest(".ctree-sw") && opts && opts.onSandwich) opts.onSandwich(tr.dataset.function);
      else if (tr && opts && opts.onPick) opts.onPick(tr.dataset.function);
    });
    el.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && e.target.matches("tr.function")) {
        e.preventDefault();
        e.target.click();
      } else if ((e.key === "c" || e.key === "C") && e.target.matches("tr.function") && opts && opts.onSandwich) {
        opts.onSandwich(e.target.dataset.function);
      }
    });

    return { render };
  }

  return { create, PAGE };
})();
