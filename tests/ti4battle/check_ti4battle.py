#!/usr/bin/env python3
"""The ti4battle.com calculator's battle tests (pgsandstrom/ti4calc) as Rulebench scenarios.

Usage: check_ti4battle.py RULEBENCH_EXE SOURCE_DIR [--pending] [--only ID ...] [-v]

Runs every case of tests/ti4battle/expected.toml (with --pending: pending.toml, the cases that
fail today, instead), each with `rulebench simulate SCENARIO --json` (--exact, or Monte Carlo with
a fixed seed), counts the outcomes as the calculator does and compares them with its expectations
at its own tolerance (README.md). Closes with "N passed, N failed"; exit 1 if any failed.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
import tomllib

# The calculator's tolerance (util/util.test.ts, checkResult): a relative band that widens as
# the expected probability gets smaller; an expectation of 0 must see none of its 20 000 battles.
BANDS = [(0.01, 0.40), (0.02, 0.35), (0.045, 0.25), (0.065, 0.15), (0.08, 0.15), (0.132, 0.08)]
WIDE = 0.05
BATTLES = 20000           # DO_BATTLE_X_TIMES: the battles a test runs (a case's `battles` if other)
Z = 4.0                   # Monte Carlo: the band widens by 4 standard errors (fixed seed)
OUTCOMES = ("attacker", "draw", "defender")


def band(expected):
    if expected == 0:
        return 0.0
    for limit, rel in BANDS:
        if expected <= limit:
            return rel
    return WIDE


def outcomes(count, d):
    """attacker, draw, defender as the calculator counts them: a side wins when it alone has
    units left (ships in space, ground forces on the planet)."""
    if count == "space":  # procedure space_combat
        return {"attacker": d["attacker_win"], "draw": d["draw"], "defender": d["defender_win"]}
    if count == "tactical_space":  # a tactical action: ships left in the active system
        a = 1 - d["attacker_ships_in_active_system"][0]
        b = 1 - d["defender_ships_in_active_system"][0]
    elif count == "ground":  # a tactical action or a ground combat: who holds the planet
        a = d["planet_1_controlled"] if "planet_1_controlled" in d else d["attacker_takes_the_planet"]
        b = 1 - d["ground_forces_defender"][0]
    else:
        raise SystemExit(f"unknown count '{count}' (space, tactical_space or ground)")
    return {"attacker": a, "draw": 1 - a - b, "defender": b}


def survivors(d, side, unit, n):
    dist = d["survivors"][side].get(unit, [1.0])
    return dist[n] if n < len(dist) else 0.0


def run(exe, root, case):
    scenario = os.path.join(root, "tests", "ti4battle", "scenarios", case["id"] + ".toml")
    cmd = [exe, "--root", root, "simulate", scenario, "--json"]
    if case["method"] == "exact":
        cmd.append("--exact")
    else:
        cmd += ["--runs", str(case["runs"]), "--seed", str(case.get("seed", 1))]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip().splitlines()[:3]
    return json.loads(p.stdout), None


def check(case, d):
    """[(what, value, low, high, ok)] for every expectation of the case."""
    mc = case["method"] != "exact"
    n = case.get("runs", 0)
    # an expectation of 0: none of the test's battles (below half a battle in that many)
    zero = 0.5 / case.get("battles", BATTLES)

    def slack(v):
        return Z * math.sqrt(max(v * (1 - v), 1e-12) / n) if mc else 0.0

    rows = []

    def expect(what, v, e):
        if e == 0:
            # (an exact sum of probabilities can land a rounding error below 0)
            lo, hi = -1e-12, zero + slack(zero)
        else:
            lo, hi = e * (1 - band(e)) - slack(v), e * (1 + band(e)) + slack(v)
        rows.append((what, v, lo, hi, lo <= v <= hi))

    got = outcomes(case["count"], d)
    # the value computed independently of Rulebench (a stated difference, or a passing case's
    # cross-check): Rulebench must give it
    for k, e in case.get("independent", {}).items():
        tol = 1e-4 + (slack(e) if mc else 0.0)
        rows.append((k + " (independent)", got[k], e - tol, e + tol, abs(got[k] - e) <= tol))
    if case.get("stated"):  # a stated difference: against the independent exact value alone
        return rows
    for k in OUTCOMES:
        if k in case.get("expect", {}):
            expect(k, got[k], case["expect"][k])
    for k, bound in case.get("below", {}).items():  # "fewer than half the battles"
        rows.append((k + " <", got[k], 0.0, bound, got[k] + slack(got[k]) < bound))
    for s in case.get("survivors", []):
        v = survivors(d, s["side"], s["unit"], s["count"])
        expect(f"{s['side']} {s['count']} {s['unit']}", v, s["p"])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rulebench")
    ap.add_argument("source")
    ap.add_argument("--pending", action="store_true", help="run pending.toml (failing today) instead")
    ap.add_argument("--only", nargs="*", default=None, help="these case ids only")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every check")
    args = ap.parse_args()
    exe, root = os.path.abspath(args.rulebench), os.path.abspath(args.source)
    listing = os.path.join(root, "tests", "ti4battle", "pending.toml" if args.pending else "expected.toml")
    with open(listing, "rb") as f:
        cases = tomllib.load(f).get("case", [])
    if not args.pending:
        # a stated difference (pending.toml, deliberate = true) with the value computed
        # independently of Rulebench (`independent`): Rulebench must give that value
        with open(os.path.join(root, "tests", "ti4battle", "pending.toml"), "rb") as f:
            for case in tomllib.load(f).get("case", []):
                if case.get("deliberate") and "independent" in case:
                    cases.append(dict(case, stated=True))
    passed = failed = 0
    start = time.monotonic()
    for case in cases:
        if args.only is not None and case["id"] not in args.only:
            continue
        t0 = time.monotonic()
        d, err = run(exe, root, case)
        took = time.monotonic() - t0
        rows = check(case, d) if d else []
        ok = d is not None and all(r[4] for r in rows)
        method = "exact" if case["method"] == "exact" else f"mc {case['runs']}"
        stated = "  [a stated difference: the independent value]" if case.get("stated") else ""
        print(f"{'ok  ' if ok else 'FAIL'}  {case['id']:<40} {method:<9} {took:6.1f} s   ({case['source']}){stated}")
        if err:
            for line in err:
                print(f"      {line}")
        for what, v, lo, hi, good in rows:
            if args.verbose or not good:
                print(f"      {'  ' if good else '! '}{what:<22} {v:.4f}   expected {lo:.4f} .. {hi:.4f}")
        if not ok and case.get("diagnosis"):
            print(f"      diagnosis: {case['diagnosis']}")
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed ({time.monotonic() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
