-- X-89 Bacterial Weapon Omega (Codex I). In short: when the owner's Bombardment of a planet has
-- destroyed at least 1 enemy infantry, the owner may destroy every enemy infantry left there.
--   invasion.assign_bombardment_hits, args {player, planet, hits}: before the owner's hits on a
--     planet are assigned, the other players' infantry there are counted (counter
--     "x89_infantry" on the planet, scope action: the count plus one, so 0 means not bombarded).
--   invasion.after_bombardment, args {player, system}: on each planet where fewer of them are
--     left than were counted, and some are left, the owner may destroy them all (the default
--     policy does). Mechs are not infantry: they stay.
-- Infantry are units of type infantry (faction infantry and Infantry II keep the type name).
-- The procedure's lost_to_bombardment metric counts only the hits' losses, not these.
-- Test: tests/cards/x89_bacterial_weapon_omega.toml

local COUNTED = "x89_infantry"

local function their_infantry(ctx, player, planet)
  local out = {}
  for _, u in ipairs(ctx:units(nil, planet, "type:infantry")) do
    if ctx:owner(u) ~= player then out[#out + 1] = u end
  end
  return out
end

-- the planets of the active system where an infantry was destroyed and some are left
local function struck(ctx, player, sys)
  local out = {}
  for _, planet in ipairs(ctx:entities { kind = "planet", location = sys }) do
    local before = ctx:counter(planet, COUNTED) - 1
    local now = #their_infantry(ctx, player, planet)
    if before > 0 and now > 0 and now < before then out[#out + 1] = planet end
  end
  return out
end

hook {
  id = "x89_bacterial_weapon_count",
  window = "invasion.assign_bombardment_hits",
  source = "technology/x89_bacterial_weapon_omega",
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, _, args)
    ctx:set_counter(args.planet, COUNTED, #their_infantry(ctx, player, args.planet) + 1, "action")
  end,
}

hook {
  id = "x89_bacterial_weapon",
  window = "invasion.after_bombardment",
  source = "technology/x89_bacterial_weapon_omega",
  optional = true,
  condition = function(ctx, player, _, args) return args.player == player and #struck(ctx, player, args.system) > 0 end,
  apply = function(ctx, player, _, args)
    for _, planet in ipairs(struck(ctx, player, args.system)) do
      local units = their_infantry(ctx, player, planet)
      if ctx:tracing() then
        ctx:event("x89_bacterial_weapon:" .. ctx:name(player) .. ":" .. ctx:name(planet) .. ":" .. #units,
          ctx:name(player) .. " destroys the " .. #units .. " infantry left on " .. ctx:name(planet) .. " (X-89 Bacterial Weapon)")
      end
      for _, u in ipairs(units) do ctx:destroy(u, "invasion.unit_destroyed") end
    end
  end,
}
