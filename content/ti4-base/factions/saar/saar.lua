-- The Clan of Saar: the Floating Factory's blockade, Chaos Mapping, Captain Mendosa, Ragh's Call,
-- Scavenge and the Scavenger Zeta. Tests: ../../tests/factions/saar.toml

local lib = require "lib"  -- scripts/ti4/lib.lua
local production = require "production"  -- scripts/ti4/production.lua

-- ------------------------------------------------------------------ Floating Factory

-- Floating Factory: a blockaded one is destroyed. A Floating Factory (a structure with a move value
-- in a space area) is blockaded when another player's ships are in its system and none of its
-- owner's: checked in the active system after movement and after a space combat.
local function blockade(ctx, player, sys, window)
  if ctx:count(player, sys, "ship") > 0 or not lib.other_ships(ctx, player, sys) then return end
  for _, u in ipairs(ctx:units(player, sys, "structure")) do
    if ctx:get(u, "move") > 0 then
      if ctx:tracing() then ctx:event("blockaded:" .. ctx:name(player) .. ":" .. ctx:type(u), ctx:name(player) .. "'s Floating Factory is blockaded: destroyed") end
      ctx:destroy(u, window)
    end
  end
end

hook {
  id = "floating_factory_movement",
  window = "tactical_action.after_movement",
  source = "faction/saar",
  condition = function(ctx, player, _, args) return ctx:count(player, args.system, "structure") > 0 end,
  apply = function(ctx, player, _, args) blockade(ctx, player, args.system, "tactical_action.unit_destroyed") end,
}

hook {
  id = "floating_factory_combat",
  window = "space_combat.after_combat",
  source = "faction/saar",
  condition = function(ctx, player) return ctx:count(player, ctx:role("active_system"), "structure") > 0 end,
  apply = function(ctx, player) blockade(ctx, player, ctx:role("active_system"), "space_combat.unit_destroyed") end,
}

-- ------------------------------------------------------------------ Chaos Mapping

-- Chaos Mapping: an asteroid field holding Saar ships cannot be activated by other players. A
-- scenario that does is not a legal tactical action: an error says so.
hook {
  id = "chaos_mapping",
  window = "tactical_action.before_activation",
  source = "technology/chaos_mapping",
  condition = function(ctx, player, _, args)
    return args.player ~= player and ctx:get(args.system, "anomaly") == "asteroid_field" and ctx:count(player, args.system, "ship") > 0
  end,
  apply = function(ctx, player, _, args)
    args.allowed = false
    args.reason = ctx:name(player) .. "'s Chaos Mapping: other players cannot activate asteroid fields that contain their ships"
  end,
}

-- Chaos Mapping, its second part: when their action phase turn starts, the Saar player may produce
-- 1 unit in a system where one of their units has Production. At the start of the Saar player's own
-- turn (before the activation): in the active system if a unit there (a Floating Factory) has
-- Production, else in the first system that has one (the production policy chooses the unit).
local function production_system(ctx, player, active)
  local function has(sys)
    if ctx:count(player, sys, "production") > 0 then return true end
    for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
      if ctx:count(player, planet, "production") > 0 then return true end
    end
    return false
  end
  if has(active) then return active end
  for _, sys in ipairs(ctx:entities { kind = "system" }) do
    if has(sys) then return sys end
  end
  return nil
end

hook {
  id = "chaos_mapping_production",
  window = "tactical_action.before_activation",
  source = "technology/chaos_mapping",
  optional = true,
  condition = function(ctx, player, _, args) return args.player == player and production_system(ctx, player, args.system) ~= nil end,
  apply = function(ctx, player, _, args)
    local sys = production_system(ctx, player, args.system)
    production.run(ctx, { player = player, system = sys, players = ctx:players(), hooked = {} }, 1)
  end,
}

-- ------------------------------------------------------------------ Captain Mendosa (agent)

