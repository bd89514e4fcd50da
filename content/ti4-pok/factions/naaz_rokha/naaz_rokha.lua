-- The Naaz-Rokha Alliance: Visz El Vir. Tests: ../../tests/factions/naaz_rokha.toml

-- At the start of a ground combat on a planet of the flagship's system, the player's mechs roll 1
-- additional die for the combat (modifier visz_el_vir).
hook {
  id = "visz_el_vir",
  window = "invasion.start_of_ground_combat",
  source = "unit/naaz_rokha_flagship",
  condition = function(ctx, player, source, args)
    return (args.player == player or args.opponent == player) and ctx:location(source) == ctx:location(args.planet)
  end,
  apply = function(ctx, player) ctx:activate("visz_el_vir", player, "combat") end,
}
