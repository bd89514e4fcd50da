-- Shard of the Throne (base law, held by one player). In short: whoever wins a combat against the
-- holder takes the card with 1 victory point, and the former holder loses 1 victory point. Windows:
-- space_combat.after_combat (the player with ships left won) and invasion.end_of_ground_combat (the
-- player with ground forces left on the planet won); a draw has no winner. The card changes owner
-- and the player counter "victory_points" (scope game) moves by 1 each way; the tactical action's
-- report gives each side's change (attacker_victory_points, defender_victory_points). Not an
-- optional ability. Test: tests/cards/shard_of_the_throne.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local function take(ctx, card, from, to)
  ctx:set_owner(card, to)
  ctx:add_counter(to, "victory_points", 1, "game")
  ctx:add_counter(from, "victory_points", -1, "game")
  if ctx:tracing() then
    ctx:event("shard_of_the_throne:" .. ctx:name(to), ctx:name(to) .. " wins a combat against " .. ctx:name(from)
      .. ": gains Shard of the Throne and 1 victory point; " .. ctx:name(from) .. " loses 1")
  end
end

-- the space combat's winner against `player`, if `player` fought and lost
local function space_winner(ctx, player)
  local a, d, sys = ctx:role("attacker", "defender", "active_system")
  if player ~= a and player ~= d then return nil end
  local other = lib.opponent(ctx, player)
  if other and ctx:count(player, sys, "ship") == 0 and ctx:count(other, sys, "ship") > 0 then return other end
  return nil
end

hook {
  id = "shard_of_the_throne",
  window = "space_combat.after_combat",
  source = "agenda/shard_of_the_throne",
  condition = function(ctx, player) return space_winner(ctx, player) ~= nil end,
  apply = function(ctx, player, source) take(ctx, source, player, space_winner(ctx, player)) end,
}

-- the ground combat's winner against `player`, if `player` fought and lost
local function ground_winner(ctx, player, args)
  local other = player == args.player and args.opponent or player == args.opponent and args.player or nil
  if other and ctx:count(player, args.planet, "ground_force") == 0 and ctx:count(other, args.planet, "ground_force") > 0 then
    return other
  end
  return nil
end

hook {
  id = "shard_of_the_throne_ground",
  window = "invasion.end_of_ground_combat",
  source = "agenda/shard_of_the_throne",
  condition = function(ctx, player, _, args) return ground_winner(ctx, player, args) ~= nil end,
  apply = function(ctx, player, source, args) take(ctx, source, player, ground_winner(ctx, player, args)) end,
}
