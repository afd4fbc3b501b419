#!/usr/bin/env bash
# Regenerates the paper-case plots (Figs. 8-12) in docs/img/ with an already built ckptdp.
# tools/regenerate-docs.sh runs it along with the tables of the docs.
#
#   tools/make-paper-plots.sh [CKPTDP_BINARY] [WORK_DIR]
#
# CKPTDP_BINARY defaults to build/ckptdp. The JSON files and the SVG versions of the plots
# go to WORK_DIR (default: a temporary directory, removed at the end); only PNGs go into
# docs/img, to keep the repository small. The sweep tables are printed as they are solved.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$repo/build/ckptdp}")
instance=$repo/instances/paper_2048gpu.json
img=$repo/docs/img
plot=("/usr/bin/python3" "$repo/tools/plot.py")

if [[ ! -x $bin ]]; then
  echo "make-paper-plots: no ckptdp binary at $bin (build first, or pass its path)" >&2
  exit 2
fi
if [[ $# -ge 2 ]]; then
  work=$2
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$img"

echo "== solving S1 and S6, modes, scenarios"
for s in S1 S6; do
  "$bin" solve "$instance" --scenario "$s" --quiet --out "$work/result-$s.json"
done
"$bin" modes "$instance" --json >"$work/modes.json"
"$bin" scenarios "$instance" --json >"$work/scenarios.json"

# The three sweeps of Fig. 12 (section V-E), all on the full scenario S6, at the Lagrangian
# root like the tables of docs/reproduction.md (the same commands).
sweep() {
  local param=$1 values=$2
  echo "== sweep $param"
  "$bin" sweep "$instance" --scenario S6 --param "$param" --values "$values" \
    --max-nodes 0 --neighbourhood-stall 0 --out "$work/sweep-$param.json"
}
sweep segments 1,2,3,4,6,8,12,24
sweep gpu-capacity 768,896,1024,1152,1280,1536,1792,2048
sweep renewable-ratio 0.75,0.875,1,1.125,1.25,1.375,1.5

echo "== plotting into $img (PNG) and $work (SVG)"
plot_both() {
  "${plot[@]}" "$@" --out-dir "$img" --formats png
  "${plot[@]}" "$@" --out-dir "$work" --formats svg >/dev/null
}
plot_both "$work/result-S1.json"
plot_both "$work/result-S6.json" --modes "$work/modes.json"
plot_both "$work/modes.json"
plot_both "$work/scenarios.json"
for param in segments gpu-capacity renewable-ratio; do
  plot_both "$work/sweep-$param.json"
done

# The rolling week of docs/operations.md: only its rolling plot goes to docs/img (its result
# plots would overwrite the paper day's balance and jobs plots).
echo "== rolling week"
"$bin" rolling "$repo/instances/paper_week.json" --actual "$repo/instances/paper_week_actual.csv" \
  --every 4 --max-nodes 0 --quiet --out "$work/rolling.json"
"${plot[@]}" "$work/rolling.json" --out-dir "$work/rolling" --formats png >/dev/null
cp "$work/rolling/rolling-S6.png" "$img/rolling-S6.png"

# The README embeds these; keep each well under 200 KB.
too_big=$(find "$img" -name '*.png' -size +200k)
if [[ -n $too_big ]]; then
  echo "make-paper-plots: larger than 200 KB: $too_big" >&2
  exit 1
fi
