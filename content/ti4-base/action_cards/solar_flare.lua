-- Solar Flare (Codex I action card). In short: played on activating a system; during this tactical
-- action's movement step no other player may fire Space Cannon at your ships. Space Cannon
-- Offense is the end of the movement step.
--   tactical_action.activation, args {player, system}: the active player may play it on any
--     activation; the default policy plays it when another player's space cannon may reach the
--     active system (units with Space Cannon in it or on its planets, PDS II-like range from an
--     adjacent system, a Mecatol Rex there whose controller holds I.I.H.Q. Modernization (Custodia
--     Vigilia), a space dock in or next to it whose owner holds Experimental Battlestation); the
--     flag "solar_flare_played" on the card (scope action) keeps it face up.
--   tactical_action.assign_space_cannon_hits, args {player, target, hits}: another player's
--     space cannon hits on the owner's ships are all cancelled (the dice are rolled all the same:
--     a fixed-dice test gives them values).
--   invasion.start_of_invasion: movement is over, the card is discarded.
-- Space cannon defense (ground forces, in the invasion) is not the movement step: not stopped.
-- Test: tests/cards/solar_flare.toml

local PLAYED = "solar_flare_played"

local function reaches(ctx, player, loc, attr)
  for _, u in ipairs(ctx:units(nil, loc, attr)) do
    if ctx:owner(u) ~= player then return true end
  end
  return false
end

local function holds(ctx, player, kind, name)
  for _, e in ipairs(ctx:entities { kind = kind, owner = player }) do
    if ctx:type(e) == name and ctx:location(e) ~= "reinforcements" then return true end
  end
  return false
end

-- whether another player's space cannon may reach the owner's ships in the active system
local function threatened(ctx, player, sys)
  local function here(s, attr)
    if reaches(ctx, player, s, attr) then return true end
    for _, planet in ipairs(ctx:entities { kind = "planet", location = s }) do
      if reaches(ctx, player, planet, attr) then return true end
    end
    return false
  end
  if here(sys, "space_cannon") then return true end
  local near = { sys }
  for _, adj in ipairs(ctx:adjacent(sys)) do
    if ctx:kind(adj) == "system" then
      if here(adj, "space_cannon_range") then return true end
      near[#near + 1] = adj
    end
  end
  -- space cannon that is not on a unit yet: Custodia Vigilia, Experimental Battlestation
  for _, q in ipairs(ctx:players()) do
    if q ~= player then
      if holds(ctx, q, "technology", "iihq_modernization") then
        for _, planet in ipairs(ctx:entities { kind = "planet", location = sys, owner = q }) do
          if ctx:type(planet) == "mecatol_rex" or ctx:name(planet) == "mecatol_rex" then return true end
        end
      end
      if holds(ctx, q, "action_card", "experimental_battlestation") then
        for _, s in ipairs(near) do
          for _, planet in ipairs(ctx:entities { kind = "planet", location = s }) do
            for _, u in ipairs(ctx:units(q, planet, "structure")) do
              if (ctx:get(u, "production") or 0) > 0 then return true end
            end
          end
        end
      end
    end
  end
  return false
end

hook {
  id = "solar_flare",
  window = "tactical_action.activation",
  source = "action_card/solar_flare",
  optional = true,
  limit = "action",
  condition = function(ctx, player, _, args) return args.player == player end,
  helps = function(ctx, player, _, args) return threatened(ctx, player, args.system) end,
  apply = function(ctx, player, source)
    ctx:set_flag(source, PLAYED, "action")
    if ctx:tracing() then
      ctx:event("solar_flare:" .. ctx:name(player), "no space cannon against " .. ctx:name(player) .. "'s ships this movement (Solar Flare)")
    end
  end,
}

hook {
  id = "solar_flare_no_space_cannon",
  window = "tactical_action.assign_space_cannon_hits",
  source = "action_card/solar_flare",
  condition = function(ctx, player, source, args)
    return ctx:flag(source, PLAYED) and args.target == player and args.player ~= player and (args.hits[player] or 0) > 0
  end,
  apply = function(ctx, player, _, args)
    if ctx:tracing() then
      ctx:event("hits_cancelled:" .. ctx:name(player) .. ":" .. args.hits[player],
        ctx:name(args.player) .. " cannot use Space Cannon against " .. ctx:name(player) .. "'s ships (Solar Flare)")
    end
    args.hits[player] = 0
  end,
}

hook {
  id = "solar_flare_discarded",
  window = "invasion.start_of_invasion",
  source = "action_card/solar_flare",
  discard = true,
  condition = function(ctx, _, source) return ctx:flag(source, PLAYED) end,
  apply = function() end,  -- the runtime discards the card
}
