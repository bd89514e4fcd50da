#!/usr/bin/env python3
"""Independent check of linkship.toml (no rulebench code): Space Cannon Offense, then the space
combat in a as a Markov chain over (Sol's cruisers, the Ral Nel's Linkship IIs). With the PDS in
the space area each Linkship II rolls one die at 6 (a hit with probability 1/2) before the
combat, each hit destroying one of Sol's cruisers; without it nothing fires first. Each round a
cruiser hits on 7 (0.4), a Linkship II on 8 (0.3); their Anti-Fighter Barrage finds no fighters.
No retreats. Prints attacker_win, draw, defender_win for both arms; given a rulebench and the
repository (`linkship_check.py RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from fractions import Fraction
from functools import lru_cache

CRUISER, LINKSHIP, CANNON = Fraction(4, 10), Fraction(3, 10), Fraction(5, 10)


def hits(n, p):
    """distribution of the number of hits of n dice that each hit with probability p"""
    dist = {0: Fraction(1)}
    for _ in range(n):
        nxt = {}
        for h, q in dist.items():
            nxt[h + 1] = nxt.get(h + 1, 0) + q * p
            nxt[h] = nxt.get(h, 0) + q * (1 - p)
        dist = nxt
    return dist


@lru_cache(maxsize=None)
def combat(s, r):
    """(attacker_win, draw, defender_win) at the start of a round: s Sol cruisers, r Linkships"""
    if s == 0 and r == 0:
        return (Fraction(0), Fraction(1), Fraction(0))
    if r == 0:
        return (Fraction(1), Fraction(0), Fraction(0))
    if s == 0:
        return (Fraction(0), Fraction(0), Fraction(1))
    stay, acc = Fraction(0), [Fraction(0)] * 3
    for a, pa in hits(s, CRUISER).items():
        for d, pd in hits(r, LINKSHIP).items():
            p = pa * pd
            ns, nr = max(s - d, 0), max(r - a, 0)
            if (ns, nr) == (s, r):
                stay += p
            else:
                res = combat(ns, nr)
                for i in range(3):
                    acc[i] += p * res[i]
    return tuple(x / (1 - stay) for x in acc)


def arms():
    """{arm: (attacker_win, draw, defender_win)}"""
    with_pds = [Fraction(0)] * 3
    for k, p in hits(2, CANNON).items():
        for i, x in enumerate(combat(3 - k, 2)):
            with_pds[i] += p * x
    return {"with": tuple(with_pds), "without": combat(3, 2)}


def main():
    """With no arguments, the values alone; with a rulebench and the repository, each arm's
    `simulate --exact --json` against them (exit 1 when one differs by 1e-9 or more)."""
    import json
    import os
    import subprocess
    import sys
    import tempfile

    want = arms()
    if len(sys.argv) < 3:
        for arm, (aw, dr, dw) in want.items():
            print(f"{arm:8s} attacker_win {float(aw):.9f} draw {float(dr):.9f} defender_win {float(dw):.9f}")
        return
    exe, root = sys.argv[1], sys.argv[2]
    path = os.path.join(root, "content", "ti4-te", "scenarios", "linkship.toml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    line = 'units = { ral_nel = { destroyer = 2, pds = 1 } }'
    assert text.count(line) == 1
    bad = 0
    for arm in ("with", "without"):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as t:
            t.write(text if arm == "with" else text.replace(line, "units = { ral_nel = { destroyer = 2 } }"))
        try:
            r = subprocess.run([exe, "--root", root, "simulate", t.name, "--exact", "--json"],
                               capture_output=True, text=True, timeout=120)
        finally:
            os.remove(t.name)
        got = json.loads(r.stdout) if r.returncode == 0 else {}
        for key, value in zip(("attacker_win", "draw", "defender_win"), want[arm]):
            g = got.get(key, float("nan"))
            ok = abs(g - float(value)) < 1e-9
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'}  {arm:8s} {key:13s} rulebench {g:.9f}  independent {float(value):.9f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
