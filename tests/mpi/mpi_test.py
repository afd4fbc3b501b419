#!/usr/bin/env python3
"""Distributed runs of the ckptdp tool under mpirun (docs/distributed.md), one case per CTest
test (registered in CMakeLists.txt only when MPI is built in).

  mpi_test.py --mpiexec MPIRUN --ckptdp CKPTDP --source SOURCE_DIR CASE RANKS

Cases:
  sweep      a sweep's JSON equals the single-process sweep's (wall-clock seconds aside)
  scenarios  the six scenarios' JSON equals the single-process run's (seconds aside)
  solve      a 64-job week: the result passes `ckptdp check`, has the single-process
             run's bound (the same iterations, to the bit) and a gap within 0.1 % of its gap
  search     a 16-job instance whose distributed neighbourhood search improves: the result
             passes `ckptdp check` and a second run gives the same result (seconds aside)
  bnb        a small S6 instance that branches: the distributed branch and bound proves the
             single process's optimum, the result passes `ckptdp check`, and a second run
             gives the same result (seconds aside)
  failure    a rank that dies mid-solve: non-zero exit, a message naming it, no output file
  bnbfailure the same for a rank that dies in round 50 of a distributed branch and bound
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, env=None, expect_ok=True):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    if expect_ok and p.returncode != 0:
        sys.exit(f"FAILED ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def strip_seconds(doc):
    """The JSON without its wall-clock fields, which differ between any two runs."""
    if isinstance(doc, dict):
        return {k: strip_seconds(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [strip_seconds(v) for v in doc]
    return doc


def mpi(args, ranks):
    return [args.mpiexec, "--oversubscribe", "-n", str(ranks), args.ckptdp]


def same_json(args, ranks, command):
    alone = run([args.ckptdp] + command).stdout
    together = run(mpi(args, ranks) + command).stdout
    a, b = strip_seconds(json.loads(alone)), strip_seconds(json.loads(together))
    if a != b:
        sys.exit(f"FAILED: {ranks} ranks differ from one process\n--- alone\n{alone}\n--- mpirun\n{together}")


def case_sweep(args, ranks):
    paper = os.path.join(args.source, "instances", "paper_2048gpu.json")
    # 1024 has no schedule (proven infeasible), the others solve in a fraction of a second.
    same_json(args, ranks, ["sweep", paper, "--scenario", "S4", "--param", "gpu-capacity",
                            "--values", "1024,1280,1536,2048", "--json", "--log-level", "0"])


def case_scenarios(args, ranks):
    small = os.path.join(args.source, "instances", "small_3job_12slot.json")
    same_json(args, ranks, ["scenarios", small, "--json", "--max-nodes", "50", "--log-level", "0"])


# Small budgets: the test is about agreement, not about the best schedule.
SOLVE_FLAGS = ["--scenario", "S4", "--max-iterations", "40", "--max-nodes", "0",
               "--neighbourhood-stall", "1", "--threads", "1", "--quiet"]


def week(tmp, args):
    path = os.path.join(tmp, "week64.json")
    run([args.ckptdp, "generate", "--jobs", "64", "--hours", "168", "--seed", "1", "-o", path])
    return path


def case_solve(args, ranks):
    with tempfile.TemporaryDirectory() as tmp:
        instance = week(tmp, args)
        alone, together = os.path.join(tmp, "alone.json"), os.path.join(tmp, "mpi.json")
        run([args.ckptdp, "solve", instance, "--out", alone] + SOLVE_FLAGS)
        run(mpi(args, ranks) + ["solve", instance, "--out", together] + SOLVE_FLAGS)
        run([args.ckptdp, "check", instance, together])
        a, b = json.load(open(alone)), json.load(open(together))
        if a["lower_bound_usd"] != b["lower_bound_usd"]:
            sys.exit(f"FAILED: bound {b['lower_bound_usd']} with {ranks} ranks, "
                     f"{a['lower_bound_usd']} alone")
        # One run of each search ends where its draws lead: on this week three ranks ended
        # 0.41 points above one process at --neighbourhood-stall 1, 0.28 above at 5, and
        # below it at 2 and 3 (measured when repairs began to learn, 2026-12-05). Without
        # a search the gap is 6.2 % against 4.5 %: half a point still catches a distributed
        # search that does not search.
        if b["gap"] > a["gap"] + 0.005:
            sys.exit(f"FAILED: gap {b['gap']} with {ranks} ranks, {a['gap']} alone")
        print(f"{ranks} ranks: objective {b['objective_usd']} gap {b['gap']}; "
              f"alone: objective {a['objective_usd']} gap {a['gap']}")


def same_as_before(args, ranks, command, first, tmp):
    """A second distributed run of `command` writes the same result as `first` did."""
    again = os.path.join(tmp, "again.json")
    run(mpi(args, ranks) + command + ["--out", again])
    a, b = strip_seconds(json.load(open(first))), strip_seconds(json.load(open(again)))
    if a != b:
        sys.exit(f"FAILED: two runs with {ranks} ranks differ:\n{json.dumps(a)}\n{json.dumps(b)}")


def case_search(args, ranks):
    with tempfile.TemporaryDirectory() as tmp:
        instance = os.path.join(tmp, "w16.json")
        run([args.ckptdp, "generate", "--jobs", "16", "--hours", "48", "--seed", "3", "-o",
             instance])
        flags = ["solve", instance, "--scenario", "S4", "--max-iterations", "40", "--max-nodes",
                 "0", "--neighbourhood-stall", "5", "--threads", "1"]
        first = os.path.join(tmp, "mpi.json")
        p = run(mpi(args, ranks) + flags + ["--out", first])
        stats = [line for line in p.stderr.splitlines() if "neighbourhood search:" in line]
        if not stats or " 0 improvements" in stats[0].split(";")[0]:
            sys.exit(f"FAILED: the search did not improve the schedule:\n{p.stderr}")
        run([args.ckptdp, "check", instance, first])
        same_as_before(args, ranks, flags + ["--quiet"], first, tmp)
        print(f"{ranks} ranks: {stats[0].split('  ')[-1]}")


def case_bnb(args, ranks):
    instance = os.path.join(args.source, "instances", "small_2job_8slot.json")
    # Without the battery DP of the decomposition's slot side, which proves this instance at
    # the root (docs/engine.md), so that the proof branches.
    flags = ["solve", instance, "--scenario", "S6", "--threads", "1", "--battery-slot-cells", "0"]
    with tempfile.TemporaryDirectory() as tmp:
        alone, together = os.path.join(tmp, "alone.json"), os.path.join(tmp, "mpi.json")
        run([args.ckptdp] + flags + ["--quiet", "--out", alone])
        p = run(mpi(args, ranks) + flags + ["--out", together])
        if f"distributed branch and bound: {ranks} ranks" not in p.stderr:
            sys.exit(f"FAILED: no distributed branch and bound in the log:\n{p.stderr}")
        run([args.ckptdp, "check", instance, together])
        same_as_before(args, ranks, flags + ["--quiet"], together, tmp)
        a, b = json.load(open(alone)), json.load(open(together))
        for name, r in (("alone", a), (f"{ranks} ranks", b)):
            if r["status"] != "optimal" or r["solver"]["nodes"] < 10:
                sys.exit(f"FAILED: {name}: status {r['status']} after {r['solver']['nodes']} "
                         "nodes; the test needs a proof that branches")
        # Both are proven optimal within the gap target (0.01 %): each objective is at most
        # the other's bound plus that gap (twice it: the gap is relative to either value).
        for x, y in ((a, b), (b, a)):
            if x["objective_usd"] > y["lower_bound_usd"] * (1 + 2e-4) + 1e-9:
                sys.exit(f"FAILED: objective {x['objective_usd']} above the other run's "
                         f"bound {y['lower_bound_usd']}")
        print(f"{ranks} ranks: optimum {b['objective_usd']} in {b['solver']['nodes']} nodes; "
              f"alone: {a['objective_usd']} in {a['solver']['nodes']} nodes")


def case_failure(args, ranks):
    with tempfile.TemporaryDirectory() as tmp:
        instance = week(tmp, args)
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, CKPTDP_TEST_FAIL_RANK=str(ranks - 1), CKPTDP_TEST_FAIL_STEP="3")
        p = run(mpi(args, ranks) + ["solve", instance, "--out", out] + SOLVE_FLAGS, env=env,
                expect_ok=False)
        if p.returncode == 0:
            sys.exit("FAILED: the run succeeded although a rank died")
        message = f"rank {ranks - 1}: injected failure"
        if message not in p.stderr:
            sys.exit(f"FAILED: no '{message}' on stderr:\n{p.stderr}")
        if os.listdir(tmp) != ["week64.json"]:
            sys.exit(f"FAILED: files left behind: {os.listdir(tmp)}")
        print(f"exit code {p.returncode}, no output file")


def case_bnbfailure(args, ranks):
    instance = os.path.join(args.source, "instances", "small_2job_8slot.json")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, CKPTDP_TEST_FAIL_RANK=str(ranks - 1), CKPTDP_TEST_FAIL_STEP="50",
                   CKPTDP_TEST_FAIL_WHERE="branch-and-bound round")
        # Without the slot side's battery DP, as in case_bnb, so that the solve branches.
        p = run(mpi(args, ranks) + ["solve", instance, "--scenario", "S6", "--threads", "1",
                                    "--battery-slot-cells", "0", "--quiet", "--out", out],
                env=env, expect_ok=False)
        if p.returncode == 0:
            sys.exit("FAILED: the run succeeded although a rank died")
        message = f"rank {ranks - 1}: injected failure (CKPTDP_TEST_FAIL_RANK) at branch-and-bound round 50"
        if message not in p.stderr:
            sys.exit(f"FAILED: no '{message}' on stderr:\n{p.stderr}")
        if os.listdir(tmp):
            sys.exit(f"FAILED: files left behind: {os.listdir(tmp)}")
        print(f"exit code {p.returncode}, no output file")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--ckptdp", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("case", choices=["sweep", "scenarios", "solve", "search", "bnb", "failure",
                                         "bnbfailure"])
    parser.add_argument("ranks", type=int)
    args = parser.parse_args()
    globals()["case_" + args.case](args, args.ranks)


if __name__ == "__main__":
    main()
