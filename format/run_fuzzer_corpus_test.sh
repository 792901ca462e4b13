#!/bin/sh
# Runs a fuzz target's replay build over its committed corpus: every input
# must be handled without a crash or a sanitizer report.
set -eu
exec "$1" "$2"
