#!/usr/bin/python3
"""Plots of ckptdp output, in the style of the paper's Figs. 8-12.

    tools/plot.py INPUT.json --out-dir DIR [--modes MODES.json] [--formats png,svg]

The kind of INPUT is detected from its contents:

  rolling result  (ckptdp rolling --out)  rolling-<S>: day-ahead planned vs realised AIDC
                                          load, forecast vs actual renewables and the
                                          forecast error; then the result plots below.
  result JSON     (ckptdp solve --out)    balance-<S>: 24-h source-load-storage-grid balance
                                          (Fig. 8); jobs-<S>: GPUs, AIDC power and checkpoint
                                          progress per job (Figs. 10-11); above 7 jobs, a heat
                                          map of GPUs per job and slot, the power of the 6
                                          jobs with the most energy and of the others, and
                                          the share of jobs finished. With --modes, also
                                          modes-<S>: the mode space with the modes used marked.
  modes JSON      (ckptdp modes --json)   modes: feasible and effective modes per job (Fig. 9)
  sweep JSON      (ckptdp sweep --json)   sweep-<param>: cost, green share and curtailment (or,
                                          for resume-minutes, resumes and layout changes) vs
                                          the parameter, points without a schedule marked
                                          (Fig. 12)
  scenarios JSON  (ckptdp scenarios --json)  scenarios: cost per scenario (Table IV)

Each plot is written as DIR/<name>.png and DIR/<name>.svg (or the --formats given), and
the written paths are printed. Needs only the standard library and matplotlib (Debian's
python3-matplotlib); run it with /usr/bin/python3. Exits 2 on an unreadable or unknown input.
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only; never a display
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

# Fixed ids and no dates in the SVG, so that re-running on the same input gives the same files.
matplotlib.rcParams["svg.hashsalt"] = "ckptdp"
matplotlib.rcParams["font.size"] = 9

DPI = 110
JOB_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
C_RENEWABLE = "#8fd18f"
C_CURTAIL = "#d9f2d9"
C_DISCHARGE = "#b39ddb"
C_GRID = "#9e9e9e"
C_PRICE = "#c62828"


class InputError(Exception):
    """An input the script cannot plot; reported as one line, exit code 2."""


def save(fig, out_dir, name, formats):
    paths = []
    for fmt in formats:
        path = os.path.join(out_dir, f"{name}.{fmt}")
        metadata = {"Date": None} if fmt == "svg" else None
        fig.savefig(path, dpi=DPI, metadata=metadata, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    for path in paths:
        print(path)


def slot_edges(slots, step_hours):
    return [t * step_hours for t in range(slots + 1)]


def bars(ax, x0, width, heights, bottom, **kw):
    return ax.bar(x0, heights, width=width, bottom=bottom, align="edge", linewidth=0, **kw)


def step_line(ax, edges, values, **kw):
    # A value per slot drawn as a flat segment over the slot.
    ax.stairs(values, edges, baseline=None, **kw)


def result_title(doc):
    title = f"{doc.get('instance', '')} {doc['scenario']} ({doc.get('scenario_description', '')})"
    if doc.get("objective_usd") is not None:
        title += f": {doc['objective_usd']:.2f} USD"
    return title


# --- result JSON: Fig. 8 -----------------------------------------------------------------


def plot_balance(doc, out_dir, formats):
    slots = doc["slots"]
    step_h = doc["site"]["step_minutes"] / 60.0
    n = len(slots)
    x0 = [t * step_h for t in range(n)]
    edges = slot_edges(n, step_h)
    col = {k: [s[k] for s in slots] for k in slots[0]}
    discharge = [max(v, 0.0) for v in col["discharge_kw"]]
    charge = [max(v, 0.0) for v in col["charge_kw"]]

    fig, ax = plt.subplots(figsize=(9, 4.2))
    bottom = [0.0] * n
    # Supply stacked up to the load (plus charging), curtailment on top of it.
    for values, color, label, hatch in [
        (col["renewable_used_kw"], C_RENEWABLE, "renewable used", None),
        (discharge, C_DISCHARGE, "battery discharge", None),
        (col["grid_kw"], C_GRID, "grid purchase", None),
        (col["curtailment_kw"], C_CURTAIL, "curtailed", "///"),
    ]:
        shown = any(v > 1e-9 for v in values) or label in ("renewable used", "grid purchase")
        bars(ax, x0, step_h, values, bottom, color=color, label=label if shown else None,
             hatch=hatch, edgecolor="#5a9e5a" if hatch else None)
        bottom = [b + v for b, v in zip(bottom, values)]
    load_plus_charge = [a + c for a, c in zip(col["aidc_kw"], charge)]
    step_line(ax, edges, col["aidc_kw"], color="black", linewidth=1.6, label="AIDC load")
    if any(c > 1e-9 for c in charge):
        step_line(ax, edges, load_plus_charge, color="black", linewidth=1.0, linestyle="--",
                  label="AIDC load + battery charge")
    step_line(ax, edges, col["renewable_kw"], color="#2e7d32", linewidth=0.8, linestyle=":",
              label="renewable available")
    # Grid contract (issue 19): exports on top of the supply, the import cap as a line and
    # a demand-response event (a window where the cap is lower than elsewhere) shaded.
    if "export_kw" in col and any(v > 1e-9 for v in col["export_kw"]):
        bars(ax, x0, step_h, col["export_kw"], bottom, color="#f2c14e", label="exported")
        bottom = [b + v for b, v in zip(bottom, col["export_kw"])]
    if "import_cap_kw" in col:
        caps = col["import_cap_kw"]
        finite = [c for c in caps if c < 1e8]
        if finite:
            shown_cap = [c if c < 1e8 else float("nan") for c in caps]
            step_line(ax, edges, shown_cap, color="#1565c0", linewidth=1.8,
                      label="import cap")
            loosest = max(caps)
            first = True
            for t, c in enumerate(caps):
                if c < loosest:
                    ax.axvspan(t * step_h, (t + 1) * step_h, color="#1565c0", alpha=0.10,
                               label="demand-response event" if first else None)
                    first = False
    ax.set_xlim(0, n * step_h)
    ax.set_xticks(range(0, int(n * step_h) + 1, max(1, int(n * step_h) // 12)))
    ax.set_xlabel("hour")
    ax.set_ylabel("power (kW)")
    ax.set_ylim(0, max(bottom + load_plus_charge) * 1.3)  # room for the legend

    twin = ax.twinx()
    step_line(twin, edges, col["price_usd_per_mwh"], color=C_PRICE, linewidth=1.2,
              label="grid price")
    twin.set_ylabel("price (USD/MWh)", color=C_PRICE)
    twin.tick_params(axis="y", colors=C_PRICE)
    twin.set_ylim(min(0, min(col["price_usd_per_mwh"])), max(col["price_usd_per_mwh"]) * 1.3)

    handles, labels = ax.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    ax.legend(handles + h2, labels + l2, loc="upper left", ncol=4, fontsize=7, framealpha=0.9)
    m = doc["metrics"]
    ax.set_title(f"{result_title(doc)} | grid {m['grid_mwh']:.3f} MWh, curtailed "
                 f"{m['curtailment_mwh']:.3f} MWh, green share {m['green_share_pct']:.2f} %")
    save(fig, out_dir, f"balance-{doc['scenario']}", formats)


# --- result JSON: Figs. 10-11 --------------------------------------------------------------


def per_job_slots(doc, n):
    """GPUs and IT kW per job and slot, and each job's progress at every slot boundary."""
    gpus, it_kw, progress = [], [], []
    for job in doc["jobs"]:
        g, p = [0] * n, [0.0] * n
        k = job["segments"]
        # Progress in segments at each slot boundary. Inside a run it grows linearly (the
        # compute is delivered at a constant rate); between runs it stays flat: waiting.
        done = [None] * (n + 1)
        done[0] = 0.0
        work_so_far = 0.0
        for run in job["runs"]:
            s, e = run["start_slot"], run["end_slot"]
            for t in range(s, e):
                g[t] += run["gpus"]
                p[t] += run["it_power_kw"]
            if "from_segment" in run:
                a, b = float(run["from_segment"]), float(run["to_segment"])
            else:  # S3: no checkpoints; progress is the work delivered
                a = work_so_far / job["daily_compute_flops"] * k
                work_so_far += run["work_flops"]
                b = min(work_so_far / job["daily_compute_flops"], 1.0) * k
            for t in range(s, e + 1):
                done[t] = a + (b - a) * (t - s) / max(e - s, 1)
        last = 0.0
        for t in range(n + 1):
            last = done[t] if done[t] is not None else last
            done[t] = last
        gpus.append(g)
        it_kw.append(p)
        progress.append(done)
    return gpus, it_kw, progress


