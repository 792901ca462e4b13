// trees.js: the "Call trees" section: the top-down tree (from the outermost
// frames down), the bottom-up tree (from each function that allocated up
// through its callers) and the callers/callees view of one function
// (sandwich.js), as tabs; each follows the flame graph's view (metric) and
// the page's time range. A search box filters the two trees to the stacks
// through a function whose name holds the text, opening the rows down to
// the matches. Also the small menu a right-click on a flame graph box opens.
// Work happens for the tab shown only (the others when shown): one pass over
// the nodes per update (calltree.js prepare) and the rows opened.
// Must not compute values itself (calltree.js) or touch elements outside its
// section and its menu.
const HeaprecCallTrees = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const T = HeaprecCallTree;
  const TABS = [
    ["top", "Top-down", "from the outermost frames down to the functions that allocated"],
    ["bottom", "Bottom-up", "from each function that allocated (its sites' first frame outside the allocator) up " +
      "through its callers"],
    ["sandwich", "Callers/callees", "one function's callers and callees, merged over every stack that holds it"],
  ];
  const OPEN_TO_MATCHES = 300; // rows a search opens at most
  const CHAIN = 40; // rows of a lone chain opened at first, at most

  function create(section, model, opts) {
    section.innerHTML = '<div class="section-head"><h2>Call trees</h2><span class="hint">Self: what the ' +
      "function allocated itself (its sites' first frame outside the allocator, the Functions table's flat); " +
      "total: with everything it called. Click a row or use the arrow keys to open it; \u21C5 (or C) shows " +
      "its callers and callees.</span></div>" +
      '<div class="ctree-toolbar"><div class="tabs" role="tablist">' +
      TABS.map(([k, title, what]) => '<button type="button" role="tab" class="tab small" data-tree="' + k +
        '" title="' + fmt.html(what) + '">' + title + "</button>").join("") +
      '</div><span class="spacer"></span><input type="search" class="ctree-search" ' +
      'placeholder="Filter by function" aria-label="filter the call trees by function name" autocomplete="off" ' +
      'spellcheck="false"></div><div class="ctree-what table-summary"></div>' +
      TABS.map(([k]) => '<div class="ctree-panel" data-tree="' + k + '"></div>').join("");
    const panel = (k) => section.querySelector('.ctree-panel[data-tree="' + k + '"]');
    const search = section.querySelector(".ctree-search");
    const whatEl = section.querySelector(".ctree-what");
    const onSandwich = (row) => openSandwich(row.name);
    const views = {
      top: HeaprecTreeView.create(panel("top"), { label: "top-down call tree", onSandwich,
        selfTitle: "allocated by the function itself, at this place in the tree",
        totalTitle: "allocated under this row: the function and what it called" }),
      bottom: HeaprecTreeView.create(panel("bottom"), { label: "bottom-up call tree", onSandwich,
        selfTitle: "what the first row's function allocated itself, through this chain of callers",
        totalTitle: "of the first row's function's total, the part through this chain of callers" }),
    };
    const sandwich = HeaprecSandwich.create(panel("sandwich"), { onSandwich });

    let tab = "top", term = "";
    let input = null; // {computed, def, where, diff}
    let version = 0; // bumped by every update()
    const shownVersion = { top: -1, bottom: -1, sandwich: -1 };
    let ctxCache = { key: null, ctx: null };
    let sandwichFn = -1;

    function context(withTerm) {
      const key = version + "|" + (withTerm ? term : "");
      if (ctxCache.key !== key) {
        const v = input.computed.values;
        ctxCache = { key, ctx: T.prepare(model, v[input.def.metric], v.calls_n, withTerm ? term : "") };
      }
      return ctxCache.ctx;
    }

    function describe(ctx) {
      const def = input.def, unit = def.unit;
      const val = (v) => (unit === "bytes" ? fmt.bytes(v) : fmt.count(v) + " " + unit);
      let h = '<span class="what">' + fmt.html(def.title) + (input.where ? " in " + fmt.html(input.where) : "") +
        ':</span> <span data-key="ctree-total" data-value="' + ctx.grandTotal + '">' + val(ctx.grandTotal) + "</span>";
      if (ctx.term && tab !== "sandwich") {
        h += ' \u00b7 stacks through a function matching \u201c' + fmt.html(ctx.term) + '\u201d: <span ' +
          'data-key="ctree-matched" data-value="' + ctx.total + '">' + val(ctx.total) + "</span>" +
          (ctx.grandTotal ? " (" + (fmt.percent(ctx.total, ctx.grandTotal) || "0%") + ")" : "");
      }
      if (input.diff) h += ' \u00b7 <span class="hint">this trace alone (the flame graph shows the difference)</span>';
      whatEl.innerHTML = h;
    }

    function render(fresh) {
      if (!input) return;
      if (shownVersion[tab] === version && !fresh) return;
      shownVersion[tab] = version;
      const def = input.def;
      const empty = def.empty + (input.where ? " in this range." : ".");
      if (tab === "sandwich") {
        const ctx = context(false);
        describe(ctx);
        sandwich.show(ctx, sandwichFn, def.unit, def.title.toLowerCase() + (input.where ? " in " + input.where : ""));
        return;
      }
      const ctx = context(true);
      describe(ctx);
      const roots = tab === "top" ? T.topDown(ctx) : T.bottomUp(ctx);
      const o = { emptyText: ctx.term && ctx.grandTotal ? "No stack through a function matching \u201c" + ctx.term +
        "\u201d." : empty };
      if (fresh) {
        o.reset = true;
        if (ctx.term) o.open = T.openToMatches(ctx, roots, OPEN_TO_MATCHES);
        else o.open = tab === "top" ? T.chain(ctx, roots, CHAIN) : [];
      }
      views[tab].show(ctx, roots, def.unit, o);
    }

    function showTab(k) {
      tab = k;
      for (const b of section.querySelectorAll("button[data-tree]")) {
        b.classList.toggle("active", b.dataset.tree === k);
        b.setAttribute("aria-selected", b.dataset.tree === k ? "true" : "false");
      }
      for (const [name] of TABS) panel(name).hidden = name !== k;
      search.hidden = k === "sandwich";
      // A tree shown for the first time opens fresh.
      render(shownVersion[k] < 0);
    }

    section.querySelector(".tabs").addEventListener("click", (e) => {
      const b = e.target.closest("button[data-tree]");
      if (b) showTab(b.dataset.tree);
    });
    let searchTimer = 0;
    search.addEventListener("input", () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => {
        const t = search.value.trim();
        if (t === term) return;
        term = t;
        // Both trees start again from the new filter.
        shownVersion.top = shownVersion.bottom = -1;
        render(true);
      }, 150);
    });

    // New values: `computed` (model.js compute), the view's definition
    // (model.js VIEWS), the range in words ("" for the whole trace), and
    // whether the page shows a difference against a base.
    function update(computed, def, where, diff) {
      const first = !input;
      input = { computed, def, where, diff: !!diff };
      version++;
      render(first);
    }

    // Shows the callers/callees view of function `name` (a frame's label, as
    // the Functions table names it).
    function openSandwich(name) {
      sandwichFn = T.functionId(model, name);
      shownVersion.sandwich = -1;
      showTab("sandwich");
      section.scrollIntoView({ block: "start", behavior: "auto" });
    }

    // A small menu at viewport (x, y) for function `name` (a right-click on
    // a flame graph box): its callers and callees.
    let menu = null;
    function closeMenu() {
      if (!menu) return;
      menu.remove();
      menu = null;
      document.removeEventListener("mousedown", outside, true);
      document.removeEventListener("keydown", onKey, true);
      window.removeEventListener("wheel", closeMenu, true);
      window.removeEventListener("resize", closeMenu);
    }
    function outside(e) {
      if (menu && !menu.contains(e.target)) closeMenu();
    }
    function onKey(e) {
      if (e.key === "Escape") closeMenu();
    }
    function contextMenu(name, x, y) {
      closeMenu();
      menu = document.createElement("div");
      menu.className = "ctx-menu";
      menu.setAttribute("role", "menu");
      menu.innerHTML = '<button type="button" role="menuitem" data-action="sandwich">Callers and callees of <b>' +
        fmt.html(name) + "</b></button>";
      menu.style.left = Math.max(0, Math.min(x, window.innerWidth - 320)) + "px";
      menu.style.top = Math.max(0, Math.min(y, window.innerHeight - 40)) + "px";
      document.body.appendChild(menu);
      menu.querySelector("button").addEventListener("click", () => {
        closeMenu();
        openSandwich(name);
      });
      menu.querySelector("button").focus({ preventScroll: true });
      document.addEventListener("mousedown", outside, true);
      document.addEventListener("keydown", onKey, true);
      window.addEventListener("wheel", closeMenu, true);
      window.addEventListener("resize", closeMenu);
    }

    showTab("top");

    return {
      update, openSandwich, contextMenu,
      state: () => ({ tab, term, sandwich: sandwichFn >= 0 ? model.fnIndex.names[sandwichFn] : null,
        rows: tab === "sandwich" ? { callers: sandwich.callers.rows(), callees: sandwich.callees.rows() }
          : views[tab].rows() }),
    };
  }

  return { create };
})();
