-- The Arborec: Duha Menaimon (produce after activation), Dirzuga Rophal (produce when another
-- player activates), Letani Warrior II (its return roll). Tests: ../../tests/factions/arborec.toml

local production = require "production"  -- scripts/ti4/production.lua

-- What production.run needs of the tactical action's facts, for `player` producing in the active
-- system.
local function facts(ctx, player)
  return { player = player, system = ctx:role("active_system"), players = ctx:players(), hooked = {} }
end

-- Duha Menaimon: when the Arborec player activates the flagship's system, they may produce up to 5
-- units there. The flagship's system is the one the Arborec player activates; the units are
-- produced as in the Production step (paid with resources; the default policy chooses them; ground
-- forces go to the planet of a unit with Production there, else to the space area), before any ship
-- moves.
-- Default policy: used whenever it can be (the production policy may still produce nothing).
hook {
  id = "duha_menaimon",
  window = "tactical_action.activation",
  source = "unit/arborec_flagship",
  optional = true,
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:location(source) == args.system
  end,
  apply = function(ctx, player)
    local n = production.run(ctx, facts(ctx, player), 5)
    if ctx:tracing() then ctx:event("duha_menaimon:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " produces " .. n .. " units with Duha Menaimon") end
  end,
}

-- Dirzuga Rophal (commander): when another player activates a system holding an Arborec unit with
-- Production, the Arborec player may produce 1 unit there. (the Letani Warriors
-- have Production 1 and 2; the Letani Behemoth 2). Default policy: used whenever it can be.
hook {
  id = "dirzuga_rophal",
  window = "tactical_action.activation",
  source = "leader/dirzuga_rophal",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player == player then return false end
    if ctx:count(player, args.system, "production") > 0 then return true end
    for _, planet in ipairs(ctx:entities { kind = "planet", location = args.system }) do
      if ctx:count(player, planet, "production") > 0 then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    local n = production.run(ctx, facts(ctx, player), 1)
    if ctx:tracing() then ctx:event("dirzuga_rophal:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. " produces " .. n .. " unit with Dirzuga Rophal") end
  end,
}

-- Letani Warrior II: when it is destroyed, 1 die is rolled; on 6 or more it is set aside on the
-- unit card and comes back, at the start of the owner's next turn, onto a planet they control in
-- their home system. The roll (kind infantry_ii) is made when it is destroyed; on 6 or more the
-- unit goes onto the faction sheet (located at its player, flag returns_next_turn); its return at
-- the start of the next turn is after the tactical action.
for _, w in ipairs { { "letani_warrior_ii", "invasion.unit_destroyed" }, { "letani_warrior_ii_space", "space_combat.unit_destroyed" },
  { "letani_warrior_ii_movement", "tactical_action.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "technology/letani_warrior_ii",
    condition = function(ctx, player, _, args)
      return args.player == player and ctx:location(args.unit) == "reinforcements"
        and ctx:record_id(args.unit):find("letani_warrior_ii", 1, true) ~= nil
    end,
    apply = function(ctx, player, _, args)
      local u = args.unit
      local r = ctx:roll(player, "d10", 1, { purpose = "infantry_ii", unit = u, threshold = 6 })
      if r:hits() == 0 then return end
      ctx:move(u, player)
      ctx:set_flag(u, "returns_next_turn", "game")
      if ctx:tracing() then
        ctx:event("returns:" .. ctx:name(player) .. ":infantry", ctx:name(player) .. "'s Letani Warrior II rolled " .. r:value(1) .. ": it returns at the start of the next turn")
      end
    end,
  }
end
