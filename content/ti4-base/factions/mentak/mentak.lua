-- The Mentak Coalition: Ambush. Tests: ../../tests/factions/mentak.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local HITS = { eligible = "ship", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed",
  sustained_window = "space_combat.unit_sustained_damage" }

-- up to 2 cruisers or destroyers: the ones most likely to hit (lowest combat value) first
local function ambushers(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    local t = ctx:type(u)
    if t == "cruiser" or t == "destroyer" then out[#out + 1] = u end
  end
  table.sort(out, function(a, b)
    local ca, cb = ctx:get(a, "combat"), ctx:get(b, "combat")
    if ca ~= cb then return ca < cb end
    return a < b
  end)
  return out
end

-- At the start of a space combat, 1 die for each of up to 2 of the player's cruisers or
-- destroyers, against that ship's combat value (a roll of its own kind, "ambush": combat
-- modifiers do not apply); the opponent assigns the hits to their ships.
hook {
  id = "ambush",
  window = "space_combat.start_of_combat",
  source = "faction/mentak",
  optional = true,
  condition = function(ctx, player)
    return #ambushers(ctx, player, ctx:role("active_system")) > 0
  end,
  apply = function(ctx, player)
    local sys = ctx:role("active_system")
    local hits = 0
    for i, u in ipairs(ambushers(ctx, player, sys)) do
      if i > 2 then break end
      local pool = ctx:roll(player, "d10", 1, { purpose = "ambush", unit = u, threshold = ctx:get(u, "combat") })
      hits = hits + pool:hits()
    end
    local enemy = lib.opponent(ctx, player)
    if hits > 0 then ctx:assign_hits(enemy, sys, hits, HITS, ctx:policy(enemy).hit_order, ctx:policy(enemy).sustain) end
  end,
}

-- Fourth Moon: other players' ships in its system cannot use Sustain Damage. At the start of a
-- space combat with the flagship in the active system, the other players' ships there lose the
-- ability (marked with a flag for the combat); they get it back at the end of the combat, or as
-- soon as the flagship is destroyed.
local SUPPRESSED = "fourth_moon"

-- Whether another player's unit of `record` (a Fourth Moon, a Moll Terminus) is still where `u`
-- is: then `u` stays without Sustain Damage (two Mentak players each suppress the other's ships).
local function suppressed_still(ctx, u, record)
  local here, owner = ctx:location(u), ctx:owner(u)
  for _, q in ipairs(ctx:players()) do
    if q ~= owner then
      for _, m in ipairs(ctx:units(q, here)) do
        if ctx:record_id(m):find(record, 1, true) then return true end
      end
    end
  end
  return false
end

-- `ending`: the suppression ends for every unit (the end of the combat); else only for units no
-- other player's flagship still faces (a flagship was destroyed)
local function restore(ctx, ending)
  for _, u in ipairs(ctx:entities { kind = "unit" }) do
    if ctx:flag(u, SUPPRESSED) and (ending or not suppressed_still(ctx, u, "mentak_flagship")) then
      ctx:set(u, "sustain_damage", true)
    end
  end
end

local function suppress(ctx, player, sys)
  for _, q in ipairs(ctx:players()) do
    if q ~= player then
      for _, u in ipairs(ctx:units(q, sys, "ship")) do
        if ctx:get(u, "sustain_damage") then
          ctx:set(u, "sustain_damage", false)
          ctx:set_flag(u, SUPPRESSED, "action")
        end
      end
    end
  end
end

hook {
  id = "fourth_moon",
  window = "space_combat.start_of_combat",
  source = "unit/mentak_flagship",
  condition = function(ctx, _, source) return ctx:location(source) == ctx:role("active_system") end,
  apply = function(ctx, player) suppress(ctx, player, ctx:role("active_system")) end,
}

-- The same against Space Cannon Offense: the other players' ships in the flagship's system lose
-- Sustain Damage before the first space cannon roll (they get it back at the end of the combat
-- that follows, or when the flagship is destroyed; without a combat, no later hit in the action
-- could be sustained by those ships in that system anyway).
hook {
  id = "fourth_moon_space_cannon",
  window = "tactical_action.before_space_cannon",
  source = "unit/mentak_flagship",
  condition = function(ctx, _, source, args) return ctx:location(source) == args.system end,
  apply = function(ctx, player, _, args) suppress(ctx, player, args.system) end,
}

hook {
  id = "fourth_moon_destroyed",
  window = "space_combat.unit_destroyed",
  source = "faction/mentak",
  condition = function(ctx, player, _, args)
    return args.player == player and ctx:record_id(args.unit):find("mentak_flagship", 1, true) ~= nil
  end,
  apply = function(ctx) restore(ctx) end,
}

hook {
  id = "fourth_moon_end",
  window = "space_combat.end_of_combat",
  source = "faction/mentak",
  apply = function(ctx) restore(ctx, true) end,
}

-- Moll Terminus (mech): other players' ground forces on its planet cannot use Sustain Damage. At
-- the start of a ground combat on a planet holding one, the opponent's ground forces there lose
-- the ability until the end of that ground combat, or until no Moll Terminus is left there.
local GROUND_SUPPRESSED = "moll_terminus"

local function restore_ground(ctx, ending)
  for _, u in ipairs(ctx:entities { kind = "unit" }) do
    if ctx:flag(u, GROUND_SUPPRESSED) and (ending or not suppressed_still(ctx, u, "mentak_mech")) then
      ctx:set(u, "sustain_damage", true)
    end
  end
end

local function suppress_ground(ctx, player, planet)
  for _, q in ipairs(ctx:players()) do
    if q ~= player then
      for _, u in ipairs(ctx:units(q, planet, "ground_force")) do
        if ctx:get(u, "sustain_damage") then
          ctx:set(u, "sustain_damage", false)
          ctx:set_flag(u, GROUND_SUPPRESSED, "action")
        end
      end
    end
  end
end

hook {
  id = "moll_terminus",
  window = "invasion.start_of_ground_combat",
  source = "unit/mentak_mech",
  limit = "combat",
  condition = function(ctx, player, source, args)
    return ctx:location(source) == args.planet and (args.player == player or args.opponent == player)
  end,
  apply = function(ctx, player, _, args) suppress_ground(ctx, player, args.planet) end,
}

-- Against Space Cannon Defense: the ground forces committed to a planet that holds a Moll
-- Terminus cannot sustain its PDS's hits (suppressed before the roll, restored after it).
hook {
  id = "moll_terminus_space_cannon_defense",
  window = "invasion.before_space_cannon_defense",
  source = "unit/mentak_mech",
  condition = function(ctx, player, source, args)
    return ctx:location(source) == args.planet and args.target ~= player
  end,
  apply = function(ctx, player, _, args) suppress_ground(ctx, player, args.planet) end,
}

hook {
  id = "moll_terminus_space_cannon_defense_end",
  window = "invasion.after_space_cannon_defense",
  source = "faction/mentak",
  apply = function(ctx) restore_ground(ctx, true) end,
}

hook {
  id = "moll_terminus_destroyed",
  window = "invasion.unit_destroyed",
  source = "faction/mentak",
  condition = function(ctx, player, _, args)
    if args.player ~= player or not ctx:record_id(args.unit):find("mentak_mech", 1, true) then return false end
    for _, m in ipairs(ctx:units(player, args.location, "type:mech")) do
      if ctx:record_id(m):find("mentak_mech", 1, true) then return false end  -- another one is still there
    end
    return true
  end,
  apply = function(ctx) restore_ground(ctx) end,
}

hook {
  id = "moll_terminus_end",
  window = "invasion.end_of_ground_combat",
  source = "faction/mentak",
  apply = function(ctx) restore_ground(ctx, true) end,
}

-- ------------------------------------------------------------------ Ipswitch, Loose Cannon (hero)

-- Ipswitch, Loose Cannon (hero), Sleeper Cell: when a space combat the Mentak player fights in
-- begins, they may purge the card; for the rest of that combat, every ship of another player that
-- is destroyed gives them a ship of the same type from reinforcements in the active system. Purged,
-- it is used once (its use counted for the game). The ship placed is the Mentak player's own of
-- that type (their faction's unit or upgrade); a type with a piece limit (flagship 1, war sun 2
-- ...) only while one is left in reinforcements. Default policy: in the first space combat it can
-- be.
local IPSWITCH = "ipswitch"  -- a flag on the player, scope combat

hook {
  id = "ipswitch",
  window = "space_combat.start_of_combat",
  source = "leader/ipswitch_loose_cannon",
  optional = true,
  limit = "game",
  condition = function(ctx, player)
    return player == ctx:role("attacker") or player == ctx:role("defender")
  end,
  apply = function(ctx, player) ctx:set_flag(player, IPSWITCH, "combat") end,
}

local function reinforcements_left(ctx, player, t)
  local rec = ctx:record(t, "unit")
  local limit = rec and rec.reinforcements or 0
  return limit <= 0 or ctx:count(player, nil, "type:" .. t) < limit
end

hook {
  id = "ipswitch_ship",
  window = "space_combat.unit_destroyed",
  source = "leader/ipswitch_loose_cannon",
  condition = function(ctx, player, _, args)
    return ctx:flag(player, IPSWITCH) and args.player ~= player and ctx:get(args.unit, "ship")
      and reinforcements_left(ctx, player, ctx:type(args.unit))
  end,
  apply = function(ctx, player, _, args)
    local t = ctx:type(args.unit)
    local u = ctx:create { kind = "unit", type = t, owner = player, location = ctx:role("active_system") }
    local record = lib.unit_records(ctx, player)[t]
    if record then ctx:upgrade(u, record) end
    if ctx:tracing() then ctx:event("ipswitch:" .. ctx:name(player) .. ":" .. t, ctx:name(player) .. " places a " .. t .. " in the active system (Ipswitch)") end
  end,
}

-- ------------------------------------------------------------------ Salvage Operations

-- Salvage Operations: at the end of each space combat the Mentak player fights, win or lose, they
-- get 1 trade good; a winner may also produce there 1 ship of a type that was destroyed in that
-- combat. The types destroyed are counted as the combat goes (counter "destroyed:<type>" on the
-- player, scope combat, any player's ships); after the combat (window after_combat, before
-- capacity), the winner produces the most expensive of them it can pay for (resources:
-- lib.spend_resources) and has in reinforcements. Default policy: produce when it can.
hook {
  id = "salvage_operations_count",
  window = "space_combat.unit_destroyed",
  source = "technology/salvage_operations",
  condition = function(ctx, _, _, args) return ctx:get(args.unit, "ship") end,
  apply = function(ctx, player, _, args) ctx:add_counter(player, "destroyed:" .. ctx:type(args.unit), 1, "combat") end,
}

local SHIP_TYPES = { "war_sun", "flagship", "dreadnought", "carrier", "cruiser", "destroyer", "fighter" }

hook {
  id = "salvage_operations",
  window = "space_combat.after_combat",
  source = "technology/salvage_operations",
  condition = function(ctx, player) return player == ctx:role("attacker") or player == ctx:role("defender") end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") + 1, "game")
    if ctx:tracing() then ctx:event("trade_good:" .. ctx:name(player), ctx:name(player) .. " gains 1 trade good (Salvage Operations)") end
    local sys = ctx:role("active_system")
    local won = ctx:count(player, sys, "ship") > 0 and ctx:count(lib.opponent(ctx, player), sys, "ship") == 0
    if not won or ctx:policy(player).use.salvage_operations == "never" then return end
    local own = lib.unit_records(ctx, player)
    for _, t in ipairs(SHIP_TYPES) do
      local rec = ctx:record(own[t] or t, "unit")
      local cost = rec and rec.cost or 0
      if ctx:counter(player, "destroyed:" .. t) > 0 and cost > 0 and reinforcements_left(ctx, player, t)
          and lib.resources_available(ctx, player) >= cost then
        lib.spend_resources(ctx, player, cost)
        local u = ctx:create { kind = "unit", type = t, owner = player, location = sys }
        if own[t] then ctx:upgrade(u, own[t]) end
        if ctx:tracing() then ctx:event("produced:" .. ctx:name(player) .. ":" .. t .. ":" .. ctx:name(sys), ctx:name(player) .. " produces a " .. t .. " (Salvage Operations)") end
        return
      end
    end
  end,
}
