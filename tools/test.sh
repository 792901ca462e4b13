#!/bin/sh
# The README's test command: installs what is missing, builds everything, and
# runs every test: the unit and end-to-end tests (the HTML report's in
# headless chromium among them), the unit tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer together (one build), the
# concurrent parts' tests under ThreadSanitizer, a 30 s fuzzing run of each
# of the three fuzz targets, and the format check. Ends with "N passed, N
# failed".
set -u
cd "$(dirname "$0")/.."
tools/setup.sh --browser || exit 1

log=$(mktemp)
status=0
step() {
  name=$1
  shift
  echo "== $name: $*"
  start=$(date +%s)
  if "$@" >>"$log" 2>&1; then
    echo "   ok ($(($(date +%s) - start)) s)"
  else
    echo "   FAILED after $(($(date +%s) - start)) s (see below)"
    status=1
  fi
}

step build bazel build //...
step test bazel test //...
step asan+ubsan bazel test --config=asan_ubsan //...
step tsan bazel test --config=tsan //...
step fuzz tools/fuzz.sh "${FUZZ_SECONDS:-30}"
step format tools/check_format.sh

# Bazel prints one line per test target: PASSED, FAILED, NO STATUS...
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" || true)
if [ "$status" != 0 ]; then
  grep -E 'FAILED|ERROR|error:|TIMEOUT|check_format|fuzz:' "$log" | head -50
  [ "$failed" = 0 ] && failed=1
fi
rm -f "$log"
echo "$passed passed, $failed failed"
exit $status
