// treeview.js: one expandable tree table (ARIA treegrid) of calltree.js rows:
// function, self, total, % of the view's total, allocation calls, and a
// button that opens the row's function in the callers/callees view. Draws
// only the rows in sight (a fixed row height; rows of a long list are made
// as it scrolls), and builds a row's children only when it is opened, so a
// tree of any size costs what is open and shown.
// Keyboard, on the focused tree: Up/Down move, Right opens (or goes to the
// first child), Left closes (or goes to the parent), Enter or Space opens and
// closes, Home/End/PageUp/PageDown move further, C opens the callers/callees
// view of the row's function. A click on a row opens or closes it.
// Rows carry data-key, data-function, data-total, data-self, data-calls and
// data-depth (raw numbers) for tests.
// Must not compute values (calltree.js does) or touch elements outside its
// own.
const HeaprecTreeView = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const T = HeaprecCallTree;
  const ROW_PX = 24;
  const MAX_PX = 480; // the tree scrolls beyond this height
  const OVERSCAN = 6; // rows made above and below the ones in sight
  const INDENT_PX = 16;
  let nextId = 1;

  // `el` is emptied and filled; opts: {label (what the tree is, for screen
  // readers), selfTitle, totalTitle (column tooltips), onSandwich(row)}.
  function create(el, opts) {
    const id = "ctv" + nextId++;
    el.textContent = "";
    el.classList.add("ctree");
    const head = document.createElement("div");
    head.className = "ctree-head ctree-grid";
    head.innerHTML = '<div class="ctree-cell fn">Function</div>' +
      '<div class="ctree-cell num" title="' + fmt.html(opts.selfTitle || "") + '">Self</div>' +
      '<div class="ctree-cell num" title="' + fmt.html(opts.totalTitle || "") + '">Total</div>' +
      '<div class="ctree-cell num" title="total, as a share of the view\'s total">%</div>' +
      '<div class="ctree-cell num" title="allocation calls of the same stacks">Calls</div>' +
      '<div class="ctree-cell act"></div>';
    const body = document.createElement("div");
    body.className = "ctree-body";
    body.setAttribute("role", "treegrid");
    body.setAttribute("aria-label", opts.label || "call tree");
    body.tabIndex = 0;
    const space = document.createElement("div");
    space.className = "ctree-space";
    body.appendChild(space);
    const empty = document.createElement("div");
    empty.className = "empty";
    empty.hidden = true;
    el.append(head, body, empty);

    let ctx = null, roots = [], rows = [], unit = "bytes";
    const open = new Set();
    let active = -1, activeKey = null;
    let drawn = null; // {first, last} drawn

    function valueHtml(v) {
      if (unit === "bytes") return '<span title="' + fmt.count(v) + ' bytes">' + fmt.bytes(v) + "</span>";
      return fmt.count(v);
    }

    function rowHtml(r, i) {
      const kids = T.hasChildren(ctx, r);
      const isOpen = kids && open.has(r.key);
      const term = ctx.term ? ctx.term.toLowerCase() : "";
      const match = term && r.name.toLowerCase().includes(term);
      return '<div role="row" id="' + id + "-" + i + '" class="ctree-row ctree-grid' + (i === active ? " active" : "") +
        (match ? " match" : "") + '" style="top:' + i * ROW_PX + 'px" aria-level="' + (r.depth + 1) + '"' +
        (kids ? ' aria-expanded="' + isOpen + '"' : "") + ' data-i="' + i + '" data-key="' + fmt.html(r.key) +
        '" data-function="' + fmt.html(r.name) + '" data-total="' + r.total + '" data-self="' + r.self +
        '" data-calls="' + r.calls + '" data-depth="' + r.depth + '">' +
        '<div role="gridcell" class="ctree-cell fn" style="padding-left:' + (4 + r.depth * INDENT_PX) + 'px" title="' +
        fmt.html(r.name) + '"><span class="twisty">' + (kids ? (isOpen ? "\u25BE" : "\u25B8") : "") +
        '</span><span class="name">' + fmt.html(r.name) + "</span></div>" +
        '<div role="gridcell" class="ctree-cell num">' + valueHtml(r.self) + "</div>" +
        '<div role="gridcell" class="ctree-cell num">' + valueHtml(r.total) + "</div>" +
        '<div role="gridcell" class="ctree-cell num">' + (fmt.percent(r.total, ctx.grandTotal) || "0%") + "</div>" +
        '<div role="gridcell" class="ctree-cell num">' + fmt.count(r.calls) + "</div>" +
        '<div role="gridcell" class="ctree-cell act">' + (r.fn >= 0 && opts.onSandwich
        ? '<button type="button" class="ctree-sw" tabindex="-1" title="Callers and callees of ' + fmt.html(r.name) +
          ' (key C)" aria-label="callers and callees">\u21C5</button>' : "") + "</div></div>";
    }

    // Draws the rows in sight (and a few more).
    function draw(force) {
      const h = body.clientHeight || MAX_PX;
      const first = Math.max(0, Math.floor(body.scrollTop / ROW_PX) - OVERSCAN);
      const last = Math.min(rows.length - 1, Math.ceil((body.scrollTop + h) / ROW_PX) + OVERSCAN);
      if (!force && drawn && drawn.first === first && drawn.last === last) return;
      drawn = { first, last };
      let html = "";
      for (let i = first; i <= last; i++) html += rowHtml(rows[i], i);
      space.innerHTML = html;
      if (active >= 0) body.setAttribute("aria-activedescendant", id + "-" + active);
      else body.removeAttribute("aria-activedescendant");
    }

    // The visible rows again (after opening or closing, or new values),
    // keeping the active row (by key) when it is still shown.
    function layout() {
      rows = ctx ? T.visible(ctx, roots, (r) => open.has(r.key)) : [];
      active = -1;
      if (activeKey !== null) active = rows.findIndex((r) => r.key === activeKey);
      space.style.height = rows.length * ROW_PX + "px";
      body.style.height = Math.min(MAX_PX, rows.length * ROW_PX + 2) + "px";
      body.hidden = !rows.length;
      head.hidden = !rows.length;
      draw(true);
    }

    function setActive(i, scroll) {
      if (!rows.length) return;
      active = Math.max(0, Math.min(rows.length - 1, i));
      activeKey = rows[active].key;
      if (scroll !== false) {
        const top = active * ROW_PX, h = body.clientHeight;
        if (top < body.scrollTop) body.scrollTop = top;
        else if (top + ROW_PX > body.scrollTop + h) body.scrollTop = top + ROW_PX - h;
      }
      draw(true);
    }

    function toggle(i, want) {
      const r = rows[i];
      if (!r || !T.hasChildren(ctx, r)) return;
      const isOpen = open.has(r.key);
      const next = want === undefined ? !isOpen : want;
      if (next === isOpen) return;
      if (next) open.add(r.key);
      else open.delete(r.key);
      activeKey = r.key;
      layout();
    }

    body.addEventListener("scroll", () => draw(false));
    body.addEventListener("click", (e) => {
      const tr = e.target.closest(".ctree-row");
      if (!tr) return;
      const i = +tr.dataset.i;
      body.focus({ preventScroll: true });
      if (e.target.closest(".ctree-sw")) {
        setActive(i, false);
        opts.onSandwich(rows[i]);
        return;
      }
      setActive(i, false);
      toggle(i);
    });
    body.addEventListener("keydown", (e) => {
      if (!rows.length || e.altKey || e.ctrlKey || e.metaKey) return;
      const i = active < 0 ? 0 : active;
      const r = rows[i];
      const page = Math.max(1, Math.floor(body.clientHeight / ROW_PX) - 1);
      let handled = true;
      switch (e.key) {
        case "ArrowDown": setActive(active < 0 ? 0 : i + 1); break;
        case "ArrowUp": setActive(i - 1); break;
        case "Home": setActive(0); break;
        case "End": setActive(rows.length - 1); break;
        case "PageDown": setActive(i + page); break;
        case "PageUp": setActive(i - page); break;
        case "ArrowRight":
          if (active < 0) setActive(0);
          else if (T.hasChildren(ctx, r) && !open.has(r.key)) toggle(i, true);
          else if (open.has(r.key) && i + 1 < rows.length && rows[i + 1].parent === r) setActive(i + 1);
          break;
        case "ArrowLeft":
          if (active < 0) setActive(0);
          else if (open.has(r.key)) toggle(i, false);
          else if (r.parent) setActive(rows.indexOf(r.parent));
          break;
        case "Enter":
        case " ":
          if (active < 0) setActive(0);
          else toggle(i);
          break;
        case "c":
        case "C":
          if (active >= 0 && r.fn >= 0 && opts.onSandwich) opts.onSandwich(r);
          break;
        default: handled = false;
      }
      if (handled) e.preventDefault();
    });

    // New rows: `c` a calltree.js context, `rs` its root rows, values in
    // `u` ("bytes" or a noun). Rows open before stay open (by key) where
    // they still exist. opts: {open: [keys] to open too, reset: forget the
    // rows open before, emptyText: shown when there is no row}.
    function show(c, rs, u, o) {
      ctx = c;
      roots = rs;
      unit = u;
      o = o || {};
      if (o.reset) {
        open.clear();
        activeKey = null;
        body.scrollTop = 0;
      }
      for (const k of o.open || []) open.add(k);
      layout();
      empty.hidden = rows.length > 0;
      empty.textContent = rows.length ? "" : o.emptyText || "Nothing.";
    }

    return {
      show,
      focus: () => body.focus(),
      // What is shown, for the page's test hook: [{key, name, depth, open}].
      rows: () => rows.map((r) => ({ key: r.key, name: r.name, depth: r.depth, open: open.has(r.key) })),
      clear: () => {
        ctx = null;
        roots = [];
        layout();
      },
    };
  }

  return { create, ROW_PX };
})();
