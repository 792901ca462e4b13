#!/bin/bash
# End-to-end test of heapreplay --html in a real browser (Debian's chromium,
# headless, driven by playwright-core through report_browser.mjs): records
# tests/report_phases (allocations known exactly, phases 300 ms apart),
# writes three pages (the trace alone; against a base recording that leaked
# fewer blocks; with an allocator comparison), and on each checks the header
# numbers, zooms into the flame graph, searches a function, selects a time
# range on the heap chart and the range between two markers, and checks the
# leak table follows each; on tests/alloc_wrapper with --alloc-fn, that each
# leak row names its "via" as heapreplay --json does; the first view follows
# the trace (leaks on report_phases: 74% of its peak; the peak on
# alloc_wrapper: its leaks are 8%), the graph opens as an icicle, flips to a
# flame graph, fits the window (tests/many_stacks' deep stacks: levels drawn
# on request) and its labels read on every box colour; the heap line steps
# (flat where nothing happened), rows open from the keyboard, no internal
# words reach the page, the allocator table shows its spread, and the
# Functions table holds the text's flat and cum (flat at the "via"); the
# call trees (top-down, bottom-up, callers/callees) hold, row by row, what
# heapreplay --json's sites say, for two views, searched, opened by click and
# keyboard, the callers/callees view opened from the flame graph (a
# recursive function: many_stacks' left), and follow a range. Its leaks are
# the kinds heapreplay shows by default (definitely and possibly lost), named
# in the header. The chart by call
# stack adds up to heapreplay --peak --json's sites at the peak and to
# --timeline's live bytes under the cursor, and charts a function picked in a
# table; on tests/leak_kinds the kinds filter counts each kind as
# --leak-kinds=all --json does, with what holds the reachable blocks; the
# traces of tests/fork make one page with the process table of heapreplay
# --json and each process's page. Screenshots
# go to the test's outputs (bazel-testlogs/tests/html/report_browser_test/
# test.outputs/). Needs /usr/bin/chromium and node (tools/setup.sh --browser).
set -euo pipefail
runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-heaprec}"
heaprec="$runfiles/recorder/heaprec"
heapreplay="$runfiles/replay/heapreplay"
program="$runfiles/tests/report_phases"
driver="$runfiles/tests/html/report_browser.mjs"
# The installed playwright-core, found through the runfile that links to it.
playwright_json="$(readlink -f "$runfiles/external/npm/node_modules/playwright-core/package.json")"
export HEAPREC_NODE_MODULES="$(dirname "$(dirname "$playwright_json")")"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$(mktemp -d)}"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/report.XXXXXX")"

for tool in /usr/bin/chromium node; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (tools/setup.sh --browser)"; exit 1; }
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "FAIL: node $(node --version) is too old: playwright-core 1.65 needs Node 20 or newer"
  exit 1
fi

"$heaprec" -q -o "$work/now.zst" "$program" 5 >/dev/null
"$heaprec" -q -o "$work/base.zst" "$program" 2 >/dev/null

# The range to select: from the start to 100 ms after the "loaded" marker
# (the next event is 300 ms after it), so only early_leak's blocks are in it.
loaded_ns="$("$heapreplay" --json "$work/now.zst" |
  node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
           process.stdout.write(String(j.markers.find(m => m.label === "loaded").time_ns));')"
to_ns=$((loaded_ns + 100000000))
# Nothing happens for 300 ms after "worked": the heap holds its peak, 31672.
worked_ns="$("$heapreplay" --json "$work/now.zst" |
  node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
           process.stdout.write(String(j.markers.find(m => m.label === "worked").time_ns));')"

expect() {  # expect FILE EXTRA-JSON
  cat >"$1" <<EOF_JSON
{
  "summary": {"allocations": 212, "frees": 204, "bytes_allocated": 44472,
              "peak_bytes": 31672, "leaked_bytes": 23480, "leaked_blocks": 8,
              "temporaries": 200},
  "summary_text": {"leak_kinds": "(definitely lost, possibly lost)"},
  "first_view": "leaks",
  "steps": {"from_ns": $((worked_ns + 150000000)), "to_ns": $((worked_ns + 280000000)), "bytes": 31672},
  "keyboard": true,
  "no_internal_words": true,
  "orientation": true,
  "fits": true,
  "labels": true,
  "flame_view": "leaks",
  "functions": {"rows": {"early_leak": [3000, 3000], "late_leak": [20480, 20480], "main": [0, 23480]},
                "pick": "late_leak"},
  "flame_click": "late_leak",
  "search": "early",
  "range": {"from_ns": 0, "to_ns": $to_ns,
            "leaks_present": ["early_leak"], "leaks_absent": ["late_leak"]},
  "marker_range": {"label": "loaded \u2192 worked",
                   "leaks_present": ["late_leak"], "leaks_absent": ["early_leak"]},
  "leaks_all": ["early_leak", "late_leak"]$2
}
EOF_JSON
}

