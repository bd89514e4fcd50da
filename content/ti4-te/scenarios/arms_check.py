"""The runner the independent checks beside these scenarios share (quietus_breach_check.py,
void_tether_check.py, ...): each computes its arms' exact values apart from Rulebench, then
`run_arms` prints them, or, given a rulebench and the repository on the command line, compares
each arm's `simulate --exact --json` with them (exit 1 when one differs by 1e-9 or more)."""
import json
import os
import subprocess
import sys
import tempfile

OUTCOMES = ("attacker_win", "draw", "defender_win")


def run_arms(scenario, arms):
    """scenario: a file name in this folder. arms: {name: (change, want)} or {name: (change, want,
    more)}, `want` the values of OUTCOMES, `more` other report keys and their values ({key:
    value}; "survivors/attacker/destroyer/2" reads inside the report), `change` how the arm differs from the file: a list of extra command-line arguments
    (`--without attacker:x`), or a pair (text, replacement) for a line of the file."""
    def values(arm):
        return list(zip(OUTCOMES, arm[1])) + list(arm[2].items() if len(arm) > 2 else [])
    if len(sys.argv) < 3:
        for name, arm in arms.items():
            print(f"{name:<14} " + " ".join(f"{k} {float(v):.9f}" for k, v in values(arm)))
        return
    exe, root = sys.argv[1], sys.argv[2]
    path = os.path.join(root, "content", "ti4-te", "scenarios", scenario)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bad = 0
    for name, arm in arms.items():
        change = arm[0]
        extra, scratch = [], None
        if isinstance(change, tuple):
            old, new = change
            assert text.count(old) == 1, f"{scenario}: '{old}' is not once in the file"
            with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as t:
                t.write(text.replace(old, new))
            scratch = t.name
        else:
            extra = list(change)
        try:
            r = subprocess.run([exe, "--root", root, "simulate", scratch or path, "--exact", "--json"]
                               + extra, capture_output=True, text=True, timeout=120)
        finally:
            if scratch:
                os.remove(scratch)
        got = json.loads(r.stdout) if r.returncode == 0 else {}
        for key, w in values(arm):
            g = got
            for part in key.split("/"):
                if isinstance(g, list):
                    g = g[int(part)] if int(part) < len(g) else 0.0
                else:
                    g = g.get(part, float("nan")) if isinstance(g, dict) else float("nan")
            ok = abs(g - float(w)) < 1e-9
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'}  {name:<14} {key:<13} rulebench {g:.9f}  independent {float(w):.9f}")
    sys.exit(1 if bad else 0)


def dist(dice):
    """distribution of the number of hits of dice with the given hit chances (floats): P(k hits)"""
    out = [1.0]
    for p in dice:
        new = [0.0] * (len(out) + 1)
        for k, q in enumerate(out):
            new[k] += q * (1 - p)
            new[k + 1] += q * p
        out = new
    return out


def hits_of(dice):
    """distribution of the number of hits (Fractions) of dice given as [(count, hit chance), ...]"""
    from fractions import Fraction

    dist = {0: Fraction(1)}
    for n, p in dice:
        for _ in range(n):
            nxt = {}
            for h, q in dist.items():
                nxt[h + 1] = nxt.get(h + 1, 0) + q * p
                nxt[h] = nxt.get(h, 0) + q * (1 - p)
            dist = nxt
    return dist


def hits(n, p):
    """distribution of the number of hits of n dice that each hit with probability p (Fractions)"""
    return hits_of([(n, p)])


def duel(a, pa, d, pd, _memo={}):
    """(attacker_win, draw, defender_win), exact, of a ships that each roll 1 die hitting with
    probability pa against d ships hitting with pd, each hit one ship lost, both at once, until
    one side or both have none (a round where nobody is hit divided out)."""
    from fractions import Fraction

    key = (a, pa, d, pd)
    if key in _memo:
        return _memo[key]
    if a == 0 or d == 0:
        return (Fraction(int(d == 0 and a > 0)), Fraction(int(a == 0 and d == 0)),
                Fraction(int(a == 0 and d > 0)))
    stay, acc = Fraction(0), [Fraction(0)] * 3
    for x, px in hits(a, pa).items():
        for y, py in hits(d, pd).items():
            p = px * py
            na, nd = max(a - y, 0), max(d - x, 0)
            if (na, nd) == (a, d):
                stay += p
            else:
                r = duel(na, pa, nd, pd)
                for i in range(3):
                    acc[i] += p * r[i]
    _memo[key] = tuple(v / (1 - stay) for v in acc)
    return _memo[key]
