#!/bin/bash
# Validation of heapreplay --bench against the real program (issue 27): for
# each workload, the replayed differences to glibc beside the differences
# the program itself shows under each allocator (heaprec
# --compare-allocators), with 90% intervals, and whether the two agree on
# the sign against glibc and on the fastest allocator wherever the real
# difference is beyond noise. Prints Markdown (docs/ALLOCATOR_BENCH.md).
set -eu -o pipefail

usage() {
  cat <<'EOF'
usage: tools/bench_allocators.sh [options]

Builds what it needs (bazel build -c opt), then, for each workload:
  1. records it once with heaprec;
  2. heapreplay --bench --repeat RUNS --json on that trace: the replayed
     allocator calls, each allocator's wall time paired run by run with
     glibc's (median difference and bootstrap 90% interval);
  3. heaprec --compare-allocators --rounds RUNS --json: the program itself
     under glibc and LD_PRELOAD of tcmalloc, jemalloc and mimalloc, round by
     round in rotated order, the same statistics on its wall time, CPU time
     and max RSS.
Then prints, per workload, both differences side by side and the verdicts:
for every allocator whose real wall-time difference to glibc is beyond
noise, does the replay's median have the same sign; and where the real
fastest allocator is known beyond noise (every difference to glibc beyond
noise, and its interval wholly below the runner-up's), does the replay
name it.

Workloads (tools/bench_workloads.sh): sqlite3 (300k inserts, indexes, a
join), python_json (python3 as users run it: dicts to JSON and back),
clang_format (0.9 MB of C++, this repository's), cppcheck (this repository's format/), jq
(group_by over 80,000 records), mt_handoff (4 threads, cross-thread frees;
written here: the multi-threaded case).

options:
  -n RUNS     rounds, both replayed and real (default 10)
  -w LIST     comma-separated workloads (default: all six)
  -h, --help  this text

The machine should be otherwise idle (2 cores are easily disturbed).
EOF
}

runs=10
workloads="sqlite3,python_json,clang_format,cppcheck,jq,mt_handoff"
. "$(dirname "$0")/bench_workloads.sh"
bench_options bench_allocators "$@"

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
CPPCHECK_REV="${CPPCHECK_REV:-b362e97}"

die() { echo "bench_allocators: $*" >&2; exit 1; }
command -v python3 >/dev/null || die "'python3' not found (tools/setup.sh)"

bench_build bench_allocators //recorder:heaprec //replay:heapreplay //tests/bench:all
heaprec="$bin/recorder/heaprec"
heapreplay="$bin/replay/heapreplay"

echo "## Machine"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "- $(uname -sr), $(ldd --version | head -1)"
echo "- heaprec at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- replay recorder format || echo ' (+ uncommitted changes)')"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $runs rounds replayed and $runs rounds real per workload"
echo

IFS=',' read -r -a wl <<<"$workloads"
for w in "${wl[@]}"; do
  setup_workload "$w"
  echo "bench_allocators: $w: recording..." >&2
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$heaprec" -q -o "$tmp/$w.zst" "${cmd[@]}") \
    >/dev/null 2>"$tmp/rec.err" || { cat "$tmp/rec.err" >&2; die "$w: heaprec failed"; }
  echo "bench_allocators: $w: heapreplay --bench --repeat $runs..." >&2
  "$heapreplay" --bench --repeat "$runs" --json "$tmp/$w.zst" >"$tmp/$w.replay.json" \
    2>"$tmp/replay.err" || { cat "$tmp/replay.err" >&2; die "$w: heapreplay --bench failed"; }
  echo "bench_allocators: $w: heaprec --compare-allocators --rounds $runs..." >&2
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$heaprec" --compare-allocators \
    --rounds "$runs" --json "${cmd[@]}") >"$tmp/$w.real.json" 2>"$tmp/real.err" ||
    { cat "$tmp/real.err" >&2; die "$w: heaprec --compare-allocators failed"; }
  rm -f "$tmp/$w.zst"
done

python3 - "$tmp" "${wl[@]}" <<'EOF'
import json, sys

tmp, workloads = sys.argv[1], sys.argv[2:]
ms = lambda s: f"{s * 1000:+.0f}"

def diff_text(d, scale=ms):
    if d is None:
        return "—"
    if d.get("low") is None:
        return scale(d["median"])
    mark = "" if d["beyond_noise"] else " (noise)"
    return f"{scale(d['median'])} [{scale(d['low'])}, {scale(d['high'])}]{mark}"

rows, verdicts = [], []
for w in workloads:
    replay = json.load(open(f"{tmp}/{w}.replay.json"))["bench"]
    real = json.load(open(f"{tmp}/{w}.real.json"))["compare_allocators"]
    rep = {a["name"]: a for a in replay["allocators"]}
    rl = {a["name"]: a for a in real["allocators"]}
    names = [a["name"] for a in real["allocators"]]
    print(f"### {w}")
    print()
    print(f"`{' '.join(real['command'])}`; replay: {replay['ops']:,} ops on {replay['threads']} "
          f"thread(s), {replay.get('main_thread_ops', 0):,} on the main thread; null replay "
          f"{replay['null_wall_s'] * 1000:.0f} ms.")
    print()
    print("| allocator | real wall s | real wall - glibc ms [90%] | real CPU - glibc ms [90%] "
          "| real max RSS MiB | replay - glibc ms [90%] | replay peak RSS MiB | sign |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for n in names:
        r, p = rl[n], rep.get(n)
        dr = (r.get("vs_reference") or {}).get("wall_s")
        dc = (r.get("vs_reference") or {}).get("cpu_s")
        dp = (p.get("vs_reference") or {}).get("wall_s") if p else None
        sign = ""
        if dr is not None and dp is not None:
            if dr.get("beyond_noise"):
                same = (dr["median"] > 0) == (dp["median"] > 0)
                sign = "agrees" if same else "**differs**"
                verdicts.append((w, f"{n} vs glibc", same))
            else:
                sign = "real: no difference beyond noise"
        print(f"| {n} | {r['wall_s']:.3f} | {diff_text(dr)} | {diff_text(dc)} "
              f"| {r['max_rss_bytes'] / 1048576:.1f} | {diff_text(dp)} "
              f"| {p['peak_rss_bytes'] / 1048576:.1f} | {sign} |" if p else f"| {n} | — |")
    # The real fastest: known when every allocator's difference to glibc is
    # beyond noise and the fastest's interval lies wholly below the
    # runner-up's (else the two are tied within noise: the runs pair each
    # allocator with glibc, not with each other). The replay's: its lowest
    # median of start-up + calls (what its vs_reference.wall_s differences
    # are of).
    diffs = {n: (rl[n].get("vs_reference") or {}).get("wall_s") for n in names}
    zero = {"median": 0, "low": 0, "high": 0, "beyond_noise": True}
    iv = {n: zero if diffs[n] is None else diffs[n] for n in names}
    ranked = sorted(names, key=lambda n: iv[n]["median"])
    real_fast = ranked[0]
    known = (all(d.get("beyond_noise") and d.get("low") is not None for d in iv.values())
             and iv[ranked[0]]["high"] < iv[ranked[1]]["low"])
    rep_fast = min(names, key=lambda n: rep[n].get("with_startup_wall_s", rep[n]["wall_s"]))
    print()
    if known:
        same = real_fast == rep_fast
        verdicts.append((w, "fastest", same))
        print(f"- fastest: real {real_fast}, replay {rep_fast} "
              f"({'agrees' if same else '**differs**'})")
    else:
        print(f"- fastest: real not known beyond noise (lowest median {real_fast}); replay {rep_fast}")
    print()

agree = sum(1 for *_, ok in verdicts if ok)
print("### Verdicts")
print()
print("| workload | case (real difference beyond noise) | replay agrees |")
print("|---|---|---|")
for w, case, ok in verdicts:
    print(f"| {w} | {case} | {'yes' if ok else '**no**'} |")
print()
print(f"Agreement on {agree} of {len(verdicts)} cases.")
EOF
