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
    with open(path("master.start")) as f:
        chosen = {line.split()[1] for line in f
                  if line[0].isdigit() and line.split()[1].startswith("z_j")
                  and float(line.split()[2]) == 1}
    with open(path("master.mps")) as f:
        plans = sum(1 for line in f if line.startswith(" BV ") and " z_j" in line)

    gap = lambda value: 100 * (value - bound) / value  # noqa: E731
    print("| step | value USD | above our bound | note |")
    print("|---|---:|---:|---|")
    print(f"| our solve ({args.scenario}, {args.time_limit:g} s) | {ours:.2f} | {gap(ours):.3f} % "
          f"| bound {bound:.2f} USD; pool of {plans} plans, {len(chosen)} jobs |")

    run(["cbc", path("master.mps"), "-initialSolve", "-solu", path("lp.sol")], path("lp.log"))
    status, values = read_solution(path("lp.sol"))
    lp = objective(status)
    support = {name for name, v in values.items() if name.startswith("z_j") and v > 1e-9}
    split = {plan_job(n) for n in support if values[n] < 1 - 1e-6}
    tol = 1e-6 * max(1.0, abs(ours))
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


def solve_from_ours(mps, start, seconds, stem, ours, tol):
    """CBC on `mps` from our schedule for at most `seconds`: (its best value, a note with its
    status and, when not proven, its bound). Exits if the best is above ours: the start is
    feasible, so that would be a broken master or a broken start."""
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
