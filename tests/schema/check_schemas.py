#!/usr/bin/env python3
"""The JSON Schemas of schemas/ against the real thing.

Usage: check_schemas.py RULEBENCH_EXE SOURCE_DIR

- every schema is a valid draft-7 schema;
- every shipped pack.toml, data file (the pack's `data` list), rules test and scenario follows
  the schema .taplo.toml gives it (the TOML read with Python's tomllib, as taplo would);
- the --json output of simulate (Monte Carlo and exact), compare, bench, sweep, optimise, import and every
  line of trace --json follows its schema in schemas/output/, and so does the reply of
  `rulebench serve`'s POST /api/board.
Closes with "N passed, N failed" (one count per file or output checked).
"""
import glob
import json
import os
import subprocess
import sys
import tomllib

import jsonschema

exe, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
schemas = {}
for path in glob.glob(os.path.join(source, "schemas", "**", "*.schema.json"), recursive=True):
    with open(path, encoding="utf-8") as f:
        s = json.load(f)
    schemas[s["$id"]] = s
passed = failed = 0


def report(name, errors):
    global passed, failed
    if errors:
        failed += 1
        print(f"FAIL  {name}")
        for e in errors[:5]:
            print(f"      {e}")
    else:
        passed += 1


def validate(name, schema_id, instance):
    schema = schemas[schema_id]
    resolver = jsonschema.RefResolver(base_uri=schema_id, referrer=schema, store=schemas)
    v = jsonschema.Draft7Validator(schema, resolver=resolver)
    report(name, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(instance)])


for sid, s in sorted(schemas.items()):
    try:
        jsonschema.Draft7Validator.check_schema(s)
        report(f"schema {sid}", [])
    except jsonschema.SchemaError as e:
        report(f"schema {sid}", [e.message])

# the TOML files of every pack
for pack_toml in sorted(glob.glob(os.path.join(source, "content", "*", "pack.toml"))):
    pack = os.path.dirname(pack_toml)
    rel = os.path.relpath(pack_toml, source)
    with open(pack_toml, "rb") as f:
        info = tomllib.load(f)
    validate(rel, "pack.schema.json", info)
    data = []
    for entry in info.get("data", []):
        p = os.path.join(pack, entry)
        data += sorted(glob.glob(os.path.join(p, "**", "*.toml"), recursive=True)) if os.path.isdir(p) else [p]
    for f in data:
        with open(f, "rb") as fh:
            validate(os.path.relpath(f, source), f"data.{info['ruleset']}.schema.json", tomllib.load(fh))
    for f in sorted(glob.glob(os.path.join(pack, "tests", "**", "*.toml"), recursive=True)):
        with open(f, "rb") as fh:
            doc = tomllib.load(fh)
        if "expect" in doc or "test" in doc:
            validate(os.path.relpath(f, source), "rules_test.schema.json", doc)
    for f in sorted(glob.glob(os.path.join(pack, "scenarios", "*.toml"))):
        with open(f, "rb") as fh:
            validate(os.path.relpath(f, source), "scenario.schema.json", tomllib.load(fh))


def run(args, ok=(0,)):
    r = subprocess.run([exe, "--root", source] + args, capture_output=True, text=True, timeout=600)
    if r.returncode not in ok:
        report(" ".join(args), [f"exit {r.returncode}: {r.stderr.strip()[:500]}"])
        return None
    return r.stdout


