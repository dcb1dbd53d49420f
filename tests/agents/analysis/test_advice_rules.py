"""A rule's WITH and WITHOUT arms: they change exactly the moves where the rule applies."""

import numpy as np

from agents.analysis.advice.arms import RuleAgent
from agents.analysis.advice.rules import Rule

PRESCRIBED = 1


class HighestLegal:
    """A base agent that plays its highest legal action."""

    name = "highest"

    def reset_games(self, games):
        pass

    def act_batch(self, games, observations, action_masks):
        legal = np.asarray(action_masks, dtype=bool)
        return (legal.shape[1] - 1 - np.argmax(legal[:, ::-1], axis=1)).astype(np.int64)


def _rule():
    def prescribed(obs, legal, layout):
        out = np.zeros(legal.shape, dtype=bool)
        out[:, PRESCRIBED] = True
        return out

    return Rule("one_when_flagged", "Play 1 when flagged.", lambda obs, legal, layout: obs[:, 0] > 0, prescribed)


def _positions(rows=400, actions=5, seed=0):
    rng = np.random.default_rng(seed)
    observations = rng.integers(0, 2, size=(rows, 3)).astype(np.float32)
    legal = rng.random((rows, actions)) < 0.5
    legal[np.arange(rows), rng.integers(0, actions, rows)] = True
    return observations, legal


def test_the_with_arm_changes_exactly_the_moves_where_the_condition_holds():
    observations, legal = _positions()
    games = np.arange(len(observations))
    base = HighestLegal().act_batch(games, observations, legal)
    agent = RuleAgent(HighestLegal(), _rule(), "with", None, len(observations))
    chosen = agent.act_batch(games, observations, legal)
    flagged = observations[:, 0] > 0
    choice = flagged & legal[:, PRESCRIBED] & (legal.sum(axis=1) > 1)
    assert legal[games, chosen].all()
    assert (chosen[~flagged] == base[~flagged]).all()
    assert (chosen[choice] == PRESCRIBED).all()
    assert (chosen != base).any() and not (chosen[~choice] != base[~choice]).any()
    assert agent.hits.sum() == choice.sum() and agent.follows.sum() == (base[choice] == PRESCRIBED).sum()


def test_the_without_arm_never_plays_the_prescribed_move_where_the_condition_holds():
    observations, legal = _positions(seed=1)
    legal[:, PRESCRIBED] = True  # the base (highest legal) would often not pick it: make it the base's pick too
    legal[: len(legal) // 2, PRESCRIBED + 1 :] = False
    games = np.arange(len(observations))
    base = HighestLegal().act_batch(games, observations, legal)
    agent = RuleAgent(HighestLegal(), _rule(), "without", None, len(observations))
    chosen = agent.act_batch(games, observations, legal)
    flagged = observations[:, 0] > 0
    choice = flagged & (legal.sum(axis=1) > 1)
    assert legal[games, chosen].all()
    assert (chosen[choice] != PRESCRIBED).all()
    assert (base[choice] == PRESCRIBED).any()  # the arm did override the base somewhere
    assert (chosen[~choice] == base[~choice]).all()
    # where it overrode, it played the base's next choice: the highest legal move but the prescribed one
    redo = choice & (base == PRESCRIBED)
    others = legal.copy()
    others[:, PRESCRIBED] = False
    assert (chosen[redo] == HighestLegal().act_batch(games[redo], observations[redo], others[redo])).all()


def test_a_rule_with_a_single_legal_move_has_no_choice():
    observations = np.ones((1, 3), dtype=np.float32)
    legal = np.zeros((1, 5), dtype=bool)
    legal[0, 3] = True
    for arm in ("with", "without"):
        agent = RuleAgent(HighestLegal(), _rule(), arm, None, 1)
        assert agent.act_batch(np.zeros(1, dtype=np.int64), observations, legal).tolist() == [3]
        assert agent.hits.sum() == 0
