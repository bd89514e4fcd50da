-- The Yssaril Tribes: Y'sia Y'ssrila. Tests: ../../tests/factions/yssaril.toml

-- Y'sia Y'ssrila: other players' ships do not stop this ship passing through their systems. The
-- flagship searches its own paths, where other players' ships block nothing
-- (tactical_action.move_value's through_ships); anomalies and command tokens still apply, and the
-- other ships of its system keep the usual rule (they cannot follow it through).
hook {
  id = "ysia_yssrila",
  window = "tactical_action.move_value",
  source = "unit/yssaril_flagship",
  condition = function(_, _, source, args) return args.unit == source end,
  apply = function(_, _, _, args) args.through_ships = true end,
}
