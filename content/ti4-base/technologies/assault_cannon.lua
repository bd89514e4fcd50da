-- Assault Cannon (base technology). Window: start of combat (round 1 only). The opponent picks
-- the ship (their hit_order, or a scripted space_combat.assign_hits answer); it is destroyed,
-- so Sustain Damage cannot absorb it. Test: tests/cards/assault_cannon.toml

local NEEDED = 3

local opponent = require("lib").opponent  -- scripts/ti4/lib.lua

-- the player's non-fighter ships in the active system
local function non_fighter_ships(ctx, player)
  local out = {}
  for _, u in ipairs(ctx:units(player, ctx:role("active_system"), "ship")) do
    if not ctx:get(u, "fighter") then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "assault_cannon",
  window = "space_combat.start_of_combat",
  source = "technology/assault_cannon",
  condition = function(ctx, player)
    return #non_fighter_ships(ctx, player) >= NEEDED and #non_fighter_ships(ctx, opponent(ctx, player)) > 0
  end,
  apply = function(ctx, player)
    local enemy = opponent(ctx, player)
    local types, seen = {}, {}
    for _, u in ipairs(non_fighter_ships(ctx, enemy)) do
      local t = ctx:type(u)
      if not seen[t] then seen[t] = true; types[#types + 1] = t end
    end
    ctx:assign_hits(enemy, ctx:role("active_system"), 1, { eligible = "ship", types = types,
      decision = "space_combat.assign_hits", destroyed_window = "space_combat.unit_destroyed" },
      ctx:policy(enemy).hit_order, "never")
  end,
}
