-- Blitz (Codex I action card). In short: played when an invasion starts, it gives Bombardment 6 to
-- every non-fighter ship of yours in the active system that lacks Bombardment, for the rest of that
-- invasion.
--   invasion.start_of_invasion, args {player, system}: the active player may play it; the default
--     policy plays it when a planet there holds another player's ground forces and one of their
--     non-fighter ships has no Bombardment. Each such ship gets bombardment 6 x1 and the flag
--     "blitz" (scope action); the card stays face up (flag "blitz_played").
--   invasion.end_of_invasion: the ships lose what they gained; the card is discarded.
-- A planet's Planetary Shield still stops it (the procedure asks invasion.planetary_shield).
-- Test: tests/cards/blitz.toml

local PLAYED, GAINED = "blitz_played", "blitz"

local function gainers(ctx, player, sys)
  local out = {}
  for _, u in ipairs(ctx:units(player, sys, "ship")) do
    if not ctx:get(u, "fighter") and ctx:get(u, "bombardment") == 0 then out[#out + 1] = u end
  end
  return out
end

local function enemy_ground_forces(ctx, player, sys)
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    if ctx:count(nil, planet, "ground_force") > ctx:count(player, planet, "ground_force") then return true end
  end
  return false
end

hook {
  id = "blitz",
  window = "invasion.start_of_invasion",
  source = "action_card/blitz",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args)
    return #gainers(ctx, player, args.system) > 0 and enemy_ground_forces(ctx, player, args.system)
  end,
  apply = function(ctx, player, source, args)
    ctx:set_flag(source, PLAYED, "action")
    for _, u in ipairs(gainers(ctx, player, args.system)) do
      ctx:set(u, "bombardment", 6)
      ctx:set(u, "bombardment_dice", 1)
      ctx:set_flag(u, GAINED, "action")
    end
    if ctx:tracing() then
      ctx:event("blitz:" .. ctx:name(player), ctx:name(player) .. "'s ships without Bombardment gain Bombardment 6 this invasion (Blitz)")
    end
  end,
}

hook {
  id = "blitz_discarded",
  window = "invasion.end_of_invasion",
  source = "action_card/blitz",
  discard = true,
  condition = function(ctx, _, source) return ctx:flag(source, PLAYED) end,
  apply = function(ctx, player, _, args)
    for _, u in ipairs(ctx:units(player, args.system, "ship")) do
      if ctx:flag(u, GAINED) then
        ctx:set(u, "bombardment", 0)
        ctx:set(u, "bombardment_dice", 0)
      end
    end
  end,
}
