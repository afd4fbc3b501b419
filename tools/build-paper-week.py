#!/usr/bin/python3
"""Build the paper week 2023-06-19..06-25: a forecast and an actual series, and its instance.

The week the rolling command (`ckptdp rolling`, docs/operations.md) runs through: the
paper's two jobs with one daily tranche per day (14 jobs), planned on CAISO's day-ahead
forecast and executed against EIA-930's actual output.

Series (168 hourly slots; slot 0 = 2023-06-19 HE1 = 00:00-01:00 PDT):
  * forecast: CAISO's SP15 day-ahead solar and wind forecast (OASIS, via gridstatus);
    `interval_start` is UTC hour-beginning, so local HE h of day D is UTC D h+6:00 (PDT);
  * actual: EIA-930's actual CISO solar (gen_sun_MW) and wind (gen_wnd_MW); `period` is UTC
    hour-ending, local HE h of day D is UTC D h+7:00 (the alignment of build-paper-day.py);
  * both: pv_kw = 1050 * max(MW, 0) / (June 2023 max of that file's solar column), wind_kw =
    350 * max(MW, 0) / (June 2023 max of its wind column), each file by its own maxima; no
    Table IV fit (factors 1). The forecast error therefore contains the SP15-versus-CAISO
    difference: SP15 is one zone of CAISO, so its shape differs even with a perfect forecast;
  * price: CAISO day-ahead DLAP SDGE (the paper day's zone), local hour-beginning, unscaled,
    the same column in both files (the day-ahead price is known when planning);
  * EIA-930's extract doubles the Sunday 00:00 UTC row (Saturday HE17 PDT; README of the
    data): 2023-06-25 00:00 UTC is Saturday 06-24 HE17, inside this week. Its solar and wind
    are halved (the two overlapping fetches each held the hour); the month maxima exclude
    those rows, as in build-paper-day.py.

Instance (instances/paper_week.json, series = the forecast; instances/paper_week_actual.json
is the same instance on the actual series, for `ckptdp check` and the perfect-foresight
solve): the paper's site, battery, costs and the two jobs of Table I, one tranche of each per
day with release_slot 24 d and deadline_slot 24 (d + 1). `ckptdp rolling` re-solves from
part-done jobs, which needs each job's throughput to stay fixed when its window shrinks, so
the instance gives the kernel efficiency eta_0 explicitly (the calibration would re-fit it
to every shortened window): eta_0 = the paper day's calibrated value for LLM-A-13B, read from
`ckptdp modes --json` of instances/paper_2048gpu.json and rounded to 4 decimals. Each
tranche's daily_ratio is then set so that its iterations are a multiple of its 12 segments
(remaining segments are then whole iterations) and the baseline mode finishes them within
24 h at that eta_0: the largest such number of iterations.

Python 3 standard library only; deterministic output.

Usage: /usr/bin/python3 tools/build-paper-week.py [DATA_DIR] [--ckptdp build/ckptdp] [--out-dir DIR]
"""

import argparse
import datetime as dt
import importlib.util
import json
import math
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("build_paper_day", os.path.join(REPO, "tools", "build-paper-day.py"))
day = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(day)

FORECAST_FILE = "caiso_sp15_solar_wind_dam_forecast_2023-06.csv"
FIRST_DAY = dt.date(2023, 6, 19)
DAYS = 7
SLOTS = 24 * DAYS
ZONE = "SDGE"
OUT_FORECAST = "paper_week_forecast.csv"
OUT_ACTUAL = "paper_week_actual.csv"
OUT_INSTANCE = "paper_week.json"
OUT_ACTUAL_INSTANCE = "paper_week_actual.json"
DAY_INSTANCE = "paper_2048gpu.json"


def fail(msg):
    sys.stderr.write("build-paper-week: error: " + msg + "\n")
    sys.exit(1)


