-- The Last Bastion: The Egeiro, Galvanize's sources (Phoenix Standard, Raise the Standard, Dame
-- Briar, A3 Valiance). A galvanized unit's extra die is in its
-- dice counts (lib.galvanize, scripts/ti4/lib.lua), so rolls need no hook for it.
-- Tests: ../../tests/factions/last_bastion.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- The Egeiro: +1 to each of its combat dice for each non-home system holding a planet its owner
-- controls: the player's counter `non_home_systems_with_planets` (scenario `counters`).
hook {
  id = "the_egeiro",
  window = "space_combat.after_roll",
  source = "unit/last_bastion_flagship",
  requires = { counter = "non_home_systems_with_planets" },
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, source, args)
    local n = ctx:counter(player, "non_home_systems_with_planets")
    for i = 1, args.pool:size() do
      if args.pool:unit(i) == source then args.pool:modify(i, n) end
    end
  end,
}

-- the player's unit to galvanize among `units`: the most costly one not yet galvanized (its extra
-- die is worth most), then the first made
local function best_to_galvanize(ctx, units)
  return lib.most_costly(ctx, units, function(u)
    return not ctx:flag(u, "galvanized") and (ctx:get(u, "combat") or 0) > 0
  end)
end

-- the units of `player` that took part in the combat that just ended, still there
local function participants(ctx, player, args)
  if args and args.planet then return ctx:units(player, args.planet, "ground_force") end
  return ctx:units(player, ctx:role("active_system"), "ship")
end

-- Phoenix Standard (faction) and Raise the Standard (promissory note: any holder, then returned,
-- here discarded): at the end of a combat, galvanize 1 of the player's units that took part.
local END_WINDOWS = { space = "space_combat.end_of_combat", ground = "invasion.end_of_ground_combat" }
for where, window in pairs(END_WINDOWS) do
  local function took_part(ctx, player, _, args)
    args = args or {}
    if args.planet and args.player ~= player and args.opponent ~= player then return false end
    return best_to_galvanize(ctx, participants(ctx, player, args)) ~= nil
  end
  local function galvanize_one(ctx, player, _, args)
    lib.galvanize(ctx, best_to_galvanize(ctx, participants(ctx, player, args)))
  end
  hook {
    id = "phoenix_standard_" .. where,
    window = window,
    source = "faction/last_bastion",
    optional = true,
    condition = took_part,
    apply = galvanize_one,
  }
  hook {
    id = "raise_the_standard_" .. where,
    window = window,
    source = "promissory_note/raise_the_standard",
    optional = true,
    discard = true,
    condition = took_part,
    apply = galvanize_one,
  }
end

