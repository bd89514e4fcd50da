-- The Naalu Collective: Foresight, the Matriarch's fighters in an invasion, the Iconoclast.
-- Tests: ../../tests/factions/naalu.toml

local lib = require "lib"  -- scripts/ti4/lib.lua
local galaxy = require "galaxy"  -- scripts/ti4/galaxy.lua

-- ------------------------------------------------------------------ Foresight

-- Foresight: when another player moves ships into a system holding Naalu ships, the Naalu player
-- may spend a strategy token, placing it in an adjacent system without other players' ships, and
-- move their ships from the active system there. The ships carry the fighters and ground forces of
-- the space area that their capacity holds; the rest are removed, as in a retreat. A system a ship
-- cannot move into (an asteroid field, a supernova) is not chosen. Default policy: when the Naalu
-- ships there are weaker than the active player's (expected hits per round, each unit's Sustain
-- Damage counting as one more hit it takes); the first eligible adjacent system.

-- expected hits a round times the hits it takes to destroy them: a rough strength of a fleet
local function strength(ctx, player, sys)
  local hits, hp = 0, 0
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    hits = hits + ctx:get(u, "dice") * math.max(0, 11 - ctx:get(u, "combat")) / 10
    hp = hp + 1 + ((ctx:get(u, "sustain_damage") and not ctx:get(u, "damaged")) and 1 or 0)
  end
  return hits * hp
end

local function escape_to(ctx, player, sys)
  for _, s in ipairs(galaxy.adjacent(ctx, sys, player)) do  -- as the player sees it (Void Tether)
    local a = ctx:get(s, "anomaly")
    if ctx:kind(s) == "system" and not lib.other_ships(ctx, player, s) and a ~= "asteroid_field" and a ~= "supernova" then
      return s
    end
  end
  return nil
end

