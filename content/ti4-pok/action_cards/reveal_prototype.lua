-- Reveal Prototype (Prophecy of Kings action card). In short: when a combat starts, pay 4 resources
-- to research the unit upgrade of the type of one of your units fighting in it. Windows:
-- space_combat.start_of_combat (round 1 only; the units in it are the player's ships in the active
-- system) and invasion.start_of_ground_combat (the ground forces on the planet). Never at the start
-- of a later round, nor at any other step.
--
-- What can be researched: a unit upgrade technology (a record with `upgrades`) of a participating
-- unit's type that the player does not own: the faction's own upgrade of that type where it has one
-- (Exotrireme II for Sardakk N'orr's dreadnoughts), else the generic one; its prerequisites (one
-- colour per icon) met by the colours (`specialty`) of the technologies the player owns. Not
-- modelled: exhausting planets with a technology specialty, AI Development Algorithm and other
-- ways to ignore a prerequisite.
-- Paying: 4 resources from ready planets the player controls and trade goods (production's ways
-- to pay, decision reveal_prototype.pay). Researching: the technology is the player's, and each of
-- their units of the type takes the upgraded record at once (a damaged unit stays damaged).
-- Which one: decision reveal_prototype.technology, options best first by the combat the
-- participating units gain (dice x hit chance, after less before). Default policy: played when the
-- best gains something (policy.use = { reveal_prototype = "always" }: whenever one can be
-- researched). Test: tests/cards/reveal_prototype.toml

local lib = require "lib"                  -- scripts/ti4/lib.lua
local production = require "production"    -- scripts/ti4/production.lua: the ways to pay

local COST = 4

-- The upgrades the player can research now for the participating units' types, best first
-- (lib.unit_upgrades: { name=, gain= }).
local function options(ctx, player, units)
  return lib.unit_upgrades(ctx, player, units)
end

-- whether the card may be played: a participating unit with an upgrade to research, and the cost
local function playable(ctx, player, units)
  if #units == 0 or #production.payments(ctx, player, COST) == 0 then return false end
  return #options(ctx, player, units) > 0
end

-- the default policy's guess: the best upgrade makes the participating units stronger
local function gains(ctx, player, units)
  local opts = options(ctx, player, units)
  return opts[1] ~= nil and opts[1].gain > 0
end

local function research(ctx, player, units)
  local opts = options(ctx, player, units)
  local names = {}
  for i, o in ipairs(opts) do names[i] = o.name end
  local name = ctx:decide(player, "reveal_prototype.technology", names)
  -- pay
  local ways, labels = production.payments(ctx, player, COST), {}
  for i, w in ipairs(ways) do labels[i] = w.label end
  local pay = ctx:decide(player, "reveal_prototype.pay", labels)
  for part in pay:gmatch("[^+]+") do
    local g = part:match("^tg:(%d+)$")
    if g then
      ctx:set_counter(player, "trade_goods", ctx:counter(player, "trade_goods") - tonumber(g), "game")
    else
      for _, planet in ipairs(ctx:entities { kind = "planet", owner = player }) do
        if ctx:name(planet) == part then ctx:set_flag(planet, "exhausted", "game") end
      end
    end
  end
  -- research: the technology, and every unit of the type takes the upgraded record
  lib.research_unit_upgrade(ctx, player, name)
  if ctx:tracing() then
    ctx:event("reveal_prototype:" .. ctx:name(player) .. ":" .. name,
      ctx:name(player) .. " pays " .. COST .. " resources (" .. pay .. ") and researches " .. name .. " (Reveal Prototype)")
  end
end

-- the player's ships in the active system
local function ships(ctx, player) return ctx:units(player, ctx:role("active_system"), "ship") end

hook {
  id = "reveal_prototype",
  window = "space_combat.start_of_combat",
  source = "action_card/reveal_prototype",
  optional = true,
  discard = true,
  condition = function(ctx, player) return playable(ctx, player, ships(ctx, player)) end,
  helps = function(ctx, player) return gains(ctx, player, ships(ctx, player)) end,
  apply = function(ctx, player) research(ctx, player, ships(ctx, player)) end,
}

hook {
  id = "reveal_prototype_ground",
  window = "invasion.start_of_ground_combat",
  source = "action_card/reveal_prototype",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args)
    if player ~= args.player and player ~= args.opponent then return false end
    return playable(ctx, player, ctx:units(player, args.planet, "ground_force"))
  end,
  helps = function(ctx, player, _, args) return gains(ctx, player, ctx:units(player, args.planet, "ground_force")) end,
  apply = function(ctx, player, _, args) research(ctx, player, ctx:units(player, args.planet, "ground_force")) end,
}
