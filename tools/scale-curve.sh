#!/usr/bin/env bash
# The scale curve of one engine iteration (issue 6, docs/benchmarks.md "Scale"): builds
# scale_bench, runs it and turns its JSON into a Markdown table, fitted exponents, the
# 1-vs-2-thread speed-ups and docs/img/scale-curve.png.
#
#   tools/scale-curve.sh [BUILD_DIR]
#
# BUILD_DIR defaults to build-scale (configured here as a Release build if needed). The raw
# JSON and the table are kept in BUILD_DIR/scale-curve/. The benchmark itself takes about a
# minute on 2 cores. Run it on an otherwise idle machine: the 2-thread times need both
# cores, and the script warns when other processes used them (it does not fail then).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$repo/build-scale}")
out=$build/scale-curve

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target scale_bench
mkdir -p "$out" "$repo/docs/img"

echo "== scale_bench (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
# Random interleaving runs the repetitions round by round, each round in a shuffled order,
# so that a burst of load from elsewhere does not fall on one grid point or thread count.
"$build/scale_bench" --benchmark_enable_random_interleaving=true \
  --benchmark_format=json --benchmark_out="$out/scale_bench.json" --benchmark_out_format=json \
  >"$out/scale_bench.stdout.json"
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

/usr/bin/python3 "$repo/tools/scale-curve.py" "$out/scale_bench.json" \
  --plot "$repo/docs/img/scale-curve.png" --table "$out/scale-curve.md"
