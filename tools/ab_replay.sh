#!/bin/bash
# A/B of two heapreplay builds on the same traces: the builds take turns run
# by run (a machine whose speed drifts within minutes slows both alike), and
# the medians of wall time and CPU time are printed per trace and build,
# with whether the two builds wrote the same output. docs/BENCHMARKS.md's
# "alternating rounds" come from here.
#
#   tools/ab_replay.sh [-n ROUNDS] [-a "ARGS"] BUILD_A BUILD_B TRACE...
#
# BUILD_A, BUILD_B: heapreplay binaries (copy bazel-bin/replay/heapreplay
# aside before rebuilding: bazel-bin changes with every build).
# ARGS: heapreplay's arguments before the trace (default: the question of
# tools/bench_analysis.sh, "--no-index --leaks --peak --temporaries").
# ROUNDS: default 11.
set -euo pipefail

usage() {
  sed -n '8,14p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

rounds=11
args="--no-index --leaks --peak --temporaries"
while getopts "n:a:h" opt; do
  case "$opt" in
    n) rounds="$OPTARG" ;;
    a) args="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
a="$1"
b="$2"
shift 2
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "ab_replay: $bin: not an executable" >&2; exit 2; }
done
for trace in "$@"; do
  [ -r "$trace" ] || { echo "ab_replay: $trace: cannot read" >&2; exit 2; }
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ab_replay: -n $rounds: not a count" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs build $1 on trace $2; appends "wall_ms cpu_ms" to $3 and leaves its
# output in $3.out. CPU from the kernel's accounting of the process and its
# threads (bash's `times` after the child exits).
run() {
  local bin="$1" trace="$2" into="$3"
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  ( "$bin" $args "$trace" >"$into.out" 2>/dev/null || true; times >"$into.times" )
  end=$(date +%s%N)
  # The second line of `times`: the children's user and system time, "XmY.Zs".
  local cpu
  cpu=$(awk 'NR == 2 {
      n = split($0, t, " ");
      total = 0;
      for (i = 1; i <= 2; ++i) { split(t[i], p, "m"); sub("s", "", p[2]); total += p[1] * 60 + p[2] }
      printf "%.0f", total * 1000 }' "$into.times")
  echo "$(((end - start) / 1000000)) $cpu" >>"$into"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| trace | build | wall ms (median) | CPU ms (median) | rounds | same output |"
echo "|---|---|---:|---:|---:|---|"
for trace in "$@"; do
  : >"$work/a"
  : >"$work/b"
  for ((i = 0; i < rounds; ++i)); do
    run "$a" "$trace" "$work/a"
    run "$b" "$trace" "$work/b"
  done
  same=no
  cmp -s "$work/a.out" "$work/b.out" && same=yes
  for side in a b; do
    bin="$a"
    [ "$side" = b ] && bin="$b"
    wall=$(awk '{ print $1 }' "$work/$side" | median)
    cpu=$(awk '{ print $2 }' "$work/$side" | median)
    echo "| $(basename "$trace") | $bin | $wall | $cpu | $rounds | $same |"
  done
done
