#!/usr/bin/python3
"""The scale curve of one engine iteration, from scale_bench's JSON output (issue 6).

    tools/scale-curve.py BENCH.json [--plot docs/img/scale-curve.png] [--table OUT.md]

BENCH.json is `scale_bench --benchmark_format=json --benchmark_out=BENCH.json` (usually run by
tools/scale-curve.sh). For every (jobs, slots) point it takes the fastest repetition of the
real time per iteration with 1 and with 2 threads (each repetition is itself a mean over
many iterations; on a shared machine the noise only ever adds time: other processes, and
slow phases of the virtual machine's host that /proc/stat does not show), and writes:

  * a Markdown table (stdout, and --table if given): jobs, slots, modes, train edges, the work
    measure jobs x slots x segments x modes (summed over jobs), the time per iteration with 1
    and 2 threads, ns per edge and per work unit (1 thread), the window share (the part of
    the work inside the jobs' windows, where their DPs run), edges per work unit, the 1-thread
    time over the same iteration with every job's data in cache (BM_ScaleIterationHot: > 1
    means the iteration pays for reloading each job's data) and the 1-vs-2-thread speed-up;
  * the exponent b of time = a * work^b fitted by least squares on log-log axes, for each
    thread count over all points and over each sweep separately (b = 1 is linear);
  * a log-log plot of time per iteration against work, jobs sweep and slots sweep with
    separate markers, 1 and 2 threads in separate colours, each with its fitted line.

Needs only the standard library and matplotlib; run it with /usr/bin/python3. Any error
(unreadable JSON, a failed benchmark, a missing grid point or thread count) exits non-zero.
"""

import argparse
import json
import math
import statistics
import sys

import matplotlib

matplotlib.use("Agg")  # files only; never a display
import matplotlib.pyplot as plt  # noqa: E402

JOBS_SWEEP_SLOTS = 168  # the jobs sweep runs at 168 hourly slots
SLOTS_SWEEP_JOBS = 32  # the slots sweep runs at 32 jobs
THREADS = (1, 2)


def die(message):
    print(f"scale-curve: {message}", file=sys.stderr)
    sys.exit(1)


def load_points(path):
    """{(jobs, slots): {threads: run}} with run = counters plus 'ms' (fastest repetition)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        die(f"cannot read {path}: {e}")
    benchmarks = data.get("benchmarks")
    if not benchmarks:
        die(f"{path} holds no benchmarks")
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    runs = {}  # run_name -> list of repetition entries
    hot_runs = {}  # BM_ScaleIterationHot, (jobs, slots) -> list of repetition entries
    for b in benchmarks:
        if b.get("error_occurred"):
            die(f"{b.get('name')} failed: {b.get('error_message')}")
        if b.get("run_type") == "aggregate":
            continue  # recomputed below from the repetitions themselves
        name = b.get("run_name", "")
        if name.startswith("BM_ScaleIterationHot/"):
            try:
                hot_runs.setdefault((int(b["jobs"]), int(b["slots"])), []).append(b)
            except (KeyError, ValueError) as e:
                die(f"{name}: missing or bad field {e}")
        elif name.startswith("BM_ScaleIteration/"):
            runs.setdefault(name, []).append(b)
    if not runs:
        die(f"{path} holds no BM_ScaleIteration runs")

    def fastest(reps):
        return min(reps, key=lambda r: r["real_time"] * scale[r["time_unit"]])

    points = {}
    for name, reps in runs.items():
        first = reps[0]
        try:
            jobs, slots = int(first["jobs"]), int(first["slots"])
            threads = int(first["arena_threads"])
            ms = [r["real_time"] * scale[r["time_unit"]] for r in reps]
            run = {k: first[k] for k in ("segments", "modes", "edges", "work", "window_work")}
        except (KeyError, ValueError) as e:
            die(f"{name}: missing or bad field {e}")
        best = fastest(reps)
        run["ms"] = min(ms)
        run["ms_median"] = statistics.median(ms)
        run["reps"] = len(ms)
        # Of the fastest repetition: process CPU time over wall time, about `threads` when
        # the run had its cores to itself (TBB's waiting worker spins), and the cores kept
        # busy by other processes meanwhile (scale_bench reads /proc/stat).
        run["cpu_share"] = best["cpu_time"] / best["real_time"]
        run["other_cores"] = float(best["other_cores"])
        if (jobs, slots) not in hot_runs:
            die(f"jobs={jobs} slots={slots}: no BM_ScaleIterationHot run")
        hot = fastest(hot_runs[(jobs, slots)])
        run["hot_ms"] = hot["real_time"] * scale[hot["time_unit"]]
        points.setdefault((jobs, slots), {})[threads] = run
    for key, by_threads in sorted(points.items()):
        for t in THREADS:
            if t not in by_threads:
                die(f"jobs={key[0]} slots={key[1]}: no run with {t} thread(s)")
        if by_threads[1]["work"] != by_threads[2]["work"]:
            die(f"jobs={key[0]} slots={key[1]}: 1- and 2-thread runs saw different instances")
    jobs_sweep = sorted(k for k in points if k[1] == JOBS_SWEEP_SLOTS)
    slots_sweep = sorted((k for k in points if k[0] == SLOTS_SWEEP_JOBS), key=lambda k: k[1])
    if len(jobs_sweep) < 2 or len(slots_sweep) < 2:
        die("need at least two points in each sweep")
    return points, jobs_sweep, slots_sweep


def fit_loglog(xs, ys):
    """Least-squares (a, b, r2) of log y = log a + b log x."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    if sxx == 0:
        die("cannot fit a slope: all work values are equal")
    b = sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sxx
    la = my - b * mx
    ss_res = sum((y - (la + b * x)) ** 2 for x, y in zip(lx, ly))
    ss_tot = sum((y - my) ** 2 for y in ly)
    return math.exp(la), b, 1 - ss_res / ss_tot if ss_tot > 0 else 1.0


