#!/usr/bin/env python3
"""Independent exact odds of scenarios/homesick_phantom.toml (no rulebench code): a Markov chain
over the fleets, written from the rules alone. The Crimson Rebellion's cruiser (7) and, with the
hero, the 2 Exile I its card holds (8; their Anti-Fighter Barrage finds no fighters) against 2
cruisers (7). Each side loses its destroyers before its cruisers. Without the hero the Exiles stay
on the card: 1 cruiser against 2. The resources each side lost (the report's half resources: what
it had, the Exiles that came in included, less what it kept) and the survivors (the Exiles that
came in among the attacker's destroyers) from the same chain's end states.

  python3 content/ti4-te/scenarios/homesick_phantom_check.py   -> P(win, draw, loss), with and without
  python3 content/ti4-te/scenarios/homesick_phantom_check.py RULEBENCH ROOT   -> checks Rulebench
  gives them to 1e-9 (ctest te_homesick_phantom)
"""
from arms_check import dist, run_arms
from functools import lru_cache


@lru_cache(maxsize=None)
def odds(c, d, e):
    """(win, draw, loss) for the Crimson: c cruisers, d destroyers against e cruisers."""
    if e == 0:
        return (1.0, 0.0, 0.0) if c + d > 0 else (0.0, 1.0, 0.0)
    if c + d == 0:
        return (0.0, 0.0, 1.0)
    pa = dist([0.4] * c + [0.3] * d)
    pd = dist([0.4] * e)
    stay, rest = 0.0, [0.0, 0.0, 0.0]
    for ha, p1 in enumerate(pa):
        for hd, p2 in enumerate(pd):
            p = p1 * p2
            d2 = max(0, d - hd)
            c2 = max(0, c - max(0, hd - d))
            e2 = max(0, e - ha)
            if (c2, d2, e2) == (c, d, e):
                stay += p
            else:
                sub = odds(c2, d2, e2)
                for i in range(3):
                    rest[i] += p * sub[i]
    return tuple(r / (1 - stay) for r in rest)


@lru_cache(maxsize=None)
def ends(c, d, e):
    """{(c, d, e) at the end: probability}, from c cruisers, d destroyers against e cruisers."""
    if e == 0 or c + d == 0:
        return {(c, d, e): 1.0}
    pa = dist([0.4] * c + [0.3] * d)
    pd = dist([0.4] * e)
    stay, rest = 0.0, {}
    for ha, p1 in enumerate(pa):
        for hd, p2 in enumerate(pd):
            p = p1 * p2
            nxt = (max(0, c - max(0, hd - d)), max(0, d - hd), max(0, e - ha))
            if nxt == (c, d, e):
                stay += p
            else:
                for end, q in ends(*nxt).items():
                    rest[end] = rest.get(end, 0.0) + p * q
    return {end: q / (1 - stay) for end, q in rest.items()}


def lost(c, d, e):
    """The report's resources lost, in half resources (a cruiser 4, an Exile I 2): what each side
    had in the combat, the ships that came in included, less what it kept."""
    had_a, had_d = 4 * c + 2 * d, 4 * e
    la = sum(q * (had_a - 4 * c2 - 2 * d2) for (c2, d2, _), q in ends(c, d, e).items())
    ld = sum(q * (had_d - 4 * e2) for (_, _, e2), q in ends(c, d, e).items())
    return {"attacker_half_resources_lost": la, "defender_half_resources_lost": ld,
            "half_resources_margin": ld - la}


def survivors(c, d, e):
    """The report's survivors table: P(k left) of each side's types, the Exiles that came in
    counted as the attacker's destroyers, and of each side's units all together."""
    out = {}
    for (c2, d2, e2), q in ends(c, d, e).items():
        for key in (f"survivors/attacker/cruiser/{c2}", f"survivors/attacker/destroyer/{d2}",
                    f"survivors/defender/cruiser/{e2}", f"survivors_units/attacker/{c2 + d2}",
                    f"survivors_units/defender/{e2}"):
            out[key] = out.get(key, 0.0) + q
    return out


def main():
    run_arms("homesick_phantom.toml", {
        "with the hero": ([], odds(1, 2, 2), {**lost(1, 2, 2), **survivors(1, 2, 2)}),
        "without": (["--without", "attacker:crimson_rebellion_hero"], odds(1, 0, 2), lost(1, 0, 2))})

if __name__ == "__main__":
    main()