status=0
driver_args=()  # more arguments for the driver (--height)
check() {  # check NAME HEAPREPLAY-ARGS...
  local name=$1
  shift
  echo "== $name: heapreplay --html $name.html $*"
  "$heapreplay" --html "$work/$name.html" "$@" >/dev/null
  if ! node "$driver" --html "$work/$name.html" --expect "$work/$name.expect.json" \
      --screenshot "$out/$name.png" "${driver_args[@]}"; then
    status=1
  fi
}

# The call trees' rows against heapreplay --json's sites (each site's bytes,
# count, and frames named as the page names them).
sites_of() {  # sites_of KEY < JSON: the sites of analysis KEY, for "trees"
  node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const name = (f) => (f.function && f.function !== "??" ? f.function :
      f.module && f.offset ? f.module + "+" + f.offset : f.address || "??");
    process.stdout.write(JSON.stringify(j[process.argv[1]].sites.map((s) => ({ bytes: s.bytes,
      count: s.count, stack: s.stack.map((f) => ({ fn: name(f), alloc: f.allocator ? 1 : 0 })) }))));' "$1"
}
now_json="$("$heapreplay" --json --hot --leaks "$work/now.zst")"
expect "$work/report.expect.json" ', "trees": {"views": [
    {"view": "allocated", "calls": true, "sites": '"$(sites_of hot <<<"$now_json")"'},
    {"view": "leaks", "calls": false, "sites": '"$(sites_of leaks <<<"$now_json")"'}],
  "search": "late", "sandwich": "late_leak", "zoom_sandwich": "main"}'
# The chart by call stack against heapreplay: each stack's bytes at the peak
# (--peak --json), the live bytes in the flat stretches after each marker
# (--timeline), late_leak's 20480 bytes and early_leak's 3000 at the peak.
sites="$("$heapreplay" --peak --json "$work/now.zst" >"$work/peak.json" &&
  "$heapreplay" --timeline "$work/now.zst" >"$work/timeline.csv" &&
  node -e '
    const fs = require("fs");
    const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const rows = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
    const liveAt = (ns) => Number(rows.filter((r) => Number(r[0]) * 1e9 <= ns).pop()[2]);
    const atPeak = {};
    for (const s of j.peak.sites) atPeak[s.stack[0].function] = (atPeak[s.stack[0].function] || 0) + s.bytes;
    const hover = [Number(process.argv[3]) + 150e6, Number(process.argv[4]) + 150e6].map((ns) => ({ ns, total: liveAt(ns) }));
    process.stdout.write(JSON.stringify({ peak_bytes: j.summary.peak_bytes, peak_time_ns: j.summary.peak_time_ns,
      at_peak: atPeak, hover, range_label: "loaded \u2192 worked",
      function: { name: "late_leak", at_peak: atPeak.late_leak },
      row: { table: "leaks", function: "early_leak", at_peak: atPeak.early_leak } }));
  ' "$work/peak.json" "$work/timeline.csv" "$loaded_ns" "$worked_ns")"
expect "$work/report.expect.json" ", \"sites\": $sites"
check report "$work/now.zst"
# Against the base (its whole trace), a range also lists what it shrank from:
# late_leak before "loaded" (the base leaked two of its blocks), early_leak
# between the markers (the base leaked three).
expect "$work/diff.expect.json" ', "diff": true, "range": {"from_ns": 0, "to_ns": '"$to_ns"',
  "leaks_present": ["early_leak", "late_leak"], "leaks_absent": []},
  "marker_range": {"label": "loaded \u2192 worked", "leaks_present": ["early_leak", "late_leak"]}'
check diff --base "$work/base.zst" "$work/now.zst"
expect "$work/bench.expect.json" ', "bench": ["glibc", "jemalloc"]'
check bench --bench --repeat 1 --allocators glibc,jemalloc "$work/now.zst"

# A malloc wrapper called from two callers (tests/alloc_wrapper): with
# --alloc-fn my_xmalloc each leak row names the caller it came through (its
# "via"), as heapreplay --json's sites do.
"$heaprec" -q -o "$work/wrapper.zst" "$runfiles/tests/alloc_wrapper" >/dev/null
via_rows="$("$heapreplay" --json --leaks --alloc-fn my_xmalloc "$work/wrapper.zst" |
  node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
           process.stdout.write(JSON.stringify(j.leaks.sites.map((s) => [s.stack[0].function, s.via])));')"
