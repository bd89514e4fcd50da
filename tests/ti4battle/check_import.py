#!/usr/bin/env python3
"""`rulebench import`: ti4battle.com links made into scenarios (the packs' import/ti4battle.toml).

Usage: check_import.py RULEBENCH_EXE SOURCE_DIR [-v]

- every mapped effect, faction and unit upgrade: a link naming it gives a scenario that names
  the record id written here by hand (EFFECTS, FACTIONS, UPGRADES), and the ruleset's setup
  accepts that scenario (one run); every name the format files map has a line here;
- links of battles of tests/ti4battle/scenarios/ give the same scenario (TOML read as data) as
  the hand-written one, and the same numbers (simulate --exact, or Monte Carlo, one seed);
- parameters not understood are named (on stderr; --strict makes them an error); bad links
  (another host, a bad %-escape, too long, not a web link) are refused with a clear message.
Closes with "N passed, N failed"; exit 1 if any failed.
"""
import glob
import json
import os
import subprocess
import sys
import tomllib
import urllib.parse

exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
verbose = "-v" in sys.argv
passed = failed = 0


def report(name, problems):
    global passed, failed
    if problems:
        failed += 1
        print(f"FAIL  {name}")
        for p in problems[:6]:
            print(f"      {p}")
    else:
        passed += 1
        if verbose:
            print(f"ok    {name}")


def rb(*args):
    return subprocess.run([exe, "--root", root, *args], capture_output=True, text=True, timeout=300)


def link(params):
    return "https://ti4battle.com/?" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)


def imported(params, *extra):
    p = rb("import", "--json", link(params), *extra)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), p.stderr


def setup_accepts(toml_text, name):
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"rb-import-{os.getpid()}.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(toml_text)
    try:
        p = rb("simulate", path, "--runs", "1", "--json")
        return [] if p.returncode == 0 else [f"{name}: the setup refuses it: {p.stderr.strip()[:300]}"]
    finally:
        os.remove(path)


def side_of(setup, side):
    """A side's table in the space combat; the player's in a tactical action."""
    if side in setup:
        return setup[side]
    name = "attacking" if side == "attacker" else "defending"
    return next((p for p in setup.get("players", []) if p.get("name") == name), {})


# ------------------------------------------------------------------ every mapped name

