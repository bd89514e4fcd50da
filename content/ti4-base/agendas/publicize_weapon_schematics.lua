-- Publicize Weapon Schematics (base law). In short: no war sun has Sustain Damage. Windows: the
-- first of each procedure: tactical_action.activation (before Space Cannon Offense) and
-- space_combat.start_of_combat (a space combat on its own); each takes Sustain Damage from every
-- war sun on the board, every player's (a faction's war sun too: the Muaat Prototype War Sun keeps
-- the type name war_sun). Not modelled: ignoring the war sun technology's prerequisites (research
-- is outside the tactical action). Test: tests/cards/publicize_weapon_schematics.toml

local function apply(ctx)
  for _, u in ipairs(ctx:units(nil, nil, "type:war_sun")) do ctx:set(u, "sustain_damage", false) end
  if ctx:tracing() then ctx:event("publicize_weapon_schematics", "war suns lose Sustain Damage (Publicize Weapon Schematics)") end
end

-- whether a war sun on the board still has Sustain Damage
local function any_war_sun(ctx)
  for _, u in ipairs(ctx:units(nil, nil, "type:war_sun")) do
    if ctx:get(u, "sustain_damage") then return true end
  end
  return false
end

hook {
  id = "publicize_weapon_schematics",
  window = "tactical_action.activation",
  source = "agenda/publicize_weapon_schematics",
  condition = function(ctx) return any_war_sun(ctx) end,
  apply = apply,
}

hook {
  id = "publicize_weapon_schematics_combat",
  window = "space_combat.start_of_combat",
  source = "agenda/publicize_weapon_schematics",
  condition = function(ctx) return any_war_sun(ctx) end,
  apply = apply,
}
