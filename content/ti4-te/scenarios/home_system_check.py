#!/usr/bin/env python3
"""Independent check of the two home-system scenarios (no rulebench code): resonance_home.toml
(Resonance Generator: +1 move to the Crimson Rebellion's ships that start in its home system) and
sundered_home.toml (Sundered: other players' units that move into its home system are destroyed).
Each space combat is the chain of void_tether_check.py, over (the attacker's cruisers, its
carriers, the defender's cruisers): a cruiser hits on 7+, a carrier on 9+, the attacker assigns
hits to cruisers first, no retreats, no abilities.
- resonance_home: with the breakthrough the Crimson's 2 cruisers and 2 carriers reach Vefut II
  and fight Sol's 3 cruisers; without it the carriers (move 1) stay home, the cruisers fight alone.
- sundered_home: with Sundered Sol's 2 cruisers and 2 carriers are destroyed as they arrive, no
  combat is fought (no_combat 1); without the faction (the same cruisers) they fight the 3 cruisers.
Prints each arm's attacker_win, draw, defender_win; given a rulebench and the repository
(`home_system_check.py RULEBENCH ROOT`), checks its exact answers for all four to 1e-9."""
from fractions import Fraction

from arms_check import run_arms
from void_tether_check import outcome


def main():
    bad = 0
    for scenario, arms in (
        ("resonance_home.toml", {
            "with": ([], outcome(2, 2, 3)),
            "without": (["--without", "attacker:resonance_generator"], outcome(2, 0, 3))}),
        ("sundered_home.toml", {
            "with": ([], (Fraction(0),) * 3, {"no_combat": 1}),
            "without": (('faction = "crimson_rebellion"', ""), outcome(2, 2, 3), {"no_combat": 0})}),
    ):
        print(scenario)
        try:
            run_arms(scenario, arms)
        except SystemExit as e:
            bad += bool(e.code)
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
