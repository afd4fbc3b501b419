#!/usr/bin/env bash
# Regenerates every table and image of README.md and docs/ that comes from the current
# build, then runs every documented command and checks the figures the docs show.
#
#   tools/regenerate-docs.sh [CKPTDP_BINARY]      (default build/ckptdp; from anywhere)
#
# Images: tools/make-paper-plots.sh (docs/img/, the paper case's solves and sweeps).
# Tables: every block or table marked `<!-- doc-test: output of: COMMAND; generated -->`
# is rewritten with COMMAND's output (tools/doc-table.py formats ckptdp's JSON), by
# tools/doc-commands.py --regenerate, which then checks all the docs (docs/doc-tests.md).
# Not regenerated: the benchmark tables of docs/benchmarks.md (tools/milp-bench with CBC
# limits of up to 300 s per model, tools/scale-curve.sh, bench/engine_bench: long runs whose
# times depend on the machine); they give the command and date of their run, and
# docs/img/scale-curve.png is tools/scale-curve.sh's. Nor the paper-day sensitivity figures of
# docs/reproduction.md (tools/paper-day-sensitivity.py: 65 s in one run on 2026-12-07, session 43).
# Two runs took 7.6 and 10.1 minutes on the shared 2-core machine (2026-12-03). Review the
# result with `git diff` before committing.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$repo/build/ckptdp}")
if [[ ! -x $bin ]]; then
  echo "regenerate-docs: no ckptdp binary at $bin (build first, or pass its path)" >&2
  exit 2
fi

echo "== images (tools/make-paper-plots.sh)"
bash "$repo/tools/make-paper-plots.sh" "$bin"

echo "== tables, then every documented command (tools/doc-commands.py --regenerate)"
/usr/bin/python3 "$repo/tools/doc-commands.py" --binary "$bin" --regenerate
