// calltree.js: call trees of one view's per-node values (model.js compute),
// pure computation: the top-down tree (from the outermost frames down), the
// bottom-up tree (from each function that allocated, its "via" frame, up
// through its callers), and one function's callers and callees merged over
// every occurrence of it (the "sandwich", as speedscope's). Rows group frames
// by function (the label of model.js functionIndex, as the Functions table),
// so every number here agrees with that table: a function's self is its flat,
// its total its cum (a recursive function once per stack).
// A row's columns, for the view's metric and the page's range:
//   total  what the stacks through the row hold (top-down, callees: under it;
//          bottom-up, callers: of the focused function's total, the part that
//          passed through this chain of callers);
//   self   the part the row's function allocated itself (it is the sites'
//          first frame outside the allocator; top-down and callees: at this
//          place in the tree; bottom-up and callers: of the focused function's
//          self, the part through this chain);
//   calls  the allocation calls of the same stacks (calls_n; stacks with
//          nothing in the view are in no row, nor in its calls).
// Rows are built lazily: children(ctx, row) groups the row's children the
// first time it is asked, so the work per interaction is one pass over the
// nodes (prepare) plus the rows opened, whatever the trace's size.
// Must not touch the DOM or any state outside its arguments; must stay
// loadable in Node (calltree_test.js).
const HeaprecCallTree = (function () {
  "use strict";
  const M = typeof module !== "undefined" && typeof require === "function" ? require("./model.js") : HeaprecModel;

  // The per-node sums every tree of one view and range needs. `values` and
  // `calls` are per-node arrays (the view's metric and calls_n); negatives
  // count as 0. With `term`, only stacks holding a function whose name
  // contains it (case-insensitive) count. Returns the context of the other
  // functions: {v, c (the values and calls kept), inc, incCalls (under each
  // node), atVia (what sites whose via is the node hold), total (of the
  // stacks kept), grandTotal (of every stack), term, names}.
  function prepare(model, values, calls, term) {
    const ix = M.functionIndex(model);
    const N = model.nodeCount, parent = model.parent;
    const t = String(term || "").trim();
    const mask = t ? M.filterMask(model, "function", t) : null;
    const v = new Float64Array(N), c = new Float64Array(N);
    let grandTotal = 0;
    for (let n = 1; n < N; n++) {
      const x = values[n] > 0 ? values[n] : 0;
      grandTotal += x;
      if (mask && !mask[n]) continue;
      v[n] = x;
      if (x) c[n] = calls[n] > 0 ? calls[n] : 0; // the stacks the trees show
    }
    const inc = Float64Array.from(v), incCalls = Float64Array.from(c), atVia = new Float64Array(N);
    for (let n = 1; n < N; n++) if (v[n]) atVia[ix.via[n]] += v[n];
    for (let n = N - 1; n > 0; n--) {
      inc[parent[n]] += inc[n];
      incCalls[parent[n]] += incCalls[n];
    }
    return { model, ix, v, c, inc, incCalls, atVia, total: inc[0], grandTotal, term: t,
      names: ix.names };
  }

  // The function id of a name (the Functions table's row), or -1.
  function functionId(model, name) {
    const ix = M.functionIndex(model);
    if (!ix.idOf) {
      ix.idOf = new Map();
      ix.names.forEach((s, i) => ix.idOf.set(s, i));
    }
    const id = ix.idOf.get(name);
    return id === undefined ? -1 : id;
  }

  // The function of a node.
  function fnOfNode(ctx, n) {
    return ctx.ix.fnOfFrame[ctx.model.frame[n]];
  }

  // A row. `down` rows hold tree nodes (one per stack prefix that reaches
  // the row: their children are the row's children); up rows hold, per
  // node, the value, self and calls carried up from the focused function.
  function row(ctx, fn, parentRow, key, down, sortBy) {
    return { fn, name: fn < 0 ? "all" : ctx.names[fn], key, depth: parentRow ? parentRow.depth + 1 : 0,
      parent: parentRow, down, sortBy, total: 0, self: 0, calls: 0, nodes: null, carry: null,
      kids: null, hasKids: undefined, focus: -1, leaf: false };
  }

  // Per-node scratch arrays of a context, made once: a stamp (which pass
  // last wrote the node) and a slot.
  function scratch(ctx) {
    if (!ctx.scratch) {
      const N = ctx.model.nodeCount;
      ctx.scratch = { gen: 0, stamp: new Int32Array(N), slot: new Int32Array(N) };
    }
    return ctx.scratch;
  }

  function byValue(a, b) {
    const x = a.sortBy === "self" ? b.self - a.self || b.total - a.total : b.total - a.total || b.self - a.self;
    return x || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  }

  // A down row over `nodes` (distinct tree nodes).
  function downRow(ctx, fn, parentRow, key, nodes, sortBy) {
    const r = row(ctx, fn, parentRow, key, true, sortBy);
    r.nodes = nodes;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      r.total += ctx.inc[n];
      r.self += ctx.atVia[n];
      r.calls += ctx.incCalls[n];
    }
    return r;
  }

  // An up row over carried values: {node: Int32Array, total, self, calls:
  // Float64Array}, one entry per distinct node.
  function upRow(ctx, fn, parentRow, key, carry, sortBy) {
    const r = row(ctx, fn, parentRow, key, false, sortBy);
    r.carry = carry;
    for (let i = 0; i < carry.node.length; i++) {
      r.total += carry.total[i];
      r.self += carry.self[i];
      r.calls += carry.calls[i];
    }
    r.leaf = true;
    for (let i = 0; i < carry.node.length && r.leaf; i++) if (ctx.model.parent[carry.node[i]] > 0) r.leaf = false;
    return r;
  }

  // The children of a row (built on the first call, then kept): down rows
  // group their nodes' children by function; up rows their nodes' parents.
  // Rows whose total is 0 are left out. Sorted by total (or self, as the
  // row's sortBy says), largest first, then by name.
  function children(ctx, r) {
    if (r.kids) return r.kids;
    if (r.focus >= 0 && !r.carry) r.carry = focusCarry(ctx, r.focus);
    const out = [];
    if (r.down) {
      const { ix, inc } = ctx;
      const groups = new Map();
      for (let i = 0; i < r.nodes.length; i++) {
        const n = r.nodes[i];
        for (let k = ix.start[n]; k < ix.start[n + 1]; k++) {
          const c = ix.kids[k];
          if (!(inc[c] > 0)) continue;
          const f = fnOfNode(ctx, c);
          const g = groups.get(f);
          if (g) g.push(c);
          else groups.set(f, [c]);
        }
      }
      for (const [f, list] of groups) out.push(downRow(ctx, f, r, r.key + "/" + f, Int32Array.from(list), r.sortBy));
    } else {
      // Callers: each entry's parent node, entries of one node summed (a
      // stamp per node instead of a Map: rows may carry 100,000 entries).
      const parent = ctx.model.parent, cr = r.carry, E = cr.node.length;
      const sc = scratch(ctx), gen = ++sc.gen;
      const node = new Int32Array(E), total = new Float64Array(E), self = new Float64Array(E),
        calls = new Float64Array(E);
      let k = 0;
      for (let i = 0; i < E; i++) {
        const p = parent[cr.node[i]];
        if (p <= 0) continue;
        if (sc.stamp[p] !== gen) {
          sc.stamp[p] = gen;
          sc.slot[p] = k;
          node[k++] = p;
        }
        const j = sc.slot[p];
        total[j] += cr.total[i];
        self[j] += cr.self[i];
        calls[j] += cr.calls[i];
      }
      const groups = new Map();
      for (let j = 0; j < k; j++) {
        if (!(total[j] > 0)) continue;
        const f = fnOfNode(ctx, node[j]);
        const g = groups.get(f);
        if (g) g.push(j);
        else groups.set(f, [j]);
      }
      for (const [f, js] of groups) {
        const n = js.length;
        const carry = { node: new Int32Array(n), total: new Float64Array(n), self: new Float64Array(n),
          calls: new Float64Array(n) };
        for (let i = 0; i < n; i++) {
          const j = js[i];
          carry.node[i] = node[j];
          carry.total[i] = total[j];
          carry.self[i] = self[j];
          carry.calls[i] = calls[j];
        }
        out.push(upRow(ctx, f, r, r.key + "/" + f, carry, r.sortBy));
      }
    }
    out.sort(byValue);
    r.kids = out;
    return out;
  }

  // Whether a row has children (without building them, when it can tell;
  // kept on the row).
  function hasChildren(ctx, r) {
    if (r.kids) return r.kids.length > 0;
    if (r.hasKids !== undefined) return r.hasKids;
    let has = !r.leaf;
    if (r.down) {
      has = false;
      const { ix, inc } = ctx;
      for (let i = 0; i < r.nodes.length && !has; i++) {
        const n = r.nodes[i];
        for (let k = ix.start[n]; k < ix.start[n + 1]; k++) {
          if (inc[ix.kids[k]] > 0) {
            has = true;
            break;
          }
        }
      }
    }
    r.hasKids = has;
    return has;
  }

  // The top-down tree: the outermost frames' rows (the children of the root).
  function topDown(ctx) {
    const root = downRow(ctx, -1, null, "t", Int32Array.of(0), "total");
    root.depth = -1;
    const kids = children(ctx, root);
    for (const k of kids) k.parent = null;
    return kids;
  }

  // One function's occurrences that no other occurrence encloses (its
  // outermost frame in each stack), each with what it holds (total, calls)
  // and the part of that its function allocated itself, at any depth (self).
  function focusCarry(ctx, fnId) {
    const model = ctx.model, N = model.nodeCount, parent = model.parent, frame = model.frame;
    const fnOf = ctx.ix.fnOfFrame, via = ctx.ix.via;
    const outer = new Int32Array(N);
    outer[0] = -1;
    const occ = [];
    for (let n = 1; n < N; n++) {
      const o = outer[parent[n]];
      if (o >= 0) outer[n] = o;
      else if (fnOf[frame[n]] === fnId) {
        outer[n] = n;
        if (ctx.inc[n] > 0) occ.push(n);
      } else outer[n] = -1;
    }
    const selfAt = new Float64Array(N); // at each outermost occurrence
    for (let s = 1; s < N; s++) {
      const x = ctx.v[s];
      if (x && fnOf[frame[via[s]]] === fnId) selfAt[outer[s]] += x;
    }
    const E = occ.length;
    const carry = { node: Int32Array.from(occ), total: new Float64Array(E), self: new Float64Array(E),
      calls: new Float64Array(E) };
    for (let i = 0; i < E; i++) {
      const n = occ[i];
      carry.total[i] = ctx.inc[n];
      carry.self[i] = selfAt[n];
      carry.calls[i] = ctx.incCalls[n];
    }
    return carry;
  }

  // Per function: self (flat: sites whose via is it), total (cum: stacks
  // holding it, once each) and calls (of those stacks). O(nodes).
  function perFunction(ctx) {
    const F = ctx.names.length, N = ctx.model.nodeCount, frame = ctx.model.frame;
    const fnOf = ctx.ix.fnOfFrame, via = ctx.ix.via, first = ctx.ix.first;
    const self = new Float64Array(F), total = new Float64Array(F), calls = new Float64Array(F);
    for (let n = 1; n < N; n++) {
      if (ctx.v[n]) self[fnOf[frame[via[n]]]] += ctx.v[n];
      if (first[n] && ctx.inc[n] > 0) {
        const f = fnOf[frame[n]];
        total[f] += ctx.inc[n];
        calls[f] += ctx.incCalls[n];
      }
    }
    return { self, total, calls };
  }

  // The bottom-up tree: one row per function that allocated (self > 0; its
  // total is its cum), largest self first; its children are its callers
  // (built on opening, as the sandwich's callers tree).
  function bottomUp(ctx) {
    const pf = perFunction(ctx), out = [];
    for (let f = 0; f < ctx.names.length; f++) {
      if (!(pf.self[f] > 0)) continue;
      const r = row(ctx, f, null, "b/" + f, false, "self");
      r.focus = f;
      r.total = pf.total[f];
      r.self = pf.self[f];
      r.calls = pf.calls[f];
      out.push(r);
    }
    out.sort(byValue);
    return out;
  }

  // One function's sandwich: its self and total (the Functions table's flat
  // and cum), its calls, the callers tree (an up row: the function, then who
  // called it, up to the outermost frames) and the callees tree (a down row:
  // the function, then what it called), both over its outermost occurrence
  // in each stack (a recursive function counts once per stack, as speedscope
  // does). Null when no stack kept holds the function.
  function sandwich(ctx, fnId) {
    if (!(fnId >= 0 && fnId < ctx.names.length)) return null;
    const carry = focusCarry(ctx, fnId);
    if (!carry.node.length) return null;
    const callers = upRow(ctx, fnId, null, "r/" + fnId, carry, "total");
    const callees = downRow(ctx, fnId, null, "e/" + fnId, carry.node, "total");
    return { fn: fnId, name: ctx.names[fnId], self: callers.self, total: callers.total, calls: callers.calls,
      callers, callees };
  }

  // The rows shown: `roots`, then under each open row (isOpen(row)) its
  // children, depth first. Builds the children of open rows only.
  function visible(ctx, roots, isOpen) {
    const out = [];
    const stack = [];
    for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i]);
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (isOpen(r)) {
        const kids = children(ctx, r);
        for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      }
    }
    return out;
  }

  // The rows to open so that the rows of functions matching ctx.term show:
  // breadth first from `roots`, opening each row that does not match, until
  // `limit` rows are open. Returns their keys.
  function openToMatches(ctx, roots, limit) {
    const t = ctx.term.toLowerCase(), keys = [];
    if (!t) return keys;
    const queue = roots.slice();
    for (let q = 0; q < queue.length && keys.length < limit; q++) {
      const r = queue[q];
      if (r.name.toLowerCase().includes(t) || !hasChildren(ctx, r)) continue;
      keys.push(r.key);
      for (const k of children(ctx, r)) queue.push(k);
    }
    return keys;
  }

  // The rows to open on a fresh tree: a lone root, its lone child and so on
  // (the chain from _start down to main, say), at most `limit`, so the
  // first branching shows. Returns their keys.
  function chain(ctx, roots, limit) {
    const keys = [];
    let level = roots;
    while (level.length === 1 && keys.length < limit && hasChildren(ctx, level[0])) {
      keys.push(level[0].key);
      level = children(ctx, level[0]);
    }
    return keys;
  }

  return { prepare, functionId, topDown, bottomUp, sandwich, children, hasChildren, visible, openToMatches,
    chain, perFunction };
})();
if (typeof module !== "undefined") module.exports = HeaprecCallTree;
