-- The Naaz-Rokha Alliance: Visz El Vir. Tests: ../../tests/factions/naaz_rokha.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

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

-- Eidolon: it turns over when a space combat starts with it in the active system's space area
-- (mandatory). Z-Grav Eidolon: in the active system's space area it counts as a ship as well, and
-- it turns back once the space combat there is over. The mech takes the Z-Grav record (a ship,
-- combat 8 (x2), still a ground force and a mech) for the combat and its own record again at the
-- end of it, wherever it is then (destroyed, retreated with the fleet).
local ZGRAV = "z_grav"  -- flag on the unit: flipped in this combat

hook {
  id = "eidolon",
  window = "space_combat.start_of_combat",
  source = "faction/naaz_rokha",
  condition = function(ctx, player)
    local a, d = ctx:role("attacker", "defender")
    return (player == a or player == d) and ctx:count(player, ctx:role("active_system"), "type:mech") > 0
  end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "type:mech")) do
      if ctx:record_id(u):find("naaz_rokha_mech", 1, true) and not ctx:get(u, "ship") then
        lib.upgrade(ctx, u, "naaz_rokha_mech_zgrav")
        ctx:set_flag(u, ZGRAV, "combat")
        if ctx:tracing() then ctx:event("z_grav:" .. ctx:name(player), ctx:name(player) .. "'s Eidolon flips: a Z-Grav Eidolon, also a ship") end
      end
    end
  end,
}

hook {
  id = "z_grav_eidolon",
  window = "space_combat.end_of_combat",
  source = "faction/naaz_rokha",
  condition = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = "mech" }) do
      if ctx:flag(u, ZGRAV) then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player }) do
      if ctx:flag(u, ZGRAV) then
        lib.upgrade(ctx, u, "naaz_rokha_mech")
        ctx:set(u, "ship", false)
        ctx:set_counter(u, ZGRAV, 0, "combat")
        if ctx:tracing() then ctx:event("eidolon:" .. ctx:name(player), ctx:name(player) .. "'s Z-Grav Eidolon flips back: a mech") end
      end
    end
  end,
}

-- Supercharge: when a combat round starts, the card may be exhausted to give every combat roll of
-- the player's units +1 that round. Space and ground combat rounds; exhausted (a flag on the card,
-- for the game here) it is not used again.
local function in_space_combat(ctx, player)
  local a, d = ctx:role("attacker", "defender")
  return player == a or player == d
end

for _, s in ipairs {
  { "supercharge", "space_combat.start_of_round", "supercharge_bonus" },
  { "supercharge_ground", "invasion.start_of_ground_round", "supercharge_ground_bonus" },
} do
  local bonus = s[3]
  hook {
    id = s[1],
    window = s[2],
    source = "technology/supercharge",
    optional = true,
    condition = function(ctx, player, source, args)
      if ctx:flag(source, "exhausted") then return false end
      if args then return args.player == player or args.opponent == player end
      return in_space_combat(ctx, player)
    end,
    apply = function(ctx, player, source)
      ctx:set_flag(source, "exhausted", "game")
      ctx:activate(bonus, player, "round")
    end,
  }
end