wrapper_json="$("$heapreplay" --json --hot --leaks --alloc-fn my_xmalloc "$work/wrapper.zst")"
cat >"$work/wrapper.expect.json" <<EOF_JSON
{
  "summary": {"allocations": 6, "frees": 1, "peak_bytes": 109000, "leaked_bytes": 9000},
  "first_view": "peak",
  "labels": true,
  "flame_view": "leaks",
  "search": "from_loader",
  "sites_via": {"table": "leaks", "rows": $via_rows},
  "functions": {"rows": {"from_parser": [3000, 3000], "from_loader": [6000, 6000], "my_xmalloc": [0, 9000]}},
  "trees": {"views": [{"view": "leaks", "calls": false, "sites": $(sites_of leaks <<<"$wrapper_json")},
                      {"view": "allocated", "calls": true, "sites": $(sites_of hot <<<"$wrapper_json")}],
            "search": "loader", "sandwich": "my_xmalloc", "zoom_sandwich": "from_loader"}
}
EOF_JSON
case "$via_rows" in
  *from_parser*from_loader* | *from_loader*from_parser*) ;;
  *) echo "FAIL: heapreplay --json --alloc-fn my_xmalloc gave via $via_rows"; status=1 ;;
esac
check wrapper --alloc-fn my_xmalloc "$work/wrapper.zst"

# Every leak kind (tests/leak_kinds all): the page counts heapreplay's kinds
# first (definitely and possibly lost), then any others picked, and names
# what holds the still reachable blocks, as --leak-kinds=all --json says.
"$heaprec" -q -o "$work/kinds.zst" "$runfiles/tests/leak_kinds" all >/dev/null
"$heapreplay" --leaks --json "$work/kinds.zst" >"$work/kinds_default.json"
"$heapreplay" --leaks --leak-kinds=all --json "$work/kinds.zst" >"$work/kinds_all.json"
kinds="$(node -e '
  const fs = require("fs");
  const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).leaks;
  const a = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).leaks;
  const k = a.kinds;
  process.stdout.write(JSON.stringify({ checked: d.shown_kinds.split(","),
    totals: { definite: k.definitely_lost.bytes, indirect: k.indirectly_lost.bytes,
              possible: k.possibly_lost.bytes, reachable: k.still_reachable.bytes },
    held_by: a.sites.filter((s) => s.kind === "still_reachable").flatMap((s) => s.held_by.map((h) => [h.root, h.bytes])) }));
  ' "$work/kinds_default.json" "$work/kinds_all.json")"
case "$kinds" in
  *'"checked":["definite","possible"]'*'"held_by":[['*) ;;
  *) echo "FAIL: heapreplay --json on leak_kinds all gave $kinds"; status=1 ;;
esac
echo "{\"leak_kinds\": $kinds}" >"$work/kinds.expect.json"
check kinds "$work/kinds.zst"

# The traces of a forking program (tests/fork: heaprec writes one per
# process): one page with the process table and each process's page.
mkdir "$work/fork"
"$heaprec" -q -o "$work/fork/%n.%p.zst" "$runfiles/tests/fork" >/dev/null
"$heapreplay" --json "$work/fork" >"$work/fork_table.json"
for t in "$work"/fork/*.zst; do "$heapreplay" --json "$t"; done >"$work/fork_each.json"
node -e '
  const fs = require("fs");
  const rows = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).processes;
  const summaries = {};
  for (const text of fs.readFileSync(process.argv[2], "utf8").split(/\n(?=\{)/)) {
    const j = JSON.parse(text);
    const s = j.summary;
    summaries[j.trace.pid] = { allocations: s.allocations, frees: s.frees, bytes_allocated: s.bytes_allocated,
      peak_bytes: s.peak_bytes };
  }
  fs.writeFileSync(process.argv[3], JSON.stringify({ processes: { rows, summaries } }));
  ' "$work/fork_table.json" "$work/fork_each.json" "$work/fork.expect.json"
check fork "$work/fork"

# Stacks deeper than a 500-px window (tests/many_stacks 64: 64 paths, each
# 18 recursive calls deep): the graph fits, and goes deeper on request.
"$heaprec" -q -o "$work/deep.zst" "$runfiles/tests/many_stacks" 64 >/dev/null
deep_json="$("$heapreplay" --json --hot "$work/deep.zst")"
cat >"$work/deep.expect.json" <<EOF_JSON
{"fits": true, "depth": true, "orientation": true, "labels": true,
 "trees": {"views": [{"view": "allocated", "calls": true, "sites": $(sites_of hot <<<"$deep_json")}],
           "search": "right", "sandwich": "left", "zoom_sandwich": "right"}}
EOF_JSON
driver_args=(--height 500)
check deep "$work/deep.zst"
driver_args=()

rm -rf "$work"
exit $status
