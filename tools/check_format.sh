#!/bin/sh
# Checks that every C and C++ file follows .clang-format; with --fix, rewrites
# them. Exit 1 and a list of files when something is off.
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.cc' '*.h' | grep -v '^third_party/bazel/' || true)
[ -n "$files" ] || exit 0
if [ "${1:-}" = "--fix" ]; then
  echo "$files" | xargs clang-format -i
  exit 0
fi
bad=""
for f in $files; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad="$bad $f"; fi
done
if [ -n "$bad" ]; then
  echo "check_format: not formatted (run tools/check_format.sh --fix):$bad" >&2
  exit 1
fi
echo "check_format: $(echo "$files" | wc -l) files formatted"
