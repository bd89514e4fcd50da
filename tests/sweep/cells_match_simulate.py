#!/usr/bin/env python3
"""A few cells of a sweep equal `simulate` on the same scenario and seed (docs/sweep.md).

Usage: cells_match_simulate.py RULEBENCH_EXE SOURCE_DIR

The sweep content/ti4-base/sweeps/small.toml is run with --json; for a few cells the same
battle is written as a scenario and given to `simulate` (--exact for an exact cell, else
the cell's runs, fixed by the precision, and the sweep's seed): the outcome probabilities must be
the same numbers (exact: equal to 1e-12; Monte Carlo: the same runs and the same counts).
"""
import json
import os
import subprocess
import sys
import tempfile

exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
spec = os.path.join(root, "content/ti4-base/sweeps/small.toml")


def rb(*args):
    r = subprocess.run([exe, "--root", root, *args], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"FAIL: rulebench {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


sweep = json.loads(rb("sweep", spec, "--json", "--precision", "3"))
columns, outcomes = sweep["columns"], sweep["outcomes"]
# cells written out by hand: (row label, column label) -> the scenario's sides
cases = {
    ("sol", "starting / hacan / as_written"):
        ('{ faction = "sol", fleet = "starting" }', '{ faction = "hacan", fleet = "starting" }'),
    ("letnev", "starting / jol_nar / swapped"):
        ('{ faction = "jol_nar", fleet = "starting" }', '{ faction = "letnev", fleet = "starting" }'),
    ("muaat", "cruiser = 3, destroyer = 2 / hacan / as_written"):
        ('{ faction = "muaat", fleet = "starting" }', '{ faction = "hacan", units = { cruiser = 3, destroyer = 2 } }'),
}
failed = 0
checked = 0
for (row, column), (attacker, defender) in cases.items():
    column = column.replace("cruiser = 3, destroyer = 2", "3 cruiser, 2 destroyer")
    r, c = sweep["rows"].index(row), columns.index(column)
    cell = sweep["cells"][r * len(columns) + c]
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(f'ruleset = "ti4"\nprocedure = "space_combat"\nattacker = {attacker}\ndefender = {defender}\n')
        path = f.name
    try:
        if cell["method"] == "exact":
            got = json.loads(rb("simulate", path, "--exact", "--json",
                                "--max-states", str(sweep["sweep"]["max_states"])))
            bad = [o for o, p in zip(outcomes, cell["p"]) if abs(got.get(o, 0) - p) > 1e-12]
        else:
            got = json.loads(rb("simulate", path, "--json", "--runs", str(sweep["sweep"]["runs"]),
                                "--seed", str(sweep["sweep"]["seed"]), "--threads", "1"))
            bad = [o for o, k in zip(outcomes, cell["counts"])
                   if got["runs"] != cell["runs"] or round(got.get(o, 0) * got["runs"]) != k]
    finally:
        os.unlink(path)
    checked += 1
    if bad:
        failed += 1
        print(f"FAIL  {row} / {column} ({cell['method']}): {', '.join(bad)} differ from simulate")
    else:
        print(f"ok    {row} / {column} ({cell['method']}): the same numbers as simulate")
print(f"{checked - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
