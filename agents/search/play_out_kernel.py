"""The compiled parts of `agents.search.batched.play_out` (numba): the bookkeeping after each step
(`account_step`) and the whole loop fused into one call (`fused_play_out`).

Imported by ``play_out`` and by the batched heuristics that offer fused rollouts, which run on the
batched engine: numba is there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit


@dataclass(frozen=True)
class FusedRollouts:
    """What a batched policy offers ``play_out`` to play its rollouts in one compiled call.

    ``kernel``: the game's compiled rollout loop (`fused_play_out` inlined with the game's step kernel
    and the policy's own), called with the policy's ``act_args`` and `fused_play_out`'s other
    arguments; ``counted``: what the policy does with the summed count its kernel returns.
    """

    kernel: Any
    act_args: tuple[Any, ...]
    counted: Callable[[int], None]
    #: Called with the number of rows still going when the policy's kernel asked for Python
    #: (`NEEDS_POLICY`: a table to grow, say); ``play_out`` then asks the policy for its offer again and goes on.
    refill: Callable[[int], None] | None = None


#: `fused_play_out`'s first result where the policy's kernel returned a negative count: nothing of
#: that step was chosen or played; the policy's Python must run (`FusedRollouts.refill`) before it goes on.
NEEDS_POLICY = -2


@njit(cache=True, nogil=True)
def account_step(
    live: np.ndarray,
    position: np.ndarray,
    rewards: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    score_scale: np.float32,
    scores: np.ndarray,
    ended_by_rules: np.ndarray,
    remaining: np.ndarray,
    turn_stop: bool,
    current_player: np.ndarray,
    turn_player: np.ndarray,
    observation: np.ndarray,
    turn_start: int,
    turn_marks: np.ndarray,
    active: np.ndarray,
) -> int:
    """After a step of the rows ``live``: add each row's score changes to its ``scores``, note its end,
    and stop it (``active`` false) at its horizon; the rows still going are packed, in order, into
    ``live``'s first places, and their number returned.

    ``position[row]``: the row's place in ``scores``, ``ended_by_rules``, ``remaining``, ``turn_player``
    and ``turn_marks``. A row stops when its game ended, or, with ``turn_stop``, when the player on turn
    changed or an observation column of ``turn_marks`` (from ``turn_start``) changed; else when its
    ``remaining`` score changes (a step with any score change counts one) are spent.
    """
    going = 0
    seats = rewards.shape[1]
    marks = turn_marks.shape[1]
    for j in range(live.shape[0]):
        row = live[j]
        at = position[row]
        changed = False
        for s in range(seats):
            change = np.rint(rewards[row, s] / score_scale)  # the scores are integers in these games
            if change != 0:
                changed = True
            scores[at, s] += change
        ended_by_rules[at] = terminated[row]
        stop = terminated[row] or truncated[row]
        if turn_stop:
            if current_player[row] != turn_player[at]:
                stop = True
            for c in range(marks):
                if observation[row, turn_start + c] != turn_marks[at, c]:
                    stop = True
        else:
            if changed:
                remaining[at] -= 1.0
            if remaining[at] <= 0:
                stop = True
        if stop:
            active[row] = False
        else:
            live[going] = row
            going += 1
    return going


@njit(nogil=True, inline="always")
def fused_play_out(step_kernel, act_rows, state, act_args, loop) -> tuple[int, int, int]:
    """`agents.search.batched.play_out`'s loop in one compiled call: the game's ``step_kernel`` on
    ``state`` (its engine's record) and the policy's ``act_rows(act_args, games, observations, masks,
    out) -> count`` (``out``: an action per row; a negative count: it cannot choose without Python),
    with `account_step` after each step.

    A game's rollout kernel inlines this with its own two kernels (numba caches it then: a function
    passed as an argument of a cached kernel is not). ``loop`` is the tuple ``(players, live,
    position, scores, ended_by_rules, remaining, score_scale, turn_stop, turn_player, turn_start,
    turn_marks, active, actions, kernel_actions, games, observations, masks, chosen, first)``:
    ``live``, the rows playing, their ``actions`` chosen already where ``first``; `account_step`'s
    arguments by its names; ``kernel_actions``, ``games``, ``observations``, ``masks`` and
    ``chosen``, scratch of a row each. Every action is checked against its row's mask before the
    step. Returns the first row whose action is illegal (``-1``: none; nothing moved on that step;
    `NEEDS_POLICY`: ``act_rows`` asked for Python), the sum of ``act_rows``' counts, and the rows
    still going (the first of ``live``, to go on with after `NEEDS_POLICY`).
    """
    (players, live, position, scores, ended_by_rules, remaining, score_scale, turn_stop, turn_player, turn_start,
     turn_marks, active, actions, kernel_actions, games, observations, masks, chosen, first) = loop  # fmt: skip
    observation, action_mask, current_player = state.observation, state.action_mask, state.current_player
    num_actions = action_mask.shape[1]
    counted = 0
    going = live.shape[0]
    while going > 0:
        if not first:
            for j in range(going):
                row = live[j]
                games[j] = row * players + current_player[row]
                observations[j, :] = observation[row]
                masks[j, :] = action_mask[row]
            count = act_rows(act_args, games[:going], observations[:going], masks[:going], chosen[:going])
            if count < 0:
                return NEEDS_POLICY, counted, going
            counted += count
            for j in range(going):
                actions[live[j]] = chosen[j]
        first = False
        kernel_actions[:] = -1
        for j in range(going):
            row = live[j]
            action = actions[row]
            if action < 0 or action >= num_actions or action_mask[row, action] == 0:
                return row, counted, going
            kernel_actions[row] = action
        step_kernel(kernel_actions, state)
        going = account_step(
            live[:going], position, state.rewards, state.terminated, state.truncated, score_scale, scores,
            ended_by_rules, remaining, turn_stop, current_player, turn_player, observation, turn_start, turn_marks,
            active,
        )  # fmt: skip
    return -1, counted, 0
