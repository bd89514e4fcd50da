-- Default decision heuristics of the TI4 ruleset. Each gets (ctx, player, options, policy,
-- decision), where policy is the player's [side.policy] settings with defaults filled in by
-- setup.lua, and returns the chosen option and a reason for the trace.

local P = {}

local lib = require "lib"

-- retreat = "never" | "when_outnumbered" | N (announce once N rounds have been fought)
P["space_combat.announce_retreat"] = function(ctx, player, options, policy)
  local go, why = lib.time_to_retreat(ctx, player)
  return go and "yes" or "no", why
end

-- the first eligible system, unless the policy names one (retreat_to = "home")
P["space_combat.retreat_to"] = function(ctx, player, options, policy)
  if policy.retreat_to then
    for _, o in ipairs(options) do
      if o == policy.retreat_to then return o, "retreat_to " .. o end
    end
  end
  return options[1], "the first eligible system"
end

-- ground forces taken from planets: none unless retreat_ground_forces says how many
P["space_combat.retreat_ground_forces"] = function(ctx, player, options, policy)
  local want = math.min(policy.retreat_ground_forces or 0, #options - 1)
  return options[want + 1], "retreat_ground_forces " .. (policy.retreat_ground_forces or 0)
end

-- which unit to remove when over capacity: the type that comes last in transport_order
P["space_combat.remove_excess"] = function(ctx, player, options, policy)
  local order = policy.transport_order or {}
  local best, best_rank = options[1], -1
  for _, o in ipairs(options) do
    local rank = #order + 1
    for i, t in ipairs(order) do if t == o then rank = i end end
    if rank > best_rank then best, best_rank = o, rank end
  end
  return best, "the last type in transport_order"
end

-- optional abilities ("may"): used unless the policy says use = { name = "never" }
P.use = function(ctx, player, options, policy, decision)
  local id = decision:sub(5)
  local v = policy.use and policy.use[id]
  if v == false or v == "never" or v == "no" then return "no", "use." .. id .. " = never" end
  return "yes", "optional abilities are used when they can be"
end

return P