# effect name -> (side list, record id) the imported scenario must name; None for a name the
# format declares unsupported (it must be named as not understood); "scenario" for a scenario key
EFFECTS = {
    "Defending in nebula": ("scenario", ("system", "anomaly", "nebula")),
    "Entropic Scar": None,
    "Bunker": ("cards", "bunker"),
    "Courageous to the End": ("cards", "courageous_to_the_end"),
    "Direct Hit": ("cards", "direct_hit"),
    "Disable": ("cards", "disable"),
    "Emergency Repairs": ("cards", "emergency_repairs"),
    "Experimental Battlestation": ("cards", "experimental_battlestation"),
    "Fighter Prototype": ("cards", "fighter_prototype"),
    "Fire Team": ("cards", "fire_team"),
    "Maneuvering Jets": ("cards", "maneuvering_jets"),
    "Morale Boost": ("cards", "morale_boost"),
    "Shields Holding": ("cards", "shields_holding"),
    "Blitz": ("cards", "blitz"),
    "Reflective Shielding": ("cards", "reflective_shielding"),
    "Scramble Frequency": ("cards", "scramble_frequency"),
    "Solar Flare": ("cards", "solar_flare"),
    "Waylay": ("cards", "waylay"),
    "Publicize Weapon Schematics": ("laws", "publicize_weapon_schematics"),
    "Prophecy of Ixth": ("laws", "prophecy_of_ixth"),
    "Conventions of War": ("laws", "conventions_of_war"),
    "Articles of War": ("laws", "articles_of_war"),
    "Plasma Scoring": ("technologies", "plasma_scoring"),
    "Magen Defense Grid": ("technologies", "magen_defense_grid_omega"),
    "Duranium Armor": ("technologies", "duranium_armor"),
    "Assault Cannon": ("technologies", "assault_cannon"),
    "X-89 Bacterial Weapon": ("technologies", "x89_bacterial_weapon_omega_omega"),
    "Antimass Deflectors": ("technologies", "antimass_deflectors"),
    "Graviton Laser System": ("technologies", "graviton_laser_system"),
    "Lightrail Ordnance": ("relics", "lightrail_ordnance"),
    "Metali Void Shielding": ("relics", "metali_void_shielding"),
    "Metali Void Armaments": ("relics", "metali_void_armaments"),
    "Non-Euclidean Shielding": ("technologies", "non_euclidean_shielding"),
    "L4 Disruptors": ("technologies", "l4_disruptors"),
    "Munitions Reserves": ("trade_goods", 2),
    "War Funding": ("notes", "war_funding"),
    "Barony Agent": ("leaders", "viscount_unlenn"),
    "Mech deploy": None,
    "Gravleash Maneuvers": ("technologies", "gravleash_maneuvers"),
    "Dimensional Splicer": ("technologies", "dimensional_splicer"),
    "Hacan flagship trade goods": ("trade_goods", 1),
    "Jol-Nar commander": ("leaders", "ta_zern"),
    "L1z1x dreadnought upgrade": ("technologies", "super_dreadnought_ii"),
    "L1z1x commander": ("leaders", "two_ram"),
    "Mentak hero": ("leaders", "ipswitch_loose_cannon"),
    "Hybrid Crystal Fighter II": ("technologies", "hybrid_crystal_fighter_ii"),
    "Codex mech": None,
    "Nekro mech bonus": ("opponent", ("assimilator_tokens", "antimass_deflectors")),
    "Exotrireme II": ("technologies", "exotrireme_ii"),
    "Exotrireme II should suicide": None,
    "Valkyrie Particle Weave": ("technologies", "valkyrie_particle_weave"),
    "Tekklar Legion": ("notes", "tekklar_legion"),
    "Spec Ops II": ("technologies", "spec_ops_ii"),
    "Advanced Carrier II": ("technologies", "advanced_carrier_ii"),
    "Sol agent": ("leaders", "evelyn_delouis"),
    "Winnu commander": ("leaders", "rickar_rickani"),
    "Imperator": ("technologies", "imperator"),
    "Devotion": ("nothing", None),
    "Impulse Core": ("technologies", "impulse_core"),
    "Yin agent": ("leaders", "brother_milor"),
    "Strike Wing Alpha II": ("technologies", "strike_wing_alpha_ii"),
    "Strike Wing Ambuscade": ("notes", "strike_wing_ambuscade"),
    "Argent Flight Commander": ("leaders", "trrakan_aun_zulok"),
    "Mahact flagship bonus": ("nothing", None),
    "Supercharge": ("technologies", "supercharge"),
    "Eidolon Maximum": None,
    "Memoria I": ("notes", "the_cavalry"),
    "Memoria II": None,
    "Nomad flagship upgrade": ("technologies", "memoria_ii"),
    "Titans of Ul pds upgrade": ("technologies", "hel_titan_ii"),
    "Titans of Ul cruiser upgrade": ("technologies", "saturn_engine_ii"),
    "Titans agent": ("leaders", "tellurian"),
    "Titans hero": None,
    "I.I.H.Q. MODERNIZATION space cannon": ("technologies", "iihq_modernization"),
    # Thunder's Edge (content/ti4-te/import/ti4battle.toml)
    "Flagship active": ("scenario", ("system", "breach", "active")),
    "Heaven's Eye": ("opponent", ("counters", "puppeted")),
    "Firmament Agent": None,
    "Asail (Firmament)": None,
    "Obsidian Agent": ("leaders", "vos_hollow"),
    "Obsidian Commander": None,
    "Asail (Obsidian)": ("technologies", "asail"),
    "The Egeiro planet bonus": ("counter", ("non_home_systems_with_planets", 1)),
    "A3 Valiance galvanize": ("nothing", None),
    "Last Bastion agent": ("leaders", "dame_briar"),
    "Last Bastion hero": ("leaders", "lyra_keen"),
    "Proxima Targeting VI": ("technologies", "proxima_targeting_vi"),
    "Alarum reinforcements": None,
    "Ral Nel PDS in space": None,
    "Ral Nel galvanized PDS in space": None,
    "Ral Nel space dock with Lightrail Ordnance in space": None,
    "Ral Nel galvanized space dock with Lightrail Ordnance in space": None,
}

