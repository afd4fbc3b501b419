#!/usr/bin/python3
"""Which side of the gap? The restricted master over a solve's plans, solved by CBC (issue 21).

    tools/restricted-master.py INSTANCE [--scenario S4] [--time-limit 60] [--threads 2]
        [--support-seconds 600] [--master-seconds 0] [--binary build/ckptdp] [--dir DIR]

Runs `ckptdp solve INSTANCE --restricted-master --restricted-master-start` (docs/engine.md,
"The plan pool and the restricted master"), then CBC on what it wrote:

  1. the master's LP relaxation: the path formulation's LP over the pool's plans, against
     our Lagrangian bound (the LP over every plan);
  2. the LP's support: how many jobs it splits over several plans, and how many plans it
     uses;
  3. the master restricted to the LP's support plans and our schedule's plans, from our
     schedule, for at most --support-seconds: the best schedule that rounds the LP's plans
     (our schedule is one of its points, so it is at most our objective). On the 128-job
     weeks CBC proves its optimum in seconds; on the 512-job week it found no schedule of
     its own in 600 s, hence the start;
  4. with --master-seconds > 0, the whole master for that long from our schedule.

Then a second table says where our schedule and the master's LP differ: the slots where the
LP uses every GPU, those where it is at the site's power cap, and the others, with the
GPU-slots, the energy and the cost of each side there (the costs summed over the slots must
give both objectives, or the script exits non-zero).

Both MILP steps start from our schedule (`-mipstart`, `-preprocess off`: CBC 2.10's
preprocessing rejects the start).

Prints one Markdown table row per step. Needs cbc on PATH (Debian's coinor-cbc). Any
failure (solve, CBC, a file CBC did not write) exits non-zero, and so does a result that
breaks what the model guarantees: a master optimum above our objective (the pool holds our
schedule). (The master's LP may lie below our bound where branch and bound or the
decomposition raised it above the LP.) CTest runs it on a small instance.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


def run(command, log):
    with open(log, "w") as out:
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"restricted-master: {' '.join(command)} exited {done.returncode}; see {log}")


def read_solution(path):
    """CBC's -solu file: (status line, {column name: value})."""
    if not os.path.exists(path):
        sys.exit(f"restricted-master: CBC wrote no solution file {path}")
    with open(path) as f:
        status = f.readline().strip()
        values = {}
        for line in f:
            fields = line.replace("**", " ").split()
            if len(fields) >= 3:
                values[fields[1]] = float(fields[2])
    return status, values


def objective(status):
    match = re.search(r"objective value (\S+)", status)
    if not match:
        sys.exit(f"restricted-master: no objective in CBC's status line '{status}'")
    return float(match.group(1))


def plan_job(name):
    return int(name.split("_")[1][1:])  # z_j<j>_p<p>


def restrict(master, keep, out):
    """The master with every plan outside `keep` fixed at 0 (MPS BOUNDS of the binaries)."""
    with open(master) as f, open(out, "w") as o:
        for line in f:
            fields = line.split()
            if line.startswith(" BV ") and fields[2].startswith("z_j") and fields[2] not in keep:
                o.write(f" FX {fields[1]} {fields[2]} 0\n")
            else:
                o.write(line)


def slot_breakdown(master, lp_values, our_values):
    """Per slot, for the LP and for ours: GPUs in use, the AIDC load (kW) and the cost; the
    slots where the LP fills the GPUs or the site's power cap (the `aidc_t` column's bound);
    and how many plans the master has.

    Streams the master's MPS once and keeps the plans either solution uses: the whole master
    of a long week does not fit in a Python dict."""
    used = {name for values in (lp_values, our_values) for name, v in values.items()
            if name.startswith("z_j") and v != 0}
    gpu_rows, capacity, power_cap, cost = {}, {}, {}, {}
    section, plans, last_plan = None, 0, None
    with open(master) as f:
        for line in f:
            if not line.startswith(" "):
                section = line.split()[0]
                continue
            fields = line.split()
            if section == "COLUMNS" and "MARKER" not in line:
                name = fields[0]
                is_plan = name.startswith("z_j")
                if is_plan and name != last_plan:  # a column's lines are consecutive
                    plans, last_plan = plans + 1, name
                if is_plan and name not in used:
                    continue
                for row, value in zip(fields[1::2], fields[2::2]):
                    if row == "COST":
                        cost[name] = float(value)
                    elif is_plan and row.startswith("gpu_t"):
                        gpu_rows.setdefault(name, []).append((int(row[5:]), float(value)))
            elif section == "RHS":
                for row, value in zip(fields[1::2], fields[2::2]):
                    if row.startswith("gpu_t"):
                        capacity[int(row[5:])] = float(value)
            elif section == "BOUNDS" and fields[0] == "UP" and fields[2].startswith("aidc_t"):
                power_cap[int(fields[2][6:])] = float(fields[3])
    slots = max(capacity) + 1 if capacity else 0

    def per_slot(values):
        gpus, load, usd = [0.0] * slots, [0.0] * slots, [0.0] * slots
        for name, v in values.items():
            for t, a in gpu_rows.get(name, []):
                gpus[t] += v * a
            slot = re.search(r"_t(\d+)$", name)
            if slot and name in cost:
                usd[int(slot.group(1))] += cost[name] * v
            if slot and name.startswith("aidc_t"):
                load[int(slot.group(1))] = v
        return gpus, load, usd

    lp, ours = per_slot(lp_values), per_slot(our_values)
    gpus_full = {t for t in range(slots) if lp[0][t] > capacity[t] - 0.5}
    power_full = {t for t in range(slots) if t not in gpus_full and t in power_cap
                  and lp[1][t] > power_cap[t] * (1 - 1e-9) - 1e-6}
    groups = [("the LP uses every GPU", sorted(gpus_full)),
              ("the LP is at the site's power cap", sorted(power_full)),
              ("the others", [t for t in range(slots) if t not in gpus_full | power_full])]
    return lp, ours, groups, plans