-- Captain Mendosa (agent): after any activation, the agent may be exhausted to raise the move value
-- of 1 of the active player's ships to the highest move value of any ship on the board. Any
-- player's ship; the default policy (helps): in the Saar player's own action, for the first ship
-- (in the order ships are asked) that cannot reach the active system with its own move value and
-- can with the highest (through adjacent systems, not counting anomalies or other players' ships).
local function highest_move(ctx)
  local best = 0
  for _, u in ipairs(ctx:units(nil, nil, "move")) do
    if ctx:get(u, "ship") and ctx:location(u) ~= "reinforcements" then best = math.max(best, ctx:get(u, "move")) end
  end
  return best
end

hook {
  id = "captain_mendosa",
  window = "tactical_action.move_value",
  source = "leader/captain_mendosa",
  optional = true,
  limit = "game",
  condition = function(ctx, player, _, args) return highest_move(ctx) > args.move end,
  helps = function(ctx, player, _, args)
    if args.player ~= player then return false end
    local best, from, target = highest_move(ctx), ctx:location(args.unit), ctx:role("active_system")
    return lib.steps_between(ctx, from, target, args.move) == nil and lib.steps_between(ctx, from, target, best) ~= nil
  end,
  apply = function(ctx, player, _, args)
    args.move = highest_move(ctx)
    if ctx:tracing() then
      ctx:event("captain_mendosa:" .. ctx:name(player) .. ":" .. ctx:type(args.unit) .. ":" .. args.move,
        ctx:name(player) .. "'s " .. ctx:type(args.unit) .. " has move " .. args.move .. " (Captain Mendosa)")
    end
  end,
}

-- ------------------------------------------------------------------ Ragh's Call (promissory note)

-- Raghs Call: once its holder has committed units to a planet, every Saar ground force there is
-- moved to a planet the Saar player controls, and the note goes back to the Saar player. Its holder
-- plays it when a planet it committed to holds Saar ground forces and the Saar player controls
-- another planet (the first, in entity order) to take them.
local function saar_players(ctx)
  local out = {}
  for _, f in ipairs(ctx:entities { kind = "faction", type = "saar" }) do out[#out + 1] = ctx:owner(f) end
  return out
end

local function ragh_target(ctx, player, args)
  for _, planet in ipairs(args.planets) do
    for _, s in ipairs(saar_players(ctx)) do
      if s ~= player and ctx:count(s, planet, "ground_force") > 0 then
        for _, other in ipairs(ctx:entities { kind = "planet", owner = s }) do
          if other ~= planet then return planet, s, other end
        end
      end
    end
  end
  return nil
end

hook {
  id = "raghs_call",
  window = "invasion.commit_ground_forces",
  source = "promissory_note/ragh_s_call",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player and ragh_target(ctx, player, args) ~= nil end,
  apply = function(ctx, player, _, args)
    local planet, saar, dest = ragh_target(ctx, player, args)
    for _, u in ipairs(ctx:units(saar, planet, "ground_force")) do ctx:move(u, dest) end
    if ctx:tracing() then
      ctx:event("raghs_call:" .. ctx:name(saar) .. ":" .. ctx:name(dest), ctx:name(saar) .. "'s ground forces leave " .. ctx:name(planet) .. " for " .. ctx:name(dest) .. " (Ragh's Call)")
    end
  end,
}

-- ------------------------------------------------------------------ Scavenge, Scavenger Zeta

-- Scavenge: taking a planet gives 1 trade good. Scavenger Zeta (mech), Deploy: on taking a planet,
-- the player may pay 1 trade good to put a mech on it (while a mech is left in reinforcements;
-- default: whenever it can be paid).
hook {
  id = "scavenge",
  window = "invasion.planet_gained",
  source = "faction/saar",
  priority = 10,  -- before the mech's deploy, which may spend that trade good
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") + 1, "game")
    if ctx:tracing() then ctx:event("trade_good:" .. ctx:name(player), ctx:name(player) .. " gains 1 trade good (Scavenge)") end
  end,
}

hook {
  id = "scavenger_zeta",
  window = "invasion.planet_gained",
  source = "faction/saar",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player or ctx:counter(player, "trade_goods") < 1 then return false end
    local rec = ctx:record("mech", "unit")
    return ctx:count(player, nil, "type:mech") < (rec and rec.reinforcements or 4)
  end,
  apply = function(ctx, player, _, args)
    ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - 1, "game")
    local m = ctx:create { kind = "unit", type = "mech", owner = player, location = args.planet }
    local record = lib.unit_records(ctx, player).mech
    if record then ctx:upgrade(m, record) end
    if ctx:tracing() then ctx:event("deployed:" .. ctx:name(player) .. ":mech", ctx:name(player) .. " places a mech on " .. ctx:name(args.planet) .. " (Scavenger Zeta)") end
  end,
}
