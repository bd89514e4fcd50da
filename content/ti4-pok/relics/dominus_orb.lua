-- Dominus Orb (Prophecy of Kings relic). In short: purged before the movement of a tactical action,
-- it lets units in systems holding the player's command tokens move and be transported. Windows:
-- tactical_action.before_movement (the active player purges it: the action flag
-- "move_from_command_token_systems"), then tactical_action.passage, a rule that reads the flag: the
-- player's units may leave systems holding their command tokens, and ships passing such a system
-- may pick units up there. The active system's own token is no exception to anything (ships end
-- there). Default policy: purged when a ship in a system with the player's command token could
-- reach the active system (policy.use = { dominus_orb = "always" }: whenever it may be).
-- Test: tests/cards/dominus_orb.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local FLAG = "move_from_command_token_systems"

local function helps(ctx, player, active)
  for _, t in ipairs(ctx:entities { kind = "command_token", owner = player }) do
    local sys = ctx:location(t)
    if sys ~= active then
      for _, u in ipairs(ctx:units(player, sys, "ship")) do
        local move = ctx:get(u, "move")
        if move > 0 and lib.steps_between(ctx, sys, active, move) then return true end
      end
    end
  end
  return false
end

hook {
  id = "dominus_orb",
  window = "tactical_action.before_movement",
  source = "relic/dominus_orb",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return helps(ctx, player, args.system) end,
  apply = function(ctx, player)
    ctx:set_flag(player, FLAG, "action")
    if ctx:tracing() then
      ctx:event("dominus_orb:" .. ctx:name(player), ctx:name(player) .. " purges the Dominus Orb: units may move out of systems with their command tokens")
    end
  end,
}

hook {
  id = "dominus_orb_passage",
  window = "tactical_action.passage",
  condition = function(ctx, _, _, args) return not args.can_leave and not args.active and ctx:flag(args.player, FLAG) end,
  apply = function(_, _, _, args) args.can_leave = true end,
}
