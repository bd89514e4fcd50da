#!/usr/bin/env python3
"""Independent check of linkship.toml (no rulebench code): Space Cannon Offense, then the space
combat in a as a Markov chain over (Sol's cruisers, the Ral Nel's Linkship IIs). With the PDS in
the space area each Linkship II rolls one die at 6 (a hit with probability 1/2) before the
combat, each hit destroying one of Sol's cruisers; without it nothing fires first. Each round a
cruiser hits on 7 (0.4), a Linkship II on 8 (0.3); their Anti-Fighter Barrage finds no fighters.
No retreats. Prints attacker_win, draw, defender_win for both arms; given a rulebench and the
repository (`linkship_check.py RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from arms_check import duel, hits, run_arms
from fractions import Fraction

CRUISER, LINKSHIP, CANNON = Fraction(4, 10), Fraction(3, 10), Fraction(5, 10)


def combat(s, r):
    """(attacker_win, draw, defender_win) at the start of a round: s Sol cruisers, r Linkships"""
    return duel(s, CRUISER, r, LINKSHIP)


def arms():
    """{arm: (attacker_win, draw, defender_win)}"""
    with_pds = [Fraction(0)] * 3
    for k, p in hits(2, CANNON).items():
        for i, x in enumerate(combat(3 - k, 2)):
            with_pds[i] += p * x
    return {"with": tuple(with_pds), "without": combat(3, 2)}


def main():
    want = arms()
    run_arms("linkship.toml", {
        "with": ([], want["with"]),
        "without": (("units = { ral_nel = { destroyer = 2, pds = 1 } }",
                     "units = { ral_nel = { destroyer = 2 } }"), want["without"])})

if __name__ == "__main__":
    main()