-- the owner's other units at the destroyed unit's place that can take a galvanize token
local function others_at(ctx, owner, location)
  local out = {}
  for _, u in ipairs(ctx:units(owner, location)) do
    if not ctx:flag(u, "galvanized") and (ctx:get(u, "combat") or 0) > 0 then out[#out + 1] = u end
  end
  return out
end

local DESTROYED = { space = "space_combat.unit_destroyed", ground = "invasion.unit_destroyed" }
for where, window in pairs(DESTROYED) do
  -- A3 Valiance: destroyed while galvanized, it galvanizes up to 3 of its owner's infantry there.
  hook {
    id = "a3_valiance_" .. where,
    window = window,
    source = "faction/last_bastion",
    condition = function(ctx, player, _, args)
      return args.player == player and ctx:record_id(args.unit) == "ti4-te:unit/last_bastion_mech"
        and ctx:flag(args.unit, "galvanized")
    end,
    apply = function(ctx, player, _, args)
      local n = 0
      for _, u in ipairs(ctx:units(player, args.location, "type:infantry")) do
        if n < 3 and lib.galvanize(ctx, u) then n = n + 1 end
      end
    end,
  }
  -- Dame Briar (agent): when a player's unit is destroyed, exhaust to galvanize another of that
  -- player's units there. Used for the owner's own units (default policy: always, when legal).
  hook {
    id = "dame_briar_" .. where,
    window = window,
    source = "leader/dame_briar",
    optional = true,
    limit = "game",
    condition = function(ctx, player, _, args)
      return args.player == player and best_to_galvanize(ctx, others_at(ctx, player, args.location)) ~= nil
    end,
    apply = function(ctx, player, _, args)
      lib.galvanize(ctx, best_to_galvanize(ctx, others_at(ctx, player, args.location)))
    end,
  }
end

-- Lyra Keen (hero): when one of the owner's galvanized units is destroyed, purge: 1 die for each
-- other player's unit in its system (space area and planets); each die at or above the destroyed
-- unit's combat value destroys the unit it was rolled for.
local function others_in_system(ctx, player, sys)
  local out = {}
  local places = { sys }
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do places[#places + 1] = planet end
  for _, place in ipairs(places) do
    for _, u in ipairs(ctx:units(nil, place)) do
      if ctx:owner(u) ~= player then out[#out + 1] = u end
    end
  end
  return out
end

local function system_of(ctx, location)
  return ctx:kind(location) == "planet" and ctx:location(location) or location
end

for where, window in pairs(DESTROYED) do
  hook {
    id = "lyra_keen_" .. where,
    window = window,
    source = "leader/lyra_keen",
    optional = true,
    discard = true,
    condition = function(ctx, player, _, args)
      return args.player == player and ctx:flag(args.unit, "galvanized") and (ctx:get(args.unit, "combat") or 0) > 0
        and #others_in_system(ctx, player, system_of(ctx, args.location)) > 0
    end,
    apply = function(ctx, player, _, args)
      local value = ctx:get(args.unit, "combat")
      for _, u in ipairs(others_in_system(ctx, player, system_of(ctx, args.location))) do
        if ctx:roll(player, "d10", 1, { purpose = "lyra_keen", threshold = value }):hit(1) then
          ctx:destroy(u, window)
        end
      end
    end,
  }
end

-- Proxima Targeting VI (faction technology). "Present" is read as on the planet bombarded: each of
-- the owner's galvanized units there cancels 1 bombardment hit against the owner's ground forces.
local function galvanized_on(ctx, player, planet)
  local n = 0
  for _, u in ipairs(ctx:units(player, planet)) do
    if ctx:flag(u, "galvanized") then n = n + 1 end
  end
  return n
end

local function cancels(ctx, player, planet)
  return lib.owns(ctx, player, "proxima_targeting_vi") and galvanized_on(ctx, player, planet) or 0
end

hook {
  id = "proxima_targeting_vi_cancel",
  window = "invasion.assign_bombardment_hits",
  source = "technology/proxima_targeting_vi",
  condition = function(ctx, player, _, args)
    return args.player ~= player and args.hits > 0 and ctx:count(player, args.planet, "ground_force") > 0
      and galvanized_on(ctx, player, args.planet) > 0
  end,
  apply = function(ctx, player, _, args)
    args.hits = math.max(0, args.hits - galvanized_on(ctx, player, args.planet))
  end,
}

-- Its own bombardment: at the start of each ground combat round it takes part in, the owner may
-- roll 3 dice at 8 against the opponent's ground forces there, and must then roll the same against
-- their own (each roll's hits less the target's cancels above). A Planetary Shield of the
-- opponent on the planet forbids it, unless the owner has a war sun in the system.
local PROXIMA_DICE, PROXIMA_VALUE = 3, 8
local BOMBARDMENT_HITS = { eligible = "ground_force", can_sustain = "sustain_damage", damaged = "damaged",
  decision = "invasion.assign_bombardment_hits", destroyed_window = "invasion.unit_destroyed" }

local function opponent_of(player, args)
  return args.player == player and args.opponent or args.player
end

hook {
  id = "proxima_targeting_vi_bombardment",
  window = "invasion.start_of_ground_round",
  source = "technology/proxima_targeting_vi",
  optional = true,
  condition = function(ctx, player, _, args)
    if args.player ~= player and args.opponent ~= player then return false end
    local other = opponent_of(player, args)
    return ctx:count(other, args.planet, "planetary_shield") == 0
      or ctx:count(player, ctx:location(args.planet), "type:war_sun") > 0
  end,
  -- the default: when the owner's cancels or numbers make the two equal rolls worth it
  helps = function(ctx, player, _, args)
    local other = opponent_of(player, args)
    return cancels(ctx, player, args.planet) > cancels(ctx, other, args.planet)
      or ctx:count(player, args.planet, "ground_force") > ctx:count(other, args.planet, "ground_force")
  end,
  apply = function(ctx, player, _, args)
    for _, target in ipairs { opponent_of(player, args), player } do
      local pool = ctx:roll(player, "d10", PROXIMA_DICE, { purpose = "bombardment", threshold = PROXIMA_VALUE })
      local hits = math.max(0, pool:hits() - cancels(ctx, target, args.planet))
      if hits > 0 then
        ctx:assign_hits(target, args.planet, hits, BOMBARDMENT_HITS, ctx:policy(target).hit_order, ctx:policy(target).sustain)
      end
    end
  end,
}

-- 4X41C "Helios" V1 / V2 (space dock): the resource value of its planet is 1 / 2 higher (A's
-- te_units.json, bastion_spacedock and bastion_spacedock2). In the tactical action a planet's
-- resource value is read in the Production step only: a space dock's production value (its own
-- plus its planet's resources) and the resources its owner spends. So when the owner produces
-- (production.start_of_production, whose limit the procedure counted from the printed values),
-- each Helios with Production in the active system adds its bonus to the limit, and each planet
-- of the owner's with a Helios is worth its bonus more when exhausted (its resources raised once
-- an action: the planet's counter helios_bonus).
local HELIOS = { ["ti4-te:unit/last_bastion_space_dock"] = 1, ["ti4-te:unit/last_bastion_space_dock_ii"] = 2 }

local function helios_on(ctx, player, planet)
  for _, u in ipairs(ctx:units(player, planet, "structure")) do
    if HELIOS[ctx:record_id(u)] then return u, HELIOS[ctx:record_id(u)] end
  end
  return nil, 0
end

local function helios_planets(ctx, player)
  local out = {}
  for _, planet in ipairs(ctx:entities { kind = "planet" }) do
    if ctx:owner(planet) == player and helios_on(ctx, player, planet) then out[#out + 1] = planet end
  end
  return out
end

hook {
  id = "helios",
  window = "production.start_of_production",
  source = "faction/last_bastion",
  condition = function(ctx, player, _, args) return args.player == player and #helios_planets(ctx, player) > 0 end,
  apply = function(ctx, player, _, args)
    for _, planet in ipairs(helios_planets(ctx, player)) do
      local dock, bonus = helios_on(ctx, player, planet)
      if ctx:location(planet) == args.system and ctx:get(dock, "production") > 0 then args.limit = args.limit + bonus end
      local raised = ctx:counter(planet, "helios_bonus")
      if raised < bonus then
        ctx:set(planet, "resources", ctx:get(planet, "resources") + bonus - raised)
        ctx:set_counter(planet, "helios_bonus", bonus, "action")
      end
      if ctx:tracing() then
        ctx:event("helios:" .. ctx:name(player) .. ":" .. ctx:name(planet) .. ":" .. ctx:get(planet, "resources"),
          ctx:name(planet) .. "'s resource value is " .. bonus .. " higher (" .. ctx:type(dock) .. ", " .. ctx:get(planet, "resources") .. ")")
      end
    end
  end,
}
