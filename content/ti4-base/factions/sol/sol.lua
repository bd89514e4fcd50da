-- The Federation of Sol: Claire Gibson (commander). Tests: ../../tests/factions/sol.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- At the start of a ground combat on a planet the player controls, 1 infantry from reinforcements
-- (unlimited: infantry have no piece limit) joins it; the player's infantry record (Spec Ops).
hook {
  id = "claire_gibson",
  window = "invasion.start_of_ground_combat",
  source = "leader/claire_gibson",
  optional = true,
  condition = function(ctx, player, _, args)
    return ctx:owner(args.planet) == player and (args.player == player or args.opponent == player)
  end,
  apply = function(ctx, player, _, args)
    lib.place_units(ctx, player, "infantry", 1, args.planet)
    if ctx:tracing() then ctx:event("placed:" .. ctx:name(player) .. ":infantry", ctx:name(player) .. " places 1 infantry on " .. ctx:name(args.planet) .. " (Claire Gibson)") end
  end,
}

-- Evelyn DeLouis (agent): when a ground combat round starts, the agent may be exhausted to give 1
-- ground force in the active system 1 extra die for that round. Default policy: in the first round
-- of a ground combat the Sol player fights in, on their ground force most likely to hit there
-- (lowest combat value; among equals, the first). Exhausted, it stays so (its use is counted for
-- the game). The die is added to that ground force's roll, right after it (priority 10: before
-- other abilities change dice).
local DELOUIS = "evelyn_delouis"  -- a flag on the ground force, scope round

hook {
  id = "evelyn_delouis",
  window = "invasion.start_of_ground_round",
  source = "leader/evelyn_delouis",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args)
    return (args.player == player or args.opponent == player) and ctx:count(player, args.planet, "ground_force") > 0
  end,
  apply = function(ctx, player, _, args)
    local best
    for _, u in ipairs(ctx:units(player, args.planet, "ground_force")) do
      if ctx:get(u, "dice") > 0 and (not best or ctx:get(u, "combat") < ctx:get(best, "combat")) then best = u end
    end
    if not best then return end
    ctx:set_flag(best, DELOUIS, "round")
    if ctx:tracing() then
      ctx:event("evelyn_delouis:" .. ctx:name(player) .. ":" .. ctx:type(best), ctx:name(player) .. "'s " .. ctx:type(best) .. " rolls 1 additional die this round (Evelyn DeLouis)")
    end
  end,
}

hook {
  id = "evelyn_delouis_die",
  window = "invasion.after_ground_roll",
  source = "leader/evelyn_delouis",
  priority = 10,
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
    for i = 1, args.pool:size() do
      local u = args.pool:unit(i)
      if u and ctx:flag(u, DELOUIS) then return true end
    end
    return false
  end,
  apply = function(ctx, _, _, args)
    local pool = args.pool
    for i = 1, pool:size() do
      local u = pool:unit(i)
      if u and ctx:flag(u, DELOUIS) then
        pool:add(1, i)
        return
      end
    end
  end,
}

-- Spec Ops II: when it is destroyed, 1 die is rolled; on 5 or more it is set aside on the unit card
-- and comes back, at the start of the owner's next turn, onto a planet they control in their home
-- system. The roll is made when it is destroyed (a roll of its own kind, infantry_ii: no combat
-- modifier touches it); on 5 or more the unit goes onto the faction sheet (located at its player,
-- flag returns_next_turn), out of the tactical action; its return at the start of the next turn is
-- after the action.
local function spec_ops_ii_returns(ctx, player, u)
  local r = ctx:roll(player, "d10", 1, { purpose = "infantry_ii", unit = u, threshold = 5 })
  if r:hits() == 0 then return end
  ctx:move(u, player)
  ctx:set_flag(u, "returns_next_turn", "game")
  if ctx:tracing() then
    ctx:event("returns:" .. ctx:name(player) .. ":infantry", ctx:name(player) .. "'s Spec Ops II rolled " .. r:value(1) .. ": it returns at the start of the next turn")
  end
end

for _, w in ipairs { { "spec_ops_ii", "invasion.unit_destroyed" }, { "spec_ops_ii_space", "space_combat.unit_destroyed" },
  { "spec_ops_ii_movement", "tactical_action.unit_destroyed" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "technology/spec_ops_ii",
    condition = function(ctx, player, _, args)
      return args.player == player and ctx:location(args.unit) == "reinforcements"
        and ctx:record_id(args.unit):find("spec_ops_ii", 1, true) ~= nil
    end,
    apply = function(ctx, player, _, args) spec_ops_ii_returns(ctx, player, args.unit) end,
  }
end