FACTIONS = {
    "Arborec": "arborec", "Barony of Letnev": "letnev", "Clan of Saar": "saar", "Creuss": "creuss",
    "Hacan": "hacan", "Jol-Nar": "jol_nar", "L1z1x": "l1z1x", "Mentak": "mentak", "Muaat": "muaat",
    "Naalu": "naalu", "Nekro": "nekro", "Sardakk N'orr": "sardakk_norr", "Sol": "sol",
    "Winnu": "winnu", "Xxcha": "xxcha", "Yin": "yin", "Yssaril": "yssaril",
    "Argent flight": "argent", "Empyrean": "empyrean", "Mahact": "mahact",
    "Naaz-Rokha": "naaz_rokha", "Nomad": "nomad", "Titans of Ul": "titans",
    "Vuil'Raith": "vuil_raith", "Keleres": "keleres",
    "Crimson Rebellion": "crimson_rebellion", "Deepwrought": "deepwrought", "Firmament": "firmament",
    "Last Bastion": "last_bastion", "Obsidian": "obsidian", "Ral Nel Consortium": "ral_nel",
    "Neutral": "neutral",
}

# (ti4battle faction, unit) -> the technology its upgrade names
UPGRADES = {
    ("Barony of Letnev", "fighter"): "fighter_ii", ("Naalu", "fighter"): "hybrid_crystal_fighter_ii",
    ("Barony of Letnev", "destroyer"): "destroyer_ii", ("Argent flight", "destroyer"): "strike_wing_alpha_ii",
    ("Barony of Letnev", "cruiser"): "cruiser_ii", ("Titans of Ul", "cruiser"): "saturn_engine_ii",
    ("Barony of Letnev", "carrier"): "carrier_ii", ("Sol", "carrier"): "advanced_carrier_ii",
    ("Barony of Letnev", "dreadnought"): "dreadnought_ii", ("Sardakk N'orr", "dreadnought"): "exotrireme_ii",
    ("L1z1x", "dreadnought"): "super_dreadnought_ii",
    ("Barony of Letnev", "infantry"): "infantry_ii", ("Sol", "infantry"): "spec_ops_ii",
    ("Arborec", "infantry"): "letani_warrior_ii", ("Mahact", "infantry"): "crimson_legionnaire_ii",
    ("Barony of Letnev", "pds"): "pds_ii", ("Titans of Ul", "pds"): "hel_titan_ii",
    ("Barony of Letnev", "warsun"): "war_sun", ("Muaat", "warsun"): "prototype_war_sun_ii",
    ("Nomad", "flagship"): "memoria_ii",
    ("Crimson Rebellion", "destroyer"): "exile_ii", ("Ral Nel Consortium", "destroyer"): "linkship_ii",
}
# units whose upgrade a faction does not take: no technology, a note (neutral units take none)
NO_UPGRADE = {("Neutral", u) for u in ("fighter", "destroyer", "cruiser", "carrier", "dreadnought",
                                       "infantry", "pds", "warsun")}

# every name the format files map has a line above
mapped = {"effect": set(), "faction": set(), "upgrade": set()}
for path in glob.glob(os.path.join(root, "content", "*", "import", "ti4battle.toml")):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    mapped["effect"] |= set(doc.get("effect", {}))
    mapped["faction"] |= set(doc.get("faction", {}))
    for unit, per in doc.get("upgrade", {}).items():
        mapped["upgrade"] |= {(f, unit) for f in per}
