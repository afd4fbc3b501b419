#!/usr/bin/env bash
# Checks that an installed ckptdp can be consumed: installs into a temporary prefix, then
# builds examples/consumer against it with find_package(ckptdp) and runs it on the paper
# instance. Exits non-zero on any failure.
#
#   tools/check-install.sh [BUILD_DIR]
#
# With BUILD_DIR (an already configured ckptdp build) it is brought up to date and
# installed from; without, a fresh library-only build is made in the temporary directory.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

if [[ $# -ge 1 ]]; then
  build=$(realpath "$1")
  if [[ ! -f $build/CMakeCache.txt ]]; then
    echo "check-install: $build is not a configured CMake build directory" >&2
    exit 2
  fi
else
  build=$tmp/build
  echo "== configuring ckptdp in $build"
  cmake -S "$repo" -B "$build" "${generator[@]}" -DCKPTDP_BUILD_TESTS=OFF \
    -DCKPTDP_BUILD_BENCH=OFF >/dev/null
fi
echo "== building and installing ckptdp into $tmp/prefix"
cmake --build "$build" --target ckptdp_lib ckptdp
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null

echo "== building examples/consumer against the installed package"
cmake -S "$repo/examples/consumer" -B "$tmp/consumer" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumer"

echo "== running it on the paper instance"
output=$("$tmp/consumer/consumer" "$repo/instances/paper_2048gpu.json")
echo "$output"
if [[ $output != "S4: cost "* ]]; then
  echo "check-install: unexpected output from the consumer" >&2
  exit 1
fi
# The installed tool runs too.
"$tmp/prefix/bin/ckptdp" --help >/dev/null
echo "check-install: OK"
