// processes.js: the process table of a page of several traces (heapreplay
// --html PAGE T1 T2 ... or a folder; DATA.md "processes"): one row per
// process, largest peak first as heapreplay T1 T2 prints it (pid, parent,
// exit, command, allocations, peak, leaked: live at the end, trace). A click, or
// Enter or Space on a focused row, shows that process (opts.onPick(index,
// page)); the row shown is marked; a parent that is in the table is a link
// to its row.
// Must not compute views or touch anything outside its element.
const HeaprecProcesses = (function () {
  "use strict";
  const fmt = HeaprecFormat;

  // The command line as heapreplay's table shows it: the program's name
  // and its arguments.
  function command(row) {
    const tr = (row.page && row.page.trace) || {};
    const args = tr.args && tr.args.length ? tr.args.slice() : [row.program || "?"];
    args[0] = String(args[0]).split("/").pop();
    return args.join(" ");
  }

  // Renders data.processes into el and returns {first: the first row's
  // page, current(): {index, pid}}; null (el left hidden) for a page of one
  // trace.
  function create(el, data, opts) {
    const rows = data && Array.isArray(data.processes) ? data.processes : null;
    if (!rows || !rows.length) return null;
    let current = 0;
    const byPid = new Map();
    rows.forEach((r, i) => { if (!byPid.has(r.pid)) byPid.set(r.pid, i); });
    const num = (key, v, shown, title) => '<td class="num" data-key="' + key + '" data-value="' + v + '" title="' +
      fmt.html(title) + '">' + shown + "</td>";
    let h = '<div class="section-head"><h2>Processes</h2><span class="hint">' + fmt.count(rows.length) +
      " traces of one run, largest peak first; pick one to see it below (click a row, or Enter).</span></div>" +
      '<div class="table-wrap"><table class="grid processes"><thead><tr><th class="num">pid</th>' +
      '<th class="num">parent</th><th>exit</th><th>command</th><th class="num">allocations</th>' +
      '<th class="num">peak</th><th class="num" title="every block not freed at the end, whatever its kind, as ' +
      'heapreplay T1 T2 prints it (the Leaked number below counts the kinds shown)">leaked</th><th>trace</th>' +
      "</tr></thead><tbody>";
    rows.forEach((r, i) => {
      const tr = (r.page && r.page.trace) || {};
      const parent = byPid.has(r.ppid) && byPid.get(r.ppid) !== i
        ? '<button type="button" class="link" data-go="' + byPid.get(r.ppid) + '" title="show the parent">' +
          r.ppid + "</button>" : fmt.html(r.ppid);
      h += '<tr class="process" tabindex="0" data-index="' + i + '" data-pid="' + r.pid + '">' +
        num("pid", r.pid, fmt.html(r.pid), "pid " + r.pid) +
        '<td class="num" data-key="ppid" data-value="' + r.ppid + '">' + parent + "</td>" +
        "<td>" + fmt.html(tr.exit || "unknown") + (r.truncated ? ' <span class="tag">truncated</span>' : "") +
        '</td><td class="cmd" title="' + fmt.html(command(r)) + '">' + fmt.html(command(r)) + "</td>" +
        num("allocations", r.allocations, fmt.count(r.allocations), fmt.count(r.allocations)) +
        num("peak_bytes", r.peak_bytes, fmt.bytes(r.peak_bytes), fmt.count(r.peak_bytes) + " bytes") +
        num("leaked_bytes", r.leaked_bytes, fmt.bytes(r.leaked_bytes), fmt.count(r.leaked_bytes) + " bytes") +
        '<td class="loc">' + fmt.html(r.path) + "</td></tr>";
    });
    el.innerHTML = h + "</tbody></table></div>";
    el.hidden = false;

    function mark() {
      for (const tr of el.querySelectorAll("tr.process")) {
        const on = +tr.dataset.index === current;
        tr.classList.toggle("shown", on);
        tr.setAttribute("aria-current", on ? "true" : "false");
      }
    }
    function pick(i) {
      if (i === current || !rows[i]) return;
      current = i;
      mark();
      opts.onPick(i, rows[i].page);
    }
    el.addEventListener("click", (e) => {
      const go = e.target.closest("button[data-go]");
      const tr = e.target.closest("tr.process");
      if (go) pick(+go.dataset.go);
      else if (tr) pick(+tr.dataset.index);
    });
    el.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && e.target.matches("tr.process")) {
        e.preventDefault();
        pick(+e.target.dataset.index);
      }
    });
    mark();
    return { first: rows[0].page, current: () => ({ index: current, pid: rows[current].pid }) };
  }

  return { create, command };
})();
