-- Sarween Tools, both versions: the Production step's `discount` (production.start_of_production),
-- resources taken off the combined cost of what the player produces there.
-- Base game: 1. Codex I's Ω: 1 for each of the player's units that uses Production, read as each of
-- their units with Production in the active system (space area and its planets; production.lua
-- sums the same units' Production into the limit). Test: tests/codex_versions.toml

local function producers(ctx, player, sys)
  local n = #ctx:units(player, sys, "production")
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    n = n + #ctx:units(player, planet, "production")
  end
  return n
end

hook {
  id = "sarween_tools",
  window = "production.start_of_production",
  source = "technology/sarween_tools",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(_, _, _, args) args.discount = args.discount + 1 end,
}

hook {
  id = "sarween_tools_omega",
  window = "production.start_of_production",
  source = "technology/sarween_tools_omega",
  condition = function(ctx, player, _, args) return args.player == player and producers(ctx, player, args.system) > 0 end,
  apply = function(ctx, player, _, args)
    local n = producers(ctx, player, args.system)
    args.discount = args.discount + n
    if ctx:tracing() then ctx:event("sarween_tools_omega:" .. ctx:name(player) .. ":" .. n, ctx:name(player) .. "'s " .. n .. " units with Production: the cost is " .. n .. " less (Sarween Tools Ω)") end
  end,
}
