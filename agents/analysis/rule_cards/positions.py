"""Positions for distilling and checking a card: the teacher's decisions in games of fixed seeds.

Game ``g`` (seed ``seed + g``) seats the teacher at seat ``g mod n`` and the opponents (the
game's heuristic by default) elsewhere; at each of the teacher's decisions it records the
features of its view, every choice's action and the teacher's action (`Positions`), and where the
vocabulary has ``stakes`` how much the choice matters there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pirate_envs
from agents.registry import make_agent
from agents.rules.vocabulary import Vocabulary, legal_actions


@dataclass
class Positions:
    """Arrays over positions: features ``X``, choice actions ``A`` (-1: none), teacher ``y``, lowest legal,
    and the vocabulary's ``stakes`` of each position (``None`` without them)."""

    X: np.ndarray
    A: np.ndarray
    y: np.ndarray
    first_legal: np.ndarray
    stakes: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.y)


def collect_positions(
    vocabulary: Vocabulary, teacher: str, games: int, seed: int, opponent: str = "heuristic", players: int | None = None
) -> Positions:
    """The teacher's decisions in ``games`` games dealt from ``seed``, ``seed + 1``, ..."""
    env_id = vocabulary.env_id
    n = players or vocabulary.players
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    teacher_agent = make_agent(teacher, env_id, seed=0, env=env)
    others = [make_agent(opponent, env_id, seed=k, env=env) for k in range(1, n)]
    X, A, y, first, stakes = [], [], [], [], []
    choices = [c.name for c in vocabulary.choices]
    for g in range(games):
        env.reset(seed=seed + g)
        seat_of_teacher = g % n
        seats = others[:seat_of_teacher] + [teacher_agent] + others[seat_of_teacher:]
        for s, agent in enumerate(seats):
            agent.reset((seed + g) * 101 + s)
        game = env.game
        while not game.done:
            seat = game.current_player
            obs = env.observe(env.possible_agents[seat])
            view = game.view(seat)
            action = int(seats[seat].act(obs, view))
            if seat == seat_of_teacher:
                legal = legal_actions(obs["action_mask"])
                values = vocabulary.feature_values(view, legal)
                actions = vocabulary.choice_actions(view, legal)
                X.append([values[f.name] for f in vocabulary.features])
                A.append([-1 if actions[c] is None else actions[c] for c in choices])
                y.append(action)
                first.append(int(legal[0]))
                if vocabulary.stakes is not None:
                    stakes.append(float(vocabulary.stakes(view, legal, actions)))
            env.step(action)
    return Positions(
        np.array(X, dtype=float).reshape(-1, len(vocabulary.features)),
        np.array(A, dtype=np.int64).reshape(-1, len(choices)),
        np.array(y, dtype=np.int64),
        np.array(first, dtype=np.int64),
        np.array(stakes, dtype=float) if vocabulary.stakes is not None else None,
    )
