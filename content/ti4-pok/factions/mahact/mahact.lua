-- The Mahact Gene-Sorcerers: Arvicon Rex, Edict, Imperia, the Starlancer.
-- Tests: ../../tests/factions/mahact.toml
--
-- Other players' command tokens in the Mahact player's fleet pool are command tokens owned by
-- those players and located at the Mahact player (scenario: fleet_pool_tokens = ["defender"]).

local lib = require "lib"  -- scripts/ti4/lib.lua

local function token_of(ctx, player, q)
  return ctx:entities { kind = "command_token", owner = q, location = player }[1]
end

-- Arvicon Rex: the flagship rolls at +2 in combat against an opponent none of whose command tokens
-- is in the Mahact fleet pool. At the start of each space combat with the
-- flagship in the active system: the modifier arvicon_rex is on for this combat unless the
-- opponent's token is in the fleet pool.
hook {
  id = "arvicon_rex",
  window = "space_combat.start_of_combat",
  source = "unit/mahact_flagship",
  condition = function(ctx, player, source)
    local a, d = ctx:role("attacker", "defender")
    if player ~= a and player ~= d then return false end
    return ctx:location(source) == ctx:role("active_system") and not token_of(ctx, player, lib.opponent(ctx, player))
  end,
  apply = function(ctx, player) ctx:activate("arvicon_rex", player, "combat") end,
}

-- Edict: winning a combat puts one of the loser's command tokens (from their reinforcements) in the
-- Mahact fleet pool, unless one of theirs is there already. A space combat won
-- (ships left, the opponent's none) or a ground combat won (ground forces left on the planet, the
-- opponent's none). With none in the opponent's reinforcements, one from their command sheet
-- (tactic, then fleet, then strategy pool; the Rules Reference's note on Edict).
local POOLS = { "reinforcement_tokens", "tactic_tokens", "fleet_tokens", "strategy_tokens" }

local function edict(ctx, player, q)
  for _, pool in ipairs(POOLS) do
    if ctx:get(q, pool) > 0 then
      ctx:set(q, pool, ctx:get(q, pool) - 1)
      ctx:create { kind = "command_token", owner = q, location = player }
      if ctx:tracing() then
        ctx:event("edict:" .. ctx:name(player) .. ":" .. ctx:name(q), ctx:name(player) .. " places one of " .. ctx:name(q) .. "'s command tokens in their fleet pool (Edict)")
      end
      return
    end
  end
end

hook {
  id = "edict",
  window = "space_combat.after_combat",
  source = "faction/mahact",
  condition = function(ctx, player)
    local a, d, sys = ctx:role("attacker", "defender", "active_system")
    if player ~= a and player ~= d then return false end
    local q = lib.opponent(ctx, player)
    return ctx:count(player, sys, "ship") > 0 and ctx:count(q, sys, "ship") == 0 and not token_of(ctx, player, q)
  end,
  apply = function(ctx, player) edict(ctx, player, lib.opponent(ctx, player)) end,
}

hook {
  id = "edict_ground",
  window = "invasion.end_of_ground_combat",
  source = "faction/mahact",
  condition = function(ctx, player, _, args)
    if args.player ~= player and args.opponent ~= player then return false end
    local q = args.player == player and args.opponent or args.player
    return ctx:count(player, args.planet, "ground_force") > 0 and ctx:count(q, args.planet, "ground_force") == 0
      and not token_of(ctx, player, q)
  end,
  apply = function(ctx, player, _, args) edict(ctx, player, args.player == player and args.opponent or args.player) end,
}

-- Imperia: the Mahact player has the abilities of the unlocked commanders of the players whose
-- command tokens sit in their fleet pool. At the start of the tactical action (activation)
-- or of a space combat, the Mahact player takes a copy of each unlocked commander (a leader record
-- named "... (commander)" that player holds) of the players whose tokens are in the fleet pool;
-- its hooks and modifiers then serve the Mahact player too (from the next window on: a commander
-- acting at the start of a space combat itself is not used in that window when the combat is not
-- part of a tactical action, whose activation comes first).
local function borrowed(ctx, player)
  local out = {}
  for _, t in ipairs(ctx:entities { kind = "command_token", location = player }) do
    local q = ctx:owner(t)
    for _, l in ipairs(ctx:entities { kind = "leader", owner = q }) do
      local rec = ctx:record(ctx:type(l), "leader")
      if rec and rec.name:find("(commander)", 1, true) and #ctx:entities { kind = "leader", owner = player, type = ctx:type(l) } == 0 then
        out[#out + 1] = ctx:type(l)
      end
    end
  end
  return out
end

local function imperia(ctx, player)
  for _, name in ipairs(borrowed(ctx, player)) do
    ctx:create { kind = "leader", type = name, owner = player }
    if ctx:tracing() then ctx:event("imperia:" .. ctx:name(player) .. ":" .. name, ctx:name(player) .. " may use " .. name .. " (Imperia)") end
  end
end

for _, w in ipairs { { "imperia", "tactical_action.activation" }, { "imperia_combat", "space_combat.start_of_combat" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "faction/mahact",
    priority = 10,
    condition = function(ctx, player) return #borrowed(ctx, player) > 0 end,
    apply = function(ctx, player) imperia(ctx, player) end,
  }
end

-- Starlancer: when a player with a token in the Mahact fleet pool activates the mech's system, the
-- Mahact player may give that token back to them to end their turn. Default
-- policy: against another player, whenever it can (their turn ends before any ship moves).
hook {
  id = "starlancer",
  window = "tactical_action.activation",
  source = "unit/mahact_mech",
  optional = true,
  condition = function(ctx, player, source, args)
    local loc = ctx:location(source)
    local sys = ctx:kind(loc) == "planet" and ctx:location(loc) or loc
    return args.player ~= player and sys == args.system and token_of(ctx, player, args.player) ~= nil
      and not ctx:flag(args.player, "turn_ended")
  end,
  apply = function(ctx, player, _, args)
    ctx:move(token_of(ctx, player, args.player), "reinforcements")
    ctx:set(args.player, "reinforcement_tokens", ctx:get(args.player, "reinforcement_tokens") + 1)
    ctx:set_flag(args.player, "turn_ended", "action")
    if ctx:tracing() then ctx:event("starlancer:" .. ctx:name(player) .. ":" .. ctx:name(args.player), ctx:name(player) .. " spends " .. ctx:name(args.player) .. "'s token to end their turn (Starlancer)") end
  end,
}
