// leak_kinds.js: which leak kinds the page's leak views count (the Leaked
// tab, its flame graph, the Leaks table and the Functions table): one
// checkbox per memcheck kind (definitely, indirectly, possibly lost, still
// reachable) with its total, checked as heapreplay --leak-kinds showed them;
// a change hands the mask (HeaprecModel.leakKindMask's bits) to
// opts.onChange. Hidden when the trace knows no kinds (no leak scan).
// Must not compute views or touch anything outside its element.
const HeaprecLeakKinds = (function () {
  "use strict";
  const fmt = HeaprecFormat;
  const M = HeaprecModel;

  function create(el, model, opts) {
    const lk = model.leakKinds;
    if (!lk) {
      el.hidden = true;
      return { mask: () => null };
    }
    let mask = lk.defaultMask;
    let h = '<span class="what" title="memcheck\'s kinds, from the leak scan at the end">Leaks count:</span>';
    for (let k = 1; k < M.LEAK_KINDS.length; k++) {
      const kind = M.LEAK_KINDS[k], t = lk.totals[k];
      h += '<label class="kind" data-kind="' + kind.key + '" title="' + fmt.count(t.bytes) + " bytes in " +
        fmt.count(t.blocks) + ' blocks"><input type="checkbox" data-kind="' + k + '"' +
        ((mask >> k) & 1 ? " checked" : "") + "> " + kind.words + ' <span class="kind-total">' +
        fmt.bytes(t.bytes) + "</span></label>";
    }
    if (lk.totals[0].blocks) {
      h += '<span class="hint">(and ' + fmt.bytes(lk.totals[0].bytes) + " the scan did not classify)</span>";
    }
    el.innerHTML = h;
    el.hidden = false;
    el.addEventListener("change", (e) => {
      const box = e.target.closest("input[data-kind]");
      if (!box) return;
      mask = box.checked ? mask | (1 << +box.dataset.kind) : mask & ~(1 << +box.dataset.kind);
      opts.onChange(mask);
    });
    return { mask: () => mask };
  }

  return { create };
})();
