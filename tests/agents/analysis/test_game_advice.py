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


def test_the_sea_battle_rule_speaks_exactly_where_the_view_shows_a_battle_short_of_sabres():
    import pirate_envs
    from agents.piraten_kapern.advice import _sea_battle_short
    from pirate_envs.piraten_kapern.rules import SABRE, SEA_BATTLES

    env = pirate_envs.make("piraten_kapern_v0", num_players=2)
    layout, rng, seen = env.unwrapped.observation_layout, np.random.default_rng(0), {True: 0, False: 0}
    for seed in range(40):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            view = env.unwrapped.game.view(env.unwrapped.seat_of(agent))
            short = view.card in SEA_BATTLES and view.free[SABRE] + view.chest[SABRE] < SEA_BATTLES[view.card][0]
            assert _sea_battle_short(observation["observation"][None], layout)[0] == short
            seen[short] += 1
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert seen[True] > 0 and seen[False] > 0


def test_a_negative_card_goes_to_the_other_players_with_the_best_score():
    import pirate_envs
    from agents.piratenpoker.advice import TO_OTHERS, TO_SELF, _to_leaders

    layout = pirate_envs.make("piratenpoker_v0", num_players=4).unwrapped.observation_layout
    scores = layout.piece("scores")
    obs = np.zeros((2, layout.size), dtype=np.float32)
    obs[0, scores.start : scores.start + 4] = [0.9, 0.2, 0.5, 0.1]  # the best other: one seat on, +2
    obs[1, scores.start : scores.start + 4] = [0.0, 0.4, 0.1, 0.4]  # tied: +1 and +3
    moves = _to_leaders(obs, np.ones((2, 44), bool), layout)
    assert np.flatnonzero(moves[0]).tolist() == [TO_OTHERS.start + 1]
    assert np.flatnonzero(moves[1]).tolist() == [TO_OTHERS.start, TO_OTHERS.start + 2]
    assert not moves[:, TO_SELF].any()
