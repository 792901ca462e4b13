#!/bin/sh
# The README's first command: installs what is missing, builds heaprec, and
# runs the main job on the built-in example (tests/programs/leak_demo.c, which
# leaks 640 bytes in 10 blocks from make_session): record it with heaprec,
# then print the leak report with heapreplay, and write the interactive HTML
# report to /tmp/heaprec-demo-report.html (one file; open it in a browser).
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh
if ! bazel build //recorder:heaprec //replay:heapreplay //tests:leak_demo >/tmp/heaprec-demo-build.log 2>&1; then
  cat /tmp/heaprec-demo-build.log
  echo "demo: build failed" >&2
  exit 1
fi
bin=$(bazel info bazel-bin 2>/dev/null)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "demo: \$ heaprec -o leak_demo.zst tests/leak_demo"
"$bin/recorder/heaprec" -o "$out/leak_demo.zst" "$bin/tests/leak_demo"
echo "demo: \$ heapreplay --leaks leak_demo.zst"
"$bin/replay/heapreplay" --leaks "$out/leak_demo.zst"
report=/tmp/heaprec-demo-report.html
echo "demo: \$ heapreplay --html $report leak_demo.zst"
"$bin/replay/heapreplay" --html "$report" "$out/leak_demo.zst" >/dev/null
echo "demo: wrote $report ($(($(stat -c %s "$report") / 1024)) KiB): open it in a browser"
