-- Gravity Drive (base technology). In short: after activating a system, 1 of the owner's ships
-- moves 1 further for this tactical action. Window: tactical_action.move_value, opened for each
-- ship that may move before its paths are searched, args {player, unit, move}. Which ship is a
-- decision: "use:gravity_drive" is asked for each ship in turn until one takes it (limit
-- "action"). The default policy answers yes for the first ship it helps: one that is farther from
-- the active system than its move value, but no farther than one more (steps through adjacent
-- systems, whatever blocks them; a scripted answer can choose otherwise).
-- Test: tests/cards/gravity_drive.toml

local lib = require "lib"  -- scripts/ti4/lib.lua

-- Steps from `from` to the active system, no deeper than `limit` (nil: farther).
local function distance(ctx, from, limit) return lib.steps_between(ctx, from, ctx:role("active_system"), limit) end

hook {
  id = "gravity_drive",
  window = "tactical_action.move_value",
  source = "technology/gravity_drive",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args)
    local d = distance(ctx, ctx:location(args.unit), args.move + 1)
    return d ~= nil and d > args.move
  end,
  apply = function(ctx, player, _, args)
    args.move = args.move + 1
    if ctx:tracing() then
      ctx:event("gravity_drive:" .. ctx:name(player) .. ":" .. ctx:type(args.unit),
        ctx:name(player) .. "'s " .. ctx:type(args.unit) .. " gets +1 move (Gravity Drive): " .. args.move)
    end
  end,
}
