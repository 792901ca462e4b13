#!/bin/bash
# Times heaprec against heaptrack on the benchmark workloads and runs the
# recorder's micro-benchmarks; prints Markdown tables (docs/BENCHMARKS.md).
set -eu -o pipefail

usage() {
  cat <<'EOF'
usage: tools/bench_recorder.sh [options]

Builds what it needs (bazel build -c opt), then, for each workload, runs it
bare, under heaprec, under heaprec --sample-rate RATE and under heaptrack,
interleaved (bare, heaprec, sampled, heaptrack, bare, ...) RUNS times, and
prints the median wall time of each, the slowdowns, the ratio of the extra
times (heaprec's extra over heaptrack's; issue 23's target is <= 0.25, each
time until the tool itself has exited, symbols included), the sampled
slowdown (target <= 1.05 at 512K), trace sizes, and trace bytes per
allocation call. Then the micro-benchmarks: malloc_free_benchmark bare /
under heaprec / under heaprec --sample-rate / under heaptrack (the whole cost
of one recorded malloc+free), and hot_path_benchmark (the pieces of the hot
path, in process).

Workloads:
  alloc_heavy  tests/bench/alloc_heavy.cc: std::map<std::string,
               std::vector<int>> built and destroyed (1 thread, 3.6 M allocs)
  mt_handoff   tests/bench/mt_handoff.cc: 4 threads of small malloc/free with
               cross-thread handoff (8 M allocs)
  python       /usr/bin/python3 tests/bench/py_dicts.py 2, PYTHONMALLOC=malloc
  cppcheck     cppcheck on format/ as of commit $CPPCHECK_REV (default
               b362e97, pinned so the input does not change)
  churn        tests/bench/churn.cc: unordered_map<string, vector<int>>, random
               key lengths and vector sizes, erasing, calls 10-15 frames deep
               (1 thread, 7.2 M allocs)
  churn2/4     the same total work on 2 and 4 threads (a map each)
  python_dwarf python3.11-dbg (full DWARF in the binary; installed with
               apt-get when missing) tests/bench/py_json.py 1, PYTHONMALLOC=malloc

options:
  -n RUNS        timed runs per workload and tool (default 5)
  -w LIST        comma-separated workloads to run (default: all eight)
  --no-micro     skip the micro-benchmarks
  --micro-only   only the micro-benchmarks
  --breakdown    also re-encode each workload's heaprec trace with one event
                 column made constant at a time (trace_size_breakdown), to
                 show which columns the bytes go to (~1 minute more)
  --min-time S   Google Benchmark --benchmark_min_time (default 0.2)
  --micro-runs N runs of each micro-benchmark (default 5; medians)
  --sample-rate R  the rate of the sampled runs (default 512K; 0 = no
                 sampled runs)
  -h, --help     this text

Traces go to a temporary folder that is removed at the end. The machine
should be otherwise idle: timings on 2 cores are sensitive to anything else
running (heaprec's launcher and heaptrack's interpreter use the other core).
EOF
}

runs=5
workloads="alloc_heavy,mt_handoff,python,cppcheck,churn,churn2,churn4,python_dwarf"
do_workloads=1
do_micro=1
do_breakdown=0
min_time=0.2
micro_runs=5
sample_rate=512K
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs="${2:?-n needs a number}"; shift 2 ;;
    -w) workloads="${2:?-w needs a list}"; shift 2 ;;
    --no-micro) do_micro=0; shift ;;
    --micro-only) do_workloads=0; shift ;;
    --breakdown) do_breakdown=1; shift ;;
    --min-time) min_time="${2:?--min-time needs seconds}"; shift 2 ;;
    --micro-runs) micro_runs="${2:?--micro-runs needs a number}"; shift 2 ;;
    --sample-rate) sample_rate="${2:?--sample-rate needs bytes}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "bench_recorder: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
for v in "$runs" "$micro_runs"; do
  case "$v" in
    '' | *[!0-9]* | 0) echo "bench_recorder: -n and --micro-runs want a positive number" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
CPPCHECK_REV="${CPPCHECK_REV:-b362e97}"

die() { echo "bench_recorder: $*" >&2; exit 1; }
for tool in bazel heaptrack heaptrack_print awk; do
  command -v "$tool" >/dev/null || die "'$tool' not found (tools/setup.sh; apt-get install heaptrack)"
done

# setup_workload NAME: sets cmd, cmd_dir, cmd_env; bench_build
# (tools/bench_workloads.sh).
. "$repo/tools/bench_workloads.sh"
bench_build bench_recorder //recorder:heaprec //format:trace_dump //tests/bench:all \
  //recorder/benchmarks:all
