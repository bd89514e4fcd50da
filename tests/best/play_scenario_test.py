#!/usr/bin/python3
"""A scenario's [play] (docs/exact.md, "Best play in a scenario"): `simulate S.toml` on a scenario
whose [play] says a side plays "best" gives, byte for byte, the JSON of `simulate --exact --best
SIDE --objective O` on the same scenario without [play]; command-line flags override the file
(--best none: the policies, --objective); a Monte Carlo request on it is an error; compare has
no best play; `trace` narrates a best-play run; bad values are errors naming the file, the line
and what was expected.

Usage: play_scenario_test.py RULEBENCH ROOT. Exit 0 when every check passes, 1 otherwise."""

import json
import os
import subprocess
import sys
import tempfile

FLEETS = """ruleset = "ti4"
procedure = "space_combat"

[attacker]
units = { cruiser = 2, carrier = 1 }

[defender]
units = { cruiser = 2, carrier = 1 }
"""


def main():
    exe, root = sys.argv[1], sys.argv[2]
    failed = 0

    def check(ok, what):
        nonlocal failed
        print(("ok     " if ok else "FAIL   ") + what, flush=True)
        failed += 0 if ok else 1

    def run(*args):
        return subprocess.run([exe, "--root", root, *args], capture_output=True, text=True, timeout=300)

    def report(r):
        if r.returncode != 0:
            return {"error": r.stderr.strip()}
        j = json.loads(r.stdout)
        # the file each ran from and the time it took are the only things that may differ
        j.get("scenario", {}).pop("file", None)
        for part in (j, j.get("policy", {})):
            part.pop("seconds", None)
        return j

    with tempfile.TemporaryDirectory() as work:
        def write(name, text):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        plain = write("plain.toml", FLEETS)
        play = write("play.toml", FLEETS + '\n[play]\ndefender = "best"\n')

        # the file's [play] is --exact --best defender
        a, b = report(run("simulate", play, "--json")), report(run("simulate", plain, "--exact", "--best", "defender", "--json"))
        check("best" in a and a == b and a["best"]["gain_points"] > 1,
              f"[play] defender = \"best\": simulate gives --exact --best defender's JSON (gain {a.get('best', {}).get('gain_points')} points; {a.get('error', '')})")
        both = write("both.toml", FLEETS + '\n[play]\nattacker = "best"\ndefender = "best"\nobjective = "not_lose"\n')
        a = report(run("simulate", both, "--json"))
        b = report(run("simulate", plain, "--exact", "--best", "both", "--objective", "not_lose", "--json"))
        check("best" in a and a == b and a["best"]["side"] == "both",
              f"[play] both sides, objective not_lose: --best both --objective not_lose's JSON ({a.get('error', '')})")
        # flags override the file
        a = report(run("simulate", play, "--objective", "not_lose", "--json"))
        b = report(run("simulate", plain, "--exact", "--best", "defender", "--objective", "not_lose", "--json"))
        check("best" in a and a == b, "--objective overrides the file's objective")
        a = report(run("simulate", play, "--exact", "--best", "attacker", "--json"))
        b = report(run("simulate", plain, "--exact", "--best", "attacker", "--json"))
        check("best" in a and a == b and a["best"]["side"] == "attacker", "--best attacker overrides the file's side")
        a = report(run("simulate", play, "--best", "none", "--runs", "500", "--json"))
        b = report(run("simulate", plain, "--runs", "500", "--json"))
        check("best" not in a and a == b, f"--best none: every side plays its policy, by Monte Carlo too ({a.get('error', '')})")
        # best play is the exact mode's: Monte Carlo on it is an error at [play]'s line
        r = run("simulate", play, "--runs", "500")
        check(r.returncode != 0 and f"{play}:11: [play] defender = \"best\": best play is the exact mode's" in r.stderr
              and "--best none" in r.stderr, f"a Monte Carlo request on [play] is an error: {r.stderr.strip()[:160]}")
        r = run("compare", play, "--with", "defender:morale_boost")
        check(r.returncode != 0 and f"{play}:11:" in r.stderr and "compare plays the policies only" in r.stderr,
              f"compare has no best play: {r.stderr.strip()[:160]}")
        # trace narrates a run of the best play, as trace --best does
        a, b = run("trace", play, "--seed", "3"), run("trace", plain, "--best", "defender", "--seed", "3")
        check(a.returncode == 0 and a.stdout.replace("play.toml", "plain.toml") == b.stdout and "best play" in a.stdout,
              f"trace on [play] is trace --best defender ({a.stderr.strip()[:160]})")

        # bad values: the file, the line and what was expected
        for name, text, want in [
                ("bad_value.toml", '[play]\ndefender = "bets"\n',
                 ':11: [play] defender is "best" (its best response, exact mode) or "policy", not \'bets\''),
                ("bad_type.toml", '[play]\ndefender = true\n', ':11: [play] defender is "best"'),
                ("bad_side.toml", '[play]\ndefendr = "best"\n',
                 ":11: [play] defendr: not a side of the report of 'space_combat'; its sides: attacker, defender"),
                ("bad_objective.toml", '[play]\ndefender = "best"\nobjective = "winning"\n',
                 ':12: [play] objective is one of "win", "not_lose", "metric:NAME", "metric:-NAME", not \'winning\''),
                ("bad_metric.toml", '[play]\ndefender = "best"\nobjective = "metric:nosuch"\n',
                 ":12: [play] objective: 'metric:nosuch': the report of 'space_combat' has no mean or probability 'nosuch'"),
                ("no_side.toml", '[play]\nobjective = "win"\n', ':11: [play] objective: no side plays "best"')]:
            path = write(name, FLEETS + "\n" + text)
            r = run("simulate", path)
            check(r.returncode != 0 and (path + want) in r.stderr and "traceback" not in r.stderr.lower(),
                  f"{name}: {r.stderr.strip()[:200]}")

    # the shipped examples: bench (b) with the defender's best play, X-Wing's best token spending
    b_play = os.path.join(root, "content/ti4-base/scenarios/best_play_b.toml")
    a = report(run("simulate", b_play, "--json"))
    b = report(run("simulate", os.path.join(root, "content/ti4-base/scenarios/bench_b.toml"), "--exact", "--best", "defender", "--json"))
    for j in (a, b):
        j.get("scenario", {}).get("settings", {}).pop("description", None)
    check("best" in a and a == b and 2.9 < a["best"]["gain_points"] < 3.1,
          f"best_play_b.toml: bench (b)'s defender best play, +{a.get('best', {}).get('gain_points', 0):.2f} points ({a.get('error', '')})")
    lock = report(run("simulate", os.path.join(root, "content/xwing-core/scenarios/best_play_lock.toml"), "--json"))
    check("best" in lock and abs(lock["best"]["gain"] - 0.2403) < 1e-3,
          f"best_play_lock.toml: X-Wing's best token spending, +{lock.get('best', {}).get('gain', 0):.4f} expected damage")
    xw = os.path.join(root, "content/xwing-core/scenarios/issue_example.toml")
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "xwing_win.toml")
        with open(xw) as f, open(path, "w") as g:
            g.write(f.read() + '\n[play]\nattacker = "best"\n')
        r = run("simulate", path)
        check(r.returncode != 0 and f"{path}:17: [play] objective: best play: the report of 'attack' declares no win" in r.stderr,
              f"X-Wing has no wins: [play] without a metric objective is an error at its line: {r.stderr.strip()[:200]}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
