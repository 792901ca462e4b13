// tables.js: the site tables (leaks, peak, temporaries, hot): one row per
// site with a non-zero value in the page's range, sortable by a click on a
// column header, filtered by the page's filter mask, each row expanding to
// its full stack (a click, or Enter or Space on the focused row), at most PAGE rows drawn with "show more". Against a base:
// base, this and change columns, sorted by change. The leaks table also
// names each site's leak kinds and what holds its still reachable blocks;
// each row's "via" has a button that charts that function over time
// (opts.onChart).
// Must not compute per-range values (model.js) or read page state other than
// what update() is given; renders only the visible table (others when shown).
const HeaprecTables = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const M = HeaprecModel;
  const PAGE = 200;
  const FIXED_COLUMNS = 4; // function, via, location, module: drawn by hand

  function create(model, panels, opts) {
    const tables = {};
    for (const name of M.TABLE_NAMES) {
      tables[name] = { el: panels[name], dirty: true, order: null, sort: null, shown: PAGE,
        expanded: new Set(), mode: null };
    }
    let ctx = null; // {computed, diff, mask}
    let visible = M.TABLE_NAMES[0];

    const fnOf = (n) => model.frames.label[model.frame[n]];
    const fileOf = (n) => model.str(model.frames.file[model.frame[n]]);
    const lineOf = (n) => model.frames.line[model.frame[n]];
    const moduleOf = (n) => model.str(model.frames.module[model.frame[n]]);
    // The first frame outside the allocator and its wrappers (heapreplay
    // --alloc-fn adds to them): what tells apart sites of one wrapper.
    const viaOf = (n) => model.frames.label[model.frame[M.viaNode(model, n)]];

    // The columns of a table in a mode, with each one's sort key.
    function columns(name, diff) {
      const def = M.TABLES[name];
      const v = ctx.computed.values;
      const tb = v[def.bytes], tn = v[def.count];
      const base = diff && model.base ? model.base.values : null;
      const bb = base ? base[def.bytes] : null, bn = base ? base[def.count] : null;
      const primaryIsBytes = def.primary === "bytes";
      const tp = primaryIsBytes ? tb : tn, bp = primaryIsBytes ? bb : bn;
      const punit = primaryIsBytes ? "bytes" : def.countName;
      const cols = [
        { id: "function", title: "Function", str: true, key: fnOf },
        { id: "via", title: "Via", str: true, key: viaOf },
        { id: "location", title: "File:line", str: true, key: (n) => fileOf(n), key2: lineOf },
        { id: "module", title: "Module", str: true, key: moduleOf },
      ];
      const cap = (s) => s[0].toUpperCase() + s.slice(1);
      if (!base) {
        cols.push(
          { id: "bytes", title: "Bytes", key: (n) => tb[n], show: (n) => bytesCell(tb[n]) },
          { id: "count", title: cap(def.countName), key: (n) => tn[n], show: (n) => fmt.count(tn[n]) },
          { id: "percent", title: "%", key: (n) => tp[n],
            show: (n) => fmt.percent(tp[n], ctx.computed.totals[primaryIsBytes ? def.bytes : def.count]) });
      } else {
        const show = (x) => (primaryIsBytes ? bytesCell(x) : fmt.count(x));
        cols.push(
          { id: "base", title: "Base " + (primaryIsBytes ? "bytes" : def.countName), key: (n) => bp[n],
            show: (n) => show(bp[n]) },
          { id: "this", title: "This " + (primaryIsBytes ? "bytes" : def.countName), key: (n) => tp[n],
            show: (n) => show(tp[n]) },
          { id: "change", title: "Change", key: (n) => tp[n] - bp[n],
            show: (n) => changeCell(tp[n] - bp[n], bp[n], tp[n], punit) });
        // The other quantity, this trace's, with its change.
        const so = primaryIsBytes ? tn : tb, sb = primaryIsBytes ? bn : bb;
        cols.push({ id: primaryIsBytes ? "count" : "bytes",
          title: primaryIsBytes ? cap(def.countName) + " (change)" : "Bytes (change)",
          key: (n) => so[n],
          show: (n) => {
            const d = so[n] - sb[n];
            const main = primaryIsBytes ? fmt.count(so[n]) : fmt.bytes(so[n]);
            return main + (d ? ' <span class="delta ' + (d > 0 ? "up" : "down") + '">(' +
              (primaryIsBytes ? fmt.signedCount(d) : fmt.signedBytes(d)) + ")</span>" : "");
          } });
      }
      if (name === "hot" && !base) addLifetimeColumns(cols);
      if (name === "leaks" && model.leakKinds) addKindColumns(cols);
      return { cols, def, tb, tn, bb, bn, tp, bp, defaultSort: base ? "change" : primaryIsBytes ? "bytes" : "count" };
    }

    // Block lifetimes (DATA.md "lifetimes"; whole trace, not the range): the
    // median lifetime and the share released by another thread than the maker.
    let lifetimeRow = null; // node -> index into model.data.lifetimes
    function addLifetimeColumns(cols) {
      const l = model.data && model.data.lifetimes;
      if (!l || !l.node || !l.node.length) return;
      if (!lifetimeRow) {
        lifetimeRow = new Map();
        l.node.forEach((n, i) => lifetimeRow.set(n, i));
      }
      const at = (n, column, none) => (lifetimeRow.has(n) ? column[lifetimeRow.get(n)] : none);
      const share = (n) => at(n, l.other_thread, 0) / Math.max(1, at(n, l.freed, 1));
      cols.push(
        { id: "lifetime", title: "Median life", key: (n) => at(n, l.p50_ns, -1),
          show: (n) => (lifetimeRow.has(n) ? '<span title="at most; ' +
            fmt.count(at(n, l.p50_between, 0)) + ' allocations in between at most; whole trace">' +
            "\u2264 " + fmt.duration(at(n, l.p50_ns, 0)) + "</span>" : "\u2013") },
        { id: "other_thread", title: "Freed by other thread", key: (n) => share(n),
          show: (n) => (lifetimeRow.has(n) ? fmt.percent(at(n, l.other_thread, 0), at(n, l.freed, 1)) : "\u2013") });
    }

    // Leak kinds (DATA.md "leak_kinds"): the kinds counted that each site
    // leaked in the range, and what holds its still reachable blocks (whole
    // trace, as heapreplay --leaks --leak-kinds=reachable says).
    function addKindColumns(cols) {
      const kindText = (n) => {
        const bits = ctx.computed.leakKinds ? ctx.computed.leakKinds[n] : 0;
        return M.LEAK_KINDS.filter((k, i) => (bits >> i) & 1).map((k) => k.words).join(", ");
      };
      const held = (n) => (ctx.computed.leakKinds && (ctx.computed.leakKinds[n] >> 4) & 1 ? M.heldBy(model, n) : []);
      const heldText = (list) => list.map((x) => x.root + " (" + fmt.bytes(x.bytes) + ")").join(", ");
      cols.push({ id: "kind", title: "Kind", str: true, cls: "kinds", key: kindText, show: (n) => fmt.html(kindText(n)) });
      if (!((ctx.computed.leakMask >> 4) & 1)) return; // still reachable not counted
      cols.push(
        { id: "held_by", title: "Held by", str: true, cls: "held", key: (n) => heldText(held(n)),
          show: (n) => {
            const list = held(n);
            if (!list.length) return "";
            const shown = list.slice(0, 3);
            return '<span title="' + fmt.html(heldText(list)) + '" data-held="' +
              fmt.html(JSON.stringify(list.map((x) => [x.root, x.bytes]))) + '">' + fmt.html(heldText(shown)) +
              (list.length > 3 ? ", \u2026" : "") + "</span>";
          } });
    }

    function bytesCell(b) {
      return '<span title="' + fmt.count(b) + ' bytes">' + fmt.bytes(b) + "</span>";
    }
    function changeCell(d, base, now, unit) {
      const cls = d > 0 ? "up" : d < 0 ? "down" : "same";
      const text = unit === "bytes" ? fmt.signedBytes(d) : fmt.signedCount(d);
      const title = unit === "bytes" ? (d > 0 ? "+" : "") + fmt.count(d) + " bytes" : text + " " + unit;
      const rel = fmt.change(now, base);
      return '<span class="delta ' + cls + '" title="' + title + '">' + text + "</span>" +
        (rel ? ' <span class="rel">' + rel + "</span>" : "");
    }

    // Sorted site list of a table (cached until update() or a new sort).
    function order(t, name, c) {
      if (t.order) return t.order;
      let list = M.sites(model, [c.tb, c.tn, c.bb, c.bn]);
      const all = list.length;
      if (ctx.mask) {
        const mask = ctx.mask;
        list = list.filter((n) => mask[n] === 1);
      }
      const col = c.cols.find((x) => x.id === t.sort.col) || c.cols[0];
      const dir = t.sort.dir;
      let cmp;
      if (col.str) {
        const keys = new Map();
        for (const n of list) keys.set(n, col.key(n));
        cmp = (a, b) => {
          const x = keys.get(a), y = keys.get(b);
          if (x !== y) return (x < y ? -1 : 1) * dir;
          if (col.key2) {
            const p = col.key2(a), q = col.key2(b);
            if (p !== q) return (p - q) * dir;
          }
          return a - b;
        };
      } else {
        const keys = new Float64Array(model.nodeCount);
        for (const n of list) keys[n] = col.key(n);
        // Against a base, "change" sorts the growth first then the shrinking
        // (by size): that is the order the desc direction gives.
        cmp = (a, b) => (keys[a] !== keys[b] ? (keys[a] - keys[b]) * dir : a - b);
      }
      list.sort(cmp);
      t.order = list;
      t.total = all;
      return list;
    }

    // The small action that charts a function's live bytes over time
    // (opts.onChart); none without it.
    function chartButton(fn) {
      return opts && opts.onChart ? HeaprecFormat.chartButton(fn) : "";
    }

    function stackHtml(n, span) {
      const rows = M.stack(model, n).map((f, i) =>
        "<tr><td class=\"num\">" + i + "</td><td class=\"fn\">" + fmt.html(f.function) +
        (f.inlined ? ' <span class="tag">inlined</span>' : "") +
        (f.allocator ? ' <span class="tag">allocator</span>' : "") + "</td><td>" +
        fmt.html(f.location) + "</td><td>" + fmt.html(f.module) + "</td><td class=\"addr\">" +
        fmt.html(f.offset) + "</td><td class=\"addr\">" + fmt.html(f.address) + "</td></tr>").join("");
      return '<tr class="stack-row"><td colspan="' + span + '"><table class="stack"><thead><tr>' +
        "<th>#</th><th>Function</th><th>File:line</th><th>Module</th><th>Offset</th><th>Address</th>" +
        "</tr></thead>" +
        "<tbody>" + rows + "</tbody></table></td></tr>";
    }

    function summaryHtml(name, c, matched) {
      const def = c.def, tot = ctx.computed.totals;
      const where = ctx.rangeText ? " in " + ctx.rangeText : "";
      let s = '<span class="what">' + def.title + where + ":</span> " + fmt.bytes(tot[def.bytes]) +
        " in " + fmt.count(tot[def.count]) + " " + def.countName;
      if (c.bb) {
        const bt = model.base.totals;
        const d = def.primary === "bytes" ? tot[def.bytes] - bt[def.bytes] : tot[def.count] - bt[def.count];
        s += '; base ' + fmt.bytes(bt[def.bytes]) + " in " + fmt.count(bt[def.count]) + " " +
          def.countName + '; change <span class="delta ' + (d > 0 ? "up" : d < 0 ? "down" : "same") +
          '">' + (def.primary === "bytes" ? fmt.signedBytes(d) : fmt.signedCount(d) + " " + def.countName) +
          "</span>";
      }
      s += " \u00b7 " + fmt.count(matched) + (ctx.mask ? " of " + fmt.count(ctxTotal(name)) : "") +
        " site" + (matched === 1 && !ctx.mask ? "" : "s") + (ctx.mask ? " match the filter" : "");
      return s;
    }
    const ctxTotal = (name) => tables[name].total;

    function render(name) {
      const t = tables[name];
      const diff = !!(ctx.diff && model.base);
      const mode = diff ? "diff" : "this";
      const c = columns(name, diff);
      if (t.mode !== mode || !t.sort) {
        t.mode = mode;
        t.sort = { col: c.defaultSort, dir: -1 };
        t.order = null;
      }
      const list = order(t, name, c);
      const span = c.cols.length;
      let h = '<div class="table-summary">' + summaryHtml(name, c, list.length) + "</div>";
      if (!list.length) {
        h += '<div class="empty">' + (ctx.mask && t.total ? "No site matches the filter."
          : c.def.empty + (ctx.rangeText ? " in this range." : ".")) + "</div>";
        t.el.innerHTML = h;
        t.dirty = false;
        return;
      }
      h += '<div class="table-wrap"><table class="grid sites"><thead><tr>';
      for (const col of c.cols) {
        const sorted = t.sort.col === col.id;
        h += '<th data-col="' + col.id + '" tabindex="0" class="sortable' + (col.str ? "" : " num") +
          (sorted ? (t.sort.dir < 0 ? " desc" : " asc") : "") + '" aria-sort="' +
          (sorted ? (t.sort.dir < 0 ? "descending" : "ascending") : "none") + '">' + col.title + "</th>";
      }
      h += "</tr></thead><tbody>";
      const end = Math.min(list.length, t.shown);
      for (let i = 0; i < end; i++) {
        const n = list[i];
        const fn = fnOf(n);
        const open = t.expanded.has(n);
        const file = fileOf(n), line = lineOf(n);
        const via = viaOf(n);
        h += '<tr class="site' + (open ? " open" : "") + '" tabindex="0" aria-expanded="' + open +
          '" data-node="' + n + '" data-function="' +
          fmt.html(fn) + '" data-via="' + fmt.html(via) + '"><td class="fn" title="' + fmt.html(fn) + '">' +
          fmt.html(fn) + (model.frames.inlined[model.frame[n]] ? ' <span class="tag">inlined</span>' : "") +
          '</td><td class="via' + (via === fn ? " same" : "") + '" title="' + fmt.html(via) + '">' +
          chartButton(via) + fmt.html(via) + '</td><td class="loc">' + fmt.html(file ? (line ? file + ":" + line : file) : "") +
          '</td><td class="mod">' + fmt.html(moduleOf(n)) + "</td>";
        for (let k = FIXED_COLUMNS; k < span; k++) {
          h += '<td class="' + (c.cols[k].cls || "num") + '">' + c.cols[k].show(n) + "</td>";
        }
        h += "</tr>";
        if (open) h += stackHtml(n, span);
      }
      h += "</tbody></table></div>";
      if (end < list.length) {
        h += '<div class="more"><button type="button" class="btn show-more">Show ' +
          fmt.count(Math.min(PAGE, list.length - end)) + " more</button> <span class=\"hint\">" +
          fmt.count(end) + " of " + fmt.count(list.length) + " sites shown</span></div>";
      }
      t.el.innerHTML = h;
      t.dirty = false;
    }

    // Redraws a table keeping the keyboard focus on the row or header that
    // had it (the table's HTML is replaced).
    function renderKeepingFocus(name) {
      const el = tables[name].el, a = document.activeElement;
      const sel = a && el.contains(a) ? (a.dataset.node !== undefined ? 'tr.site[data-node="' + a.dataset.node + '"]'
        : a.dataset.col !== undefined ? 'th[data-col="' + a.dataset.col + '"]' : null) : null;
      render(name);
      const again = sel ? el.querySelector(sel) : null;
      if (again) again.focus();
    }

    // Clicks, and Enter or Space on a focused row or header: sort, expand a
    // row, show more.
    for (const name of M.TABLE_NAMES) {
      const t = tables[name];
      t.el.addEventListener("keydown", (e) => {
        if (e.key !== "Enter" && e.key !== " ") return;
        const target = e.target.closest("tr.site, th[data-col]");
        if (!target || target !== e.target) return;
        e.preventDefault(); // Space would scroll the page
        target.click();
      });
      t.el.addEventListener("click", (e) => {
        const chart = e.target.closest("button.chart-fn");
        if (chart) {
          opts.onChart(chart.dataset.fn);
          return;
        }
        const th = e.target.closest("th[data-col]");
        if (th && t.el.contains(th) && th.closest("table.sites")) {
          const col = th.dataset.col;
          const str = !th.classList.contains("num");
          if (t.sort.col === col) t.sort.dir = -t.sort.dir;
          else t.sort = { col, dir: str ? 1 : -1 };
          t.order = null;
          t.shown = PAGE;
          renderKeepingFocus(name);
          return;
        }
        if (e.target.closest(".show-more")) {
          t.shown += PAGE;
          render(name);
          return;
        }
        const tr = e.target.closest("tr.site");
        if (tr) {
          const n = +tr.dataset.node;
          if (t.expanded.has(n)) t.expanded.delete(n);
          else t.expanded.add(n);
          renderKeepingFocus(name);
        }
      });
    }

    // New values (range, mode or filter): re-sort and redraw the visible
    // table; the others when they are shown.
    function update(newCtx) {
      ctx = newCtx;
      for (const name of M.TABLE_NAMES) {
        const t = tables[name];
        t.dirty = true;
        t.order = null;
        t.shown = PAGE;
      }
      if (tables[visible]) render(visible);
    }

    // Shows a site table (another name, e.g. the page's function table,
    // hides them all).
    function show(name) {
      visible = name;
      for (const n of M.TABLE_NAMES) tables[n].el.hidden = n !== name;
      if (tables[name] && tables[name].dirty && ctx) render(name);
      if (opts && opts.onShow) opts.onShow(name);
    }

    return { update, show, visible: () => visible };
  }

  return { create, PAGE };
})();
