-- The Obsidian's plot cards (plots.toml): Asail. Tests: ../tests/plots.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Asail: +1 to each die of its holder's combat rolls and unit ability rolls made against the
-- player puppeted for it (their counter puppeted_asail). Whom each roll is against: in a space
-- combat and its Anti-Fighter Barrage the other side; in Space Cannon Offense the player whose
-- ships the holder fires at; in Space Cannon Defense the active player; in a Bombardment the
-- tactical action's other side (the defender); in a ground combat the opponent there.
local function puppeted(ctx, target)
  return target ~= nil and ctx:counter(target, "puppeted_asail") > 0
end

local function plus_one(ctx, player, target, pool, what)
  for i = 1, pool:size() do pool:modify(i, 1) end
  if ctx:tracing() then
    ctx:event("asail:" .. ctx:name(player) .. ":" .. what, "Asail: +1 to " .. ctx:name(player) .. "'s " .. what .. " roll against " .. ctx:name(target))
  end
end

local ROLLS = {
  { "combat", "space_combat.after_roll", function(ctx, player) return lib.opponent(ctx, player) end },
  { "afb", "space_combat.after_anti_fighter_barrage_roll", function(ctx, player) return lib.opponent(ctx, player) end },
  { "space_cannon", "tactical_action.after_space_cannon_roll", function(ctx, player) return lib.space_cannon_target(ctx, player) end },
  { "space_cannon_defense", "invasion.after_space_cannon_defense_roll", function(ctx) return ctx:role("active_player") end },
  { "bombardment", "invasion.after_bombardment_roll", function(ctx, player) return lib.opponent(ctx, player) end },
  { "ground_combat", "invasion.after_ground_roll", function(_, _, args) return args.opponent end },
}

for _, r in ipairs(ROLLS) do
  local what, window, against = r[1], r[2], r[3]
  hook {
    id = "asail_" .. what,
    window = window,
    source = "technology/asail",
    condition = function(ctx, player, _, args)
      return args.player == player and puppeted(ctx, against(ctx, player, args))
    end,
    apply = function(ctx, player, _, args) plus_one(ctx, player, against(ctx, player, args), args.pool, what) end,
  }
end
