#!/bin/sh
# Installs what heaprec needs from Debian 12's packages, if anything is
# missing. Safe to run again: it installs nothing when all is there, and never
# downloads anything but Debian packages.
set -eu

PACKAGES="
  bazel-bootstrap g++ git
  libzstd-dev zstd zlib1g-dev
  libflatbuffers-dev flatbuffers-compiler
  libunwind-dev libdw-dev libelf-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler
  heaptrack cppcheck
  libxml2-utils time python3
  libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "setup: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "setup: installing$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
