#!/bin/sh
# Runs a JavaScript test file of the page under Node's built-in test runner
# (bazel test //analyzers/html:model_test). Node comes from tools/setup.sh.
set -eu
command -v node >/dev/null || { echo "node not found: run tools/setup.sh" >&2; exit 1; }
exec node --test "$1"
