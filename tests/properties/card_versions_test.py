#!/usr/bin/env python3
"""Every other version of a TI4 card names a card of its own kind (issue 30, the Codex as a choice).

A card's other version (a Codex's earlier or later text) is a record whose `replaces` names the
card's default record, the current official version, of the same kind; a side's `versions` list
chooses it (scripts/ti4/setup.lua). A `replaces` that names nothing would leave the version
unchoosable without an error, so each one is checked here against the loaded records of every
pack (`rulebench list KIND --json`). Usage: card_versions_test.py RULEBENCH ROOT
"""
import json
import subprocess
import sys

KINDS = ["technology", "action_card", "agenda", "relic", "leader", "promissory_note"]


def records(rulebench, root, kind):
    out = subprocess.run([rulebench, "--root", root, "list", kind, "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["items"]


def main():
    rulebench, root = sys.argv[1], sys.argv[2]
    bad, versions = [], 0
    for kind in KINDS:
        items = records(rulebench, root, kind)
        names = {i["id"].split("/", 1)[1] for i in items}
        for i in items:
            rep = i["attributes"].get("replaces")
            if rep is None:
                continue
            versions += 1
            if rep not in names:
                bad.append(f"{i['id']}: replaces = \"{rep}\", which is no {kind} of the loaded packs")
            elif rep == i["id"].split("/", 1)[1]:
                bad.append(f"{i['id']}: replaces names itself")
    if versions == 0:
        bad.append("no card has another version: the check checks nothing")
    for b in bad:
        print(b)
    print(f"{versions} other versions of cards, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
