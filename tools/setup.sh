#!/bin/sh
# Installs what heaprec needs, if anything is missing: Debian 12's packages,
# and the npm packages the HTML report bundles (third_party/js, `npm ci` from
# the committed lockfile). With --browser also Debian's chromium, for the
# browser test. Safe to run again: it installs nothing when all is there, and
# downloads nothing but Debian and npm packages.
#   tools/setup.sh [--browser]
set -eu
cd "$(dirname "$0")/.."
browser=""
[ "${1:-}" = "--browser" ] && browser=1

PACKAGES="
  bazel-bootstrap g++ git
  libzstd-dev zstd zlib1g-dev libdeflate-dev
  libflatbuffers-dev flatbuffers-compiler
  libunwind-dev libdw-dev libelf-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  nlohmann-json3-dev
  libprotobuf-dev protobuf-compiler
  heaptrack cppcheck valgrind
  libxml2-utils time python3 sqlite3 jq
  libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0
"

# Node.js and npm: Debian's, unless the machine has them already (some images
# carry a newer Node whose npm Debian's npm package would conflict with).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  PACKAGES="$PACKAGES nodejs npm"
fi
if [ -n "$browser" ]; then PACKAGES="$PACKAGES chromium"; fi

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "setup: all packages present"
else
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  echo "setup: installing$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi

# The HTML report's libraries, exactly as locked; again only when the lockfile
# changed since the last install.
lock=third_party/js/package-lock.json
stamp=third_party/js/node_modules/.heaprec-installed
want="$(sha256sum "$lock" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "setup: npm packages present"
else
  echo "setup: npm ci in third_party/js"
  (cd third_party/js && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
  echo "$want" >"$stamp"
fi
