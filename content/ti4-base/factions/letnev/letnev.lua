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

-- Dunlain Reaper (mech), Deploy: at the start of a round of ground combat, 2 resources replace 1
-- of the player's infantry in that combat with 1 mech (from reinforcements: 4 mechs at most on
-- the board). Paid here with trade goods only (exhausting planets for it is not modelled).
-- Default policy: whenever the player can pay.
local lib = require "lib"  -- scripts/ti4/lib.lua

local function mech_limit(ctx)
  local rec = ctx:record("mech", "unit")
  return rec and rec.reinforcements or 4
end

hook {
  id = "dunlain_reaper",
  window = "invasion.start_of_ground_round",
  source = "faction/letnev",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player and args.opponent ~= player then return false end
    if ctx:counter(player, "trade_goods") < 2 then return false end
    if ctx:count(player, args.planet, "type:infantry") == 0 then return false end
    return ctx:count(player, nil, "type:mech") < mech_limit(ctx)
  end,
  apply = function(ctx, player, _, args)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - 2, "game")
    local infantry = ctx:units(player, args.planet, "type:infantry")[1]
    ctx:move(infantry, "reinforcements")
    local m = ctx:create { kind = "unit", type = "mech", owner = player, location = args.planet }
    local record = lib.unit_records(ctx, player).mech
    if record then ctx:upgrade(m, record) end
    if ctx:tracing() then ctx:event("deployed:" .. ctx:name(player) .. ":mech", ctx:name(player) .. " replaces an infantry with a mech (Dunlain Reaper)") end
  end,
}
