-- Wormhole Reconstruction (base law). In short: every system with an alpha or a beta wormhole
-- counts as adjacent to every other such system. Windows: the first of each procedure,
-- tactical_action.activation and space_combat.start_of_combat: every alpha and beta system not yet
-- adjacent to another is linked to it (kind "wormhole_reconstruction"), for all purposes: movement
-- (Enforced Travel Ban does not undo it), Space Cannon Offense from an adjacent system, retreats.
-- (Lost Star Chart does the same for one tactical action.) Test:
-- tests/cards/wormhole_reconstruction.toml

local ATTRS = { "wormhole", "wormhole_2", "wormhole_3" }

local function alpha_or_beta(ctx)
  local out = {}
  for _, s in ipairs(ctx:entities { kind = "system" }) do
    for _, a in ipairs(ATTRS) do
      local w = ctx:get(s, a)
      if w == "alpha" or w == "beta" then out[#out + 1] = s; break end
    end
  end
  return out
end

local function missing(ctx)
  local list, out = alpha_or_beta(ctx), {}
  for i = 1, #list do
    for j = i + 1, #list do
      if not ctx:is_adjacent(list[i], list[j]) then out[#out + 1] = { list[i], list[j] } end
    end
  end
  return out
end

local function apply(ctx)
  for _, pair in ipairs(missing(ctx)) do ctx:link(pair[1], pair[2], "wormhole_reconstruction") end
  if ctx:tracing() then ctx:event("wormhole_reconstruction", "systems with alpha or beta wormholes are adjacent to each other (Wormhole Reconstruction)") end
end

hook {
  id = "wormhole_reconstruction",
  window = "tactical_action.activation",
  source = "agenda/wormhole_reconstruction",
  condition = function(ctx) return #missing(ctx) > 0 end,
  apply = apply,
}

hook {
  id = "wormhole_reconstruction_combat",
  window = "space_combat.start_of_combat",
  source = "agenda/wormhole_reconstruction",
  condition = function(ctx) return #missing(ctx) > 0 end,
  apply = apply,
}