report("every mapped effect has a test", [f"no test for effect '{e}'" for e in sorted(mapped["effect"] - set(EFFECTS))])
report("every mapped faction has a test", [f"no test for faction '{e}'" for e in sorted(mapped["faction"] - set(FACTIONS))])
tested_upgrades = {(FACTIONS.get(f), u) for f, u in set(UPGRADES) | NO_UPGRADE}
report("every mapped faction upgrade has a test", [f"no test for upgrade '{u}' of faction '{f}'" for f, u in
                                                    sorted(mapped["upgrade"]) if f != "default" and (f, u) not in tested_upgrades])

# a faction's own effect is held by that faction (the setup refuses another faction's records)
OWNER = {
    "Jol-Nar commander": "Jol-Nar", "L1z1x dreadnought upgrade": "L1z1x", "L1z1x commander": "L1z1x",
    "Mentak hero": "Mentak", "Hybrid Crystal Fighter II": "Naalu", "Exotrireme II": "Sardakk N'orr",
    "Valkyrie Particle Weave": "Sardakk N'orr", "Tekklar Legion": "Barony of Letnev",
    "Spec Ops II": "Sol", "Advanced Carrier II": "Sol", "Sol agent": "Sol", "Winnu commander": "Winnu",
    "Impulse Core": "Yin", "Yin agent": "Yin", "Devotion": "Yin", "Strike Wing Alpha II": "Argent flight",
    "Argent Flight Commander": "Argent flight", "Mahact flagship bonus": "Mahact", "Supercharge": "Naaz-Rokha",
    "Nomad flagship upgrade": "Nomad", "Titans of Ul pds upgrade": "Titans of Ul",
    "Titans of Ul cruiser upgrade": "Titans of Ul", "Titans agent": "Titans of Ul",
    "I.I.H.Q. MODERNIZATION space cannon": "Keleres", "Dimensional Splicer": "Creuss",
    "Nekro mech bonus": "Nekro", "Hacan flagship trade goods": "Hacan", "War Funding": "Hacan",
    "Heaven's Eye": "Firmament", "Obsidian Agent": "Obsidian", "Asail (Obsidian)": "Obsidian", "The Egeiro planet bonus": "Last Bastion",
    "A3 Valiance galvanize": "Last Bastion", "Last Bastion agent": "Last Bastion",
    "Last Bastion hero": "Last Bastion", "Proxima Targeting VI": "Last Bastion",
    "Imperator": "Winnu", "Gravleash Maneuvers": "Barony of Letnev",
}

for name, want in EFFECTS.items():
    params = {"attacker-faction": OWNER.get(name, "Barony of Letnev"), "attacker-unit-dreadnought": "2",
              "attacker-effect-" + name: "1", "defender-unit-dreadnought": "2"}
    d, err = imported(params)
    problems = []
    if d is None:
        report(f"effect {name}", [f"import failed: {err[:300]}"])
        continue
    unknown = [u["param"] for u in d["unknown"]]
    setup = d["setup"]
    if want is None:
        if "attacker-effect-" + name not in unknown:
            problems.append(f"unsupported, yet not named as not understood: {d['unknown']}")
    else:
        if unknown:
            problems.append(f"named as not understood: {d['unknown']}")
        where, what = want
        a = setup.get("attacker", {})
        if where == "scenario":
            k1, k2, v = what
            if setup.get(k1, {}).get(k2) != v:
                problems.append(f"expected {k1}.{k2} = {v!r}: {setup.get(k1)}")
        elif where == "opponent":
            k, v = what
            if v not in setup.get("defender", {}).get(k, []):
                problems.append(f"expected the defender's {k} to hold {v!r}: {setup.get('defender')}")
        elif where == "trade_goods":
            if a.get("trade_goods") != what:
                problems.append(f"expected trade_goods = {what}: {a}")
        elif where == "counter":
            k, v = what
            if a.get("counters", {}).get(k) != v:
                problems.append(f"expected counters.{k} = {v}: {a}")
        elif where == "nothing":
            if set(a) != {"faction", "units"}:
                problems.append(f"expected nothing added to the side: {a}")
        elif what not in a.get(where, []):
            problems.append(f"expected {where} to name {what!r}: {a.get(where)}")
        problems += setup_accepts(d["scenario"], name)
    report(f"effect {name}", problems)

