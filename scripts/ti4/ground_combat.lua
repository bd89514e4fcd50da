-- The ground combat procedure: the tactical action (tactical_action.lua) of the scenario
-- ground_setup.lua builds from [attacker] and [defender]; its report is [report.tactical_ground_combat].
return require "tactical_action"
