#!/bin/bash
# Fidelity of heapreplay --bench: for each benchmark workload, the allocator
# ranking and ratios from replaying one recording, side by side with running
# the real program under each allocator (LD_PRELOAD). Prints Markdown tables
# (docs/BENCHMARKS.md, "Allocator replay").
set -eu -o pipefail

usage() {
  cat <<'EOF'
usage: tools/bench_allocators.sh [options]

Builds what it needs (bazel build -c opt), then, for each workload:
  1. records it once with heaprec;
  2. heapreplay --bench --repeat RUNS --json on that trace (the replayer's
     own medians per allocator, and the null replay's time);
  3. runs the program itself RUNS times under each allocator, interleaved
     (glibc, tcmalloc, jemalloc, mimalloc, glibc, ...), with LD_PRELOAD, and
     takes the median wall time, CPU time (user + sys) and peak RSS
     (/usr/bin/time).
Then prints, per workload, both sets of ratios to glibc and the rankings.

The program's time holds its own work as well as its allocator's; the
replay's holds only the allocator's (plus the replayer's, measured by the
null replay). The closest comparison is therefore of the time differences:
the column "program - glibc" (seconds the allocator saves or costs the
program) next to "replay - glibc".

Workloads (tools/bench_workloads.sh): alloc_heavy, mt_handoff, python,
cppcheck.

options:
  -n RUNS     runs per allocator, both replayed and real (default 5)
  -w LIST     comma-separated workloads (default: alloc_heavy,mt_handoff,python,cppcheck)
  -h, --help  this text

The machine should be otherwise idle (2 cores are easily disturbed).
EOF
}

runs=5
workloads="alloc_heavy,mt_handoff,python,cppcheck"
. "$(dirname "$0")/bench_workloads.sh"
bench_options bench_allocators "$@"

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
CPPCHECK_REV="${CPPCHECK_REV:-b362e97}"

die() { echo "bench_allocators: $*" >&2; exit 1; }
for tool in bazel python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || die "'$tool' not found (tools/setup.sh)"
done

allocators=(glibc tcmalloc jemalloc mimalloc)
# Each allocator's library, as heapreplay --bench loaded it (its --json
# "library"; replay/allocators.cc is the one list): read after each replay.
declare -A lib=()

bench_build bench_allocators //recorder:heaprec //replay:heapreplay //tests/bench:all
heaprec="$bin/recorder/heaprec"
heapreplay="$bin/replay/heapreplay"

echo "## Machine"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "- $(uname -sr), $(ldd --version | head -1)"
echo "- heaprec at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- replay recorder format || echo ' (+ uncommitted changes)')"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# Runs the workload under allocator $1; appends "wall cpu maxrss_kib" to
# $tmp/real.$1. A failure shows the output and stops.
run_real() {
  local a="$1" rc=0 preload=() t0 t1
  [ -z "${lib[$a]}" ] || preload=("LD_PRELOAD=${lib[$a]}")
  t0="$EPOCHREALTIME"
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} ${preload[@]+"${preload[@]}"} \
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "${cmd[@]}") >"$tmp/out" 2>&1 || rc=$?
  t1="$EPOCHREALTIME"
  if [ "$rc" -ne 0 ]; then
    tail -20 "$tmp/out" >&2
    die "exit status $rc from $a: ${cmd[*]}"
  fi
  # wall from the shell's clock (time's %e has 10 ms steps), CPU and max RSS from time
  awk -v a="$t0" -v b="$t1" '{ printf "%.4f %.2f %s\n", b - a, $1 + $2, $3 }' "$tmp/time" \
    >>"$tmp/real.$a"
}