def read_forecast(path):
    """{(date, he): (solar_MW, wind_MW)} in Pacific local hour-ending time."""
    out = {}
    with open(path, newline="") as f:
        import csv
        for row in csv.DictReader(f):
            utc_start = dt.datetime.strptime(row["interval_start"][:19], "%Y-%m-%d %H:%M:%S")
            local_start = utc_start + day.PDT_OFFSET
            key = (local_start.date(), local_start.hour + 1)
            if key in out:
                fail("duplicate forecast hour %s HE%d" % key)
            out[key] = (float(row["solar_mw"]), float(row["wind_mw"]))
    return out


def month_maxima(values, exclude):
    keys = [k for k in values if k[0].month == 6 and k not in exclude]
    return max(values[k][0] for k in keys), max(values[k][1] for k in keys)


def week_hours():
    return [(FIRST_DAY + dt.timedelta(days=t // 24), t % 24 + 1) for t in range(SLOTS)]


def write_series(path, comments, pv, wind, price):
    lines = ["# " + c for c in comments] + [day.CSV_HEADER]
    for t in range(SLOTS):
        lines.append("%d,%s,%s,%s" % (t, day.fmt(pv[t]), day.fmt(wind[t]), day.fmt(price[t])))
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def paper_jobs(ckptdp):
    """The two jobs of the paper day and eta_0, iterations and baseline throughput from ckptdp."""
    path = os.path.join(REPO, "instances", DAY_INSTANCE)
    with open(path) as f:
        inst = json.load(f)
    out = subprocess.run([ckptdp, "modes", path, "--json"], check=True, capture_output=True, text=True)
    modes = json.loads(out.stdout)["jobs"]
    return inst, modes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", nargs="?", default=os.path.join(REPO, "..", "shared", "data", "caiso"))
    ap.add_argument("--ckptdp", default=os.path.join(REPO, "build", "ckptdp"),
                    help="the ckptdp binary (reads the paper day's calibrated eta_0)")
    ap.add_argument("--out-dir", default=os.path.join(REPO, "instances"))
    args = ap.parse_args()
    data = os.path.normpath(args.data_dir)
    eia = day.read_eia(os.path.join(data, day.EIA_FILE))
    fc = read_forecast(os.path.join(data, FORECAST_FILE))
    prices = day.read_prices(os.path.join(data, day.PRICE_FILE))

    glitch = {k for k in eia if day.is_glitch_hour(*k)}
    sun_max, wnd_max = month_maxima(eia, glitch)
    fsun_max, fwnd_max = month_maxima(fc, set())
    hours = week_hours()
    for k in hours:
        if k not in eia or k not in fc or (k[0], k[1], ZONE) not in prices:
            fail("missing hour %s HE%d" % k)
    price = [prices[(d, he, ZONE)] for d, he in hours]
    act_pv, act_wind, fc_pv, fc_wind = [], [], [], []
    fixed = []
    for d, he in hours:
        sun, wnd = eia[(d, he)]
        if (d, he) in glitch:
            sun, wnd = sun / 2.0, wnd / 2.0
            fixed.append("%s HE%d" % (d, he))
        act_pv.append(day.PV_CAPACITY_KW * max(sun, 0.0) / sun_max)
        act_wind.append(day.WIND_CAPACITY_KW * max(wnd, 0.0) / wnd_max)
        fsun, fwnd = fc[(d, he)]
        fc_pv.append(day.PV_CAPACITY_KW * max(fsun, 0.0) / fsun_max)
        fc_wind.append(day.WIND_CAPACITY_KW * max(fwnd, 0.0) / fwnd_max)

    last = FIRST_DAY + dt.timedelta(days=DAYS - 1)
    common = ["week %s (%s) .. %s (%s), Pacific local time, slot 0 = %s HE1 = 00:00-01:00 PDT, hourly"
              % (FIRST_DAY, FIRST_DAY.strftime("%a"), last, last.strftime("%a"), FIRST_DAY),
              "price: %s (CAISO day-ahead DLAP %s, local hour-beginning), unscaled" % (day.PRICE_FILE, ZONE),
              "generated by tools/build-paper-week.py"]
    os.makedirs(args.out_dir, exist_ok=True)
    write_series(os.path.join(args.out_dir, OUT_FORECAST),
                 ["paper week: FORECAST series (plan on this)",
                  "source: %s (CAISO OASIS day-ahead solar and wind forecast, zone SP15 only)" % FORECAST_FILE,
                  "time: interval_start UTC hour-beginning = local HE - 1 h + 7 h",
                  "normalisation: pv_kw = 1050 * solar_mw / %.2f, wind_kw = 350 * wind_mw / %.2f "
                  "(June 2023 maxima of this file)" % (fsun_max, fwnd_max),
                  "the forecast error against the actual series includes the SP15-vs-CAISO difference"] + common,
                 fc_pv, fc_wind, price)
    write_series(os.path.join(args.out_dir, OUT_ACTUAL),
                 ["paper week: ACTUAL series (execute against this)",
                  "source: %s (EIA-930 actual generation, respondent CISO)" % day.EIA_FILE,
                  "time: period UTC hour-ending = local HE + 7 h",
                  "normalisation: pv_kw = 1050 * gen_sun_MW / %.0f, wind_kw = 350 * gen_wnd_MW / %.0f "
                  "(June 2023 maxima of this file, doubled rows excluded)" % (sun_max, wnd_max),
                  "doubled source row halved (Sunday 00:00 UTC): %s; negative values clamped to 0"
                  % ", ".join(fixed)] + common,
                 act_pv, act_wind, price)

    inst, modes = paper_jobs(args.ckptdp)
    eta = round(modes[0]["kernel_efficiency"], 4)
    jobs = []
    for d in range(DAYS):
        for job, jm in zip(inst["jobs"], modes):
            base = next(m for m in jm["modes"] if m["baseline"])
            # Throughput scales with eta_0 (eq. 10): the baseline's at the week's eta_0.
            throughput = base["throughput_flops"] * eta / jm["kernel_efficiency"]
            seg = job["segments"]
            iters = seg * math.floor(24 * 3600.0 * throughput / jm["flops_per_iteration"] / seg)
            tranche = dict(job)
            tranche["name"] = "%s-%s" % (job["name"], (FIRST_DAY + dt.timedelta(days=d)).strftime("%a"))
            tranche["daily_ratio"] = iters / jm["iterations_total"]
            tranche["release_slot"] = 24 * d
            tranche["deadline_slot"] = 24 * (d + 1)
            jobs.append(tranche)
    week = {"name": "paper_week", "site": inst["site"], "time": {"step_minutes": 60, "slots": SLOTS},
            "series": {"csv": OUT_FORECAST}, "costs": inst["costs"], "battery": inst["battery"],
            "model": {"kernel_efficiency": eta}, "jobs": jobs}
    for name, csv_name in ((OUT_INSTANCE, OUT_FORECAST), (OUT_ACTUAL_INSTANCE, OUT_ACTUAL)):
        week["name"] = os.path.splitext(name)[0]
        week["series"] = {"csv": csv_name}
        with open(os.path.join(args.out_dir, name), "w", newline="\n") as f:
            f.write(json.dumps(week, indent=2) + "\n")

    err = [abs((fc_pv[t] + fc_wind[t]) - (act_pv[t] + act_wind[t])) for t in range(SLOTS)]
    print("build-paper-week: %d slots, eta_0 %.4f, %d jobs" % (SLOTS, eta, len(jobs)))
    print("renewable MWh: forecast %.3f, actual %.3f; mean |forecast - actual| %.1f kW, max %.1f kW"
          % (sum(fc_pv + fc_wind) / 1000, sum(act_pv + act_wind) / 1000, sum(err) / SLOTS, max(err)))
    for name in (OUT_FORECAST, OUT_ACTUAL, OUT_INSTANCE, OUT_ACTUAL_INSTANCE):
        print("wrote %s" % os.path.relpath(os.path.join(args.out_dir, name), REPO))


if __name__ == "__main__":
    main()
