#!/usr/bin/env python3
"""The exact mode's answers of many scenarios, kept and compared (a change that should only make
the exact mode faster must leave every number where it was).

  tools/anchors/exact_values.py dump BINARY ROOT OUT.json SCENARIO.toml...
      runs `BINARY --root ROOT simulate S --exact --json` on each scenario; keeps every number of
      each report but its timing ("seconds") and size ("states", "step_runs")
  tools/anchors/exact_values.py diff BEFORE.json AFTER.json [--tol 1e-12]
      prints each number that moved by more than the tolerance (exit 1 if any), and how many
      were compared
"""
import json
import subprocess
import sys

SKIP = {"seconds", "states", "step_runs", "ci95"}


def numbers(value, prefix=""):
    """Every number in a JSON value, by its path."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in SKIP:
                yield from numbers(v, f"{prefix}.{k}" if prefix else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from numbers(v, f"{prefix}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield prefix, float(value)


def dump(binary, root, out, scenarios):
    result = {}
    for s in scenarios:
        p = subprocess.run([binary, "--root", root, "simulate", s, "--exact", "--json"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            result[s] = {"error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
        else:
            report = json.loads(p.stdout)
            result[s] = {"numbers": dict(numbers(report)), "states": report.get("states"),
                         "seconds": report.get("seconds")}
        print(s, "error" if "error" in result[s] else f"{result[s]['states']} states "
              f"{result[s]['seconds'] * 1000:.2f} ms", file=sys.stderr)
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


def diff(before, after, tol):
    a, b = json.load(open(before)), json.load(open(after))
    compared, moved = 0, 0
    for s in sorted(set(a) | set(b)):
        x, y = a.get(s), b.get(s)
        if x is None or y is None:
            print(f"{s}: only in {'after' if x is None else 'before'}")
            moved += 1
            continue
        if "error" in x or "error" in y:
            if x.get("error") != y.get("error"):
                print(f"{s}: error before {x.get('error')} after {y.get('error')}")
                moved += 1
            continue
        for k in sorted(set(x["numbers"]) | set(y["numbers"])):
            u, v = x["numbers"].get(k), y["numbers"].get(k)
            compared += 1
            if u is None or v is None or abs(u - v) > tol:
                print(f"{s}: {k}: {u} -> {v}")
                moved += 1
    print(f"{compared} numbers compared, {moved} moved by more than {tol}")
    return 1 if moved else 0


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "diff":
        tol = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--tol" else 1e-12
        sys.exit(diff(sys.argv[2], sys.argv[3], tol))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
