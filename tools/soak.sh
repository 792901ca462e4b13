#!/bin/bash
# Soak: records a multi-threaded allocation workload under heaprec for a long
# time (default 600 s), then analyses the trace, and prints Markdown tables
# for docs/BENCHMARKS.md.
#   tools/soak.sh [SECONDS] [OUT_DIR]
# The workload is tests/bench/mt_handoff (4 threads of small malloc/free,
# 1 in 8 blocks freed by another thread, a steady live set) with more
# allocations than it can make in SECONDS; heaprec is sent SIGTERM at the
# end, passes it to the program, and finishes the trace of the killed
# program. Every 30 s it samples the trace's size on disk and the launcher's
# and the program's resident memory (VmRSS). Then
# heapreplay --leaks --peak --temporaries runs on the trace under
# /usr/bin/time: its peak RSS against the trace size. The trace (GBs) goes to
# OUT_DIR (default a temporary folder, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
out_dir=${2:-}
keep=1
if [ -z "$out_dir" ]; then
  out_dir=$(mktemp -d "${TMPDIR:-/tmp}/heaprec-soak.XXXXXX")
  keep=0
fi
mkdir -p "$out_dir"
bazel build -c opt //recorder:heaprec //replay:heapreplay //tests/bench:mt_handoff >/dev/null 2>&1
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
trace=$out_dir/soak.zst

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }

"$bin/recorder/heaprec" -q -o "$trace" -- "$bin/tests/bench/mt_handoff" 4 4000000000 \
  >/dev/null &
launcher=$!
sleep 1
program=$(cat "/proc/$launcher/task/$launcher/children" 2>/dev/null | awk '{print $1}')
echo "| time (s) | trace on disk (MiB) | launcher RSS (MiB) | program RSS (MiB) |"
echo "|---:|---:|---:|---:|"
start=$(date +%s)
while :; do
  now=$(($(date +%s) - start))
  size=$(stat -c %s "$trace" 2>/dev/null || echo 0)
  echo "| $now | $(mib $((size / 1024))) | $(mib "$(rss_kb "$launcher")") | $(mib "$(rss_kb "${program:-0}")") |"
  [ "$now" -ge "$seconds" ] && break
  sleep $((seconds - now < 30 ? seconds - now : 30))
done
kill -TERM "$launcher"
status=0
wait "$launcher" || status=$?
size=$(stat -c %s "$trace")
echo
echo "heaprec exit status $status (128+15: the program was killed by SIGTERM, as sent)"
echo
echo "| trace (MiB) | heapreplay wall (s) | heapreplay peak RSS (MiB) | RSS / trace |"
echo "|---:|---:|---:|---:|"
/usr/bin/time -f '%e %M' -o "$out_dir/time.txt" \
  "$bin/replay/heapreplay" --leaks --peak --temporaries "$trace" >"$out_dir/report.txt" \
  2>"$out_dir/warnings.txt"
read -r wall peak_kb <"$out_dir/time.txt"
echo "| $(mib $((size / 1024))) | $wall | $(mib "$peak_kb") | $(awk -v r="$peak_kb" -v t="$size" 'BEGIN {printf "%.2f", r * 1024 / t}') |"
echo
echo "heapreplay's warnings (dropped events, truncation...): $(cat "$out_dir/warnings.txt")"
head -4 "$out_dir/report.txt"
[ "$keep" = 1 ] || rm -rf "$out_dir"
