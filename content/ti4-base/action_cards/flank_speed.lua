-- Flank Speed (base action card). In short: played on activating a system; every ship of yours
-- moves 1 further for this tactical action.
--   tactical_action.activation, args {player, system}: the active player plays it when one of
--     their ships is farther from the active system than its move value but no farther than one
--     more (steps through adjacent systems, whatever blocks them): the default policy. The flag
--     "flank_speed_played" on the card (scope action) keeps it face up.
--   tactical_action.move_value, args {player, unit, move}: +1 for each of the owner's ships.
--   tactical_action.after_movement: every ship has moved; the card is discarded.
-- Test: tests/cards/flank_speed.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

local PLAYED = "flank_speed_played"

local function distance(ctx, from, target, limit) return lib.steps_between(ctx, from, target, limit) end

local function helps(ctx, player, active)
  for _, u in ipairs(ctx:units(player, nil, "move")) do
    local at = ctx:location(u)
    if ctx:get(u, "ship") and at ~= active and ctx:kind(at) == "system" then
      local move = ctx:get(u, "move")
      local d = distance(ctx, at, active, move + 1)
      if d and d > move then return true end
    end
  end
  return false
end

hook {
  id = "flank_speed",
  window = "tactical_action.activation",
  source = "action_card/flank_speed",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return helps(ctx, player, args.system) end,
  apply = function(ctx, player, source)
    ctx:set_flag(source, PLAYED, "action")
    if ctx:tracing() then
      ctx:event("flank_speed:" .. ctx:name(player), ctx:name(player) .. "'s ships get +1 move this tactical action (Flank Speed)")
    end
  end,
}

hook {
  id = "flank_speed_move",
  window = "tactical_action.move_value",
  source = "action_card/flank_speed",
  condition = function(ctx, player, source, args) return ctx:flag(source, PLAYED) and args.player == player end,
  apply = function(_, _, _, args) args.move = args.move + 1 end,
}

hook {
  id = "flank_speed_discarded",
  window = "tactical_action.after_movement",
  source = "action_card/flank_speed",
  discard = true,
  condition = function(ctx, _, source) return ctx:flag(source, PLAYED) end,
  apply = function() end,  -- the runtime discards the card
}
