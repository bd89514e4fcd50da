-- Lost Star Chart (base action card). In short: played on activating a system; for the rest of this
-- tactical action every alpha wormhole system counts as adjacent to every beta one. Window:
-- tactical_action.activation, args {player, system}: each system with an alpha wormhole is
-- linked (kind "lost_star_chart") with each system with a beta wormhole, so every later step sees
-- them adjacent: movement, Space Cannon Offense from an adjacent system, retreats. The links are
-- state of the run, which is this one tactical action. Their own kind keeps them when wormholes
-- have no effect during movement (Enforced Travel Ban: the card overrules it).
-- The default policy plays it when a ship of the active player is in a wormhole system from
-- which the new adjacency brings the active system within its move value, and not without it.
-- Test: tests/cards/lost_star_chart.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local WORMHOLE_ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }

local function has_wormhole(ctx, sys, kind)
  for _, a in ipairs(WORMHOLE_ATTRS) do
    if ctx:get(sys, a) == kind then return true end
  end
  return false
end

local function systems_with(ctx, kind)
  local out = {}
  for _, s in ipairs(ctx:entities { kind = "system" }) do
    if has_wormhole(ctx, s, kind) then out[#out + 1] = s end
  end
  return out
end

-- Steps from `from` to `target`, searched no deeper than `limit`; with `extra`, alpha and beta
-- systems count as adjacent too.
local function distance(ctx, from, target, limit, extra)
  local more = extra and function(s)
    return has_wormhole(ctx, s, "alpha") and extra.beta or has_wormhole(ctx, s, "beta") and extra.alpha or {}
  end
  return lib.steps_between(ctx, from, target, limit, nil, more)
end

local function helps(ctx, player, active)
  local extra = { alpha = systems_with(ctx, "alpha"), beta = systems_with(ctx, "beta") }
  if #extra.alpha == 0 or #extra.beta == 0 then return false end
  for _, u in ipairs(ctx:units(player, nil, "move")) do
    local at = ctx:location(u)
    if ctx:get(u, "ship") and at ~= active and ctx:kind(at) == "system" then
      local move = ctx:get(u, "move")
      if not distance(ctx, at, active, move) and distance(ctx, at, active, move, extra) then return true end
    end
  end
  return false
end

hook {
  id = "lost_star_chart",
  window = "tactical_action.activation",
  source = "action_card/lost_star_chart",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return helps(ctx, player, args.system) end,
  apply = function(ctx, player)
    local alpha, beta = systems_with(ctx, "alpha"), systems_with(ctx, "beta")
    for _, a in ipairs(alpha) do
      for _, b in ipairs(beta) do
        if a ~= b and not ctx:is_adjacent(a, b) then ctx:link(a, b, "lost_star_chart") end
      end
    end
    if ctx:tracing() then
      ctx:event("lost_star_chart:" .. ctx:name(player), "alpha and beta wormhole systems are adjacent this tactical action (Lost Star Chart)")
    end
  end,
}