demo = os.path.join(source, "content/ti4-base/scenarios/demo.toml")
ltp = os.path.join(source, "content/ti4-base/scenarios/learn_to_play_action.toml")
engagement = os.path.join(source, "content/xwing-core/scenarios/engagement_demo.toml")
attack = os.path.join(source, "content/xwing-core/scenarios/issue_example.toml")
outputs = [
    ("simulate.schema.json", ["simulate", demo, "--runs", "2000", "--json", "--with", "attacker:morale_boost"]),
    ("simulate.schema.json", ["simulate", ltp, "--runs", "500", "--json"]),
    ("simulate.schema.json", ["simulate", engagement, "--runs", "500", "--json"]),
    ("simulate.schema.json", ["simulate", attack, "--exact", "--json"]),
    ("simulate.schema.json", ["simulate", os.path.join(source, "tests/fixtures/exact/best_play_carrier.toml"),
                              "--exact", "--best", "defender", "--json"]),
    ("simulate.schema.json", ["simulate", os.path.join(source, "tests/fixtures/exact/best_play_carrier.toml"),
                              "--exact", "--best", "both", "--decisions", "--json"]),
    ("simulate.schema.json", ["simulate", os.path.join(source, "tests/fixtures/exact/best_play_xwing_lock_policy.toml"),
                              "--exact", "--best", "attacker", "--objective", "metric:expected_damage", "--json"]),
    ("compare.schema.json", ["compare", demo, "--with", "attacker:morale_boost", "--runs", "2000", "--json"]),
    ("compare.schema.json", ["compare", attack, "--with", "attacker:tokens.focus=0", "--runs", "2000", "--json"]),
    ("bench.schema.json", ["bench", "--runs", "50", "--json"]),
    ("sweep.schema.json", ["sweep", os.path.join(source, "content/ti4-base/sweeps/small.toml"), "--json"]),
    ("sweep.schema.json", ["sweep", os.path.join(source, "content/ti4-base/sweeps/small.toml"), "--shard", "2/3"]),
    ("sweep.schema.json", ["sweep", os.path.join(source, "content/ti4-base/sweeps/small_monte_carlo.toml"), "--json"]),
    ("sweep.schema.json", ["sweep", os.path.join(source, "content/ti4-base/sweeps/small_monte_carlo.toml"),
                           "--shard", "2/3"]),
    ("optimise.schema.json", ["optimise", os.path.join(source, "content/ti4-base/optimise/two_cruisers.toml"),
                              "--target", "0.8", "--json"]),
    ("optimise.schema.json", ["optimise", os.path.join(source, "content/ti4-base/optimise/five_destroyers.toml"),
                              "--json"]),
    # a ti4battle.com link (and one with a parameter not understood): POST /api/import's reply too
    ("import.schema.json", ["import", "--json", "https://ti4battle.com/?attacker-unit-dreadnought=2"
                            "&attacker-effect-Duranium%20Armor=1&defender-faction=Sardakk+N%27orr&defender-unit-cruiser=3"]),
    ("import.schema.json", ["import", "--json", "https://ti4battle.com/?place=Ground&attacker-unit-infantry=3"
                            "&defender-unit-infantry=2&defender-unit-pds=1&attacker-effect-Nonsense=1"]),
]
for schema_id, args in outputs:
    out = run(args)
    if out is not None:
        validate(" ".join(a if not a.startswith(source) else os.path.relpath(a, source) for a in args),
                 schema_id, json.loads(out))
for scenario in (demo, ltp, engagement, attack):
    out = run(["trace", scenario, "--json"])
    if out is None:
        continue
    errors = []
    for n, line in enumerate(out.splitlines(), 1):
        resolver = jsonschema.RefResolver(base_uri="", referrer=schemas["trace_event.schema.json"], store=schemas)
        v = jsonschema.Draft7Validator(schemas["trace_event.schema.json"], resolver=resolver)
        errors += [f"line {n}: {'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(json.loads(line))]
    report("trace --json " + os.path.relpath(scenario, source), errors)



def serve_replies():
    """The replies of `rulebench serve` that have a schema: POST /api/board (the Learn to Play
    tactical action's galaxy, with a seed: its moves too)."""
    import http.client
    import json as js
    server = subprocess.Popen([exe, "--root", source, "serve", "--port", "0", "--jobs", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        address = None
        for line in server.stdout:
            if line.startswith("rulebench serve: http://"):
                address = line.split()[2][len("http://"):].rstrip("/")
                break
        if address is None:
            report("serve", ["rulebench serve did not print its address"])
            return
        host, port = address.rsplit(":", 1)
        with open(ltp, encoding="utf-8") as f:
            scenario = f.read()
        for body in ({"scenario": scenario}, {"scenario": scenario, "seed": 1}):
            c = http.client.HTTPConnection(host, int(port), timeout=120)
            c.request("POST", "/api/board", js.dumps(body), {"Content-Type": "application/json"})
            r = c.getresponse()
            reply = js.loads(r.read())
            name = "POST /api/board learn_to_play_action.toml" + (" seed 1" if "seed" in body else "")
            if r.status != 200:
                report(name, [f"status {r.status}: {reply.get('error')}"])
            else:
                validate(name, "board.schema.json", reply)
    finally:
        server.terminate()
        server.wait(timeout=30)


serve_replies()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
