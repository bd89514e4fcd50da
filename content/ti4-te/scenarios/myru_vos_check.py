#!/usr/bin/env python3
"""Independent check of myru_vos.toml (no rulebench code): Space Cannon Offense, then the space
combat in a as a Markov chain over (the Firmament's cruisers, Sol's cruisers). With Myru Vos no
Space Cannon fires: the combat starts at 3 against 2. Without it Sol's PDS rolls one die at 6 (a
hit with probability 1/2) and a hit destroys one of the Firmament's cruisers first. Each round
every cruiser rolls one die at 7 (0.4); no retreats, no other abilities. Prints attacker_win,
draw, defender_win for both arms; given a rulebench and the repository (`myru_vos_check.py
RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from arms_check import duel, hits, run_arms
from fractions import Fraction

CRUISER, PDS = Fraction(4, 10), Fraction(5, 10)


def combat(f, s):
    """(attacker_win, draw, defender_win) at the start of a round: f Firmament cruisers, s Sol's"""
    return duel(f, CRUISER, s, CRUISER)


def arms():
    """{arm: (attacker_win, draw, defender_win)}"""
    without = tuple(PDS * x + (1 - PDS) * y for x, y in zip(combat(2, 2), combat(3, 2)))
    return {"with": combat(3, 2), "without": without}


def main():
    want = arms()
    run_arms("myru_vos.toml", {
        "with": ([], want["with"]),
        "without": (('leaders = ["myru_vos"]', "leaders = []"), want["without"])})

if __name__ == "__main__":
    main()
