#!/bin/bash
# heapreplay --export massif read by valgrind's own ms_print: records
# tests/report_phases (allocations known exactly: peak 31672 bytes, 20480 of
# them from late_leak; markers "loaded" and "worked"), exports massif, and
# checks that ms_print reads the file (exit 0, its graph and snapshot list),
# that the snapshot ms_print marks as the peak has heapreplay's --peak --json
# peak bytes as its useful heap, that the top site of that tree is late_leak
# with heapreplay's bytes, and that the markers' snapshots are there.
# Then RSS beside the heap (mem_heap_extra_B): tests/rss (64 MiB malloc'd,
# written, held 200 ms, freed), recorded and exported; ms_print's total is
# the anonymous RSS of heapreplay's samples (--json --timeline points): at
# the peak their highest while the heap stood there (within 4 MiB of the
# summary's rss_at_peak_bytes, which adds file pages), before the malloc the
# RSS with no heap at all, never the freed block after the free; and a trace
# without samples (format 3.3) says so in desc: and keeps extra 0.
# Needs /usr/bin/ms_print (Debian's valgrind).
set -euo pipefail
runfiles="${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-heaprec}"
heaprec="$runfiles/recorder/heaprec"
heapreplay="$runfiles/replay/heapreplay"
program="$runfiles/tests/report_phases"
rss_program="$runfiles/tests/rss"
old_trace="$runfiles/format/testdata/trace_v3_3.zst"
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

# ms_print's percentages and threshold are of the total, which is the RSS
# (mem_heap_extra_B): a small heap's sites fall below its default 1%.
ms_print --threshold=0.1 "$work/massif.out" >"$work/ms_print.txt" 2>"$work/ms_print.err" ||
  { cat "$work/ms_print.err"; fail "ms_print rejected the file"; }
grep -q 'Number of snapshots:' "$work/ms_print.txt" || fail "ms_print printed no snapshot list"
# "Detailed snapshots: [0, 1, 11, 39 (peak), ...]": the peak's number.
peak_n="$(sed -n 's/.*Detailed snapshots: \[.*[ \[]\([0-9]*\) (peak).*/\1/p' "$work/ms_print.txt")"
[ -n "$peak_n" ] || fail "ms_print names no peak snapshot"
# Its row: "  N   time(ms)   total(B)   useful-heap(B)   extra-heap(B) ...",
# then its tree.
read -r shown_total shown_useful shown_extra < <(awk -v n="$peak_n" \
  '$1 == n && NF == 6 { gsub(",", ""); print $3, $4, $5; exit }' "$work/ms_print.txt")
[ "$shown_useful" = "$peak_bytes" ] ||
  fail "ms_print's peak snapshot $peak_n has '$shown_useful' useful bytes, heapreplay's peak is $peak_bytes"
[ "$shown_total" = "$((shown_useful + shown_extra))" ] ||
  fail "ms_print's peak total $shown_total is not useful $shown_useful + extra $shown_extra"
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

# RSS: tests/rss, exported and read by ms_print, against heapreplay's samples.
"$heaprec" -q -o "$work/rss.zst" "$rss_program" >/dev/null
"$heapreplay" --export massif "$work/rss.massif" "$work/rss.zst"
"$heapreplay" --json --timeline "$work/rss.zst" >"$work/rss.json"
ms_print "$work/rss.massif" >"$work/rss.ms_print" 2>"$work/rss.err" ||
  { cat "$work/rss.err"; fail "ms_print rejected the RSS export"; }
python3 - "$work/rss.ms_print" "$work/rss.json" "$work/rss.massif" <<'PY' || status=1
import json, re, sys
text, j, massif = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
MiB = 1 << 20
bad = []
def check(ok, what):
    if not ok: bad.append(what)
rows = [tuple(int(x.replace(",", "")) for x in m.groups()) for m in re.finditer(
    r"^ *(\d+) +([\d,]+) +([\d,]+) +([\d,]+) +([\d,]+) +([\d,]+)$", text, re.M)]