for value, faction in FACTIONS.items():
    d, err = imported({"attacker-faction": value, "attacker-unit-cruiser": "1", "defender-unit-cruiser": "1"})
    if d is None:
        report(f"faction {value}", [f"import failed: {err[:300]}"])
        continue
    got = d["setup"].get("attacker", {}).get("faction")
    problems = []
    if faction == "unsupported":
        if "attacker-faction" not in [u["param"] for u in d["unknown"]]:
            problems.append("unsupported, yet not named as not understood")
    elif got != faction:
        problems.append(f"expected faction {faction!r}, got {got!r}")
    else:
        problems += setup_accepts(d["scenario"], value)
    report(f"faction {value}", problems)

for (faction, unit), tech in UPGRADES.items():
    d, err = imported({"attacker-faction": faction, "attacker-unit-" + unit: "1",
                       "attacker-upgrade-" + unit: "true", "defender-unit-cruiser": "1"})
    problems = [f"import failed: {err[:300]}"] if d is None else []
    if d is not None:
        techs = d["setup"].get("attacker", {}).get("technologies", [])
        if techs != [tech]:
            problems.append(f"expected technologies [{tech!r}], got {techs}")
        problems += setup_accepts(d["scenario"], f"{faction} {unit}")
    report(f"upgrade {faction} {unit}", problems)

for faction, unit in sorted(NO_UPGRADE):
    d, err = imported({"attacker-faction": faction, "attacker-unit-" + unit: "1",
                       "attacker-upgrade-" + unit: "true", "defender-unit-cruiser": "1"})
    problems = [f"import failed: {err[:300]}"] if d is None else []
    if d is not None:
        techs = d["setup"].get("attacker", {}).get("technologies", [])
        if techs or d["unknown"] or not any("upgrade ignored" in n for n in d.get("notes", [])):
            problems.append(f"expected no technology and a note: {techs} {d['unknown']} {d.get('notes')}")
        problems += setup_accepts(d["scenario"], f"{faction} {unit}")
    report(f"no upgrade {faction} {unit}", problems)

# a neutral side: the faction `neutral` and the reference card's policy (hit order, sustain)
CARD_ORDER = ["fighter", "destroyer", "cruiser", "carrier", "dreadnought", "war_sun", "flagship", "infantry", "mech"]
for place, units in (("Space", {"destroyer": "1", "dreadnought": "1"}), ("Ground", {"infantry": "1", "mech": "1"})):
    params = {"place": place, "attacker-unit-dreadnought": "2", "attacker-unit-infantry": "2", "defender-faction": "Neutral"}
    params.update({"defender-unit-" + u: n for u, n in units.items()})
    d, err = imported(params)
    problems = [f"import failed: {err[:300]}"] if d is None else []
    if d is not None:
        side = side_of(d["setup"], "defender")
        pol = side.get("policy", {})
        if side.get("faction") != "neutral" or pol.get("hit_order") != CARD_ORDER or pol.get("sustain") != "last" \
                or pol.get("retreat") != "never":
            problems.append(f"expected faction neutral with the card's policy: {side}")
        if not any(n.startswith("Neutral:") for n in d.get("notes", [])):
            problems.append(f"expected the Neutral note: {d.get('notes')}")
        problems += setup_accepts(d["scenario"], f"Neutral {place}")
    report(f"a neutral side ({place}): the card's hit order and sustain policy", problems)

# ------------------------------------------------------------------ the same battle, the same numbers

# The calculator's tests play risk-direct-hit = false (util/util.test.ts); the hand-written space
# scenarios say so (policy sustain = "last"), and the links here say it too.
RISK_OFF = {"attacker-risk-direct-hit": "false", "defender-risk-direct-hit": "false"}

