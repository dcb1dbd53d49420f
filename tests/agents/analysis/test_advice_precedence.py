"""Each game's advice is read in order, the first rule that applies deciding: no rule is shadowed by an
earlier one that contradicts it wherever it speaks (a narrower rule comes before the broader one)."""

import numpy as np
import pytest

from agents.analysis.advice.findings import advice_of, plan_of
from agents.analysis.advice.rules import Rule, actions, deciding
from agents.batched import make_batched_agent

ENV_IDS = ("skull_king_v0", "piraten_kapern_v0", "piratenpoker_v0", "lucky_pirate_v0")


def positions(env_id: str, games: int) -> tuple[np.ndarray, np.ndarray, object]:
    """Every decision's observation and legal moves in ``games`` games of the plan's base agent at every seat."""
    import pirate_envs
    import pirate_envs.vector

    venv = pirate_envs.vector.make(env_id, games, seed=7)
    venv.reset()
    n = venv.num_players
    table = pirate_envs.make(env_id, raw=True, num_players=n)
    agent = make_batched_agent(plan_of(env_id).base, env_id, table, games * n, seed=0)
    agent.reset_games(np.arange(games * n))
    ended = np.zeros(games, dtype=bool)
    seen_obs, seen_masks = [], []
    actions_now = np.zeros(games, dtype=np.int64)
    while not ended.all():
        live = np.flatnonzero(~ended)
        observation, mask = venv.observation[live], venv.action_mask[live].astype(bool)
        seen_obs.append(observation.copy())
        seen_masks.append(mask.copy())
        actions_now[live] = agent.act_batch(live * n + venv.current_player[live], observation, mask)
        venv.step(actions_now, active=~ended)
        ended |= venv.terminated | venv.truncated
    return np.concatenate(seen_obs), np.concatenate(seen_masks), venv.observation_layout


def test_an_earlier_rule_wins_where_two_rules_contradict():
    def rule(name, rows, moves):
        return Rule(name, name, lambda o, m, layout: np.isin(np.arange(len(o)), rows), lambda o, m, layout: moves)

    stop, roll = np.tile(actions(3, 0), (3, 1)), np.tile(actions(3, [1, 2]), (3, 1))
    masks = np.ones((3, 3), dtype=bool)
    rules = [rule("narrow_stop", [1], stop), rule("broad_roll", [0, 1, 2], roll), rule("roll_too", [2], roll)]
    out = deciding(rules, np.zeros((3, 1)), masks, None)
    assert out.tolist() == [[False, True, False], [True, False, True], [False, False, True]]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_rule_decides_somewhere_when_the_rules_are_read_in_order(env_id):
    observations, masks, layout = positions(env_id, 48)
    decides = deciding(advice_of(env_id), observations, masks, layout)
    shadowed = [rule.name for rule, rows in zip(advice_of(env_id), decides) if not rows.any()]
    assert not shadowed, f"{env_id}: shadowed by an earlier rule that contradicts them: {shadowed}"
