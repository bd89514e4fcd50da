#!/usr/bin/env python3
"""A pack's unit numbers against the second source (issue 30: ti4-te, ti4-tf).

The pack's unit records (every content/PACK/**/*.toml but data/ and tests/, from the first source)
and the transcription of the second source kept beside them (content/PACK/data/second_source.toml)
must agree: every number the second source gives for a unit equals the pack's, every unit record
of the pack is in the transcription (or in its `a_only` list: the second source has no numbers for
it), and every entry of the transcription names a unit of the pack. A unit the second source lists
with fewer numbers is fine: the numbers it lacks are printed as the first source's only.

  tests/te_units/check_units.py ROOT [--pack ti4-te|ti4-tf]
"""

import argparse
import glob
import os
import sys
import tomllib

NUMBERS = ["combat", "dice", "move", "capacity", "cost", "afb", "afb_dice", "bombardment",
           "bombardment_dice", "space_cannon", "space_cannon_dice", "production", "sustain_damage",
           "fighter_capacity", "planetary_shield", "space_cannon_range"]
# what a record leaves out reads as this (the ruleset's defaults)
DEFAULT = {"sustain_damage": False, "planetary_shield": False, "space_cannon_range": 0}


def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--pack", default="ti4-te")
    args = ap.parse_args()
    pack = os.path.join(args.root, "content", args.pack)

    units = {}
    paths = [p for p in glob.glob(os.path.join(pack, "**", "*.toml"), recursive=True)
             if os.path.relpath(p, pack).split(os.sep)[0] not in ("data", "tests", "pack.toml")]
    for path in sorted(paths):
        data = load(path)
        for uid, rec in data.get("unit", {}).items():
            units[uid] = (rec, os.path.relpath(path, args.root))
        # an override of another pack's unit record that changes its numbers
        # ("ti4-base:unit/war_sun" in ti4-tf): the numbers it sets
        for target, rec in data.get("override", {}).items():
            if ":unit/" in target and any(k in rec for k in NUMBERS):
                units[target.split(":unit/", 1)[1]] = (rec, os.path.relpath(path, args.root))
    second_path = os.path.join(pack, "data", "second_source.toml")
    second = load(second_path)
    entries = second.get("unit", {})
    a_only = set(second.get("a_only", []))

    problems, checked, first_only = [], 0, []
    if not units:
        problems.append(f"{pack}: no unit records found")
    for uid in sorted(units):
        rec, where = units[uid]
        if uid in a_only:
            first_only.append(f"{uid}: all numbers (the second source has none)")
            continue
        if uid not in entries:
            problems.append(f"{where}: unit '{uid}' is not in data/second_source.toml (add it, or to a_only)")
            continue
        entry = entries[uid]
        for key in NUMBERS:
            if key in entry:
                mine = rec.get(key, DEFAULT.get(key))
                checked += 1
                if mine != entry[key]:
                    problems.append(f"{where}: unit '{uid}' {key} = {mine}, the second source "
                                    f"({entry.get('from', '?')}) says {entry[key]}")
            elif key in rec and rec[key] not in (0, False):
                first_only.append(f"{uid}: {key} = {rec[key]}")
    for uid in sorted(set(entries) | a_only):
        if uid not in units:
            problems.append(f"{os.path.relpath(second_path, args.root)}: '{uid}' names no unit record of {args.pack}")
        elif uid in entries and uid in a_only:
            problems.append(f"{os.path.relpath(second_path, args.root)}: '{uid}' is both an entry and in a_only")

    for line in first_only:
        print(f"  first source only: {line}")
    for p in problems:
        print(f"FAIL  {p}")
    print(f"{len(units)} unit records, {checked} numbers compared with the second source, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
