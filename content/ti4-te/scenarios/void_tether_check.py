#!/usr/bin/env python3
"""Independent check of void_tether.toml (no rulebench code): the space combat in a, as a Markov
chain over (Sol's cruisers, Sol's carriers, the Empyrean's cruisers). Each round every ship rolls
one die at once: a cruiser hits on 7+ (0.4), a carrier on 9+ (0.2). Sol assigns its hits to
cruisers first, then carriers (the default hit order: the cheapest first); the Empyrean loses a
cruiser per hit. No retreats, no abilities. With Void Tether only Sol's 2 cruisers reach a (the
carriers, move 1, cannot cross the tethered border or go round); without it all four do.
Prints attacker_win, draw, defender_win for both arms; given a rulebench and the repository
(`void_tether_check.py RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from fractions import Fraction
from functools import lru_cache


def hits(dice):
    """distribution of the number of hits: dice is a list of (count, p)"""
    dist = {0: Fraction(1)}
    for n, p in dice:
        for _ in range(n):
            nxt = {}
            for h, q in dist.items():
                nxt[h + 1] = nxt.get(h + 1, 0) + q * p
                nxt[h] = nxt.get(h, 0) + q * (1 - p)
            dist = nxt
    return dist


CRUISER, CARRIER = Fraction(4, 10), Fraction(2, 10)


@lru_cache(maxsize=None)
def outcome(sc, sk, e):
    """(attacker_win, draw, defender_win) from this state, at the start of a round"""
    if sc + sk == 0 and e == 0:
        return (Fraction(0), Fraction(1), Fraction(0))
    if e == 0:
        return (Fraction(1), Fraction(0), Fraction(0))
    if sc + sk == 0:
        return (Fraction(0), Fraction(0), Fraction(1))
    hs = hits([(sc, CRUISER), (sk, CARRIER)])
    he = hits([(e, CRUISER)])
    stay = Fraction(0)
    acc = [Fraction(0)] * 3
    for a, pa in hs.items():
        for d, pd in he.items():
            p = pa * pd
            nsc = max(sc - d, 0)
            nsk = max(sk - max(d - sc, 0), 0)
            ne = max(e - a, 0)
            if (nsc, nsk, ne) == (sc, sk, e):
                stay += p
            else:
                r = outcome(nsc, nsk, ne)
                for i in range(3):
                    acc[i] += p * r[i]
    return tuple(x / (1 - stay) for x in acc)


def arms():
    """{arm: (attacker_win, draw, defender_win)}: Sol's cruisers alone with the breakthrough"""
    return {"with": outcome(2, 0, 3), "without": outcome(2, 2, 3)}


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
    path = os.path.join(root, "content", "ti4-te", "scenarios", "void_tether.toml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    line = 'technologies = ["void_tether"]'
    assert text.count(line) == 1
    bad = 0
    for arm in ("with", "without"):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as t:
            t.write(text if arm == "with" else text.replace(line, "technologies = []"))
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
