#!/bin/sh
# Hands flamegraph_sample's SVG (names chosen to break XML) to xmllint, a real
# XML parser (Debian's libxml2-utils). Without xmllint it says so and passes:
# flamegraph_test's own checker still runs everywhere.
set -eu
sample="$1"
if ! command -v xmllint >/dev/null 2>&1; then
  echo "flamegraph_xml_test: SKIPPED, xmllint not installed (apt-get install libxml2-utils)"
  exit 0
fi
out="${TEST_TMPDIR:-/tmp}/sample.svg"
"$sample" >"$out"
xmllint --noout "$out"
grep -q '<g class="f">' "$out"
echo "flamegraph_xml_test: $(grep -c '<g class="f">' "$out") frames, well-formed"
