#!/usr/bin/env python3
"""Independent check of void_tether.toml (no rulebench code): the space combat in a, as a Markov
chain over (Sol's cruisers, Sol's carriers, the Empyrean's cruisers). Each round every ship rolls
one die at once: a cruiser hits on 7+ (0.4), a carrier on 9+ (0.2). Sol assigns its hits to
cruisers first, then carriers (the default hit order: the cheapest first); the Empyrean loses a
cruiser per hit. No retreats, no abilities. With Void Tether only Sol's 2 cruisers reach a (the
carriers, move 1, cannot cross the tethered border or go round); without it all four do.
Prints attacker_win, draw, defender_win for both arms; given a rulebench and the repository
(`void_tether_check.py RULEBENCH ROOT`), checks its exact answers for both to 1e-9."""
from arms_check import hits_of as hits, run_arms
from fractions import Fraction
from functools import lru_cache


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
    want = arms()
    run_arms("void_tether.toml", {
        "with": ([], want["with"]),
        "without": (('technologies = ["void_tether"]', "technologies = []"), want["without"])})

if __name__ == "__main__":
    main()
