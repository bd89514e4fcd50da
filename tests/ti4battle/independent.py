#!/usr/bin/env python3
"""Independent exact values of the ti4battle cases whose `independent` numbers were computed in
Python, written apart from Rulebench: a space combat as a dynamic program over each side's groups
in hit order, under the calculator's tests' risk-direct-hit = false (policy sustain = "last": a
group's undamaged units all sustain before any of the group is lost; groups in hit order).
Checks that expected.toml / pending.toml hold these numbers (to 5 decimals); exit 1 if not."""
import os
import sys
import tomllib
from functools import lru_cache
from math import comb


def binom(n, p):
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def conv(a, b):
    r = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            r[i + j] += x * y
    return r


def combat(att, dfn, on_loss=None):
    """att, dfn: [(dice per unit, chance a die hits, can sustain)] in hit order. A state is a
    tuple of (undamaged, damaged) per group, plus a flag for the attacker's once-only effect
    `on_loss(state) -> state` applied after its first loss. Returns V(a, d, used)."""

    def hits(spec, st, bonus):
        r = [1.0]
        for g, ((dice, p, _), (u, dm)) in enumerate(zip(spec, st)):
            r = conv(r, binom((u + dm) * (dice + bonus.get(g, 0)), p))
        return r

    def assign(spec, st, h):
        st, lost = list(st), False
        for i, (_, _, sustains) in enumerate(spec):
            u, dm = st[i]
            if sustains:
                s = min(h, u)
                u, dm, h = u - s, dm + s, h - s
                k = min(h, dm)
                dm, h = dm - k, h - k
            else:
                k = min(h, u)
                u, h = u - k, h - k
            lost = lost or k > 0
            st[i] = (u, dm)
        return tuple(st), lost

    alive = lambda st: any(u + dm for u, dm in st)

    @lru_cache(None)
    def value(a, d, bonus):
        if not alive(a):
            return (0.0, 1.0, 0.0) if not alive(d) else (0.0, 0.0, 1.0)
        if not alive(d):
            return (1.0, 0.0, 0.0)
        da, dd = hits(att, a, dict(bonus)), hits(dfn, d, {})
        total, still = [0.0, 0.0, 0.0], 0.0
        for ha, pa in enumerate(da):
            for hd, pd in enumerate(dd):
                p = pa * pd
                if ha == 0 and hd == 0:
                    still += p
                    continue
                a2, lost = assign(att, a, hd)
                b2 = bonus
                if lost and on_loss and not bonus:
                    b2 = on_loss(a2)
                v = value(a2, assign(dfn, d, ha)[0], b2)
                for i in range(3):
                    total[i] += p * v[i]
        return tuple(x / (1 - still) for x in total)

    return value


