#!/bin/bash
# heapreplay --export massif read by valgrind's own ms_print: records
# tests/report_phases (allocations known exactly: peak 31672 bytes, 20480 of
# them from late_leak; markers "loaded" and "worked"), exports massif, and
# checks that ms_print reads the file (exit 0, its graph and snapshot list),
# that the snapshot ms_print marks as the peak totals heapreplay's
# --peak --json peak bytes, that the top site of that tree is late_leak with
# heapreplay's bytes, and that the markers' snapshots are there.
# Needs /usr/bin/ms_print (Debian's valgrind).
set -euo pipefail
runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-heaprec}"
heaprec="$runfiles/recorder/heaprec"
heapreplay="$runfiles/replay/heapreplay"
program="$runfiles/tests/report_phases"
work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/massif.XXXXXX")"
command -v ms_print >/dev/null || { echo "FAIL: ms_print not found (apt-get install valgrind)"; exit 1; }

status=0
fail() { echo "FAIL: $*"; status=1; }

"$heaprec" -q -o "$work/t.zst" "$program" >/dev/null
"$heapreplay" --export massif "$work/massif.out" "$work/t.zst" >"$work/stdout"
[ -s "$work/stdout" ] && fail "--export alone printed a report on stdout"
"$heapreplay" --peak --json "$work/t.zst" >"$work/peak.json"
read -r peak_bytes top_bytes top_fn < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
s = j["peak"]["sites"][0]
print(j["summary"]["peak_bytes"], s["bytes"], s["stack"][0]["function"])' "$work/peak.json")
[ "$peak_bytes" = 31672 ] || fail "heapreplay's peak is $peak_bytes, the program's is 31672"

ms_print "$work/massif.out" >"$work/ms_print.txt" 2>"$work/ms_print.err" ||
  { cat "$work/ms_print.err"; fail "ms_print rejected the file"; }
grep -q 'Number of snapshots:' "$work/ms_print.txt" || fail "ms_print printed no snapshot list"
# "Detailed snapshots: [0, 1, 11, 39 (peak), ...]": the peak's number.
peak_n="$(sed -n 's/.*Detailed snapshots: \[.*[ \[]\([0-9]*\) (peak).*/\1/p' "$work/ms_print.txt")"
[ -n "$peak_n" ] || fail "ms_print names no peak snapshot"
# Its row: "  N   time(ms)   total(B)   useful-heap(B) ...", then its tree.
shown_total="$(awk -v n="$peak_n" '$1 == n && NF == 6 { gsub(",", "", $3); print $3; exit }' \
  "$work/ms_print.txt")"
[ "$shown_total" = "$peak_bytes" ] ||
  fail "ms_print's peak snapshot $peak_n totals '$shown_total' bytes, heapreplay's peak is $peak_bytes"
# The first caller under the allocation functions in that snapshot's tree.
top_line="$(awk -v n="$peak_n" '$1 == n && NF == 6 { found = 1; next }
  found && /^->/ { print; exit }' "$work/ms_print.txt")"
top_shown="$(sed -n 's/^->[0-9.]*% (\([0-9,]*\)B) .*/\1/p' <<<"$top_line" | tr -d ,)"
[ "$top_shown" = "$top_bytes" ] ||
  fail "the peak's top site shows '$top_shown' bytes, heapreplay's holds $top_bytes ($top_line)"
grep -q ": $top_fn " <<<"$top_line" || fail "the peak's top site is not $top_fn: $top_line"
# Snapshots at the markers (loaded: 11192 live; worked: the peak's 31672),
# and detailed ones with their trees: one per marker, the peak, the end.
detailed="$(grep -c '^heap_tree=\(detailed\|peak\)' "$work/massif.out")"
[ "$detailed" -ge 4 ] || fail "only $detailed detailed snapshots"
grep -q '^mem_heap_B=11192$' "$work/massif.out" || fail "no snapshot at the 'loaded' marker (11192 bytes)"
snapshots="$(grep -c '^snapshot=' "$work/massif.out")"
[ "$snapshots" -ge 50 ] && [ "$snapshots" -le 110 ] ||
  fail "$snapshots snapshots (regular ones should be 50 to 100, as massif keeps)"
[ "$status" = 0 ] && echo "ok: ms_print reads the export; peak $peak_bytes bytes (snapshot $peak_n), top site $top_fn $top_bytes bytes, $snapshots snapshots"
rm -rf "$work"
exit $status
