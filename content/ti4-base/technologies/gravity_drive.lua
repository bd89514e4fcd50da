-- Gravity Drive (base technology). "After you activate a system, apply +1 to the move value of 1
-- of your ships during this tactical action." Window: tactical_action.move_value, opened for each
-- ship that may move before its paths are searched, args {player, unit, move}. Which ship is a
-- decision: "use:gravity_drive" is asked for each ship in turn until one takes it (limit
-- "action"). The default policy answers yes for the first ship it helps: one that is farther from
-- the active system than its move value, but no farther than one more (steps through adjacent
-- systems, whatever blocks them; a scripted answer can choose otherwise).
-- Test: tests/cards/gravity_drive.toml

-- Steps from `from` to the active system through adjacent systems, searched no deeper than
-- `limit` (nil: farther).
local function distance(ctx, from, limit)
  local target = ctx:role("active_system")
  if from == target then return 0 end
  local seen, frontier = { [from] = true }, { from }
  for d = 1, limit do
    local next = {}
    for _, s in ipairs(frontier) do
      for _, n in ipairs(ctx:adjacent(s)) do
        if n == target then return d end
        if not seen[n] and ctx:kind(n) == "system" then seen[n] = true; next[#next + 1] = n end
      end
    end
    frontier = next
  end
  return nil
end

hook {
  id = "gravity_drive",
  window = "tactical_action.move_value",
  source = "technology/gravity_drive",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args)
    if args.player ~= player then return false end
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
