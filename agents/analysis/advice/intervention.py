"""Play a rule's arms on the same duplicate deals of the batched engine; per-game outcomes.

Game ``g`` of a seed list is dealt as ``pirate_envs.vector.make(env_id, 1, seed=seeds[g])`` deals
(`agents.analysis.batched.deal_games`). The focal agent (the base agent with or without the rule,
or as it plays) sits at seat ``g mod n``; every other seat is played by ``opponent``. All arms get the very same
deals and seats, so an arm-to-arm difference of game ``g`` is a paired (duplicate) comparison.
A seat's win share is ``1/w`` for ``w`` winners (by the final step's rewards), 0 when truncated.
Where the game declares an `Outcome`, each counted decision is also followed to the end of its unit
(hand, turn) to count how often it works (`agents.analysis.advice.outcome`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.analysis.advice.arms import RuleAgent
from agents.analysis.advice.outcome import Outcome, OutcomeTally
from agents.analysis.advice.rules import Rule
from agents.analysis.batched import deal_games
from agents.batched import BatchedAgent, make_batched_agent
from agents.policy.blas import one_blas_thread

#: Games played at once.
BATCH = 1024


@dataclass
class ArmGames:
    """Per game of one arm: the focal seat's win share and score, the rule's ``hits``/``follows`` counts,
    and (with an `Outcome`) its counted decisions followed to their unit's end (``tried``) and those
    that worked (``works``)."""

    win: np.ndarray
    score: np.ndarray
    hits: np.ndarray
    follows: np.ndarray
    tried: np.ndarray
    works: np.ndarray


def play_focal(
    venv: Any,
    focal: BatchedAgent,
    opponent: BatchedAgent,
    seeds: np.ndarray,
    first_game: int,
    tally: OutcomeTally | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play the games of ``seeds`` (one per row) with ``focal`` at seat ``(first_game + row) mod n``:
    the focal seat's win shares and scores. ``tally``: follows the decisions ``focal`` reports in
    ``last_hits`` (a `RuleAgent`) to their unit's end."""
    n, rows = venv.num_players, len(seeds)
    deal_games(venv, seeds)
    index = np.arange(rows)
    focal_seat = (first_game + index) % n
    slots = (index[:, None] * n + np.arange(n)).ravel()
    focal.reset_games(slots)
    opponent.reset_games(slots)
    actions = np.zeros(rows, dtype=np.int64)
    ended = np.zeros(rows, dtype=bool)
    win = np.zeros(rows)
    while not ended.all():
        live = np.flatnonzero(~ended)
        seats = venv.current_player[live]
        observation, mask = venv.observation, venv.action_mask
        mine = seats == focal_seat[live]
        for agent, group in ((focal, mine), (opponent, ~mine)):
            if group.any():
                chosen = live[group]
                actions[chosen] = agent.act_batch(chosen * n + seats[group], observation[chosen], mask[chosen])
                if tally is not None and agent is focal:
                    tally.decided(venv, focal.last_hits // n, focal_seat)
        venv.step(actions, active=~ended)
        now = ~ended & (venv.terminated | venv.truncated)
        if now.any():
            done = np.flatnonzero(now)
            rewards = venv.rewards[done]
            winners = (rewards >= rewards.max(axis=1, keepdims=True)) & venv.terminated[done, None]
            shares = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
            win[done] = shares[np.arange(done.size), focal_seat[done]]
            ended |= now
        if tally is not None:
            tally.stepped(venv, ended, focal_seat)
    scores = venv.scores(index)[index, focal_seat]
    return win, scores


def play_arm(
    env_id: str,
    base: Callable[[Any, int], BatchedAgent],
    opponent: str,
    rule: Rule | None,
    arm: str,
    seeds: Sequence[int],
    env_kwargs: dict[str, Any] | None = None,
    batch: int = BATCH,
    outcome: Outcome | None = None,
) -> ArmGames:
    """Play ``seeds`` (one game each), ``base(table, slots)`` WITH or WITHOUT ``rule`` (``arm``) at the focal
    seat; with ``outcome``, each counted decision is followed to its unit's end (``tried``, ``works``).
    ``rule=None``: the base agent as it plays (``arm`` is ignored; no counts, no outcome)."""
    import pirate_envs
    import pirate_envs.vector

    seeds = np.asarray(seeds, dtype=np.int64)
    rows = max(1, min(batch, len(seeds)))
    venv = pirate_envs.vector.make(env_id, rows, seed=0, **(env_kwargs or {}))
    venv.reset()
    n = venv.num_players
    table = pirate_envs.make(env_id, raw=True, num_players=n, **(env_kwargs or {}))
    agent = base(table, rows * n)
    focal = agent if rule is None else RuleAgent(agent, rule, arm, venv.observation_layout, rows * n)
    outcome = None if rule is None else outcome
    other = make_batched_agent(opponent, env_id, table, rows * n, seed=1)
    out = ArmGames(*(np.zeros(len(seeds)) for _ in range(2)), *(np.zeros(len(seeds), np.int64) for _ in range(4)))
    for first in range(0, len(seeds), rows):
        chunk = seeds[first : first + rows]
        if len(chunk) < rows:  # the last, short batch: a smaller table
            venv = pirate_envs.vector.make(env_id, len(chunk), seed=0, **(env_kwargs or {}))
            venv.reset()
        tally = OutcomeTally(outcome, len(chunk)) if outcome is not None else None
        with one_blas_thread():
            win, score = play_focal(venv, focal, other, chunk, first, tally)
        sl = slice(first, first + len(chunk))
        out.win[sl], out.score[sl] = win, score
        if tally is not None:
            out.tried[sl], out.works[sl] = tally.tried, tally.works
        focal_slots = np.arange(len(chunk)) * n + (first + np.arange(len(chunk))) % n
        if rule is not None:
            out.hits[sl], out.follows[sl] = focal.hits[focal_slots], focal.follows[focal_slots]
    return out


def named_base(name: str, env_id: str, seed: int = 0) -> Callable[[Any, int], BatchedAgent]:
    """A factory of the batched agent ``name`` (``heuristic``, ``ppo:<env_id>``, ...) for `play_arm`."""
    return lambda table, slots: make_batched_agent(name, env_id, table, slots, seed=seed)


__all__ = ["BATCH", "ArmGames", "named_base", "play_arm", "play_focal"]
