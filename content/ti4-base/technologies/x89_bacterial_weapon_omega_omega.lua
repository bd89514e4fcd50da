-- X-89 Bacterial Weapon ΩΩ (Codex IV). In short: the owner's Bombardment and ground combat rolls
-- count each hit twice, and every planet the owner bombards is exhausted.
--   invasion.assign_bombardment_hits, args {player, planet, hits}: the owner's hits on each planet
--     are doubled (the hits of the roll: the window opens before anything else changes them).
--   invasion.after_bombardment, args {player, system, planets}: each planet the owner's units
--     bombarded is exhausted (the planet flag exhausted, scope game), hit or not.
--   invasion.after_ground_roll (last among the owner's hooks: after rerolls such as Fire Team) keeps
--     the hits of the owner's roll (round counter); invasion.assign_ground_hits adds them once more
--     to the hits on the opponent. Hits that no roll produced (Valkyrie Particle Weave's, Magen
--     Defense Grid's) are not doubled. Space combat rolls, space cannon and Anti-Fighter Barrage
--     are not touched. Test: tests/cards/x89_bacterial_weapon_omega_omega.toml

local ROLLED = "x89_omega_omega_rolled_hits"

hook {
  id = "x89_bacterial_weapon_omega_omega_bombardment",
  window = "invasion.assign_bombardment_hits",
  source = "technology/x89_bacterial_weapon_omega_omega",
  condition = function(_, player, _, args) return args.player == player and args.hits > 0 end,
  apply = function(ctx, player, _, args)
    if ctx:tracing() then
      ctx:event("x89_bacterial_weapon_omega_omega:" .. ctx:name(player) .. ":" .. ctx:name(args.planet) .. ":" .. (2 * args.hits),
        ctx:name(player) .. "'s " .. args.hits .. " bombardment hits on " .. ctx:name(args.planet) .. " are doubled (X-89 Bacterial Weapon ΩΩ)")
    end
    args.hits = 2 * args.hits
  end,
}

hook {
  id = "x89_bacterial_weapon_omega_omega_exhaust",
  window = "invasion.after_bombardment",
  source = "technology/x89_bacterial_weapon_omega_omega",
  condition = function(_, player, _, args) return args.player == player and #(args.planets or {}) > 0 end,
  apply = function(ctx, player, _, args)
    for _, planet in ipairs(args.planets) do
      ctx:set_flag(planet, "exhausted", "game")
      if ctx:tracing() then
        ctx:event("exhausted:" .. ctx:name(planet), ctx:name(planet) .. " is exhausted: " .. ctx:name(player) .. " bombarded it (X-89 Bacterial Weapon ΩΩ)")
      end
    end
  end,
}

hook {
  id = "x89_bacterial_weapon_omega_omega_roll",
  window = "invasion.after_ground_roll",
  source = "technology/x89_bacterial_weapon_omega_omega",
  priority = -100,  -- after the owner's other after-roll hooks (rerolls)
  condition = function(_, player, _, args) return args.player == player end,
  apply = function(ctx, player, _, args) ctx:set_counter(player, ROLLED, args.pool:hits(), "round") end,
}

hook {
  id = "x89_bacterial_weapon_omega_omega_ground",
  window = "invasion.assign_ground_hits",
  source = "technology/x89_bacterial_weapon_omega_omega",
  condition = function(ctx, player) return ctx:counter(player, ROLLED) > 0 end,
  apply = function(ctx, player, _, args)
    local extra = ctx:counter(player, ROLLED)
    for q, n in pairs(args.hits) do
      if q ~= player then
        args.hits[q] = n + extra
        if ctx:tracing() then
          ctx:event("x89_bacterial_weapon_omega_omega:" .. ctx:name(player) .. ":" .. ctx:name(args.planet) .. ":" .. (2 * extra),
            ctx:name(player) .. "'s " .. extra .. " ground combat hits are doubled (X-89 Bacterial Weapon ΩΩ)")
        end
      end
    end
    ctx:set_counter(player, ROLLED, 0, "round")
  end,
}