def jobs_view(doc):
    """What the jobs figures draw: slots, site, slot length (h), slot count, slot starts and
    edges (h), jobs, and per job its GPUs, IT kW and progress (per_job_slots)."""
    slots = doc["slots"]
    site = doc["site"]
    step_h = site["step_minutes"] / 60.0
    n = len(slots)
    x0 = [t * step_h for t in range(n)]
    return (slots, site, step_h, n, x0, slot_edges(n, step_h), doc["jobs"],
            *per_job_slots(doc, n))


# Above this many jobs, one colour and one legend entry per job no longer reads: the jobs
# figure aggregates (a heat map of GPUs per job and slot, the top jobs and "others").
MAX_NAMED_JOBS = len(JOB_COLORS)
TOP_JOBS = 6
C_OTHERS = "#b0bec5"


def plot_jobs(doc, out_dir, formats):
    if len(doc["jobs"]) > MAX_NAMED_JOBS:
        plot_jobs_aggregated(doc, out_dir, formats)
        return
    slots, site, step_h, n, x0, edges, jobs, gpus, it_kw, progress = jobs_view(doc)

    fig, (ax_g, ax_p, ax_c) = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    bottom = [0] * n
    for j, job in enumerate(jobs):
        color = JOB_COLORS[j % len(JOB_COLORS)]
        bars(ax_g, x0, step_h, gpus[j], bottom, color=color, label=job["name"])
        bottom = [b + v for b, v in zip(bottom, gpus[j])]
    ax_g.axhline(site["gpu_capacity"], color="black", linestyle="--", linewidth=1,
                 label=f"GPU capacity {site['gpu_capacity']}")
    ax_g.set_ylabel("GPUs")
    ax_g.set_ylim(0, site["gpu_capacity"] * 1.3)  # room for the legend
    ax_g.legend(loc="upper left", ncol=3, fontsize=7)
    ax_g.set_title(result_title(doc))

    bottom = [site["base_load_kw"]] * n
    bars(ax_p, x0, step_h, bottom, [0.0] * n, color="#e0e0e0", label="base load")
    for j, job in enumerate(jobs):
        share = [site["pue"] * v for v in it_kw[j]]
        bars(ax_p, x0, step_h, share, bottom, color=JOB_COLORS[j % len(JOB_COLORS)],
             label=f"{job['name']} (PUE x IT)")
        bottom = [b + v for b, v in zip(bottom, share)]
    step_line(ax_p, edges, [s["aidc_kw"] for s in slots], color="black", linewidth=1.4,
              label="AIDC load")
    ax_p.axhline(site["site_cap_kw"], color="black", linestyle="--", linewidth=1,
                 label=f"site cap {site['site_cap_kw']:.0f} kW")
    ax_p.set_ylabel("AIDC power (kW)")
    ax_p.set_ylim(0, site["site_cap_kw"] * 1.3)
    ax_p.legend(loc="upper left", ncol=3, fontsize=7)

    for j, job in enumerate(jobs):
        color = JOB_COLORS[j % len(JOB_COLORS)]
        ax_c.plot(edges, progress[j], color=color, linewidth=1.6, label=job["name"])
        ends = sorted({r["end_slot"] for r in job["runs"]})
        ax_c.plot([e * step_h for e in ends], [progress[j][e] for e in ends], "o", color=color,
                  markersize=3.5)
        ax_c.axvline(job["deadline_slot"] * step_h, color=color, linestyle=":", linewidth=1)
    max_k = max((job["segments"] for job in jobs), default=1)
    ax_c.set_ylim(0, max_k * 1.08)
    checkpoints = any("from_segment" in r for job in jobs for r in job["runs"])
    if checkpoints:
        ax_c.set_ylabel("checkpoint progress\n(segments done)")
        ax_c.set_xlabel("hour (dots: run ends at a checkpoint; flat: waiting; dotted: deadline)")
    else:  # S3 has no checkpoints: progress is delivered work, in segments' worth
        ax_c.set_ylabel("progress\n(work, in segments)")
        ax_c.set_xlabel("hour (dots: run ends; flat: idle; dotted: deadline)")
    ax_c.legend(loc="upper left", fontsize=7)
    ax_c.set_xlim(0, n * step_h)
    ax_c.set_xticks(range(0, int(n * step_h) + 1, max(1, int(n * step_h) // 12)))
    for ax in (ax_g, ax_p, ax_c):
        ax.grid(axis="y", alpha=0.3)
    fig.align_ylabels()
    save(fig, out_dir, f"jobs-{doc['scenario']}", formats)


def plot_jobs_aggregated(doc, out_dir, formats):
    """The jobs figure for many jobs, at a fixed size: GPUs per job and slot as a heat map
    (jobs sorted by release, then by first run), AIDC power of the TOP_JOBS jobs with the
    most energy and of all others together, and every job's progress as a faint line with
    the share of jobs finished."""
    slots, site, step_h, n, x0, edges, jobs, gpus, it_kw, progress = jobs_view(doc)

    fig, (ax_g, ax_p, ax_c) = plt.subplots(
        3, 1, figsize=(9, 9.5), sharex=True, gridspec_kw={"height_ratios": [1.5, 1, 1]})

    def first_start(j):
        return min((r["start_slot"] for r in jobs[j]["runs"]), default=n)

    order = sorted(range(len(jobs)), key=lambda j: (jobs[j].get("release_slot", 0),
                                                    first_start(j), jobs[j]["name"]))
    grid = [[gpus[j][t] if gpus[j][t] > 0 else float("nan") for t in range(n)] for j in order]
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("white")  # a job that is not running: no colour
    # Jobs span three orders of magnitude in GPUs (8 to thousands): a log scale shows both.
    running = [v for row in grid for v in row if v == v]
    norm = LogNorm(vmin=max(min(running, default=1), 1), vmax=max(max(running, default=1), 2))
    image = ax_g.imshow(grid, aspect="auto", interpolation="nearest", cmap=cmap, norm=norm,
                        extent=(0, n * step_h, len(jobs), 0))
    colorbar = fig.colorbar(image, ax=ax_g, pad=0.01, fraction=0.04)
    colorbar.set_label("GPUs")
    ax_g.set_ylabel(f"job ({len(jobs)}, by release\nand first run)")
    peak = max(sum(g[t] for g in gpus) for t in range(n))
    ax_g.set_title(f"{result_title(doc)}\nGPUs per job and slot (white: not running); "
                   f"peak {peak} of {site['gpu_capacity']} GPUs")

    energy = [sum(v) for v in it_kw]
    top = sorted(range(len(jobs)), key=lambda j: (-energy[j], jobs[j]["name"]))[:TOP_JOBS]
    bottom = [site["base_load_kw"]] * n
    bars(ax_p, x0, step_h, bottom, [0.0] * n, color="#e0e0e0", label="base load")
    for i, j in enumerate(top):
        share = [site["pue"] * v for v in it_kw[j]]
        bars(ax_p, x0, step_h, share, bottom, color=JOB_COLORS[i % len(JOB_COLORS)],
             label=jobs[j]["name"])
        bottom = [b + v for b, v in zip(bottom, share)]
    others = [site["pue"] * sum(it_kw[j][t] for j in range(len(jobs)) if j not in top)
              for t in range(n)]
    bars(ax_p, x0, step_h, others, bottom, color=C_OTHERS,
         label=f"{len(jobs) - len(top)} other jobs")
    step_line(ax_p, edges, [s["aidc_kw"] for s in slots], color="black", linewidth=1.4,
              label="AIDC load")
    ax_p.axhline(site["site_cap_kw"], color="black", linestyle="--", linewidth=1,
                 label=f"site cap {site['site_cap_kw']:.0f} kW")
    ax_p.set_ylabel("AIDC power (kW)\n(PUE x IT; top jobs\nby energy)")
    ax_p.set_ylim(0, site["site_cap_kw"] * 1.45)  # room for the legend
    ax_p.legend(loc="upper left", ncol=3, fontsize=7, framealpha=0.9)

    for j, job in enumerate(jobs):
        k = max(job["segments"], 1)
        ax_c.plot(edges, [v / k for v in progress[j]], color="#546e7a", linewidth=0.6,
                  alpha=0.25)
    finished = [sum(1 for j, job in enumerate(jobs) if progress[j][t] >= job["segments"] - 1e-9)
                / len(jobs) for t in range(n + 1)]
    ax_c.plot(edges, finished, color="black", linewidth=1.8, label="share of jobs finished")
    ax_c.plot([], [], color="#546e7a", linewidth=0.6, label="one job's progress")
    ax_c.set_ylim(0, 1.05)
    ax_c.set_ylabel("progress\n(share of the day's work)")
    ax_c.set_xlabel("hour")
    ax_c.legend(loc="upper left", fontsize=7)
    ax_c.set_xlim(0, n * step_h)
    ax_c.set_xticks(range(0, int(n * step_h) + 1, max(1, int(n * step_h) // 12)))
    for ax in (ax_p, ax_c):
        ax.grid(axis="y", alpha=0.3)
    fig.align_ylabels()
    save(fig, out_dir, f"jobs-{doc['scenario']}", formats)


# --- modes JSON: Fig. 9 --------------------------------------------------------------------


def used_layouts(result, job_name):
    for job in (result or {}).get("jobs", []):
        if job["name"] == job_name:
            return {(r["p"], r["q"], r["d"]) for r in job["runs"]}
    return set()


def plot_rolling(doc, out_dir, formats):
    """Plan vs realised load (top) and forecast vs actual renewables with the error (bottom)."""
    roll = doc["rolling"]
    planned = roll["day_ahead_aidc_kw"]
    realised = [s["aidc_kw"] for s in doc["slots"]]
    fc, act = roll["forecast_renewable_kw"], roll["actual_renewable_kw"]
    slots = list(range(len(realised)))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True)
    top.step(slots, planned, where="post", color=C_GRID, label="day-ahead plan (forecast)")
    top.step(slots, realised, where="post", color=JOB_COLORS[0], label="realised (rolling)")
    top.set_ylabel("AIDC load (kW)")
    top.legend(loc="upper right", fontsize=8)
    top.set_title(f"{doc['instance']}, {doc['scenario']}, re-solve every "
                  f"{roll['every_slots']} slots: realised {roll['realised_cost_usd']:.2f} USD, "
                  f"day-ahead plan executed {roll['day_ahead_executed_cost_usd']:.2f} USD, "
                  f"perfect-foresight bound {roll['perfect_foresight_bound_usd']:.2f} USD",
                  fontsize=8)
    bottom.step(slots, fc, where="post", color=C_RENEWABLE, label="forecast (SP15 day-ahead)")
    bottom.step(slots, act, where="post", color="#2e7d32", label="actual")
    bottom.bar(slots, [a - f for a, f in zip(act, fc)], width=1.0, align="edge",
               color=C_PRICE, alpha=0.5, label="error (actual - forecast)")
    for s in roll["resolves"]:
        for ax in (top, bottom):
            ax.axvline(s["start_slot"], color="#bdbdbd", lw=0.5, zorder=0)
    bottom.axhline(0, color="black", lw=0.5)
    bottom.set_ylabel("renewables (kW)")
    bottom.set_xlabel("slot (grey lines: re-solves)")
    bottom.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    return save(fig, out_dir, f"rolling-{doc['scenario']}", formats)


def plot_modes(doc, out_dir, formats, result=None, name="modes"):
    jobs = doc["jobs"]
    fig, axes = plt.subplots(1, len(jobs), figsize=(4.6 * len(jobs), 4), squeeze=False)
    for ax, job in zip(axes[0], jobs):
        modes = job["modes"]
        feas = [m for m in modes if not m["effective"]]
        eff = [m for m in modes if m["effective"]]
        base = [m for m in modes if m["baseline"]]
        pf = 1e15  # PFLOP/s
        ax.scatter([m["gpus"] for m in feas], [m["throughput_flops"] / pf for m in feas], s=9,
                   color="#b0b0b0", label=f"feasible ({len(modes)})")
        ax.scatter([m["gpus"] for m in eff], [m["throughput_flops"] / pf for m in eff], s=18,
                   color="#1565c0", label=f"effective ({len(eff)})", zorder=3)
        ax.scatter([m["gpus"] for m in base], [m["throughput_flops"] / pf for m in base],
                   marker="*", s=140, color="#ffb300", edgecolor="black", linewidth=0.6,
                   label="baseline", zorder=4)
        used = used_layouts(result, job["name"])
        if used:
            um = [m for m in modes if (m["p"], m["q"], m["d"]) in used]
            ax.scatter([m["gpus"] for m in um], [m["throughput_flops"] / pf for m in um],
                       s=90, facecolor="none", edgecolor="#c62828", linewidth=1.3,
                       label=f"used by {result['scenario']} ({len(um)})", zorder=5)
        ax.set_title(job["name"])
        ax.set_xlabel("GPUs")
        ax.set_ylabel("throughput (PFLOP/s)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=7)
    fig.suptitle("Feasible 3D-parallel modes and the effective (Pareto) modes", fontsize=10)
    fig.tight_layout()
    save(fig, out_dir, name, formats)


# --- sweep JSON: Fig. 12 -------------------------------------------------------------------

PARAM_LABELS = {
    "segments": "checkpoint segments K per job",
    "gpu-capacity": "GPU capacity",
    "renewable-ratio": "renewable-to-AIDC ratio (x the instance's PV and wind)",
    "renewable-energy-ratio": "renewable energy / baseline AIDC energy",
    "battery-energy": "battery energy (kWh)",
    "resume-minutes": "resume overhead per restart (min)",
}


def plot_sweep(doc, out_dir, formats):
    param = doc["param"]
    pts = doc["points"]
    ok = [p for p in pts if p["metrics"]["cost_usd"] is not None]
    bad = [p for p in pts if p["metrics"]["cost_usd"] is None]
    xs = [p["value"] for p in ok]

    fig, (ax_c, ax_g) = plt.subplots(2, 1, figsize=(6.4, 6), sharex=True)
    ax_c.plot(xs, [p["metrics"]["cost_usd"] for p in ok], "o-", color="#1565c0", label="cost")
    # The optimum lies between the proven bound and the cost: show the band.
    bounded = [p for p in ok if p.get("lower_bound_usd") is not None]
    if bounded:
        ax_c.fill_between([p["value"] for p in bounded],
                          [p["lower_bound_usd"] for p in bounded],
                          [p["metrics"]["cost_usd"] for p in bounded], color="#1565c0",
                          alpha=0.15, linewidth=0, label="lower bound to cost")
    if bad:
        ax_c.scatter([p["value"] for p in bad], [0] * len(bad), marker="x", s=60,
                     color="#c62828", label="no schedule (" +
                     ", ".join(sorted({p["status"] for p in bad})) + ")", zorder=4,
                     clip_on=False)
    ax_c.set_ylabel("cost (USD)")
    ax_c.set_ylim(bottom=0)
    ax_c.grid(alpha=0.3)
    ax_c.legend(loc="best", fontsize=7)
    ax_c.set_title(f"{doc.get('instance', '')} {doc.get('scenario', '')}: sweep of {param}")

    if param == "resume-minutes":
        # The cost of restart overheads (docs/model.md, "Restarts"): fewer restarts as they
        # get dearer.
        ax_g.plot(xs, [p["metrics"]["resumes"] for p in ok], "s-", color="#6a1b9a",
                  label="resumes")
        ax_g.plot(xs, [p["metrics"]["layout_changes"] for p in ok], "^--", color="#ef6c00",
                  label="layout changes")
        ax_g.set_ylabel("count (all jobs)")
        ax_g.set_ylim(bottom=0)
        ax_g.grid(alpha=0.3)
        ax_g.legend(loc="best", fontsize=7)
        ax_g.set_xlabel(PARAM_LABELS[param])
        fig.tight_layout()
        save(fig, out_dir, f"sweep-{param}", formats)
        return
    ax_g.plot(xs, [p["metrics"]["green_share_pct"] for p in ok], "s-", color="#2e7d32",
              label="green share")
    ax_g.set_ylabel("green share (%)", color="#2e7d32")
    ax_g.grid(alpha=0.3)
    twin = ax_g.twinx()
    twin.plot(xs, [p["metrics"]["curtailment_mwh"] for p in ok], "^--", color="#8d6e63",
              label="curtailment")
    twin.set_ylabel("curtailment (MWh)", color="#8d6e63")
    twin.set_ylim(bottom=0, top=max([p["metrics"]["curtailment_mwh"] for p in ok] + [0.1]) * 1.2)
    for p in bad:
        ax_g.axvline(p["value"], color="#c62828", alpha=0.25, linewidth=4)
    ax_g.legend(handles=[Line2D([], [], marker="s", color="#2e7d32", label="green share"),
                         Line2D([], [], marker="^", linestyle="--", color="#8d6e63",
                                label="curtailment")], loc="best", fontsize=7)
    ax_g.set_xlabel(PARAM_LABELS.get(param, param))
    if param in ("segments", "gpu-capacity"):
        ax_g.set_xticks([p["value"] for p in pts])
        ax_g.tick_params(axis="x", labelrotation=45 if param == "gpu-capacity" else 0)
    fig.tight_layout()
    save(fig, out_dir, f"sweep-{param}", formats)


# --- scenarios JSON: Table IV --------------------------------------------------------------


def plot_scenarios(doc, out_dir, formats):
    rows = doc["scenarios"]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    names = [r["scenario"] for r in rows]
    costs = [r["metrics"]["cost_usd"] for r in rows]
    top = max([c for c in costs if c is not None] + [1.0])
    for i, r in enumerate(rows):
        c = costs[i]
        if c is None:
            ax.bar(i, top * 0.05, color="white", edgecolor="#c62828", hatch="xx")
            ax.text(i, top * 0.07, r["status"], ha="center", fontsize=7, color="#c62828")
            continue
        fixed = r["scenario"] in ("S1", "S2", "S5")
        ax.bar(i, c, color="#b0bec5" if fixed else "#1565c0")
        label = f"{c:.2f}\n({r['metrics']['cost_reduction_pct']:.1f} %)"
        ax.text(i, c + top * 0.01, label, ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{n}\n{r['description']}" for n, r in zip(names, rows)], fontsize=7)
    ax.set_ylabel("cost (USD)")
    ax.set_ylim(0, top * 1.2)
    ax.set_title(f"{doc.get('instance', '')}: cost per scenario (reduction vs S1)")
    ax.legend(handles=[Patch(color="#b0bec5", label="fixed trajectory"),
                       Patch(color="#1565c0", label="checkpoint-aware / 3D modes")],
              fontsize=7, loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    save(fig, out_dir, "scenarios", formats)


# --- main ----------------------------------------------------------------------------------


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise InputError(f"{path} is not JSON: {e}") from e


def kind_of(doc):
    if not isinstance(doc, dict):
        return None
    if str(doc.get("format", "")).startswith("ckptdp-result"):
        return "result"
    if "points" in doc and "param" in doc:
        return "sweep"
    if "scenarios" in doc:
        return "scenarios"
    if isinstance(doc.get("jobs"), list) and all("modes" in j for j in doc["jobs"]):
        return "modes"
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="result, modes, sweep or scenarios JSON written by ckptdp")
    ap.add_argument("--out-dir", required=True, help="directory for the plots (created)")
    ap.add_argument("--modes", help="modes JSON (ckptdp modes --json): with a result input, "
                    "also plot the mode space with the modes the schedule uses")
    ap.add_argument("--formats", default="png,svg", help="comma-separated (default png,svg)")
    args = ap.parse_args(argv)
    formats = [f for f in args.formats.split(",") if f]
    try:
        doc = load(args.input)
        kind = kind_of(doc)
        if kind is None:
            raise InputError(f"{args.input}: not a ckptdp result, modes, sweep or scenarios JSON")
        os.makedirs(args.out_dir, exist_ok=True)
        if kind == "result":
            if not doc["slots"]:
                raise InputError(f"{args.input}: the result has no schedule "
                                 f"(status {doc['status']}); nothing to plot")
            if "rolling" in doc:
                plot_rolling(doc, args.out_dir, formats)
            plot_balance(doc, args.out_dir, formats)
            plot_jobs(doc, args.out_dir, formats)
            if args.modes:
                modes = load(args.modes)
                if kind_of(modes) != "modes":
                    raise InputError(f"{args.modes}: not a modes JSON (ckptdp modes --json)")
                plot_modes(modes, args.out_dir, formats, result=doc,
                           name=f"modes-{doc['scenario']}")
        elif kind == "modes":
            plot_modes(doc, args.out_dir, formats)
        elif kind == "sweep":
            plot_sweep(doc, args.out_dir, formats)
        else:
            plot_scenarios(doc, args.out_dir, formats)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, IndexError) as e:
        print(f"plot.py: {args.input}: unexpected content ({type(e).__name__}: {e})",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
