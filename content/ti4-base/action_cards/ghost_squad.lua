-- Ghost Squad (Codex I action card). In short: once a player has committed units to one of your
-- planets, you may shift as many ground forces as you like between your planets in the active
-- system. Window: invasion.commit_ground_forces, args {player, system, planets}. Committing is
-- over, so a planet nobody landed on cannot be invaded any more: the owner moves every ground force
-- from their planets there that nobody landed on to their invaded planet where the most ground
-- forces landed (ties: the first). Played when both exist and the first holds ground forces: the
-- default policy.
-- Test: tests/cards/ghost_squad.toml

local function plan(ctx, player, args)
  local invaded, to, most = {}, nil, 0
  for _, planet in ipairs(args.planets) do
    invaded[planet] = true
    if ctx:owner(planet) == player then
      local n = ctx:count(args.player, planet, "ground_force")
      if n > most then to, most = planet, n end
    end
  end
  if not to then return nil end
  local from = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", location = args.system }) do
    if not invaded[planet] and ctx:owner(planet) == player and ctx:count(player, planet, "ground_force") > 0 then
      from[#from + 1] = planet
    end
  end
  if #from == 0 then return nil end
  return to, from
end

hook {
  id = "ghost_squad",
  window = "invasion.commit_ground_forces",
  source = "action_card/ghost_squad",
  optional = true,
  discard = true,
  condition = function(ctx, player, _, args) return args.player ~= player and plan(ctx, player, args) ~= nil end,
  apply = function(ctx, player, _, args)
    local to, from = plan(ctx, player, args)
    local moved = 0
    for _, planet in ipairs(from) do
      for _, u in ipairs(ctx:units(player, planet, "ground_force")) do
        ctx:move(u, to)
        moved = moved + 1
      end
    end
    if ctx:tracing() then
      ctx:event("ghost_squad:" .. ctx:name(player) .. ":" .. ctx:name(to) .. ":" .. moved,
        ctx:name(player) .. " moves " .. moved .. " ground force(s) to " .. ctx:name(to) .. " (Ghost Squad)")
    end
  end,
}
