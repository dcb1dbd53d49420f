"""Every game's advice list: each rule reads real observations and comes up in a few games of its plan."""

import numpy as np
import pytest

from agents.analysis.advice.findings import advice_of, plan_of
from agents.analysis.advice.intervention import named_base, play_arm

ENV_IDS = ("skull_king_v0", "piraten_kapern_v0", "piratenpoker_v0", "lucky_pirate_v0")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_rule_comes_up_and_its_arms_follow_it(env_id):
    rules, plan = advice_of(env_id), plan_of(env_id)
    assert len(rules) >= 3 and len({r.name for r in rules}) == len(rules)
    assert plan.games >= 2_500
    for rule in rules:  # the plan's agents (Lucky Pirate's heuristic cannot choose among a rule's moves only)
        with_rule = play_arm(env_id, named_base(plan.base, env_id), plan.opponent, rule, "with", np.arange(12))
        assert with_rule.hits.sum() > 0, rule.name
        assert ((with_rule.win >= 0) & (with_rule.win <= 1)).all()
