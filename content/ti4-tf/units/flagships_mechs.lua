-- Twilight's Fall's flagships and mechs (flagships_mechs.toml): the abilities that act in a combat.
-- Tests: ../tests/flagships_mechs.toml

-- Starlancer II: at the start of each round of ground combat, its owner may spend 1 token from
-- their strategy pool to repair all of their mechs (wherever they are). The owner may whenever they
-- fight a ground combat and have the token; the default policy spends it only when one of their
-- mechs on the planet fought over is damaged.
local MECH = "type:mech"

local function damaged_mechs(ctx, player, where)
  local out = {}
  for _, u in ipairs(ctx:units(player, where, MECH)) do
    if ctx:get(u, "damaged") then out[#out + 1] = u end
  end
  return out
end

hook {
  id = "tf_starlancer_ii",
  window = "invasion.start_of_ground_round",
  source = "technology/tf_starlancer_ii",
  optional = true,
  condition = function(ctx, player, _, args)
    return (args.player == player or args.opponent == player) and ctx:get(player, "strategy_tokens") >= 1
  end,
  helps = function(ctx, player, _, args) return #damaged_mechs(ctx, player, args.planet) > 0 end,
  apply = function(ctx, player)
    ctx:set(player, "strategy_tokens", ctx:get(player, "strategy_tokens") - 1)
    for _, u in ipairs(damaged_mechs(ctx, player, nil)) do
      ctx:set(u, "damaged", false)
      if ctx:tracing() then
        ctx:event("repaired:" .. ctx:name(player) .. ":mech", ctx:name(player) .. " spends a strategy token and repairs a mech (Starlancer II)")
      end
    end
  end,
}

-- Starlancer XI: it takes part in a space combat as if it were a ship. When a space combat starts,
-- the owner's Starlancer XI mechs in the active system's space area count as ships (the attribute
-- `ship`, flag tf_starlancer_xi on the unit) and roll their combat dice there, take hits and
-- sustain; at the end of that combat they are mechs again, wherever they are (as the Naaz-Rokha's
-- Z-Grav Eidolon, ti4-pok). A side whose only units in the space area are such mechs is not
-- modelled (the procedure decides whether a combat happens before its windows open).
local STARLANCER_XI = "ti4-tf:unit/tf_starlancer_xi"
local AS_SHIP = "tf_starlancer_xi"

hook {
  id = "tf_starlancer_xi",
  window = "space_combat.start_of_combat",
  source = "technology/tf_starlancer_xi",
  condition = function(ctx, player)
    local a, d = ctx:role("attacker", "defender")
    return (player == a or player == d) and ctx:count(player, ctx:role("active_system"), MECH) > 0
  end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:units(player, ctx:role("active_system"), MECH)) do
      if ctx:record_id(u) == STARLANCER_XI and not ctx:get(u, "ship") then
        ctx:set(u, "ship", true)
        ctx:set_flag(u, AS_SHIP, "combat")
        if ctx:tracing() then
          ctx:event("as_ship:" .. ctx:name(player) .. ":mech", ctx:name(player) .. "'s Starlancer XI fights the space combat as a ship")
        end
      end
    end
  end,
}

hook {
  id = "tf_starlancer_xi_end",
  window = "space_combat.end_of_combat",
  source = "technology/tf_starlancer_xi",
  condition = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = "mech" }) do
      if ctx:flag(u, AS_SHIP) then return true end
    end
    return false
  end,
  apply = function(ctx, player)
    for _, u in ipairs(ctx:entities { kind = "unit", owner = player, type = "mech" }) do
      if ctx:flag(u, AS_SHIP) then
        ctx:set(u, "ship", false)
        ctx:set_counter(u, AS_SHIP, 0, "combat")
      end
    end
  end,
}

-- Starlancer XI: +1 to each of its combat rolls (space combat and ground combat) for each anomaly
-- it is in or adjacent to: its system (a planet's system on a planet) and the systems adjacent to
-- it that have an anomaly (one anomaly a system: the attribute `anomaly`).
local function anomalies_around(ctx, unit)
  local sys = ctx:location(unit)
  if ctx:kind(sys) == "planet" then sys = ctx:location(sys) end
  if ctx:kind(sys) ~= "system" then return 0 end
  local n = (ctx:get(sys, "anomaly") or "") ~= "" and 1 or 0
  for _, s in ipairs(ctx:adjacent(sys)) do
    if (ctx:get(s, "anomaly") or "") ~= "" then n = n + 1 end
  end
  return n
end

for _, w in ipairs { { "tf_starlancer_xi_space_roll", "space_combat.after_roll" },
                     { "tf_starlancer_xi_ground_roll", "invasion.after_ground_roll" } } do
  hook {
    id = w[1],
    window = w[2],
    source = "unit/tf_starlancer_xi",
    condition = function(_, player, _, args) return args.player == player end,
    apply = function(ctx, _, source, args)
      local n = anomalies_around(ctx, source)
      if n == 0 then return end
      for i = 1, args.pool:size() do
        if args.pool:unit(i) == source then args.pool:modify(i, n) end
      end
    end,
  }
end
