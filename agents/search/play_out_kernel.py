"""The bookkeeping of `agents.search.batched.play_out` after each step, compiled (numba).

Imported by ``play_out`` only, which runs on the batched engine: numba is there.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
