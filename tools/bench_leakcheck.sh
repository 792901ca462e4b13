#!/bin/bash
# heaprec --leak-check=full against valgrind --leak-check=full on programs
# not written here: wall time of each (bare, heaprec, valgrind; medians) and
# the LEAK SUMMARY of each side by side; then the pause of one leak scan of a
# 1 GiB heap in 10 million blocks (tests/bench/big_heap.cc). Prints Markdown
# (docs/BENCHMARKS.md). The target: heaprec at least 10 times faster than
# valgrind on each program, with the same kinds.
set -eu -o pipefail

usage() {
  cat <<'EOF'
usage: tools/bench_leakcheck.sh [-n RUNS] [-w LIST]

Workloads (programs from Debian, not written here):
  python    /usr/bin/python3 tests/bench/py_dicts.py 2 (PYTHONMALLOC=malloc)
  cppcheck  cppcheck on format/ as of commit $CPPCHECK_REV (default b362e97)
  git       git --no-pager log --stat -n 300 on this repository
and big_heap (the scan's pause on 1 GiB in 10 M blocks; -w to leave it out).

Both tools run with libc's and libstdc++'s freeres off
(valgrind --run-libc-freeres=no --run-cxx-freeres=no): heaprec scans the
process as exit_group finds it, valgrind would first free what they hold.
And both give the program the same environment: each tool adds its own
variables (valgrind 4, heaprec 9), so each run also gets the other tool's,
inert without that tool (valgrind's LD_LIBRARY_PATH and GLIBCXX_FORCE_NEW
under heaprec, HEAPREC_* under valgrind). Otherwise a program that copies
its environment (git's setenv) holds a block 8 bytes larger per variable.

options:
  -n RUNS   runs of bare and heaprec (default 3; valgrind runs once)
  -w LIST   comma-separated workloads (default python,cppcheck,git,big_heap)
EOF
}

runs=3
workloads="python,cppcheck,git,big_heap"
. "$(dirname "$0")/bench_workloads.sh"
bench_options bench_leakcheck "$@"

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
CPPCHECK_REV="${CPPCHECK_REV:-b362e97}"
die() { echo "bench_leakcheck: $*" >&2; exit 1; }
for tool in bazel valgrind git awk; do
  command -v "$tool" >/dev/null || die "'$tool' not found (tools/setup.sh)"
done
bench_build bench_leakcheck //recorder:heaprec //replay:heapreplay //format:trace_dump \
  //tests/bench:big_heap
heaprec="$bin/recorder/heaprec"

now() { echo "$EPOCHREALTIME"; }
# The variables a tool adds to the program's environment ("$@" runs env under
# it), NAME=VALUE per line, LD_PRELOAD and _ left out (both set their own).
added_env() {
  comm -13 <(env | sort) <("$@" env 2>/dev/null | sort) | grep -v '^\(LD_PRELOAD\|_\)='
}
mapfile -t valgrind_env < <(added_env valgrind -q)
mapfile -t heaprec_env < <(added_env "$heaprec" -q -o "$tmp/env.zst")
rm -f "$tmp/env.zst"
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR % 2) printf "%.2f", v[(NR + 1) / 2];
          else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# The LEAK SUMMARY's four kinds and suppressed, one line: "definite B/N, ...".
summary_of() {
  sed -n 's/^==[0-9]*== *//p' "$1" |
    awk '/^(definitely lost|indirectly lost|possibly lost|still reachable|suppressed):/ {
           k = "suppressed"
           if ($1 == "definitely") k = "definite"
           if ($1 == "indirectly") k = "indirect"
           if ($1 == "possibly") k = "possible"
           if ($1 == "still") k = "reachable"
           n = $0; sub(/^[^:]*: /, "", n); sub(/ bytes in /, " B / ", n); sub(/ blocks/, "", n)
           if (out != "") out = out ", "
           out = out k " " n }
         END { print out }'
}
# Runs "$@" in $cmd_dir with $cmd_env, stderr to $2's file; prints seconds.
timed() {
  local err="$1"
  shift
  local t0 t1 rc=0
  t0="$(now)"
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$@") >/dev/null 2>"$err" || rc=$?
  t1="$(now)"
  [ "$rc" -eq 0 ] || { tail -5 "$err" >&2; die "exit status $rc from: $*"; }
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

echo "## Leak check: heaprec against valgrind memcheck"
echo
echo "- $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores;" \
  "$(valgrind --version); heaprec at $(git rev-parse --short HEAD)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
rows=()
kinds=()
pause_row=""
IFS=',' read -r -a wl <<<"$workloads"
for w in "${wl[@]}"; do
  if [ "$w" = big_heap ]; then
    echo "bench_leakcheck: big_heap..." >&2
    cmd_dir="$tmp"
    cmd_env=()
    t="$(timed "$tmp/big.err" "$heaprec" -q -o "$tmp/big.zst" "$bin/tests/bench/big_heap")"
    scans="$("$bin/format/trace_dump" "$tmp/big.zst" --events 0 | grep '^leak_scan' | grep ' part=0 ')"
    asked="$(echo "$scans" | grep 'reason=2' | sed -n 's/.*pause_ns=\([0-9]*\).*/\1/p')"
    final="$(echo "$scans" | grep 'reason=1' | sed -n 's/.*pause_ns=\([0-9]*\).*/\1/p')"
    scanned="$(echo "$scans" | grep 'reason=2' | sed -n 's/.*scanned=\([0-9]*\).*/\1/p')"
    pause_row="| big_heap (10 M blocks, $(awk -v b="$scanned" 'BEGIN { printf "%.2f", b / 2^30 }') GiB read) | $(awk -v n="$asked" 'BEGIN { printf "%.2f", n / 1e9 }') | $(awk -v n="$final" 'BEGIN { printf "%.2f", n / 1e9 }') | $t |"
    rm -f "$tmp/big.zst"
    continue
  fi
  case "$w" in
    git)
      cmd_dir="$repo"
      cmd_env=()
      cmd=("$(command -v git)" --no-pager log --stat -n 300)
      ;;
    python)
      setup_workload python
      ;;
    *) setup_workload "$w" ;;
  esac
  echo "bench_leakcheck: $w: $runs x (bare, heaprec), then valgrind once..." >&2
  bare=() rec=()
  for ((i = 1; i <= runs; i++)); do
    bare+=("$(timed "$tmp/bare.err" "${cmd[@]}")")
    rm -f "$tmp"/hr.*
    rec+=("$(timed "$tmp/heaprec.err" env "${valgrind_env[@]}" "$heaprec" -q -o "$tmp/hr.%p.zst" --leak-check=full "${cmd[@]}")")
  done
  vg="$(timed "$tmp/valgrind.err" env "${heaprec_env[@]}" valgrind --leak-check=full --run-libc-freeres=no \
    --run-cxx-freeres=no "${cmd[@]}")"
  b="$(median "${bare[@]}")" r="$(median "${rec[@]}")"
  rows+=("| $w | $b | $r | $vg | $(awk -v r="$r" -v b="$b" 'BEGIN { printf "%.1fx", r / b }') | $(awk -v v="$vg" -v b="$b" 'BEGIN { printf "%.1fx", v / b }') | $(awk -v v="$vg" -v r="$r" 'BEGIN { printf "%.1f", v / r }') |")
  kinds+=("| $w | heaprec | $(summary_of "$tmp/heaprec.err") |")
  kinds+=("| $w | valgrind | $(summary_of "$tmp/valgrind.err") |")
  rm -f "$tmp"/hr.*
done

if [ "${#rows[@]}" -gt 0 ]; then
  echo "### Wall time, s (bare and heaprec: median of $runs; valgrind: one run)"
  echo
  echo "| program | bare | heaprec --leak-check=full | valgrind --leak-check=full | heaprec slowdown | valgrind slowdown | valgrind / heaprec (target >= 10) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "### LEAK SUMMARY of each (bytes / blocks)"
  echo
  echo "| program | tool | kinds |"
  echo "|---|---|---|"
  printf '%s\n' "${kinds[@]}"
  echo
fi
if [ -n "$pause_row" ]; then
  echo "### The pause of one scan (the process held still), s"
  echo
  echo "| program | heaprec_leak_check() | at the end | whole run |"
  echo "|---|---:|---:|---:|"
  echo "$pause_row"
  echo
fi
