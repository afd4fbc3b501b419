#!/usr/bin/env python3
"""Prints the Markdown tables of README.md and docs/reproduction.md from ckptdp's JSON.

    doc-table.py scenarios [--paper] SOURCE   Table IV: one row per scenario (--paper: with
                                              the paper's row above each of ours)
    doc-table.py sweep SOURCE                 a Fig. 12 sweep: one row per value

SOURCE is a JSON file written by `ckptdp scenarios --json` / `ckptdp sweep --out`, or a
ckptdp command line (its --json output is read; e.g. `build/ckptdp scenarios INSTANCE`).
tools/regenerate-docs.sh writes these tables into the docs, and tools/doc-commands.py
checks that the docs still show them (docs/doc-tests.md).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

# Table IV of the paper, for the side-by-side table of docs/reproduction.md (the paper's
# published figures, not results of ours).
PAPER_TABLE_IV = {
    "S1": "473.03 | 0.00 | 8.965 | 1.077 | 0.000 | 93.46 | 63.20 | 1015.0 | 1280",
    "S2": "473.03 | 0.00 | 8.965 | 1.077 | 0.000 | 93.46 | 63.20 | 1015.0 | 1280",
    "S3": "368.99 | 21.99 | 8.395 | 0.000 | 0.000 | 100.00 | 66.24 | 1399.0 | 2048",
    "S4": "378.33 | 20.02 | 8.434 | 0.014 | 0.000 | 99.92 | 66.12 | 1335.2 | 2048",
    "S5": "447.23 | 5.45 | 8.281 | 0.319 | 1.442 | 98.06 | 66.00 | 1015.0 | 1280",
    "S6": "377.79 | 20.13 | 8.422 | 0.000 | 0.026 | 100.00 | 66.17 | 1335.2 | 2048",
}
SWEEP_LABEL = {"segments": "K", "gpu-capacity": "GPUs", "renewable-ratio": "Ratio",
               "renewable-energy-ratio": "Ratio", "battery-energy": "kWh"}


def load(source):
    if len(source) == 1 and source[0].endswith(".json"):
        with open(source[0]) as f:
            return json.load(f)
    command = list(source)
    if "--json" not in command:
        command.append("--json")
    # tools/doc-commands.py shows the same solve in two tables: solve it once per run.
    cache = os.environ.get("DOC_TABLE_CACHE")
    cached = os.path.join(cache, hashlib.sha256(" ".join(command).encode()).hexdigest() + ".json") if cache else None
    if cached and os.path.isfile(cached):
        with open(cached) as f:
            return json.load(f)
    p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if p.returncode not in (0, 1):
        sys.exit("doc-table: `%s` exited %d" % (" ".join(command), p.returncode))
    if cached:
        with open(cached, "w") as f:
            f.write(p.stdout)
    return json.loads(p.stdout)


def gap_text(result):
    return "0" if result["status"] == "optimal" else "%.2f%%" % (100 * result["gap"])


def metric_cells(m):
    return [("%.2f" % m["cost_usd"]), "%.2f" % (round(m["cost_reduction_pct"], 2) + 0.0), "%.3f" % m["grid_mwh"],
            "%.3f" % m["curtailment_mwh"], "%.3f" % m["bess_throughput_mwh"], "%.2f" % m["re_utilization_pct"],
            "%.2f" % m["green_share_pct"], "%.1f" % m["peak_power_kw"], "%d" % m["peak_gpus"]]


def scenarios_table(data, paper):
    rows = []
    if paper:
        rows.append("| | | cost (USD) | red. (%) | grid (MWh) | curt. (MWh) | BESS thru. (MWh) | RE util. (%) "
                    "| green (%) | peak (kW) | peak GPUs | gap |")
        rows.append("|---|---|" + "---:|" * 10)
    else:
        rows.append("| | mechanism | cost (USD) | red. (%) | grid (MWh) | curt. (MWh) | BESS (MWh) | RE util (%) "
                    "| green (%) | peak (kW) | GPUs | gap |")
        rows.append("|---|---|" + "---:|" * 10)
    for r in data["scenarios"]:
        cells = metric_cells(r["metrics"]) + [gap_text(r)]
        if paper:
            rows.append("| %s | paper | %s | |" % (r["scenario"], PAPER_TABLE_IV[r["scenario"]]))
            rows.append("| | ours | %s |" % " | ".join(cells))
        else:
            rows.append("| %s | %s | %s |" % (r["scenario"], r["description"], " | ".join(cells)))
    return rows


def sweep_table(data):
    label = SWEEP_LABEL.get(data["param"], data["param"])
    rows = ["| %s | Status | Cost (USD) | Bound (USD) | Gap (%%) | Red. vs S1 (%%) | Grid (MWh) | Curt. (MWh) "
            "| Green share (%%) | Peak GPUs |" % label,
            "|---:|---|" + "---:|" * 8]

    def num(x, fmt):
        return "–" if x is None else fmt % x

    for p in data["points"]:
        m = p["metrics"]
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            "%g" % p["value"], p["status"], num(p["objective_usd"], "%.2f"), num(p["lower_bound_usd"], "%.2f"),
            num(None if p["gap"] is None else 100 * p["gap"], "%.2f"), num(m["cost_reduction_pct"], "%.2f"),
            num(m["grid_mwh"], "%.3f"), num(m["curtailment_mwh"], "%.3f"), num(m["green_share_pct"], "%.2f"),
            num(m["peak_gpus"], "%d")))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=("scenarios", "sweep"))
    ap.add_argument("--paper", action="store_true", help="scenarios: with the paper's rows")
    ap.add_argument("source", nargs=argparse.REMAINDER, help="a JSON file or a ckptdp command line")
    args = ap.parse_args()
    while args.source and args.source[0] == "--paper":  # REMAINDER keeps options after kind
        args.paper = True
        args.source = args.source[1:]
    if not args.source:
        ap.error("give a JSON file or a ckptdp command")
    data = load(args.source)
    rows = scenarios_table(data, args.paper) if args.kind == "scenarios" else sweep_table(data)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
