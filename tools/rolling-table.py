#!/usr/bin/python3
"""Prints the week's rolling table of docs/operations.md from the current build.

    /usr/bin/python3 tools/rolling-table.py [--ckptdp build/ckptdp]

Runs `ckptdp rolling` on the shipped week (instances/paper_week.json, forecast; actual
series instances/paper_week_actual.csv), S6, --max-nodes 0, with --every 1, 4 and 8
warm-started and --every 4 cold, and prints one Markdown row per run: the cost of
the day-ahead plan on the forecast, that plan executed unchanged on the actuals
(power-side recourse only), the rolling (realised) cost, perfect foresight (S6 solved on
the actuals) with its bound, S1 on the actuals, how far the realised cost is above the
perfect-foresight bound, and the re-solves with their total time against one cold solve of
the week. The times depend on the machine; the costs do not.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = [("1", []), ("4", []), ("4, cold", ["--cold"]), ("8", [])]


def run(ckptdp, every, extra, out):
    cmd = [ckptdp, "rolling", os.path.join(REPO, "instances", "paper_week.json"), "--actual",
           os.path.join(REPO, "instances", "paper_week_actual.csv"), "--every", every,
           "--scenario", "S6", "--max-nodes", "0", "--quiet", "--out", out] + extra
    subprocess.run(cmd, check=True)
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ckptdp", default=os.path.join(REPO, "build", "ckptdp"))
    args = ap.parse_args()
    print("| --every | Day-ahead plan, forecast (USD) | Day-ahead plan executed (USD) "
          "| Rolling, realised (USD) | Perfect foresight (USD) | its bound (USD) "
          "| S1 on actuals (USD) | Realised above bound | Re-solves | Re-solve time, all | Cold solve |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in RUNS:
            r = run(args.ckptdp, label.split(",")[0], extra, os.path.join(tmp, "r.json"))["rolling"]
            above = 100.0 * (r["realised_cost_usd"] / r["perfect_foresight_bound_usd"] - 1.0)
            print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f %% | %d | %.2f s | %.2f s |" % (
                label, r["day_ahead_plan_cost_usd"], r["day_ahead_executed_cost_usd"],
                r["realised_cost_usd"], r["perfect_foresight_cost_usd"],
                r["perfect_foresight_bound_usd"], r["s1_actual_cost_usd"], above,
                r["resolve_count"], r["resolve_seconds_total"], r["cold_solve_seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
