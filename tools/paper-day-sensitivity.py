#!/usr/bin/env python3
"""How much the paper case's flexible scenarios save depends on the day's price shape.

For the 12 June 2023 days closest to Table IV's S1 row (each fitted with the same three
factors as the paper day, by tools/build-paper-day.py), solves S1, S3 and S4 with ckptdp and
prints the cost reductions. Usage (from anywhere):
    /usr/bin/python3 tools/paper-day-sensitivity.py [CKPTDP_BINARY] [--data-dir DIR]
CKPTDP_BINARY defaults to <repo>/build/ckptdp, DIR (the CAISO extracts) to
<repo>/../shared/data/caiso, as for build-paper-day.py.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    sys.stderr.write("paper-day-sensitivity: error: " + msg + "\n")
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(REPO, "build", "ckptdp"),
                    help="the ckptdp binary (default: <repo>/build/ckptdp)")
    ap.add_argument("--data-dir", default=os.path.join(REPO, "..", "shared", "data", "caiso"),
                    help="directory with the CAISO extracts (default: <repo>/../shared/data/caiso)")
    args = ap.parse_args()
    binary = args.binary
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        fail("no ckptdp binary at %s (build first, or pass its path)" % binary)
    spec = importlib.util.spec_from_file_location("bpd", os.path.join(REPO, "tools", "build-paper-day.py"))
    bpd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bpd)
    data = os.path.normpath(args.data_dir)
    for name in (bpd.EIA_FILE, bpd.PRICE_FILE):
        if not os.path.isfile(os.path.join(data, name)):
            fail("%s not found in %s (pass the CAISO data directory with --data-dir)" % (name, data))
    eia = bpd.read_eia(os.path.join(data, bpd.EIA_FILE))
    prices = bpd.read_prices(os.path.join(data, bpd.PRICE_FILE))
    clean = [(k, v) for k, v in eia.items() if not bpd.is_glitch_hour(*k)]
    sun_max = max(v[0] for _, v in clean)
    wind_max = max(v[1] for _, v in clean)
    base = json.load(open(os.path.join(REPO, "instances", "paper_2048gpu.json")))
    candidates = []
    for day in sorted({d for d, _ in eia if d.year == bpd.YEAR and d.month == bpd.MONTH}):
        if day.weekday() == 5:  # Saturdays: doubled HE17 rows in the extract
            continue
        raw = [eia[(day, he)] for he in range(1, 25)]
        pv = [bpd.PV_CAPACITY_KW * max(s, 0.0) / sun_max for s, _ in raw]
        wind = [bpd.WIND_CAPACITY_KW * max(w, 0.0) / wind_max for _, w in raw]
        for zone in bpd.ZONES:
            price = [prices[(day, he, zone)] for he in range(1, 25)]
            candidates.append((bpd.closeness_key(bpd.s1_figures(pv, wind, price)), day.isoformat(), zone,
                               pv, wind, price))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    seen = []
    print("%-10s %-5s %9s %9s %9s %8s %8s" % ("day", "zone", "S1 USD", "S3 USD", "S4 USD", "S3 red%", "S4 red%"))
    with tempfile.TemporaryDirectory() as tmp:
        for _, day, zone, pv, wind, price in candidates:
            if day in seen or len(seen) == 12:
                continue
            seen.append(day)
            a, b, c = bpd.fit_factors(pv, wind, price)
            inst = dict(base)
            inst["series"] = {"pv_kw": [a * x for x in pv], "wind_kw": [b * x for x in wind],
                              "price_usd_per_mwh": [c * x for x in price]}
            path = os.path.join(tmp, "day.json")
            json.dump(inst, open(path, "w"))
            cost = {}
            for s in ("S1", "S3", "S4"):
                rc = subprocess.run([binary, "solve", path, "--scenario", s, "--quiet", "--out",
                                     os.path.join(tmp, "r.json")]).returncode
                if rc != 0:
                    fail("%s solve %s of %s %s exited with %d" % (binary, s, day, zone, rc))
                cost[s] = json.load(open(os.path.join(tmp, "r.json")))["objective_usd"]
            print("%-10s %-5s %9.2f %9.2f %9.2f %8.2f %8.2f" % (
                day, zone, cost["S1"], cost["S3"], cost["S4"], 100 * (1 - cost["S3"] / cost["S1"]),
                100 * (1 - cost["S4"] / cost["S1"])))


if __name__ == "__main__":
    main()
