#!/usr/bin/python3
"""Build a 24-slot instance series for a spring day from the CAISO extracts (issue #19).

The paper's normalisation (tools/build-paper-day.py) on another day: pv_kw = 1050 * SP15
solar / the month's maximum, wind_kw = 350 * SP15 wind / the month's maximum (SP15
day-ahead forecasts: the April 2024 files have no metered EIA-930 output), price = the
SDGE DLAP day-ahead price, unscaled. Slot 0 = 00:00-01:00 PDT.

  tools/build-spring-day.py 2024-04-09 > instances/caiso_2024-04-09_series.csv
"""
import csv
import datetime
import os
import sys

day = datetime.date.fromisoformat(sys.argv[1] if len(sys.argv) > 1 else "2024-04-09")
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data", "caiso")
month = day.strftime("%Y-%m")
with open(os.path.join(data, f"caiso_sp15_solar_wind_dam_forecast_{month}.csv")) as f:
    rows = list(csv.DictReader(f))
solar_max = max(float(r["solar_mw"]) for r in rows)
wind_max = max(float(r["wind_mw"]) for r in rows)
# PDT = UTC - 7 in April: local hour h of `day` starts at UTC h + 7.
start = datetime.datetime(day.year, day.month, day.day, 7)
by_utc = {r["interval_start"][:19]: r for r in rows}
prices = {}
with open(os.path.join(data, f"caiso_da_price_dlap_{month}.csv")) as f:
    for r in csv.DictReader(f):
        stamp = datetime.datetime.strptime(r["Date"], "%m/%d/%Y %I:%M:%S %p")
        if r["zone"] == "SDGE" and stamp.date() == day:
            prices[stamp.hour] = float(r["price"])
print(f"# CAISO spring day {day} (issue #19), built by tools/build-spring-day.py")
print(f"# pv_kw = 1050 * SP15 solar / {solar_max:g} ({month} max), "
      f"wind_kw = 350 * SP15 wind / {wind_max:g} ({month} max): day-ahead forecasts")
print("# price_usd_per_mwh: CAISO day-ahead DLAP price, zone SDGE, unscaled; slot 0 = 00:00 PDT")
print("slot,pv_kw,wind_kw,price_usd_per_mwh")
for h in range(24):
    r = by_utc[(start + datetime.timedelta(hours=h)).strftime("%Y-%m-%d %H:%M:%S")]
    pv = max(0.0, 1050 * float(r["solar_mw"]) / solar_max)
    wind = max(0.0, 350 * float(r["wind_mw"]) / wind_max)
    print(f"{h},{pv:.3f},{wind:.3f},{prices[h]:g}")
