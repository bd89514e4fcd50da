-- Parley (base action card). In short: once another player has committed units to one of your
-- planets, those units go back to the space area. Window: invasion.commit_ground_forces,
-- args {player, system, planets}: `planets` are those the active player landed on and does not
-- control. The owner picks one of theirs among them (the one with the most committed ground
-- forces; ties: the first) and its committed ground forces go back to the active system's space
-- area: no space cannon defense, no ground combat, no change of control follows there.
-- Offered when such a planet exists (the default policy plays it then).
-- Test: tests/cards/parley.toml

local function target(ctx, player, args)
  local best, most = nil, 0
  for _, planet in ipairs(args.planets) do
    if ctx:owner(planet) == player then
      local n = ctx:count(args.player, planet, "ground_force")
      if n > most then best, most = planet, n end
    end
  end
  return best
end

hook {
  id = "parley",
  window = "invasion.commit_ground_forces",
  source = "action_card/parley",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player ~= player and target(ctx, player, args) ~= nil end,
  apply = function(ctx, player, _, args)
    local planet = target(ctx, player, args)
    local units = ctx:units(args.player, planet, "ground_force")
    for _, u in ipairs(units) do ctx:move(u, args.system) end
    if ctx:tracing() then
      ctx:event("parley:" .. ctx:name(player) .. ":" .. ctx:name(planet),
        ctx:name(args.player) .. "'s " .. #units .. " ground force(s) on " .. ctx:name(planet) .. " return to the space area (Parley)")
    end
  end,
}