heaprec="$bin/recorder/heaprec"
trace_dump="$bin/format/trace_dump"

now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
# median of the numbers given as arguments
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2];
          else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (b == 0) print "-"; else printf f, a / b }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

echo "## Machine"
echo
echo "- CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "- $(uname -sr), $(heaptrack --version 2>/dev/null | head -1 || echo heaptrack), $(ldd --version | head -1)"
echo "- heaprec at $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- format recorder || echo ' (+ uncommitted changes in format/ or recorder/)')"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# heaprec keeps the frames it symbolized by build-id (symbolize/symbol_cache.h):
# a workload's first heaprec run fills the cache, the later ones use it, as a
# user's second recording of a program does.
symbol_cache="${HEAPREC_SYMBOL_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/heaprec/symbols}"
echo "- heaprec's symbol cache: ${symbol_cache:-off} ($(find "$symbol_cache" -name '*.symbols' 2>/dev/null | wc -l) modules at start; each workload's first heaprec run fills it)"
echo


# Runs "$@" in $cmd_dir with $cmd_env; prints the wall seconds. Output goes
# to $tmp/out; a failure shows it and stops.
timed() {
  local t0 t1 rc=0
  t0="$(now)"
  (cd "$cmd_dir" && env ${cmd_env[@]+"${cmd_env[@]}"} "$@") >"$tmp/out" 2>&1 || rc=$?
  t1="$(now)"
  if [ "$rc" -ne 0 ]; then
    tail -20 "$tmp/out" >&2
    die "exit status $rc from: $*"
  fi
  elapsed "$t0" "$t1"
}

