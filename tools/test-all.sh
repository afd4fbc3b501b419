#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): installs the dependencies, builds, runs
# every Catch2 test through CTest, then the sanitizer build of the same suite, the plotting
# script on a small result, the installed-package example and a short fuzzing run.
# Usage: tools/test-all.sh            (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash tools/install-deps.sh

echo "== release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ -x tools/sanitize.sh ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
  bash tools/sanitize.sh
fi

if [ -f tools/plot.py ]; then
  echo "== plots from a small result"
  out=$(mktemp -d)
  build/ckptdp solve instances/paper_2048gpu.json --scenario S6 --quiet --out "$out/result.json"
  build/ckptdp modes instances/paper_2048gpu.json --json > "$out/modes.json"
  /usr/bin/python3 tools/plot.py "$out/result.json" --out-dir "$out/plots"
  /usr/bin/python3 tools/plot.py "$out/modes.json" --out-dir "$out/plots"
  ls "$out/plots"
fi

if [ -x tools/check-install.sh ]; then
  echo "== cmake --install and find_package(ckptdp) example"
  bash tools/check-install.sh build
fi

if [ -x tools/fuzz.sh ]; then
  echo "== instance-loader fuzzing (bounded)"
  bash tools/fuzz.sh 30
fi
echo "== all tests passed"