def cases():
    out = {}
    # mahact_flagship_bonus: 3 dreadnoughts (5) and the Arvicon Rex (2 dice hitting on 3 with its
    # +2) against 5 dreadnoughts (5); all sustain
    v = combat([(1, 0.6, True), (2, 0.8, True)], [(1, 0.6, True)])
    out["mahact_flagship_bonus"] = v(((3, 0), (1, 0)), ((5, 0),), ())
    # last_bastion_agent_highest_worth: 2 fighters (9) then a dreadnought (5, sustains) with Dame
    # Briar (the first loss galvanizes the dreadnought: 1 more die) against 2 dreadnoughts
    galvanize = lambda a: ((1, 1),) if (a[1][0] + a[1][1]) else ()
    v = combat([(1, 0.2, False), (1, 0.6, True)], [(1, 0.6, True)], on_loss=galvanize)
    out["last_bastion_agent_highest_worth"] = v(((2, 0), (1, 0)), ((2, 0),), ())
    # argent_destroyers_sustain: Raid Formation first (9 Anti-Fighter Barrage dice at 6, each hit
    # damages a defending dreadnought, up to 3); then 3 Strike Wing Alpha II (7) and 3 dreadnoughts
    # against 3 cruisers (7) and 3 dreadnoughts
    v = combat([(1, 0.4, False), (1, 0.6, True)], [(1, 0.4, False), (1, 0.6, True)])
    total = [0.0, 0.0, 0.0]
    for k, pk in enumerate(binom(9, 0.5)):
        dm = min(k, 3)
        r = v(((3, 0), (3, 0)), ((3, 0), (3 - dm, dm)), ())
        for i in range(3):
            total[i] += pk * r[i]
    out["argent_destroyers_sustain"] = tuple(total)
    # obsidian_asail: 2 cruisers hitting on 6 (7, Asail's +1) against 2 cruisers on 7
    v = combat([(1, 0.5, False)], [(1, 0.4, False)])
    out["obsidian_asail"] = v(((2, 0),), ((2, 0),), ())
    # firmament_asail: the same without Asail (the Firmament's plots lie face down): 7 against 7
    v = combat([(1, 0.4, False)], [(1, 0.4, False)])
    out["firmament_asail"] = v(((2, 0),), ((2, 0),), ())
    # firmament_asail_bombardment: one Bombardment die at 5 (no Asail) against 1 infantry, no
    # ground forces to land: a hit leaves no ground forces (a draw), a miss the defender's
    out["firmament_asail_bombardment"] = (0.0, 0.6, 0.4)
    out["ral_nel_alarum"] = alarum()
    # ral_nel_alarum_no_mech: 1 infantry against 1 (8: 0.3 a die), no Alarum
    q = 1 - 0.7 * 0.7
    out["ral_nel_alarum_no_mech"] = (0.21 / q, 0.09 / q, 0.21 / q)
    return out


def alarum():
    """ral_nel_alarum: a ground combat, the Ral Nel's mech (6: 0.5, Sustain Damage, used first as
    on the ground by default) against 3 infantry (8: 0.3); at the end of a round after which the
    combat goes on with the mech alive, its 2 infantry from the planet next door arrive (once).
    The mech's owner loses infantry before the damaged mech. State: mech (0 gone, 1 damaged, 2
    whole), the Ral Nel's infantry, the defender's infantry, whether the 2 have arrived."""

    @lru_cache(None)
    def value(m, i, d, arrived):
        if m + i == 0:
            return (0.0, 1.0, 0.0) if d == 0 else (0.0, 0.0, 1.0)
        if d == 0:
            return (1.0, 0.0, 0.0)
        da = conv(binom(1 if m else 0, 0.5), binom(i, 0.3))
        dd = binom(d, 0.3)
        total, still = [0.0, 0.0, 0.0], 0.0
        for ha, pa in enumerate(da):
            for hd, pd in enumerate(dd):
                p = pa * pd
                m2, i2, h = m, i, hd
                if h and m2 == 2:
                    m2, h = 1, h - 1
                k = min(h, i2)
                i2, h = i2 - k, h - k
                if h and m2:
                    m2 = 0
                d2 = max(0, d - ha)
                arr = arrived
                if not arr and m2 and d2:
                    i2, arr = i2 + 2, True
                if (m2, i2, d2, arr) == (m, i, d, arrived):
                    still += p
                    continue
                v = value(m2, i2, d2, arr)
                for j in range(3):
                    total[j] += p * v[j]
        return tuple(x / (1 - still) for x in total)

    return value(2, 0, 3, False)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    listed = {}
    for name in ("expected.toml", "pending.toml"):
        with open(os.path.join(root, "tests", "ti4battle", name), "rb") as f:
            for c in tomllib.load(f).get("case", []):
                if "independent" in c:
                    listed[c["id"]] = c["independent"]
    bad = 0
    for cid, got in cases().items():
        want = listed.get(cid)
        keys = ("attacker", "draw", "defender")
        ok = want is not None and all(abs(want[k] - g) < 5e-6 for k, g in zip(keys, got))
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'}  {cid:<36} {' / '.join(f'{g:.5f}' for g in got)}  listed {want}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