hook {
  id = "foresight",
  window = "tactical_action.after_movement",
  source = "faction/naalu",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player == player or ctx:count(player, args.system, "ship") == 0 then return false end
    if ctx:count(args.player, args.system, "ship") == 0 or ctx:get(player, "strategy_tokens") < 1 then return false end
    return escape_to(ctx, player, args.system) ~= nil
  end,
  helps = function(ctx, player, _, args)
    return strength(ctx, player, args.system) < strength(ctx, args.player, args.system)
  end,
  apply = function(ctx, player, _, args)
    local dest = escape_to(ctx, player, args.system)
    ctx:set(player, "strategy_tokens", ctx:get(player, "strategy_tokens") - 1)
    if #ctx:entities { kind = "command_token", owner = player, location = dest } == 0 then
      ctx:create { kind = "command_token", owner = player, location = dest }
    end
    local room, cargo = 0, {}
    for _, u in ipairs(ctx:units(player, args.system)) do
      if lib.needs_transport(ctx, u) then cargo[#cargo + 1] = u
      elseif ctx:get(u, "ship") then room = room + ctx:get(u, "capacity"); ctx:move(u, dest) end
    end
    lib.sort_cargo(ctx, player, cargo)
    for i, u in ipairs(cargo) do
      if i <= room then ctx:move(u, dest) else ctx:move(u, "reinforcements") end
    end
    if ctx:tracing() then
      ctx:event("foresight:" .. ctx:name(player) .. ":" .. ctx:name(dest), ctx:name(player) .. "'s ships leave " .. ctx:name(args.system) .. " for " .. ctx:name(dest) .. " (Foresight)")
    end
  end,
}

-- ------------------------------------------------------------------ Matriarch (flagship)

-- Matriarch: in an invasion of its system, fighters may be committed to planets like ground forces,
-- and they return to the space area once the combat is over. When the player commits ground
-- forces (first: invasion.before_commit), the fighters in the space area are committed to a planet another player defends (the
-- contested planet with the fewest defenders): they are ground forces there (they roll their
-- combat value in ground combat, take its hits and Space Cannon Defense's) and go back to the space
-- area at the end of that ground combat, so they never hold the planet alone. Default policy:
-- whenever a planet there is defended.
local MATRIARCH = "matriarch_fighter"  -- a flag on the fighter, scope action

local function target_planet(ctx, player, sys)
  local best, fewest
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    local n = ctx:count(nil, planet, "ground_force") - ctx:count(player, planet, "ground_force")
    if n > 0 and (not fewest or n < fewest) then best, fewest = planet, n end
  end
  return best
end

hook {
  id = "matriarch",
  window = "invasion.before_commit",
  source = "unit/naalu_flagship",
  optional = true,
  condition = function(ctx, player, source, args)
    return args.player == player and ctx:location(source) == args.system and ctx:count(player, args.system, "fighter") > 0
      and target_planet(ctx, player, args.system) ~= nil
  end,
  apply = function(ctx, player, _, args)
    local planet = target_planet(ctx, player, args.system)
    local fighters = ctx:units(player, args.system, "fighter")
    for _, u in ipairs(fighters) do
      ctx:set(u, "ground_force", true)
      ctx:set_flag(u, MATRIARCH, "action")
      ctx:move(u, planet)
    end
    if ctx:counter(planet, "invaded") == 0 then  -- a planet committed to (invasion.lua's order)
      local n = 0
      for _, p in ipairs(ctx:entities { kind = "planet", location = args.system }) do n = math.max(n, ctx:counter(p, "invaded")) end
      ctx:set_counter(planet, "invaded", n + 1, "action")
    end
    if ctx:tracing() then
      ctx:event("commit:" .. ctx:name(player) .. ":fighter:" .. #fighters .. ":" .. ctx:name(planet), ctx:name(player) .. " commits " .. #fighters .. " fighters to " .. ctx:name(planet) .. " (Matriarch)")
    end
  end,
}

-- the fighters back to the space area, ships again
local function fighters_back(ctx, player, planet)
  local sys = ctx:location(planet)
  for _, u in ipairs(ctx:units(player, planet, "fighter")) do
    if ctx:flag(u, MATRIARCH) then
      ctx:set(u, "ground_force", false)
      ctx:move(u, sys)
    end
  end
end

hook {
  id = "matriarch_return",
  window = "invasion.end_of_ground_combat",
  source = "faction/naalu",
  condition = function(ctx, player, _, args)
    return (args.player == player or args.opponent == player) and ctx:count(player, args.planet, "fighter") > 0
  end,
  apply = function(ctx, player, _, args)
    fighters_back(ctx, player, args.planet)
    if ctx:tracing() then ctx:event("returned:" .. ctx:name(player) .. ":fighter", ctx:name(player) .. "'s fighters return to the space area (Matriarch)") end
  end,
}

-- a fighter destroyed on the planet is a fighter again in reinforcements
hook {
  id = "matriarch_destroyed",
  window = "invasion.unit_destroyed",
  source = "faction/naalu",
  condition = function(ctx, player, _, args) return args.player == player and ctx:flag(args.unit, MATRIARCH) end,
  apply = function(ctx, _, _, args) ctx:set(args.unit, "ground_force", false) end,
}

-- ------------------------------------------------------------------ Iconoclast (mech)

-- Two versions (naalu.toml): Codex III's Iconoclast Ω, the default, and the faction sheet's,
-- which a side plays with versions = ["naalu_mech"] (the player's flag version:naalu_mech).

-- Iconoclast Ω (Codex III): no other player's Anti-Fighter Barrage works against the Naalu units
-- in the mech's system. While a Naalu mech is in the active system (its space area or one of its planets), the other
-- player's barrage dice are removed once rolled: no hit, no reroll.
hook {
  id = "iconoclast_omega",
  window = "space_combat.after_anti_fighter_barrage_roll",
  source = "faction/naalu",
  priority = 10,  -- before the player's other abilities there
  condition = function(ctx, player, _, args)
    -- the player's mechs are Iconoclast Ω (no other version chosen: naalu_mech, Thunder's Edge's)
    return args.player ~= player and lib.unit_records(ctx, player).mech == "naalu_mech_omega"
      and args.pool:size() > 0 and lib.in_system(ctx, player, ctx:role("active_system"), "mech")
  end,
  apply = function(ctx, player, _, args)
    ctx:event("iconoclast_omega:" .. ctx:name(player) .. ":" .. args.pool:size(),
      "Iconoclast \u{3a9}: " .. ctx:name(args.player) .. "'s " .. args.pool:size() .. " Anti-Fighter Barrage dice do not count")
    for i = args.pool:size(), 1, -1 do args.pool:remove(i) end
  end,
}

-- Iconoclast: against an opponent holding a relic fragment, this mech rolls at +2 in combat. (relic
-- fragments: the scenario's relic_fragments for a player) The +2 (naalu.toml, the Naalu mechs'
-- ground combat rolls) is switched on for the ground combat.
hook {
  id = "iconoclast",
  window = "invasion.start_of_ground_combat",
  source = "faction/naalu",
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    local opponent = player == args.player and args.opponent or args.player
    return ctx:flag(player, "version:naalu_mech") and ctx:counter(opponent, "relic_fragments") > 0
      and ctx:count(player, args.planet, "type:mech") > 0
  end,
  apply = function(ctx, player) ctx:activate("iconoclast_bonus", player, "combat") end,
}