if [ "$do_workloads" = 1 ]; then
  time_rows=()
  sampled_rows=()
  size_rows=()
  raw_rows=()
  notes=()
  IFS=',' read -r -a wl <<<"$workloads"
  for w in "${wl[@]}"; do
    setup_workload "$w"
    echo "bench_recorder: $w: warm-up, then $runs x (bare, heaprec, sampled, heaptrack)..." >&2
    timed "${cmd[@]}" >/dev/null
    bare=() rec=() smp=() ht=()
    for ((i = 1; i <= runs; i++)); do
      bare+=("$(timed "${cmd[@]}")")
      rm -f "$tmp/rec.zst"
      rec+=("$(timed "$heaprec" -q -o "$tmp/rec.zst" "${cmd[@]}")")
      if [ "$sample_rate" != 0 ]; then
        rm -f "$tmp/smp.zst"
        smp+=("$(timed "$heaprec" -q --sample-rate "$sample_rate" -o "$tmp/smp.zst" "${cmd[@]}")")
      else
        smp+=(0)
      fi
      rm -f "$tmp/ht".*
      ht+=("$(timed heaptrack -o "$tmp/ht" "${cmd[@]}")")
      echo "bench_recorder:   run $i: bare ${bare[-1]} s, heaprec ${rec[-1]} s, sampled ${smp[-1]} s, heaptrack ${ht[-1]} s" >&2
    done
    # Sizes and counts from the last run's traces.
    [ -f "$tmp/rec.zst" ] || die "$w: heaprec wrote no $tmp/rec.zst (did the program fork?)"
    ht_files=("$tmp"/ht.*)
    ht_file="${ht_files[0]}"
    [ -f "$ht_file" ] || die "$w: heaptrack wrote no trace"
    rec_bytes=$(stat -c %s "$tmp/rec.zst")
    ht_bytes=$(stat -c %s "$ht_file")
    "$trace_dump" "$tmp/rec.zst" --events 0 >"$tmp/dump"
    end_line="$(grep '^end ' "$tmp/dump" || die "$w: no end record in the heaprec trace")"
    field() { echo "$end_line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    rec_events=$(field events)
    rec_allocs=$(field allocations)
    counters="$(sed -n 's/^counter //p' "$tmp/dump" | grep -v '=0$' | tr '\n' ' ' || true)"
    [ -z "$counters" ] || notes+=("- $w: heaprec counters: $counters")
    ht_allocs=$(heaptrack_print -f "$ht_file" -p 0 -a 0 -T 0 -l 0 2>/dev/null |
      sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p')
    [ -n "$ht_allocs" ] || die "$w: heaptrack_print printed no allocation count"

    b=$(median "${bare[@]}") r=$(median "${rec[@]}") h=$(median "${ht[@]}")
    s=$(median "${smp[@]}")
    smp_bytes=0
    [ ! -f "$tmp/smp.zst" ] || smp_bytes=$(stat -c %s "$tmp/smp.zst")
    sampled_rows+=("| $w | $b | $s | $(ratio "$s" "$b" %.3f)x | $(mib "$smp_bytes") |")
    extra_r=$(awk -v a="$r" -v b="$b" 'BEGIN { printf "%.3f", a - b }')
    extra_h=$(awk -v a="$h" -v b="$b" 'BEGIN { printf "%.3f", a - b }')
    time_rows+=("| $w | $b | $r | $h | $(ratio "$r" "$b")x | $(ratio "$h" "$b")x | $extra_r | $extra_h | $(ratio "$extra_r" "$extra_h") |")
    size_rows+=("| $w | $rec_allocs | $ht_allocs | $rec_events | $(mib "$rec_bytes") | $(mib "$ht_bytes") | $(ratio "$rec_bytes" "$ht_bytes") | $(ratio "$rec_bytes" "$rec_allocs" %.2f) | $(ratio "$ht_bytes" "$ht_allocs" %.2f) |")
    raw_rows+=("| $w | ${bare[*]} | ${rec[*]} | ${smp[*]} | ${ht[*]} |")
    if [ "$do_breakdown" = 1 ]; then
      echo "bench_recorder: $w: trace_size_breakdown..." >&2
      "$bin/recorder/benchmarks/trace_size_breakdown" "$tmp/rec.zst" >"$tmp/breakdown.$w" ||
        die "$w: trace_size_breakdown failed"
    fi
    rm -f "$tmp/rec.zst" "$tmp/smp.zst" "$tmp"/ht.* "$tmp/dump"
  done

  echo "## Workloads: wall time, median of $runs interleaved runs"
  echo
  echo "| workload | bare s | heaprec s | heaptrack s | heaprec slowdown | heaptrack slowdown | heaprec extra s | heaptrack extra s | extra ratio (target <= 0.25) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${time_rows[@]}"
  echo
  if [ "$sample_rate" != 0 ]; then
    echo "## Workloads: heaprec --sample-rate $sample_rate, median of $runs interleaved runs"
    echo
    echo "| workload | bare s | sampled s | sampled slowdown (target <= 1.05 at 512K) | trace MiB |"
    echo "|---|---:|---:|---:|---:|"
    printf '%s\n' "${sampled_rows[@]}"
    echo
  fi
  echo "## Workloads: traces (last run)"
  echo
  echo "Allocation calls: heaprec's End record (allocations: every call that returned a block) and"
  echo "heaptrack_print's \"calls to allocation functions\". Both traces also hold"
  echo "the frees; bytes per allocation call divide the whole file by it."
  echo
  echo "| workload | alloc calls (heaprec) | alloc calls (heaptrack) | heaprec events | heaprec MiB | heaptrack MiB | size ratio (target <= 1) | heaprec B/alloc | heaptrack B/alloc |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${size_rows[@]}"
  echo
  echo "## Workloads: every run (s, in run order)"
  echo
  echo "| workload | bare | heaprec | sampled | heaptrack |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${raw_rows[@]}"
  echo
  if [ "$do_breakdown" = 1 ]; then
    echo "## Workloads: what heaprec's trace bytes go to (last run)"
    echo
    echo "Each trace re-encoded with one event column made constant (trace_size_breakdown)."
    echo
    for w in "${wl[@]}"; do
      echo "### $w"
      echo
      cat "$tmp/breakdown.$w"
      echo
    done
  fi
  if [ ${#notes[@]} -gt 0 ]; then
    echo "Non-zero heaprec counters (End record):"
    echo
    printf '%s\n' "${notes[@]}"
    echo
  fi
fi

if [ "$do_micro" = 1 ]; then
  cmd_dir="$tmp"
  cmd_env=()
  mfb="$bin/recorder/benchmarks/malloc_free_benchmark"
  gb=(--benchmark_min_time="$min_time" --benchmark_out_format=csv)
  echo "bench_recorder: malloc_free_benchmark: $micro_runs x (bare, heaprec, sampled, heaptrack)..." >&2
  csv_files=()
  for ((i = 1; i <= micro_runs; i++)); do
    csv_files+=("$tmp/bench.bare.$i.csv" "$tmp/bench.heaprec.$i.csv" "$tmp/bench.heaptrack.$i.csv")
    timed "$mfb" "${gb[@]}" --benchmark_out="$tmp/bench.bare.$i.csv" >/dev/null
    timed "$heaprec" -q -o "$tmp/mf.zst" "$mfb" "${gb[@]}" \
      --benchmark_out="$tmp/bench.heaprec.$i.csv" >/dev/null
    if [ "$sample_rate" != 0 ]; then
      csv_files+=("$tmp/bench.sampled.$i.csv")
      timed "$heaprec" -q --sample-rate "$sample_rate" -o "$tmp/mfs.zst" "$mfb" "${gb[@]}" \
        --benchmark_out="$tmp/bench.sampled.$i.csv" >/dev/null
      rm -f "$tmp/mfs.zst"
    fi
    timed heaptrack -o "$tmp/mf_ht" "$mfb" "${gb[@]}" \
      --benchmark_out="$tmp/bench.heaptrack.$i.csv" >/dev/null
    rm -f "$tmp"/mf.zst "$tmp"/mf_ht.*
  done

  echo "## Micro: one malloc+free, out of process (ns per iteration, real time)"
  echo
  echo "malloc_free_benchmark run bare, under heaprec, under heaprec --sample-rate"
  echo "$sample_rate (sampled; 0 = not run) and under heaptrack, interleaved, $micro_runs"
  echo "times; medians. extra = recorded - bare."
  echo "BM_MallocBatchThenFree is per allocation (64 per iteration)."
  echo
  echo "| benchmark | bare ns | heaprec ns | heaptrack ns | heaprec extra ns | heaptrack extra ns | extra ratio | sampled ns | sampled/bare |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  # CSV: name,iterations,real_time,cpu_time,time_unit,...; file names say
  # the tool.
  awk -F, '
    function median(key,   k, j, x, v, c) {
      c = cnt[key]
      for (k = 1; k <= c; k++) v[k] = val[key, k]
      for (k = 2; k <= c; k++) { x = v[k]; for (j = k - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
      return c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
    }
    $1 ~ /^"BM_/ && $1 !~ /WarmUp/ {
      f = FILENAME; sub(/.*\//, "", f); split(f, parts, "."); tool = parts[2]
      name = $1; gsub(/"/, "", name)
      ns = $3; if ($5 == "us") ns *= 1000; if ($5 == "ms") ns *= 1e6
      if (name ~ /Batch/) ns /= 64
      key = tool SUBSEP name
      val[key, ++cnt[key]] = ns
      if (!(name in seen)) { seen[name] = 1; order[++n] = name }
    }
    END {
      for (i = 1; i <= n; i++) {
        m = order[i]
        b = median("bare" SUBSEP m); r = median("heaprec" SUBSEP m); h = median("heaptrack" SUBSEP m)
        s = cnt["sampled" SUBSEP m] ? median("sampled" SUBSEP m) : 0
        printf "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.3f |\n", m, b, r, h, r - b, h - b,
               (h - b) != 0 ? (r - b) / (h - b) : 0, s, b != 0 ? s / b : 0
      }
    }' "${csv_files[@]}"
  echo

  echo "bench_recorder: hot_path_benchmark..." >&2
  echo "## Micro: the hot path's pieces, in process (hot_path_benchmark)"
  echo
  echo "Medians of $micro_runs repetitions, run in random interleaved order"
  echo "(--benchmark_repetitions, --benchmark_enable_random_interleaving)."
  echo
  echo "| benchmark | real ns | cpu ns | counters |"
  echo "|---|---:|---:|---|"
  # Console lines: NAME_median TIME UNIT CPU UNIT ITERATIONS [COUNTER=V...],
  # printed in the order the benchmarks are registered (the runs are not).
  hpb="$bin/recorder/benchmarks/hot_path_benchmark"
  "$hpb" --benchmark_list_tests=true >"$tmp/hot_path_order" || die "hot_path_benchmark failed"
  "$hpb" --benchmark_min_time="$min_time" \
    --benchmark_repetitions="$micro_runs" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true 2>&1 |
    awk 'function ns(v, u) { return u == "us" ? v * 1000 : (u == "ms" ? v * 1e6 : v) }
      FNR == NR { order[++n] = $1; next }
      $1 ~ /^BM_/ && $1 !~ /_(mean|stddev|cv)$/ {
        name = $1; sub(/_median$/, "", name)
        counters = ""; for (i = 7; i <= NF; i++) counters = counters (i > 7 ? " " : "") $i
        row[name] = sprintf("| %s | %.1f | %.1f | %s |", name, ns($2, $3), ns($4, $5), counters)
      }
      END { for (i = 1; i <= n; i++) if (order[i] in row) print row[order[i]] }' \
      "$tmp/hot_path_order" - || die "hot_path_benchmark failed"
  echo
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
