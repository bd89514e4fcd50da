#!/usr/bin/env python3
"""Independent exact odds of scenarios/quietus_breach.toml (no rulebench code): a Markov chain
over the fleets, written from the rules alone. The Quietus (5 x2, Sustain Damage), 2 cruisers (7)
and 2 fighters (9) against 3 dreadnoughts (5, Sustain Damage) and a destroyer (9, Anti-Fighter
Barrage 9 x2). With the breach active, while the Quietus lives the defender's units have no unit
abilities (no Sustain Damage, no barrage); they get them back once it is destroyed. Hits: each
side sustains first where it can, then loses fighter, destroyer, cruiser, dreadnought, flagship.

  python3 content/ti4-te/scenarios/quietus_breach_check.py   -> P(attacker wins), active and not
  python3 content/ti4-te/scenarios/quietus_breach_check.py RULEBENCH ROOT   -> checks Rulebench
  gives them to 1e-9 (ctest te_quietus_breach)
"""
from arms_check import dist, run_arms
from functools import lru_cache
from math import comb


def solve(breach_active):
    # attacker: q (Quietus alive), qd (damaged), c cruisers, f fighters
    # defender: u undamaged dreadnoughts, m damaged ones, e destroyer
    def attacker_takes(q, qd, c, f, h):
        if q and not qd and h > 0:
            qd, h = 1, h - 1
        lost = min(f, h); f -= lost; h -= lost
        lost = min(c, h); c -= lost; h -= lost
        if q and h > 0:
            q, qd = 0, 0
        return q, qd, c, f

    def defender_takes(u, m, e, h, silenced):
        if not silenced:
            s = min(u, h); u -= s; m += s; h -= s
        if e and h > 0:
            e, h = 0, h - 1
        # dreadnoughts lost: silenced ones cannot sustain (all alike); else the damaged ones go
        lost = min(m, h); m -= lost; h -= lost
        lost = min(u, h); u -= lost; h -= lost
        return u, m, e

    @lru_cache(maxsize=None)
    def win(q, qd, c, f, u, m, e):
        a_alive = q + c + f > 0
        d_alive = u + m + e > 0
        if not d_alive:
            return 1.0 if a_alive else 0.0
        if not a_alive:
            return 0.0
        silenced = breach_active and q == 1
        pa = dist([0.6] * (2 * q) + [0.4] * c + [0.2] * f)
        pd = dist([0.6] * (u + m) + [0.2] * e)
        stay, rest = 0.0, 0.0
        for ha, p1 in enumerate(pa):
            for hd, p2 in enumerate(pd):
                p = p1 * p2
                a2 = attacker_takes(q, qd, c, f, hd)
                d2 = defender_takes(u, m, e, ha, silenced)
                if a2 == (q, qd, c, f) and d2 == (u, m, e):
                    stay += p
                else:
                    rest += p * win(*a2, *d2)
        return rest / (1 - stay)

    # round 1's Anti-Fighter Barrage: the destroyer's 2 dice at 9 against the fighters
    total = 0.0
    afb = [1.0] if breach_active else dist([0.2, 0.2])
    for h, p in enumerate(afb):
        total += p * win(1, 0, 2, max(0, 2 - h), 3, 0, 1)
    return total


def main():
    # P(attacker wins) is what the chain gives; draw and defender_win are not checked here
    run_arms("quietus_breach.toml", {
        "active": ([], (solve(True),)),
        "inactive": (('breach = "active"', 'breach = "inactive"'), (solve(False),))})

if __name__ == "__main__":
    main()
