#!/bin/sh
# Builds heaprec and installs it under PREFIX (default /usr/local):
#   PREFIX/bin/heaprec                  the launcher
#   PREFIX/lib/heaprec/libheaprec.so    the preload library (found by heaprec)
#   PREFIX/include/heaprec.h            heaprec_mark() for traced programs
#   PREFIX/bin/heapreplay               the analyses, once built (issue 4)
# Usage: tools/install.sh [PREFIX]
set -eu
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
bazel build //recorder:heaprec //recorder:libheaprec.so
bin=$(bazel info bazel-bin)
install -d "$prefix/bin" "$prefix/lib/heaprec" "$prefix/include"
install -m 0755 "$bin/recorder/heaprec" "$prefix/bin/heaprec"
install -m 0755 "$bin/recorder/libheaprec.so" "$prefix/lib/heaprec/libheaprec.so"
install -m 0644 recorder/preload/heaprec.h "$prefix/include/heaprec.h"
if [ -e replay/BUILD.bazel ]; then
  bazel build //replay:heapreplay
  install -m 0755 "$bin/replay/heapreplay" "$prefix/bin/heapreplay"
fi
echo "install: heaprec installed under $prefix"
