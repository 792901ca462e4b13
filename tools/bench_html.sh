#!/bin/bash
# Measures heapreplay --html on a large trace: tests/many_stacks (262,144
# distinct call stacks) recorded under heaprec, then
#   - heapreplay (the text overview) and heapreplay --html, interleaved RUNS
#     times (default 3): median wall time and peak RSS of each;
#   - the page's size and what it holds (nodes, cells, buckets);
#   - the page in headless chromium (tests/html/report_browser.mjs --perf):
#     load, a switch to each view, a dragged range selection, clearing it.
# Prints the numbers docs/BENCHMARKS.md ("HTML report") records.
#   tools/bench_html.sh [-n RUNS]
set -eu -o pipefail
cd "$(dirname "$0")/.."
runs=3
[ "${1:-}" = "-n" ] && runs="${2:?-n needs a number}"

bazel build -c opt //recorder:heaprec //replay:heapreplay //tests:many_stacks >/dev/null 2>&1
bin=bazel-bin
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/recorder/heaprec" -q -o "$work/t.zst" "$bin/tests/many_stacks"
echo "trace: $(stat -c %s "$work/t.zst") bytes; $("$bin/replay/heapreplay" --hot --top 0 "$work/t.zst" |
  grep -o '[0-9]* allocation calls .* call stacks' | head -1)"

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: >"$work/plain" && : >"$work/html"
for _ in $(seq "$runs"); do
  /usr/bin/time -f "%e %M" -a -o "$work/plain" "$bin/replay/heapreplay" "$work/t.zst" >/dev/null
  /usr/bin/time -f "%e %M" -a -o "$work/html" \
    "$bin/replay/heapreplay" --html "$work/page.html" "$work/t.zst" >/dev/null
done
for what in plain html; do
  echo "heapreplay ($what): median $(cut -d' ' -f1 "$work/$what" | median) s," \
    "peak RSS $(($(cut -d' ' -f2 "$work/$what" | median) / 1024)) MiB (of $runs runs)"
done
node -e '
  const s = require("fs").readFileSync(process.argv[1], "utf8");
  const at = s.indexOf("id=\"heaprec-data\">") + 18;
  const text = s.slice(at, s.indexOf("</script>", at));
  const d = JSON.parse(text[0] === "{" ? text :
    require("zlib").gunzipSync(Buffer.from(text, "base64")).toString());
  console.log("page: " + (s.length / 1048576).toFixed(1) + " MiB; " + d.nodes.parent.length +
    " nodes, " + d.frames.line.length + " frames, " + d.cells.node.length + " cells, " +
    d.buckets.start_ns.length + " buckets");' "$work/page.html"
echo '{}' >"$work/expect.json"
for _ in $(seq "$runs"); do
  node tests/html/report_browser.mjs --html "$work/page.html" --expect "$work/expect.json" --perf |
    grep -E '^(perf|ok page renders)'
done
