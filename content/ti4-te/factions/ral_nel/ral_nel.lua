-- The Ral Nel Consortium: Last Dispatch. Tests: ../../tests/factions/ral_nel.toml
local lib = require "lib"  -- scripts/ti4/lib.lua

-- Last Dispatch: when it retreats, its owner may destroy 1 ship without Sustain Damage in the
-- active system, the most costly (lib.retreat_strike).
hook(lib.retreat_strike("last_dispatch", "unit/ral_nel_flagship",
  function(ctx, u) return not ctx:get(u, "sustain_damage") end))