peak_n = int(re.search(r"Detailed snapshots: \[.*?(\d+) \(peak\)", text).group(1))
row = {r[0]: r for r in rows}
points = j["rss"]["points"]
s = j["summary"]
peak = s["peak_bytes"]
check(peak == 64 * MiB, f"heapreplay's peak is {peak}, the program's 64 MiB")
check(len(points) >= 20 and len(points) == j["rss"]["samples"], f"{len(points)} points")
check("mem_heap_extra_B = the process's anonymous RSS" in text, "desc: does not say what extra is")
# The peak: its useful heap is the peak, its total the highest anonymous RSS
# sampled while the heap stood at its peak, a few MiB from the summary's.
_, _, total, useful, extra, _ = row[peak_n]
at_peak = max(p["anon_bytes"] for p in points if p["live_bytes"] == peak)
check(useful == peak, f"peak snapshot useful {useful}")
check(extra > 0 and total == useful + extra, f"peak snapshot total {total} extra {extra}")
check(total == at_peak, f"peak snapshot total {total}, anonymous RSS at the peak {at_peak}")
check(abs(total - s["rss_at_peak_bytes"]) <= 4 * MiB,
      f"peak snapshot total {total}, summary rss_at_peak_bytes {s['rss_at_peak_bytes']}")
# Every total is a sample's anonymous RSS (or the heap alone, where larger).
anon = {p["anon_bytes"] for p in points}
for n, time, total, useful, extra, _ in rows:
    check(total == useful + extra, f"snapshot {n}: total {total} != {useful} + {extra}")
    check(total in anon or extra == 0, f"snapshot {n}: total {total} is no sample's RSS")
# Before the malloc: no heap, only RSS. Held: RSS above the heap. After the
# free: only samples taken after it (a sample from before it would show the
# freed block as extra; one taken as the free unmaps may still hold part of
# it), and soon the block is gone from RSS.
malloc_ns = min(p["time_ns"] for p in points if p["live_bytes"] == peak)
freed = [p for p in points if p["time_ns"] > malloc_ns and p["live_bytes"] < MiB]
check(len(freed) >= 5, f"{len(freed)} samples after the free")
free_ms = min(p["time_ns"] for p in freed) // 1000000 if freed else 0
before = [r for r in rows if r[3] == 0 and r[1] < malloc_ns // 1000000 - 20]
held = [r for r in rows if r[3] == peak and r[4] > 0]
after = [r for r in rows if r[3] < MiB and r[1] > malloc_ns // 1000000]
late = [r for r in after if r[1] > free_ms + 30]
check(len(before) >= 5 and all(0 < r[4] < 16 * MiB for r in before), f"before the malloc: {before}")
check(len(held) >= 10, f"{len(held)} snapshots with the block resident above the heap")
freed_anon = {p["anon_bytes"] for p in freed}
check(all(r[2] in freed_anon or r[4] == 0 for r in after),
      f"after the free, RSS of a sample from before it: {after}")
check(len(late) >= 5 and all(r[2] < 16 * MiB for r in late), f"after the free: {late}")
for b in bad: print("FAIL: rss:", b)
if not bad:
    print(f"ok: rss: peak snapshot {peak_n} total {row[peak_n][2]} = heap {peak} + extra "
          f"{row[peak_n][4]}; {len(held)} held, {len(before)} before, {len(after)} after")
sys.exit(1 if bad else 0)
PY

# A trace without RSS samples (format 3.3): extra 0, and desc: says why.
"$heapreplay" --export massif "$work/old.massif" "$old_trace"
grep -q '^desc: .*mem_heap_extra_B is 0: the trace holds no RSS samples' "$work/old.massif" ||
  fail "desc of a trace without RSS: $(head -1 "$work/old.massif")"
grep '^mem_heap_extra_B=' "$work/old.massif" | grep -qv '=0$' &&
  fail "a trace without RSS has a nonzero mem_heap_extra_B"
ms_print "$work/old.massif" >/dev/null || fail "ms_print rejected the export of the old trace"

[ "$status" = 0 ] && echo "ok: ms_print reads the export; peak $peak_bytes bytes (snapshot $peak_n), top site $top_fn $top_bytes bytes, $snapshots snapshots"
rm -rf "$work"
exit $status