SAME = [
    # (hand-written scenario, the link's parameters, how to compare the numbers)
    ("effect_set_to_zero", {**RISK_OFF, "attacker-unit-dreadnought": "2", "attacker-effect-Duranium Armor": "0",
                            "defender-unit-dreadnought": "2"}, "exact"),
    ("emergency_repairs", {**RISK_OFF, "attacker-unit-dreadnought": "2", "attacker-effect-Emergency Repairs": "1",
                           "defender-unit-dreadnought": "2"}, "exact"),
    ("letnev_nes_duranium", {**RISK_OFF, "attacker-faction": "Barony of Letnev", "attacker-unit-dreadnought": "2",
                             "attacker-effect-Non-Euclidean Shielding": "1",
                             "attacker-effect-Duranium Armor": "1", "defender-unit-dreadnought": "2"}, "exact"),
    ("yin_impulse_core", {**RISK_OFF, "attacker-faction": "Yin", "attacker-unit-destroyer": "1",
                          "attacker-effect-Impulse Core": "1", "defender-unit-destroyer": "2"}, "exact"),
    ("hacan_flagship_1tg", {**RISK_OFF, "attacker-faction": "Hacan", "attacker-unit-flagship": "1", "attacker-unit-cruiser": "5",
                            "attacker-effect-Hacan flagship trade goods": "1", "defender-faction": "Muaat",
                            "defender-unit-flagship": "1", "defender-unit-cruiser": "5"}, "monte_carlo"),
    ("shields_holding", {**RISK_OFF, "attacker-unit-destroyer": "1", "attacker-effect-Shields Holding": "15",
                         "defender-unit-dreadnought": "2"}, "exact"),
    ("basic_ground_combat", {"place": "Ground", "attacker-unit-infantry": "2", "attacker-upgrade-infantry": "true",
                             "defender-unit-mech": "2"}, "monte_carlo"),
    ("ground_bombardment", {"place": "Ground", "attacker-unit-dreadnought": "3", "attacker-unit-infantry": "3",
                            "defender-unit-infantry": "3"}, "monte_carlo"),
    # Thunder's Edge and the neutral units
    ("crimson_exile_ii", {**RISK_OFF, "attacker-faction": "Crimson Rebellion", "attacker-unit-destroyer": "2",
                          "attacker-upgrade-destroyer": "true", "defender-faction": "Crimson Rebellion",
                          "defender-unit-destroyer": "2"}, "exact"),
    ("firmament_heavens_eye", {**RISK_OFF, "attacker-faction": "Firmament", "attacker-unit-flagship": "1",
                               "attacker-effect-Heaven's Eye": "1", "defender-unit-dreadnought": "1"}, "exact"),
    ("obsidian_agent", {**RISK_OFF, "attacker-faction": "Obsidian", "attacker-unit-destroyer": "2",
                        "attacker-effect-Obsidian Agent": "1", "defender-unit-destroyer": "2"}, "exact"),
    ("obsidian_asail", {**RISK_OFF, "attacker-faction": "Obsidian", "attacker-unit-cruiser": "2",
                        "attacker-effect-Asail (Obsidian)": "1", "defender-unit-cruiser": "2"}, "exact"),
    ("last_bastion_egeiro_bonus", {**RISK_OFF, "attacker-faction": "Last Bastion", "attacker-unit-flagship": "1",
                                   "attacker-effect-The Egeiro planet bonus": "3", "defender-unit-cruiser": "1"}, "exact"),
    ("ral_nel_flagship", {**RISK_OFF, "attacker-faction": "Ral Nel Consortium", "attacker-unit-flagship": "1",
                          "defender-unit-dreadnought": "1"}, "exact"),
    ("neutral_infantry_ground", {"place": "Ground", "attacker-faction": "Neutral", "attacker-unit-infantry": "2",
                                 "defender-unit-infantry": "2"}, "exact"),
]


def without_comments(toml_text):
    return tomllib.loads(toml_text)


