-- The Barony of Letnev: Munitions Reserves, the Arc Secundus, L4 Disruptors.
-- Tests: ../../tests/factions/letnev.toml

local FLAG = "munitions_reserves"

-- Munitions Reserves: at the start of a space combat round, 2 trade goods buy rerolls for the
-- round. Default policy: spent whenever the player has them (policy.use = { munitions_reserves
-- = "never" } keeps them); in the round, every die that missed is rerolled once.
hook {
  id = "munitions_reserves",
  window = "space_combat.start_of_round",
  source = "faction/letnev",
  optional = true,
  limit = "round",
  condition = function(ctx, player) return ctx:counter(player, "trade_goods") >= 2 end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - 2, "game")
    ctx:set_flag(player, FLAG, "round")
  end,
}

hook {
  id = "munitions_reserves_reroll",
  window = "space_combat.after_roll",
  source = "faction/letnev",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(player, FLAG) end,
  apply = function(_, _, _, args)
    local pool = args.pool
    for i = 1, pool:size() do
      if not pool:hit(i) then pool:reroll(i) end
    end
  end,
}

-- Arc Secundus: repaired at the start of every space combat round
hook {
  id = "arc_secundus_repair",
  window = "space_combat.start_of_round",
  source = "unit/letnev_flagship",
  condition = function(ctx, _, source)
    return ctx:location(source) == ctx:role("active_system") and ctx:get(source, "damaged")
  end,
  apply = function(ctx, player, source)
    ctx:set(source, "damaged", false)
    if ctx:tracing() then ctx:event("repaired:" .. ctx:name(player) .. ":flagship", ctx:name(player) .. " repairs the Arc Secundus") end
  end,
}

-- Arc Secundus: other players' units in its system lose Planetary Shield
hook {
  id = "arc_secundus_shield",
  window = "invasion.planetary_shield",
  source = "unit/letnev_flagship",
  condition = function(ctx, _, source, args)
    return args.shielded and ctx:location(source) == ctx:location(args.planet)
  end,
  apply = function(_, _, _, args) args.shielded = false end,
}

-- L4 Disruptors: no Space Cannon Defense against the player's units
hook {
  id = "l4_disruptors",
  window = "invasion.before_space_cannon_defense",
  source = "technology/l4_disruptors",
  condition = function(_, player, _, args) return args.target == player and args.can_fire end,
  apply = function(_, _, _, args) args.can_fire = false end,
}

-- Non-Euclidean Shielding: each Sustain Damage of the player's units cancels 2 hits, not 1.
-- Resolved before the hits are assigned, for the sustain policy "first" (every undamaged unit
-- that can sustains before anything is lost): s units sustain and absorb up to 2s hits, so the
-- hits left to assign are lowered by the extra ones and the assignment that follows sustains the
-- same s units. Under "last" and "never" it is not applied (not modelled yet).
local function extra_hits_cancelled(ctx, player, location, kind, hits)
  if ctx:policy(player).sustain ~= "first" or hits <= 0 then return 0 end
  local sustainers = 0
  for _, u in ipairs(ctx:units(player, location, kind)) do
    if ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged") then sustainers = sustainers + 1 end
  end
  local s = math.min(sustainers, (hits + 1) // 2)
  return math.min(hits, 2 * s) - s
end

hook {
  id = "non_euclidean_shielding",
  window = "space_combat.assign_hits",
  source = "technology/non_euclidean_shielding",
  condition = function(ctx, player, _, args)
    return args.purpose == "space_combat.assign_hits"
      and extra_hits_cancelled(ctx, player, ctx:role("active_system"), "ship", args.hits[player] or 0) > 0
  end,
  apply = function(ctx, player, _, args)
    args.hits[player] = args.hits[player] - extra_hits_cancelled(ctx, player, ctx:role("active_system"), "ship", args.hits[player])
  end,
}

hook {
  id = "non_euclidean_shielding_ground",
  window = "invasion.assign_ground_hits",
  source = "technology/non_euclidean_shielding",
  condition = function(ctx, player, _, args)
    return extra_hits_cancelled(ctx, player, args.planet, "ground_force", args.hits[player] or 0) > 0
  end,
  apply = function(ctx, player, _, args)
    args.hits[player] = args.hits[player] - extra_hits_cancelled(ctx, player, args.planet, "ground_force", args.hits[player])
  end,
}
