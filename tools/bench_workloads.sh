# Shared by tools/bench_recorder.sh, bench_analysis.sh, bench_allocators.sh
# and bench_leakcheck.sh (sourced): the benchmark workloads. setup_workload
# NAME sets cmd (array), cmd_dir and cmd_env for alloc_heavy, mt_handoff,
# python, cppcheck, churn, churn2, churn4, python_dwarf, and the programs of bench_allocators.sh: sqlite3,
# python_json, clang_format, jq. Needs $bin (Bazel's opt output), $repo, $tmp,
# $CPPCHECK_REV and a die function; sets python_bin. bench_build NAME
# TARGET... builds the targets and sets $bin and $tmp. bench_options NAME "$@"
# reads -n RUNS, -w LIST and -h.

# The real interpreter, not a pyenv shim script (heaprec and heaptrack must
# trace python itself, not a bash wrapper).
python_bin=""
if [ -x /usr/bin/python3 ]; then
  python_bin="$(readlink -f /usr/bin/python3)"
elif command -v python3 >/dev/null; then
  python_bin="$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')"
fi

# bench_options NAME "$@": a benchmark's options, -n RUNS, -w LIST (into
# runs and workloads, whose defaults the caller set) and -h (the caller's
# usage function); exits 2 on anything else or a bad -n.
bench_options() {
  local name="$1"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      -n) runs="${2:?-n needs a number}"; shift 2 ;;
      -w) workloads="${2:?-w needs a list}"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      *) echo "$name: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
  done
  case "$runs" in '' | *[!0-9]* | 0) echo "$name: -n wants a positive number" >&2; exit 2 ;; esac
}

# Sets cmd (array), cmd_dir and cmd_env for workload $1.
setup_workload() {
  cmd_dir="$tmp"
  cmd_env=()
  case "$1" in
    alloc_heavy) cmd=("$bin/tests/bench/alloc_heavy") ;;
    mt_handoff) cmd=("$bin/tests/bench/mt_handoff" 4 2000000) ;;
    python)
      [ -n "$python_bin" ] || die "python3 not found"
      cmd_env=(PYTHONMALLOC=malloc)
      cmd=("$python_bin" "$repo/tests/bench/py_dicts.py" 2)
      ;;
    churn) cmd=("$bin/tests/bench/churn" 1) ;;
    churn2) cmd=("$bin/tests/bench/churn" 2) ;;
    churn4) cmd=("$bin/tests/bench/churn" 4) ;;
    python_dwarf)
      # Debian's debug build of Python 3.11 (python3.11-dbg): the interpreter
      # carries its full DWARF (10 MB of .debug_info) in the binary.
      if ! command -v python3.11-dbg >/dev/null; then
        [ "$(id -u)" = 0 ] || die "python3.11-dbg not found (apt-get install python3.11-dbg)"
        echo "installing python3.11-dbg (apt-get)..." >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3.11-dbg >/dev/null ||
          die "apt-get install python3.11-dbg failed"
      fi
      cmd_env=(PYTHONMALLOC=malloc)
      cmd=("$(readlink -f "$(command -v python3.11-dbg)")" "$repo/tests/bench/py_json.py" 1)
      ;;
    cppcheck)
      command -v cppcheck >/dev/null || die "cppcheck not found (apt-get install cppcheck)"
      if [ ! -d "$tmp/cppcheck_src" ]; then
        mkdir "$tmp/cppcheck_src"
        git archive "$CPPCHECK_REV" format | tar -x -C "$tmp/cppcheck_src"
      fi
      cmd_dir="$tmp/cppcheck_src"
      cmd=("$(command -v cppcheck)" --quiet "--enable=warning,performance,portability"
        --std=c++20 -I. format)
      ;;
    sqlite3)
      command -v sqlite3 >/dev/null || die "sqlite3 not found (tools/setup.sh)"
      cmd=("$(command -v sqlite3)" :memory: ".read $repo/tests/bench/sqlite_work.sql")
      ;;
    python_json)
      [ -n "$python_bin" ] || die "python3 not found"
      cmd=("$python_bin" "$repo/tests/bench/py_json.py" 6)
      ;;
    clang_format)
      command -v clang-format >/dev/null || die "clang-format not found (tools/setup.sh)"
      # This repository's own sources at 60c101e (pinned), one file of 0.9 MB.
      [ -f "$tmp/clang_format_input.cc" ] ||
        git archive 60c101e analyzers format recorder replay | tar -x -O --wildcards '*.cc' \
          >"$tmp/clang_format_input.cc"
      cmd=("$(command -v clang-format)" "$tmp/clang_format_input.cc")
      ;;
    jq)
      command -v jq >/dev/null || die "jq not found (tools/setup.sh)"
      [ -f "$tmp/jq_input.json" ] || "${python_bin:-python3}" -c '
import json, sys
rows = [{"id": i, "group": "g%d" % (i % 50), "vals": [i % 13, i % 17, i % 19], "name": "n%d" % i}
        for i in range(80000)]
json.dump(rows, open(sys.argv[1], "w"))' "$tmp/jq_input.json"
      cmd=("$(command -v jq)" -c
        'group_by(.group) | map({g: .[0].group, n: length, s: (map(.vals[0]) | add)}) | length'
        "$tmp/jq_input.json")
      ;;
    *) die "unknown workload '$1' (see --help)" ;;
  esac
}

# bench_build NAME TARGET...: builds the targets with -c opt (the log's tail
# and die on failure), then sets bin (Bazel's opt output) and tmp (a scratch
# folder named after NAME, removed when the script exits).
bench_build() {
  local name="$1"
  shift
  echo "$name: building (bazel build -c opt)..." >&2
  local build_log
  if ! build_log="$(bazel build -c opt "$@" 2>&1)"; then
    echo "$build_log" | tail -30 >&2
    die "build failed"
  fi
  bin="$(bazel info -c opt bazel-bin 2>/dev/null)"
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
}
