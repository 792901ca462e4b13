// sandwich.js: the callers/callees view of one function (speedscope's
// "sandwich"): its self, total and calls for the page's view and range, the
// tree of its callers (inverted: who called it, up to the outermost frames)
// and the tree of its callees (what it called), both merged over every
// occurrence of the function, a recursive one counted once per stack
// (calltree.js sandwich).
// The numbers carry data-key and data-value (raw) for tests.
// Must not compute values (calltree.js does) or touch elements outside its
// own.
const HeaprecSandwich = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const T = HeaprecCallTree;
  const CHAIN = 40; // rows of a lone chain opened at first, at most

  // opts: {onSandwich(row)} (a row's button re-focuses the view on its
  // function).
  function create(el, opts) {
    el.innerHTML = '<div class="sw-head"></div>' +
      '<h3>Callers <span class="hint">who called it, up to the outermost frames: of its total (and self), ' +
      "the part through each chain of callers</span></h3><div class=\"sw-callers\"></div>" +
      '<h3>Callees <span class="hint">what it called: everything allocated under it</span></h3>' +
      '<div class="sw-callees"></div>';
    const headEl = el.querySelector(".sw-head");
    const callers = HeaprecTreeView.create(el.querySelector(".sw-callers"), {
      label: "callers", onSandwich: opts.onSandwich,
      selfTitle: "of the function's self, the part through these callers",
      totalTitle: "of the function's total, the part through these callers",
    });
    const callees = HeaprecTreeView.create(el.querySelector(".sw-callees"), {
      label: "callees", onSandwich: opts.onSandwich,
      selfTitle: "allocated by this function itself, at this place",
      totalTitle: "allocated under this function, at this place",
    });
    let shownFn = -1;

    function item(key, label, value, shown, title) {
      return '<span class="sw-stat"><span class="sw-label">' + label + '</span> <span class="sw-value" data-key="' +
        key + '" data-value="' + value + '" title="' + fmt.html(title) + '">' + shown + "</span></span>";
    }

    // Shows function `fnId` (a calltree.js function id; -1: none picked) for
    // context `ctx` in `unit`; `what` names the view and range.
    function show(ctx, fnId, unit, what) {
      const fresh = fnId !== shownFn;
      shownFn = fnId;
      if (fnId < 0) {
        headEl.innerHTML = '<div class="empty">No function picked: use the \u21C5 button of a call tree row or ' +
          "of a Functions table row, the Callers/callees button of a zoomed flame graph, or right-click a " +
          "flame graph box.</div>";
        el.classList.add("sw-none");
        callers.clear();
        callees.clear();
        return;
      }
      el.classList.remove("sw-none");
      const s = T.sandwich(ctx, fnId);
      const name = ctx.names[fnId];
      const val = (v) => (unit === "bytes" ? fmt.bytes(v) : fmt.count(v) + " " + unit);
      const exact = (v) => (unit === "bytes" ? fmt.count(v) + " bytes" : fmt.count(v) + " " + unit);
      const pct = (v) => (ctx.grandTotal ? " (" + (fmt.percent(v, ctx.grandTotal) || "0%") + ")" : "");
      const self = s ? s.self : 0, total = s ? s.total : 0, calls = s ? s.calls : 0;
      headEl.innerHTML = '<div class="sw-title"><span class="sw-name" data-key="sw-function">' + fmt.html(name) +
        '</span> <span class="hint">' + fmt.html(what) + "</span></div>" +
        '<div class="sw-stats">' +
        item("sw-self", "self", self, val(self) + pct(self), exact(self) +
          ": its sites' first frame outside the allocator is this function") + " \u00b7 " +
        item("sw-total", "total", total, val(total) + pct(total), exact(total) +
          ": stacks holding this function, each once (recursion too)") + " \u00b7 " +
        item("sw-calls", "calls", calls, fmt.count(calls), "allocation calls of those stacks") + "</div>";
      if (!s) {
        callers.show(ctx, [], unit, { reset: fresh, emptyText: "Nothing under " + name + " in this view." });
        callees.show(ctx, [], unit, { reset: fresh, emptyText: "" });
        return;
      }
      // A new function opens with both roots open, and a lone chain of
      // callers (or callees) under them.
      const opened = (root) => (fresh ? [root.key].concat(T.chain(ctx, [root], CHAIN)) : []);
      callers.show(ctx, [s.callers], unit, { reset: fresh, open: opened(s.callers) });
      callees.show(ctx, [s.callees], unit, { reset: fresh, open: opened(s.callees) });
    }

    return { show, shown: () => shownFn, callers, callees };
  }

  return { create };
})();