for sid, params, how in SAME:
    path = os.path.join(root, "tests", "ti4battle", "scenarios", sid + ".toml")
    with open(path, "rb") as f:
        hand = tomllib.load(f)
    d, err = imported(params)
    if d is None:
        report(f"same battle {sid}", [f"import failed: {err[:300]}"])
        continue
    problems = []
    mine = without_comments(d["scenario"])
    if mine != hand:
        problems.append(f"the scenario differs from the hand-written one:\n        imported {mine}\n        by hand  {hand}")
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"rb-import-{os.getpid()}-{sid}.toml")
    with open(out, "w", encoding="utf-8") as f:
        f.write(d["scenario"])
    args = ["--exact"] if how == "exact" else ["--runs", "4000", "--seed", "1", "--threads", "1"]
    a = rb("simulate", out, "--json", *args)
    b = rb("simulate", path, "--json", *args)
    os.remove(out)
    if a.returncode or b.returncode:
        problems.append(f"simulate failed: {a.stderr.strip()[:200]} {b.stderr.strip()[:200]}")
    else:
        ja, jb = json.loads(a.stdout), json.loads(b.stdout)
        for k in ("attacker_win", "draw", "defender_win", "planet_1_controlled", "attacker_takes_the_planet"):
            if (k in ja or k in jb) and abs(ja.get(k, -1) - jb.get(k, -2)) > 1e-12:
                problems.append(f"{k}: imported {ja.get(k)} against hand-written {jb.get(k)}")
        if verbose:
            k = next(x for x in ("planet_1_controlled", "attacker_takes_the_planet", "attacker_win") if x in ja)
            print(f"      {sid}: {how} {k} {ja[k]:.6f} (hand-written {jb[k]:.6f})")
    report(f"same battle {sid}", problems)

# ------------------------------------------------------------------ not understood, bad links

d, err = imported({"attacker-unit-dreadnought": "2", "attacker-effect-Moral Boost": "1",
                   "attacker-unit-spacedock": "1", "defender-frobnicate": "x", "defender-unit-cruiser": "two",
                   "place": "Orbit", "defender-unit-cruiser": "1"})
named = {u["param"]: u["why"] for u in (d or {}).get("unknown", [])}
report("parameters not understood are named", [] if d and {"attacker-effect-Moral Boost", "attacker-unit-spacedock",
                                                            "defender-frobnicate", "place"} <= set(named)
       and "did you mean 'Morale Boost'" in named["attacker-effect-Moral Boost"]
       and all(n in err for n in named) else [f"named: {named}", f"stderr: {err[:400]}"])

p = rb("import", link({"attacker-unit-dreadnought": "2", "attacker-effect-Nonsense": "1"}), "--strict")
report("--strict: a parameter not understood is an error", [] if p.returncode == 1 and "Nonsense" in p.stderr
       and not p.stdout else [f"exit {p.returncode}: {p.stderr[:300]}"])

d, err = imported({"place": "Ground", "attacker-unit-infantry": "2", "defender-unit-infantry": "1",
                   "defender-unit-cruiser": "2"})
report("a ground battle names the defender's ships as not used",
       [] if d and any(u["param"] == "defender-unit-cruiser" and "not used" in u["why"] for u in d["unknown"])
       else [f"{(d or {}).get('unknown')} {err[:200]}"])

BAD = [
    ("another host", "https://example.com/?attacker-unit-cruiser=1", "no import format reads links of 'example.com'"),
    ("a bad %-escape", "https://ti4battle.com/?attacker-unit-cruiser=%G1", "bad %-escape"),
    ("a cut %-escape", "https://ti4battle.com/?attacker-unit-cruiser=1%2", "bad %-escape"),
    ("not a web link", "ftp://ti4battle.com/?x=1", "not a web link"),
    ("no host", "https:///?x=1", "names no host"),
    ("too long", "https://ti4battle.com/?" + "a=1&" * 20000, "at most 65536"),
]
for what, url, says in BAD:
    p = rb("import", url)
    report(f"bad link: {what}", [] if p.returncode == 2 and says in p.stderr and "Traceback" not in p.stderr
           else [f"exit {p.returncode}: {p.stderr.strip()[:300]}"])

# hostile but well-formed: bytes that are not UTF-8, control characters: named, escaped, no crash
p = rb("import", "--json", "https://ti4battle.com/?attacker-%FF%00%1b[2J=1&defender-unit-cruiser=1")
report("a hostile parameter name is named, escaped", [] if p.returncode == 0 and "\\x1B" in p.stderr
       and "\x1b" not in p.stderr else [f"exit {p.returncode}: {p.stderr[:300]!r}"])

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
