#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run): installs the dependencies, checks the C++
# formatting, builds with warnings as errors (CKPTDP_WERROR), runs every Catch2 test through
# CTest (failing if none is found), then the sanitizer build of the same suite, the plotting
# script on a small result, every command the docs show (tools/doc-commands.py), the
# installed-package example and a short fuzzing run.
# Usage: tools/test-all.sh            (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash tools/install-deps.sh

# Warnings are errors in CI (CKPTDP_WERROR, off by default for users); tools/sanitize.sh and
# tools/fuzz.sh read the same variable.
export CKPTDP_WERROR=ON

echo "== clang-format (C++ sources only: never Markdown or data)"
find src include tests bench fuzz examples -type f \( -name '*.cc' -o -name '*.h' \) -print0 |
  xargs -0 clang-format --dry-run -Werror

echo "== release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCKPTDP_WERROR=ON
cmake --build build -j "$jobs"
# --no-tests=error: a build that registers no test (a broken discovery) fails instead of passing.
ctest --test-dir build --output-on-failure --no-tests=error -j "$jobs"

if [ -x tools/sanitize.sh ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
  bash tools/sanitize.sh
fi

echo "== every plot kind, once, from small results"
plots=$(mktemp -d)
b=build/ckptdp
i=instances/paper_2048gpu.json
# A few hundred branch-and-bound nodes: the plots need results, not proofs of optimality.
$b solve $i --scenario S6 --max-nodes 300 --quiet --out "$plots/result.json"
$b modes $i --json > "$plots/modes.json"
$b scenarios $i --max-nodes 300 --json > "$plots/scenarios.json"
$b sweep $i --scenario S6 --param gpu-capacity --values 1280,2048 --max-iterations 30 \
  --out "$plots/sweep.json" > /dev/null
for f in result modes scenarios sweep; do
  /usr/bin/python3 tools/plot.py "$plots/$f.json" --out-dir "$plots/img" --modes "$plots/modes.json"
done
ls "$plots/img"
# Above a handful of jobs the jobs figure aggregates (heat map, top jobs and "others") and
# keeps its size: one legend entry per job once made a 256-job figure 4458 px tall.
$b generate --jobs 32 --hours 24 --seed 1 -o "$plots/many.json" > /dev/null
$b solve "$plots/many.json" --scenario S4 --time-limit 10 --quiet --out "$plots/many-result.json"
/usr/bin/python3 tools/plot.py "$plots/many-result.json" --out-dir "$plots/many" --formats png
/usr/bin/python3 -c 'import sys, matplotlib.image as m
h, w = m.imread(sys.argv[1]).shape[:2]
sys.exit(0 if h <= 1200 and w <= 1200 else f"jobs figure of 32 jobs is {w}x{h} px")' \
  "$plots/many/jobs-S4.png"

echo "== documentation: every command in README.md and docs/ runs as shown (docs/doc-tests.md)"
/usr/bin/python3 tools/check-docs-format.py
/usr/bin/python3 tools/doc-commands.py --binary build/ckptdp

if [ -x tools/check-install.sh ]; then
  echo "== cmake --install and find_package(ckptdp) example"
  bash tools/check-install.sh build
fi

if [ -x tools/fuzz.sh ]; then
  echo "== instance-loader fuzzing (bounded)"
  bash tools/fuzz.sh 30
fi
echo "== all tests passed"