def table(points, jobs_sweep, slots_sweep):
    rows = [
        "| sweep | jobs | slots | modes | train edges | work | ms, 1 thread | ms, 2 threads "
        "| ns/edge | ns/work | window share | edges/work | 1 thread / hot | speed-up 1->2 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    order = jobs_sweep + [k for k in slots_sweep if k not in jobs_sweep]
    for key in order:
        sweeps = []
        if key in jobs_sweep:
            sweeps.append("jobs")
        if key in slots_sweep:
            sweeps.append("slots")
        one, two = points[key][1], points[key][2]
        rows.append(
            f"| {'+'.join(sweeps)} | {key[0]} | {key[1]} | {one['modes']:.0f} "
            f"| {one['edges']:.3g} | {one['work']:.3g} | {one['ms']:.3f} | {two['ms']:.3f} "
            f"| {one['ms'] * 1e6 / one['edges']:.2f} | {one['ms'] * 1e6 / one['work']:.2f} "
            f"| {one['window_work'] / one['work']:.2f} | {one['edges'] / one['work']:.2f} "
            f"| {one['ms'] / one['hot_ms']:.2f} "
            f"| {one['ms'] / two['ms']:.2f} |"
        )
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench_json")
    parser.add_argument("--plot", help="PNG to write (e.g. docs/img/scale-curve.png)")
    parser.add_argument("--table", help="also write the Markdown table and fits to this file")
    args = parser.parse_args()

    points, jobs_sweep, slots_sweep = load_points(args.bench_json)
    all_keys = sorted(set(jobs_sweep) | set(slots_sweep))
    out = [table(points, jobs_sweep, slots_sweep), ""]

    fits = {}
    out.append("Fitted exponent b of time per iteration = a * x^b (log-log least squares), x = "
               "work (R^2 given), window work (sum over jobs of window slots x segments x modes) "
               "or train edges; 'hot' is BM_ScaleIterationHot (1 thread, each job's data in "
               "cache); 'without smallest' drops each sweep's first point:")
    out.append("")
    out.append("| threads | points | b vs work | R^2 | b vs window work | b vs train edges |")
    out.append("|---|---|---:|---:|---:|---:|")
    groups = (("all", all_keys), ("jobs sweep", jobs_sweep), ("slots sweep", slots_sweep),
              ("all without smallest", sorted(set(jobs_sweep[1:]) | set(slots_sweep[1:]))))
    for t, field in ((1, "ms"), (2, "ms"), ("1 hot", "hot_ms")):
        for label, keys in groups:
            run = [points[k][1 if t == "1 hot" else t] for k in keys]
            ms = [r[field] for r in run]
            a, b, r2 = fit_loglog([r["work"] for r in run], ms)
            _, b_window, _ = fit_loglog([r["window_work"] for r in run], ms)
            _, b_edges, _ = fit_loglog([r["edges"] for r in run], ms)
            fits[(t, label)] = (a, b)
            out.append(f"| {t} | {label} ({len(keys)}) | {b:.3f} | {r2:.4f} | {b_window:.3f} "
                       f"| {b_edges:.3f} |")
    out.append("")
    out.append("Speed-up 1 -> 2 threads (time with 1 / time with 2, fastest repetitions; the "
               "median repetition is given as 'median +x%' over the fastest):")
    for key in all_keys:
        one, two = points[key][1], points[key][2]
        slower1 = 100 * (one["ms_median"] / one["ms"] - 1)
        slower2 = 100 * (two["ms_median"] / two["ms"] - 1)
        out.append(f"  jobs={key[0]:4d} slots={key[1]:4d}: {one['ms'] / two['ms']:.2f}x "
                   f"(1 thread {one['ms']:.3f} ms, median +{slower1:.0f}%; "
                   f"2 threads {two['ms']:.3f} ms, median +{slower2:.0f}%; "
                   f"median speed-up {one['ms_median'] / two['ms_median']:.2f}x)")
    out.append("")
    out.append("Process CPU time / wall time (1 thread / 2 threads; 2 means both cores worked) and "
               "cores used by other processes meanwhile, in the fastest repetitions:")
    for key in all_keys:
        one, two = points[key][1], points[key][2]
        out.append(f"  jobs={key[0]:4d} slots={key[1]:4d}: CPU/wall {one['cpu_share']:.2f} / "
                   f"{two['cpu_share']:.2f}; other processes {one['other_cores']:.2f} / "
                   f"{two['other_cores']:.2f} cores")
    busy = [(k, t) for k in all_keys for t in THREADS if points[k][t]["other_cores"] > 0.2]
    if busy:
        out.append("WARNING: the machine was busy: other processes used more than 0.2 cores "
                   "during " + ", ".join(f"jobs={k[0]} slots={k[1]} threads={t}" for k, t in busy)
                   + "; those times include waiting for a core and the speed-ups are too low.")
    text = "\n".join(out)
    print(text)
    if args.table:
        with open(args.table, "w", encoding="utf-8") as f:
            f.write(text + "\n")

    if args.plot:
        fig, ax = plt.subplots(figsize=(7.5, 5.0))
        colours = {1: "tab:blue", 2: "tab:orange"}
        for t in THREADS:
            for keys, marker, name in ((jobs_sweep, "o", "jobs sweep (168 slots)"),
                                       (slots_sweep, "s", "slots sweep (32 jobs)")):
                ax.scatter([points[k][t]["work"] for k in keys], [points[k][t]["ms"] for k in keys],
                           marker=marker, color=colours[t], s=40, zorder=3,
                           facecolors="none" if marker == "s" else colours[t],
                           label=f"{t} thread{'s' if t > 1 else ''}, {name}")
            a, b = fits[(t, "all")]
            xs = sorted(points[k][t]["work"] for k in all_keys)
            ax.plot([xs[0], xs[-1]], [a * xs[0] ** b, a * xs[-1] ** b], "--", color=colours[t],
                    linewidth=1, label=f"fit, {t} thread{'s' if t > 1 else ''}: slope {b:.2f}")
        # Reference: slope 1 (linear) through the geometric mean of the 1-thread points.
        xs = [points[k][1]["work"] for k in all_keys]
        gx = math.exp(statistics.fmean(math.log(x) for x in xs))
        gy = math.exp(statistics.fmean(math.log(points[k][1]["ms"]) for k in all_keys))
        ax.plot([min(xs), max(xs)], [gy * min(xs) / gx, gy * max(xs) / gx], ":", color="grey",
                linewidth=1, label="slope 1 (linear), for reference")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("work = sum over jobs of slots x segments x modes")
        ax.set_ylabel("time per engine iteration (ms)")
        ax.set_title("One engine iteration (S4, K = 24): price + solve every job")
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        plt.close(fig)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