IFS=',' read -r -a wl <<<"$workloads"
for w in "${wl[@]}"; do
  setup_workload "$w"
  echo "bench_allocators: $w: recording..." >&2
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$heaprec" -q -o "$tmp/$w.zst" "${cmd[@]}") \
    >/dev/null 2>"$tmp/rec.err" || { cat "$tmp/rec.err" >&2; die "$w: heaprec failed"; }
  echo "bench_allocators: $w: heapreplay --bench --repeat $runs..." >&2
  "$heapreplay" --bench --repeat "$runs" --json "$tmp/$w.zst" >"$tmp/replay.json" 2>"$tmp/replay.err" ||
    { cat "$tmp/replay.err" >&2; die "$w: heapreplay --bench failed"; }
  while read -r name path; do lib[$name]="$path"; done < <(python3 -c '
import json, sys
for a in json.load(open(sys.argv[1]))["bench"]["allocators"]:
    print(a["name"], a["library"] or "")' "$tmp/replay.json")
  echo "bench_allocators: $w: warm-up, then $runs x the program under each allocator..." >&2
  run_real glibc
  rm -f "$tmp"/real.*
  for ((i = 1; i <= runs; i++)); do
    for a in "${allocators[@]}"; do run_real "$a"; done
    echo "bench_allocators:   run $i: $(for a in "${allocators[@]}"; do
      printf '%s %s s  ' "$a" "$(tail -1 "$tmp/real.$a" | cut -d' ' -f1)"; done)" >&2
  done
  python3 - "$w" "$tmp" "${allocators[@]}" <<'EOF'
import json, statistics, sys

workload, tmp, names = sys.argv[1], sys.argv[2], sys.argv[3:]
bench = json.load(open(f"{tmp}/replay.json"))["bench"]
replay = {a["name"]: a for a in bench["allocators"]}
real = {}
for n in names:
    rows = [list(map(float, line.split())) for line in open(f"{tmp}/real.{n}")]
    real[n] = {
        "wall": statistics.median(r[0] for r in rows),
        "cpu": statistics.median(r[1] for r in rows),
        "rss": statistics.median(r[2] for r in rows) * 1024,
        "walls": [r[0] for r in rows],
    }
g_rep, g_real = replay["glibc"]["wall_s"], real["glibc"]["wall"]
mib = lambda b: f"{b / 1048576:.1f}"
print(f"### {workload}")
print()
print(f"Replay: {bench['ops']:,} ops on {bench['threads']} thread(s), peak live "
      f"{mib(bench['peak_live_bytes'])} MiB; null replay {bench['null_wall_s'] * 1000:.1f} ms = "
      f"{100 * bench['null_wall_s'] / g_rep:.0f}% of glibc's replay.")
print()
print("| allocator | replay wall ms | replay ratio | replay - glibc ms | replay peak RSS MiB "
      "| program wall s | program ratio | program - glibc s | program CPU s | program max RSS MiB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in names:
    r, p = replay[n], real[n]
    print(f"| {n} | {r['wall_s'] * 1000:.1f} | {r['wall_s'] / g_rep:.2f}x "
          f"| {(r['wall_s'] - g_rep) * 1000:+.1f} | {mib(r['peak_rss_bytes'])} "
          f"| {p['wall']:.3f} | {p['wall'] / g_real:.2f}x | {p['wall'] - g_real:+.3f} "
          f"| {p['cpu']:.2f} | {mib(p['rss'])} |")
rank_rep = sorted(names, key=lambda n: replay[n]["wall_s"])
rank_real = sorted(names, key=lambda n: real[n]["wall"])
rss_rep = sorted(names, key=lambda n: replay[n]["peak_rss_bytes"])
rss_real = sorted(names, key=lambda n: real[n]["rss"])
print()
print(f"- fastest first, replay: {' < '.join(rank_rep)}; program: {' < '.join(rank_real)}"
      f" ({'same' if rank_rep == rank_real else 'different'} order; fastest "
      f"{'agrees' if rank_rep[0] == rank_real[0] else 'differs'})")
print(f"- smallest peak RSS first, replay: {' < '.join(rss_rep)}; program: {' < '.join(rss_real)}")
print(f"- program wall times: " + "; ".join(
    f"{n} {' '.join(f'{x:.2f}' for x in real[n]['walls'])}" for n in names))
print()
EOF
  rm -f "$tmp/$w.zst" "$tmp"/real.*
done
