#!/usr/bin/env python3
"""Every entry of tools/mutations.toml can still do its work (ctest `mutation_entries`): its `from`
occurs exactly once in its `file` (else tools/mutate cannot apply it), each of its `tests` paths
exists, and its `unit` spec selects at least one unit test (a Catch2 spec with a comma names two
tests, so a test name with a comma selects none, and the mutation would survive unseen).

  python3 tests/mutations/check_entries.py UNIT_TESTS ROOT
"""
import os
import subprocess
import sys
import tomllib


def main():
    unit_tests, root = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "tools", "mutations.toml"), "rb") as f:
        entries = tomllib.load(f)["mutation"]
    bad = []
    texts = {}
    for m in entries:
        what = m.get("what", "?")
        path = os.path.join(root, m["file"])
        if path not in texts:
            texts[path] = open(path, encoding="utf-8").read() if os.path.isfile(path) else None
        if texts[path] is None:
            bad.append(f"{what}: file {m['file']} does not exist")
        elif texts[path].count(m["from"]) != 1:
            bad.append(f"{what}: `from` occurs {texts[path].count(m['from'])} times in {m['file']}, not once")
        for t in m.get("tests", []):
            if not os.path.exists(os.path.join(root, t)):
                bad.append(f"{what}: test path {t} does not exist")
    selects = {}
    for m in entries:
        spec = m.get("unit")
        if not spec:
            continue
        if spec not in selects:
            r = subprocess.run([unit_tests, "--list-test-names-only", spec], capture_output=True, text=True)
            selects[spec] = [line for line in r.stdout.splitlines() if line.strip()]
        if not selects[spec]:
            bad.append(f"{m['what']}: unit spec '{spec}' selects no unit test")
    for b in bad:
        print("FAIL  " + b)
    print(f"{len(entries)} entries, {len(selects)} unit specs, {len(bad)} problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
