#!/bin/bash
# Times heapreplay against heaptrack_print on recordings of the same
# workloads (issue 4's speed benchmark); prints a Markdown table
# (docs/BENCHMARKS.md, "Analysis").
set -eu -o pipefail

usage() {
  cat <<'EOF_USAGE'
usage: tools/bench_analysis.sh [-n RUNS] [-w LIST]

Builds what it needs, records each workload once under heaprec and once
under heaptrack, then times, interleaved RUNS times (default 5):
  heapreplay --no-index --leaks --peak --temporaries TRACE
  heaptrack_print --print-leaks 1 --print-peaks 1 --print-temporary 1 -f TRACE
(output to /dev/null) and prints the median wall time and peak RSS of each,
with the trace sizes. Workloads: alloc_heavy, mt_handoff, python, cppcheck
(as in tools/bench_recorder.sh; default all four).
EOF_USAGE
}

runs=5
workloads="alloc_heavy,mt_handoff,python,cppcheck"
. "$(dirname "$0")/bench_workloads.sh"
bench_options bench_analysis "$@"

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
die() { echo "bench_analysis: $*" >&2; exit 1; }
for tool in bazel heaptrack heaptrack_print awk; do
  command -v "$tool" >/dev/null || die "'$tool' not found (tools/setup.sh)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time): it measures peak RSS"

CPPCHECK_REV="${CPPCHECK_REV:-b362e97}"
bench_build bench_analysis //recorder:heaprec //replay:heapreplay //tests/bench:all
heaprec="$bin/recorder/heaprec"
heapreplay="$bin/replay/heapreplay"

# Runs "$@"; prints "wall_s peak_rss_kib". The wall time from bash's clock
# (microseconds; /usr/bin/time's %e has 10 ms steps, a seventh of Python's
# whole pass), /usr/bin/time only for the peak RSS.
measure() {
  local t0 t1
  t0="$EPOCHREALTIME"
  /usr/bin/time -f "%M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
    { tail -5 "$tmp/err" >&2; die "failed: $*"; }
  t1="$EPOCHREALTIME"
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(cat "$tmp/time")"
}
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo "| workload | heaprec trace MiB | heaptrack trace MiB | heapreplay s | heaptrack_print s | time ratio | heapreplay peak RSS MiB | heaptrack_print peak RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
IFS=',' read -r -a wl <<<"$workloads"
for w in "${wl[@]}"; do
  setup_workload "$w"
  echo "bench_analysis: $w: recording..." >&2
  rm -f "$tmp/rec.zst" "$tmp"/ht.*
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$heaprec" -q -o "$tmp/rec.zst" "${cmd[@]}") \
    >/dev/null 2>&1 || die "$w: heaprec failed"
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} heaptrack -o "$tmp/ht" "${cmd[@]}") \
    >/dev/null 2>&1 || die "$w: heaptrack failed"
  ht_files=("$tmp"/ht.*)
  ht="${ht_files[0]}"
  rt=() rr=() pt=() pr=()
  for ((i = 1; i <= runs; i++)); do
    # --no-index: a full pass each time. A trace of 16 MiB or more gets an
    # index on its first pass (heapreplay/trace_index.h), and later questions
    # without a moment start from its last checkpoint (churn: 0.11-0.18 s
    # against 0.46-0.51 s): that is not the pass this compares.
    read -r t m < <(measure "$heapreplay" --no-index --leaks --peak --temporaries "$tmp/rec.zst")
    rt+=("$t") rr+=("$m")
    read -r t m < <(measure heaptrack_print --print-leaks 1 --print-peaks 1 --print-temporary 1 \
      -f "$ht")
    pt+=("$t") pr+=("$m")
    echo "bench_analysis:   run $i: heapreplay ${rt[-1]} s, heaptrack_print ${pt[-1]} s" >&2
  done
  a=$(median "${rt[@]}") b=$(median "${pt[@]}")
  echo "| $w | $(mib $(($(stat -c %s "$tmp/rec.zst") / 1024))) | $(mib $(($(stat -c %s "$ht") / 1024))) |" \
    "$a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }') |" \
    "$(mib "$(median "${rr[@]}")") | $(mib "$(median "${pr[@]}")") |"
done