def print_breakdown(breakdown, lp_value, ours_value, tol, step_hours):
    lp, ours, groups, _ = breakdown
    for name, value, (_, _, usd) in (("the master's LP", lp_value, lp), ("ours", ours_value, ours)):
        if abs(sum(usd) - value) > max(tol, 0.01):
            sys.exit(f"restricted-master: the per-slot costs of {name} sum to {sum(usd)}, "
                     f"not its objective {value}")
    print()
    print("| slots where | count | GPU-slots: LP | ours | AIDC energy MWh: LP | ours | "
          "cost USD: LP | ours |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, ts in groups:
        total = lambda series: sum(series[t] for t in ts)  # noqa: E731
        mwh = lambda series: total(series) * step_hours / 1000  # noqa: E731
        print(f"| {label} | {len(ts)} | {total(lp[0]):.0f} | {total(ours[0]):.0f} | "
              f"{mwh(lp[1]):.1f} | {mwh(ours[1]):.1f} | {total(lp[2]):.2f} | "
              f"{total(ours[2]):.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("instance")
    parser.add_argument("--scenario", default="S4")
    parser.add_argument("--time-limit", type=float, default=60)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--support-seconds", type=float, default=600)
    parser.add_argument("--master-seconds", type=float, default=0)
    parser.add_argument("--binary", default="build/ckptdp")
    parser.add_argument("--dir", help="keep the files here (default: a scratch directory)")
    args = parser.parse_args()

    work = args.dir or tempfile.mkdtemp(prefix="ckptdp_master_")
    os.makedirs(work, exist_ok=True)
    path = lambda name: os.path.join(work, name)  # noqa: E731
    run([args.binary, "solve", args.instance, "--scenario", args.scenario, "--time-limit",
         str(args.time_limit), "--threads", str(args.threads), "--restricted-master",
         path("master.mps"), "--restricted-master-start", path("master.start"), "--out",
         path("result.json")], path("solve.log"))
    with open(path("result.json")) as f:
        result = json.load(f)
    ours, bound = result["objective_usd"], result["lower_bound_usd"]
    _, our_values = read_solution(path("master.start"))
    chosen = {name for name, v in our_values.items() if name.startswith("z_j") and v == 1}

    run(["cbc", path("master.mps"), "-initialSolve", "-solu", path("lp.sol")], path("lp.log"))
    status, values = read_solution(path("lp.sol"))
    lp = objective(status)
    support = {name for name, v in values.items() if name.startswith("z_j") and v > 1e-9}
    split = {plan_job(n) for n in support if values[n] < 1 - 1e-6}
    tol = 1e-6 * max(1.0, abs(ours))
    with open(args.instance) as f:
        step_hours = json.load(f)["time"]["step_minutes"] / 60
    breakdown = slot_breakdown(path("master.mps"), values, our_values)
    pool_plans = breakdown[-1]

    gap = lambda value: 100 * (value - bound) / value  # noqa: E731
    print("| step | value USD | above our bound | note |")
    print("|---|---:|---:|---|")
    print(f"| our solve ({args.scenario}, {args.time_limit:g} s) | {ours:.2f} | {gap(ours):.3f} % "
          f"| bound {bound:.2f} USD; pool of {pool_plans} plans, {len(chosen)} jobs |")
    print(f"| master LP | {lp:.2f} | {gap(lp):.3f} % | splits {len(split)} of {len(chosen)} jobs "
          f"over {len(support)} plans |")

    restrict(path("master.mps"), support | chosen, path("support.mps"))
    rounded, note = solve_from_ours(path("support.mps"), path("master.start"),
                                    args.support_seconds, path("support"), ours, tol)
    print(f"| master on the LP's plans and ours | {rounded:.2f} | {gap(rounded):.3f} % | "
          f"{len(support | chosen)} plans; {note} |")

    if args.master_seconds > 0:
        best, note = solve_from_ours(path("master.mps"), path("master.start"),
                                     args.master_seconds, path("master"), ours, tol)
        print(f"| whole master, {args.master_seconds:g} s from ours | {best:.2f} | "
              f"{gap(best):.3f} % | {note} |")

    print_breakdown(breakdown, lp, ours, tol, step_hours)


def solve_from_ours(mps, start, seconds, stem, ours, tol):
    """CBC on `mps` from our schedule for at most `seconds`: (its best value, a note with its
    status and, when not proven, its bound). Exits if CBC has no schedule or one above ours:
    the start is feasible, so either would be a broken master or a broken start."""
    run(["cbc", mps, "-preprocess", "off", "-mipstart", start, "-threads", "1", "-sec",
         f"{seconds:g}", "-ratioGap", "0", "-solve", "-solu", stem + ".sol"], stem + ".log")
    status, _ = read_solution(stem + ".sol")
    best = objective(status)
    if "no integer solution" in status or best > ours + tol:
        sys.exit(f"restricted-master: CBC's '{status}' from our schedule in {mps}; ours {ours}")
    # The bound of the whole search: its summary's "Lower bound:" (the "best possible" of
    # Cbc0010I rows may belong to a heuristic's sub-MIP).
    with open(stem + ".log") as f:
        bounds = re.findall(r"^Lower bound:\s+(-?[0-9][0-9.eE+-]*)", f.read(), re.MULTILINE)
    proven = status.startswith("Optimal")
    note = f"CBC: {status.split(' - ')[0]}" + (
        f", its bound {float(bounds[-1]):.2f} USD" if bounds and not proven else "")
    return best, note


if __name__ == "__main__":
    main()
