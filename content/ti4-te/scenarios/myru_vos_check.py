#!/usr/bin/env python3
"""Independent check of myru_vos.toml (no rulebench code): Space Cannon Offense, then the space
combat in a as a Markov chain over (the Firmament's cruisers, Sol's cruisers). With Myru Vos no
Space Cannon fires: the combat starts at 3 against 2. Without it Sol's PDS rolls one die at 6 (a
hit with probability 1/2) and a hit destroys one of the Firmament's cruisers first. Each round
every cruiser rolls one die at 7 (0.4); no retreats, no other abilities. Prints attacker_win,
draw, defender_win for both arms; given a rulebench and the repository (`myru_vos_check.py
RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from fractions import Fraction
from functools import lru_cache

CRUISER, PDS = Fraction(4, 10), Fraction(5, 10)


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
def combat(f, s):
    """(attacker_win, draw, defender_win) at the start of a round: f Firmament cruisers, s Sol's"""
    if f == 0 and s == 0:
        return (Fraction(0), Fraction(1), Fraction(0))
    if s == 0:
        return (Fraction(1), Fraction(0), Fraction(0))
    if f == 0:
        return (Fraction(0), Fraction(0), Fraction(1))
    stay, acc = Fraction(0), [Fraction(0)] * 3
    for a, pa in hits(f, CRUISER).items():
        for d, pd in hits(s, CRUISER).items():
            p = pa * pd
            nf, ns = max(f - d, 0), max(s - a, 0)
            if (nf, ns) == (f, s):
                stay += p
            else:
                r = combat(nf, ns)
                for i in range(3):
                    acc[i] += p * r[i]
    return tuple(x / (1 - stay) for x in acc)


def arms():
    """{arm: (attacker_win, draw, defender_win)}"""
    without = tuple(PDS * x + (1 - PDS) * y for x, y in zip(combat(2, 2), combat(3, 2)))
    return {"with": combat(3, 2), "without": without}


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
    path = os.path.join(root, "content", "ti4-te", "scenarios", "myru_vos.toml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    line = 'leaders = ["myru_vos"]'
    assert text.count(line) == 1
    bad = 0
    for arm in ("with", "without"):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as t:
            t.write(text if arm == "with" else text.replace(line, "leaders = []"))
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
