#!/bin/sh
# Runs each fuzz target with libFuzzer (clang, from libclang-rt-14-dev) for
# SECONDS seconds (default 300), starting from its committed seed corpus.
#   tools/fuzz.sh [SECONDS]
# New inputs go to a scratch corpus under /tmp; a crash, leak, timeout or
# out-of-memory leaves its input there and makes this script fail.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-300}
bazel build --config=fuzz //format:trace_reader_fuzzer //format:chunk_decoder_fuzzer \
  //format:heaptrack_reader_fuzzer
out=$(bazel info --config=fuzz bazel-bin)
for target in trace_reader_fuzzer:fuzz_corpus chunk_decoder_fuzzer:fuzz_corpus_chunks \
    heaptrack_reader_fuzzer:fuzz_corpus_heaptrack; do
  name=${target%%:*}
  seeds=format/${target##*:}
  scratch=${TMPDIR:-/tmp}/heaprec-fuzz-$name
  mkdir -p "$scratch"
  echo "fuzz: $name for ${seconds}s"
  if ! "$out/format/$name" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$scratch/" "$scratch" "$seeds" \
      >"$scratch.log" 2>&1; then
    tail -40 "$scratch.log"
    echo "fuzz: $name failed; the input is in $scratch/ (crash-*, leak-*, timeout-*, oom-*)"
    exit 1
  fi
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$scratch.log" | sed "s/^/fuzz: $name /"
done
