#!/bin/bash
# heapreplay --export dhat loaded by valgrind's own DHAT viewer
# (/usr/libexec/valgrind/dh_view.html) in headless chromium (dhat_view.mjs,
# playwright-core): records tests/report_phases (212 allocations of 44472
# bytes, peak 31672 in 12 blocks, 23480 bytes in 8 blocks left at the end),
# and checks that what the viewer shows for the whole program (Total, At
# t-gmax, At t-end, t-gmax and t-end in µs) and for late_leak's program point
# (Total, Max, At t-gmax) equals heapreplay's --peak --json numbers.
# Needs /usr/bin/chromium, node and valgrind's dh_view.html.
set -euo pipefail
runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-heaprec}"
heaprec="$runfiles/recorder/heaprec"
heapreplay="$runfiles/replay/heapreplay"
program="$runfiles/tests/report_phases"
driver="$runfiles/tests/exports/dhat_view.mjs"
playwright_json="$(readlink -f "$runfiles/external/npm/node_modules/playwright-core/package.json")"
export HEAPREC_NODE_MODULES="$(dirname "$(dirname "$playwright_json")")"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$(mktemp -d)}"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/dhat.XXXXXX")"
for tool in /usr/bin/chromium node /usr/libexec/valgrind/dh_view.html; do
  [ -e "$tool" ] || command -v "$tool" >/dev/null ||
    { echo "FAIL: $tool not found (tools/setup.sh --browser; apt-get install valgrind)"; exit 1; }
done

"$heaprec" -q -o "$work/t.zst" "$program" >/dev/null
"$heapreplay" --export dhat "$work/dhat.json" "$work/t.zst" >/dev/null
"$heapreplay" --peak --json "$work/t.zst" >"$work/report.json"
node "$driver" "$work/dhat.json" --screenshot "$out/dhat.png" >"$work/shown.json"
python3 - "$work/report.json" "$work/shown.json" <<'EOF_PY'
import json, sys
report = json.load(open(sys.argv[1]))
shown = json.load(open(sys.argv[2]))
s = report["summary"]
failed = 0
def check(what, got, want):
    global failed
    ok = got == want
    failed += not ok
    print(("ok " if ok else "FAIL ") + f"{what}: viewer shows {got}, heapreplay {want}")
check("the viewer loads the file without an error", shown["error"], None)
root = shown["root"] or {}
# The program's own numbers first (report_phases.c), then heapreplay's.
check("heapreplay's peak is the program's", s["peak_bytes"], 31672)
check("Total bytes", root.get("total_bytes"), s["bytes_allocated"])
check("Total blocks", root.get("total_blocks"), s["allocations"])
check("At t-gmax bytes", root.get("gmax_bytes"), s["peak_bytes"])
check("At t-gmax blocks", root.get("gmax_blocks"), report["peak"]["blocks"])
check("At t-end bytes", root.get("end_bytes"), s["leaked_bytes"])
check("At t-end blocks", root.get("end_blocks"), s["leaked_blocks"])
check("t-gmax (µs)", shown["times"].get("tgmax"), s["peak_time_ns"] // 1000)
check("t-end (µs)", shown["times"].get("tend"), s["duration_ns"] // 1000)
top = report["peak"]["sites"][0]
fn = top["stack"][0]["function"]
pp = [p for p in shown["pps"] if f": {fn} (" in p["frames"].split(" | ")[0]]
check(f"one program point for {fn}", len(pp), 1)
if pp:
    check(f"{fn} At t-gmax bytes", pp[0]["gmax_bytes"], top["bytes"])
    check(f"{fn} At t-gmax blocks", pp[0]["gmax_blocks"], top["count"])
    check(f"{fn} Total bytes", pp[0]["total_bytes"], top["bytes"])  # never freed
    check(f"{fn} Max bytes", pp[0]["max_bytes"], top["bytes"])
    # Live from about 300 ms to the end at about 600 ms.
    life = pp[0]["avg_lifetime"] or 0
    check(f"{fn} avg lifetime 250-350 ms", 250000 <= life <= 350000, True)
sys.exit(1 if failed else 0)
EOF_PY
status=$?
rm -rf "$work"
exit $status
