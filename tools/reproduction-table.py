#!/usr/bin/python3
"""Table IV and the paper's other published facts, for the LMP and the TOU paper instances.

Solves, with the default engine options of the given ckptdp binary, for each of
instances/paper_2048gpu.json (hourly day-ahead LMP) and instances/paper_2048gpu_tou.json
(the TOU reading, issue 18):

  ckptdp scenarios INSTANCE --json                                  (Table IV)
  ckptdp solve INSTANCE --scenario S6 --quiet --out FILE            (S6 load range, waits)
  ckptdp sweep INSTANCE --scenario S6 --param segments --values 12,24 --json      (Fig. 12(a))
  ckptdp sweep INSTANCE --scenario S6 --param gpu-capacity --values 1280 --json   (Fig. 12(b))
  ckptdp modes INSTANCE --json                                      (Fig. 9 counts)

and prints the Markdown tables of docs/reproduction.md, "Table IV on both instances": each
instance against Table IV row by row with the deviation, then the other facts side by side.
For the TOU instance it also solves S1, S3 and S4 with --out and prints where each flexible
scenario buys its grid energy and charges and discharges the battery, by TOU price level.
Takes several minutes (branch and bound runs on S4 and S6 of each instance).

Usage (from the repository root):
  /usr/bin/python3 tools/reproduction-table.py [build/ckptdp] [--keep DIR]
--keep DIR writes every raw JSON output there and, when run again with the same DIR, reuses
the outputs already in it instead of solving (to re-render the tables; delete DIR to re-solve).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTANCES = [("LMP", "instances/paper_2048gpu.json"), ("TOU", "instances/paper_2048gpu_tou.json")]
SCENARIOS = ["S1", "S2", "S3", "S4", "S5", "S6"]

# Table IV of the paper: cost, red., grid, curt., BESS thru., RE util., green share, peak kW, GPUs.
TABLE_IV = {
    "S1": (473.03, 0.00, 8.965, 1.077, 0.000, 93.46, 63.20, 1015.0, 1280),
    "S2": (473.03, 0.00, 8.965, 1.077, 0.000, 93.46, 63.20, 1015.0, 1280),
    "S3": (368.99, 21.99, 8.395, 0.000, 0.000, 100.00, 66.24, 1399.0, 2048),
    "S4": (378.33, 20.02, 8.434, 0.014, 0.000, 99.92, 66.12, 1335.2, 2048),
    "S5": (447.23, 5.45, 8.281, 0.319, 1.442, 98.06, 66.00, 1015.0, 1280),
    "S6": (377.79, 20.13, 8.422, 0.000, 0.026, 100.00, 66.17, 1335.2, 2048),
}
KEYS = ["cost_usd", "cost_reduction_pct", "grid_mwh", "curtailment_mwh", "bess_throughput_mwh",
        "re_utilization_pct", "green_share_pct", "peak_power_kw", "peak_gpus"]
# How each column's deviation is shown: relative (%) for costs, absolute otherwise.
DEV_KIND = ["rel", "pt", "abs3", "abs3", "abs3", "pt", "pt", "abs1", "int"]
FMT = ["%.2f", "%.2f", "%.3f", "%.3f", "%.3f", "%.2f", "%.2f", "%.1f", "%d"]


def fail(msg):
    sys.stderr.write("reproduction-table: error: " + msg + "\n")
    sys.exit(1)


def cached(keep, name):
    """The parsed output kept by an earlier run with --keep, or None."""
    if keep and os.path.isfile(os.path.join(keep, name)):
        with open(os.path.join(keep, name)) as f:
            return json.load(f)
    return None


def run_json(cmd, keep, name):
    """Run a ckptdp command that prints JSON on stdout; return the parsed object."""
    hit = cached(keep, name)
    if hit is not None:
        return hit
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        fail("%s exited with %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-400:]))
    if keep:
        with open(os.path.join(keep, name), "w") as f:
            f.write(out.stdout)
    return json.loads(out.stdout)


def solve_json(binary, inst, scenario, keep, name):
    hit = cached(keep, name)
    if hit is not None:
        return hit
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.json")
        cmd = [binary, "solve", inst, "--scenario", scenario, "--quiet", "--out", path]
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if out.returncode != 0:
            fail("%s exited with %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()[-400:]))
        with open(path) as f:
            text = f.read()
    if keep:
        with open(os.path.join(keep, name), "w") as f:
            f.write(text)
    return json.loads(text)


def waits(job, dt_h):
    """Waiting spans (start slot, hours) of a job: slots of its window that no run covers."""
    covered = set()
    for r in job["runs"]:
        covered.update(range(r["start_slot"], r["end_slot"]))
    spans, start = [], None
    for t in range(job["release_slot"], job["deadline_slot"] + 1):
        idle = t < job["deadline_slot"] and t not in covered
        if idle and start is None:
            start = t
        elif not idle and start is not None:
            spans.append((start, (t - start) * dt_h))
            start = None
    return spans


def measure(binary, label, inst, keep):
    sys.stderr.write("reproduction-table: %s (%s) ...\n" % (label, inst))
    tag = label.lower()
    sc = run_json([binary, "scenarios", inst, "--json"], keep, "%s-scenarios.json" % tag)
    by = {s["scenario"]: s for s in sc["scenarios"]}
    s6 = solve_json(binary, inst, "S6", keep, "%s-solve-S6.json" % tag)
    seg = run_json([binary, "sweep", inst, "--scenario", "S6", "--param", "segments", "--values", "12,24",
                    "--json"], keep, "%s-sweep-segments.json" % tag)
    cap = run_json([binary, "sweep", inst, "--scenario", "S6", "--param", "gpu-capacity", "--values", "1280",
                    "--json"], keep, "%s-sweep-gpu-capacity.json" % tag)
    modes = run_json([binary, "modes", inst, "--json"], keep, "%s-modes.json" % tag)

    m = {s: by[s]["metrics"] for s in SCENARIOS}
    if any(m[s]["cost_usd"] is None for s in SCENARIOS):
        fail("%s: a scenario has no schedule" % inst)
    dt_h = s6["site"]["step_minutes"] / 60.0

    def aidc_mwh(s):  # green share = share of the AIDC energy not bought from the grid
        return m[s]["grid_mwh"] / (1.0 - m[s]["green_share_pct"] / 100.0)

    loads = [x["aidc_kw"] for x in s6["slots"]]
    job_b = next(j for j in s6["jobs"] if j["name"].startswith("LLM-B"))
    job_a = next(j for j in s6["jobs"] if j["name"].startswith("LLM-A"))
    b_waits = waits(job_b, dt_h)
    longest = max(b_waits, key=lambda w: w[1]) if b_waits else (None, 0.0)
    pts = {p["value"]: p for p in seg["points"]}
    c12, c24 = pts[12.0]["objective_usd"], pts[24.0]["objective_usd"]
    c1280 = cap["points"][0]["objective_usd"]
    if abs(s6["objective_usd"] - m["S6"]["cost_usd"]) > 1e-6 or abs(c12 - m["S6"]["cost_usd"]) > 1e-6:
        fail("%s: S6 differs between scenarios, solve and sweep (%.4f, %.4f, %.4f)" % (
            inst, m["S6"]["cost_usd"], s6["objective_usd"], c12))
    jobs = {j["name"]: j for j in modes["jobs"]}
    ja = next(v for k, v in jobs.items() if k.startswith("LLM-A"))
    jb = next(v for k, v in jobs.items() if k.startswith("LLM-B"))
    facts = {
        "s4_extra_energy": aidc_mwh("S4") - aidc_mwh("S1"),
        "s4_grid": m["S4"]["grid_mwh"],
        "s4_curt": m["S4"]["curtailment_mwh"],
        "s4_share": 100.0 * m["S4"]["cost_reduction_pct"] / m["S3"]["cost_reduction_pct"],
        "s4_minus_s3": m["S4"]["cost_usd"] - m["S3"]["cost_usd"],
        "s6_vs_s4": 100.0 * (m["S4"]["cost_usd"] - m["S6"]["cost_usd"]) / m["S4"]["cost_usd"],
        "s6_bess": m["S6"]["bess_throughput_mwh"],
        "s6_load_min": min(loads),
        "s6_load_max": max(loads),
        "b_wait_h": longest[1],
        "b_resume_slot": (longest[0] + int(round(longest[1] / dt_h))) if longest[0] is not None else None,
        "a_min_gpus": min(r["gpus"] for r in job_a["runs"]),
        "gran_gain": 100.0 * (c12 - c24) / c12,
        "cap1280": c1280,
        "feas_a": ja["feasible_count"], "feas_b": jb["feasible_count"],
        "eff_a": ja["effective_count"], "eff_b": jb["effective_count"],
    }
    by_level = None
    if label == "TOU":
        sol = {s: solve_json(binary, inst, s, keep, "%s-solve-%s.json" % (tag, s)) for s in ("S1", "S3", "S4")}
        sol["S6"] = s6
        by_level = price_levels(sol)
    return {"metrics": m, "gap": {s: by[s]["gap"] for s in SCENARIOS}, "facts": facts, "by_level": by_level,
            "b_waits": b_waits, "gaps12_24": (pts[12.0]["gap"], pts[24.0]["gap"]),
            "gap1280": cap["points"][0]["gap"]}


def unsigned_zero(text):
    """'-0.00' and '+0.000' as '0': a deviation that rounds to zero has no sign."""
    digits = text.lstrip("+-").split(" ")[0]
    return text.replace(text.split(" ")[0], "0") if digits and float(digits) == 0.0 else text


def price_levels(sol):
    """Per price level: hours, and per scenario grid MWh, grid cost and battery charge/discharge."""
    levels = {}
    for s, r in sol.items():
        dt_h = r["site"]["step_minutes"] / 60.0
        for x in r["slots"]:
            p = round(x["price_usd_per_mwh"], 6)
            row = levels.setdefault(p, {"slots": set()})
            row["slots"].add(x["slot"])
            cell = row.setdefault(s, [0.0, 0.0, 0.0, 0.0])
            cell[0] += x["grid_kw"] * dt_h / 1000.0
            cell[1] += x["grid_kw"] * dt_h / 1000.0 * p
            cell[2] += x["charge_kw"] * dt_h / 1000.0
            cell[3] += x["discharge_kw"] * dt_h / 1000.0
    return levels


def levels_table(res):
    lv = res["by_level"]
    print("<!-- TOU instance: grid purchase by price level -->")
    print("| Level (USD/MWh) | Slots | S1 grid (MWh) | S3 grid | S4 grid | S6 grid | S4 - S1 grid cost (USD) "
          "| S6 battery charge / discharge (MWh) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    total = 0.0
    for p in sorted(lv):
        row = lv[p]
        slots = sorted(row["slots"])
        spans, start = [], slots[0]
        for a, b in zip(slots, slots[1:] + [None]):
            if b != a + 1:
                spans.append("%d-%d" % (start, a) if a > start else "%d" % a)
                start = b
        delta = row["S4"][1] - row["S1"][1]
        total += delta
        print("| %.2f | %s | %.3f | %.3f | %.3f | %.3f | %+.2f | %.3f / %.3f |" % (
            p, ", ".join(spans), row["S1"][0], row["S3"][0], row["S4"][0], row["S6"][0], delta,
            row["S6"][2], row["S6"][3]))
    print("| all | | %s | %+.2f | |" % (" | ".join("%.3f" % sum(lv[p][s][0] for p in lv)
                                                  for s in ("S1", "S3", "S4", "S6")), total))
    print()


def dev(kind, ours, paper):
    return unsigned_zero(signed_dev(kind, ours, paper))


def signed_dev(kind, ours, paper):
    if kind == "rel":
        return "%+.2f %%" % (100.0 * (ours - paper) / paper) if paper else "–"
    if kind == "pt":
        return "%+.2f pt" % (ours - paper)
    if kind == "abs3":
        return "%+.3f" % (ours - paper)
    if kind == "abs1":
        return "%+.1f" % (ours - paper)
    return "%+d" % (ours - paper)


def table_iv(label, res):
    print("<!-- %s instance against Table IV -->" % label)
    print("| | | cost (USD) | red. (%) | grid (MWh) | curt. (MWh) | BESS thru. (MWh) | RE util. (%) "
          "| green (%) | peak (kW) | peak GPUs | gap |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in SCENARIOS:
        paper = TABLE_IV[s]
        ours = [res["metrics"][s][k] + 0.0 for k in KEYS]
        ours = [0.0 if abs(v) < 1e-9 else v for v in ours]  # no "-0.00" from a 1e-14 reduction
        print("| %s | paper | %s | |" % (s, " | ".join(f % v for f, v in zip(FMT, paper))))
        gap = res["gap"][s]
        print("| | %s | %s | %s |" % (label, " | ".join(f % v for f, v in zip(FMT, ours)),
                                     "0" if gap == 0 else "%.2f%%" % (100 * gap)))
        print("| | deviation | %s | |" % " | ".join(dev(k, o, p) for k, o, p in zip(DEV_KIND, ours, paper)))
    print()


def facts_table(results):
    rows = [
        ("S4 AIDC energy above S1 (MWh)", 0.53, "s4_extra_energy", "%.3f", "abs3"),
        ("S4 grid (MWh)", 8.434, "s4_grid", "%.3f", "abs3"),
        ("S4 curtailment (MWh)", 0.014, "s4_curt", "%.3f", "abs3"),
        ("S4 share of S3's saving (%)", 91.0, "s4_share", "%.1f", "pt"),
        ("S4 cost above S3 (USD)", 9.34, "s4_minus_s3", "%.2f", "abs2"),
        ("S6 cost below S4 (%)", 0.14, "s6_vs_s4", "%.2f", "pt"),
        ("S6 BESS throughput (MWh)", 0.026, "s6_bess", "%.3f", "abs3"),
        ("S6 AIDC load, min (kW)", 455.0, "s6_load_min", "%.1f", "abs1"),
        ("S6 AIDC load, max (kW)", 1335.2, "s6_load_max", "%.1f", "abs1"),
        ("S6 LLM-B longest checkpoint wait (h)", 3.0, "b_wait_h", "%.0f", "abs0"),
        ("S6 LLM-B resumes at slot (0-based)", None, "b_resume_slot", "%s", None),
        ("S6 LLM-A smallest mode (GPUs)", 160, "a_min_gpus", "%d", "int"),
        ("Fig. 12(a): S6 cost, K = 12 -> 24 (%)", 1.51, "gran_gain", "%.2f", "pt"),
        ("Fig. 12(b): S6 with 1280 GPUs (USD)", 447.23, "cap1280", "%.2f", "rel"),
        ("Fig. 9: feasible modes LLM-A", 135, "feas_a", "%d", "int"),
        ("Fig. 9: feasible modes LLM-B", 111, "feas_b", "%d", "int"),
        ("Fig. 9: effective modes LLM-A", 12, "eff_a", "%d", "int"),
        ("Fig. 9: effective modes LLM-B", 21, "eff_b", "%d", "int"),
    ]
    labels = [l for l, _ in results]
    print("<!-- other published facts -->")
    print("| Fact | Paper | %s |" % " | ".join("%s | deviation" % l for l in labels))
    print("|---|---:|%s" % ("---:|---:|" * len(labels)))
    for name, paper, key, fmt, kind in rows:
        cells = []
        for _, res in results:
            v = res["facts"][key]
            if kind is None or paper is None:
                cells += [fmt % v, "–"]
            elif kind == "abs2":
                cells += [fmt % v, unsigned_zero("%+.2f" % (v - paper))]
            elif kind == "abs0":
                cells += [fmt % v, unsigned_zero("%+.0f" % (v - paper))]
            else:
                cells += [fmt % v, dev(kind, v, paper)]
        print("| %s | %s | %s |" % (name, "hour 22" if paper is None else str(paper), " | ".join(cells)))
    print()
    for label, res in results:
        print("%s: LLM-B waits (start slot, hours) %s; gaps: S6 K=12 %.2f%%, K=24 %.2f%%, 1280 GPUs %.2f%%" % (
            label, ", ".join("(%d, %.0f)" % w for w in res["b_waits"]) or "none",
            100 * res["gaps12_24"][0], 100 * res["gaps12_24"][1], 100 * res["gap1280"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(REPO, "build", "ckptdp"))
    ap.add_argument("--keep", help="directory for the raw JSON outputs (reused if present)")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        fail("%s is not an executable ckptdp binary" % args.binary)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    results = []
    for label, rel in INSTANCES:
        inst = os.path.join(REPO, rel)
        if not os.path.isfile(inst):
            fail("%s not found (tools/build-paper-day.py --tou writes the TOU instance)" % rel)
        results.append((label, measure(args.binary, label, inst, args.keep)))
    for label, res in results:
        table_iv(label, res)
    facts_table(results)
    print()
    for label, res in results:
        if res["by_level"]:
            levels_table(res)


if __name__ == "__main__":
    main()
