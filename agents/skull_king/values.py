"""Skull King's value function for the benchmark's control variate: a seat's worth of a bid.

A fixed model, fitted once on games of uniformly random play (never on the agents under test)
and stored as plain numbers in ``values.json`` beside this module (read with `json`,
never unpickled). Per table size ``n`` and hand ``k`` (``k`` cards each):

* **tricks**: the hand's expected tricks under random play, ``w . [1, card counts]`` (ridge
  regression), cut into `BUCKETS` equal bins of ``0..k``; per bin, the observed distribution of
  the tricks taken (add-half smoothed);
* **points**: ``E[points | hand, bid] = sum_t P(t | bin) x hand_score(bid, t, k)`` (no bonus);
* **win share**: ``softmax((scores before the hand + expected points of each seat's bid) / tau)``
  over the seats, ``tau`` per hand fitted by likelihood of the final win shares.

Refit (deterministic, a few minutes on one core) and rewrite the file with
``python -m agents.skull_king.values``; a refit changes the benchmark's figures, so it
comes with a new protocol version (``docs/benchmark.md``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.once import once

#: The stored model beside this module.
VALUES_PATH = Path(__file__).with_name("values.json")
#: The fit's master seed (its games' streams; unrelated to the protocol's deals) and games per table size.
FIT_SEED = 20261124
FIT_GAMES = 8_192
#: Bins of a hand's expected tricks, the ridge penalty of the trick regression and the temperatures tried.
BUCKETS = 12
RIDGE = 0.1
TAUS = (5.0, 7.0, 10.0, 14.0, 20.0, 28.0, 40.0, 56.0, 80.0, 110.0, 160.0)
FORMAT = 1


# ----------------------------------------------------------------------------- the games' rounds


def rounds_of_games(
    venv: Any, rows: np.ndarray, before_move: Callable[[int, Any, int], None] | None = None
) -> dict[str, np.ndarray]:
    """Per finished game of ``venv`` and hand: ``hands`` ``(G, K, n, kinds)`` card counts, ``bids``,
    ``tricks``, ``points`` ``(G, K, n)`` and ``before`` (each seat's score before the hand).

    Each game is replayed on its reference twin (`VectorEnv.start_engine` and `VectorEnv.moves`);
    ``before_move(g, engine, action)`` (``g``: the game's index in ``rows``) sees every move first.
    """
    from pirate_envs.skull_king import cards

    n = venv.num_players
    hands_played = None
    out: dict[str, list] = {"hands": [], "bids": [], "tricks": [], "points": []}
    for g, row in enumerate(np.asarray(rows).tolist()):
        engine = venv.start_engine(row)
        hands_played = engine.config.num_hands
        hands = np.zeros((hands_played, n, cards.NUM_KINDS), dtype=np.int8)
        hands[0] = engine.hands
        for action in venv.moves(row):
            number = engine.hand_number
            if before_move is not None:
                before_move(g, engine, action)
            engine.apply(action)
            if engine.hand_number != number:  # the next hand was dealt
                hands[engine.hand_number - 1] = engine.hands
        if len(engine.results) != hands_played:
            raise ValueError(f"game {row} is not finished ({len(engine.results)} of {hands_played} hands)")
        out["hands"].append(hands)
        for key in ("bids", "tricks", "points"):
            out[key].append([getattr(result, key) for result in engine.results])
    result = {key: np.array(value, dtype=np.int64 if key != "hands" else np.int8) for key, value in out.items()}
    points = result["points"].astype(np.float64)
    result["before"] = np.cumsum(points, axis=1) - points
    return result


# ----------------------------------------------------------------------------- the model


class BidValues:
    """The stored model of one table size (see the module docstring)."""

    def __init__(self, players: int, weights: list, tricks: list, taus: list):
        from pirate_envs.skull_king.rules import hand_score

        self.players = players
        self.weights = [np.asarray(w, dtype=np.float64) for w in weights]
        self.tricks = [np.asarray(t, dtype=np.float64) for t in tricks]
        self.taus = np.asarray(taus, dtype=np.float64)
        hands = len(self.weights)
        if len(self.tricks) != hands or len(self.taus) != hands:
            raise ValueError(f"skull king values for {players} players: weights, tricks and taus differ in length")
        #: ``scores[k - 1][b, t]``: the points of bid ``b`` with ``t`` tricks in hand ``k`` (no bonus).
        self.scores = [
            np.array([[hand_score(b, t, k, 0) for t in range(k + 1)] for b in range(k + 1)], dtype=np.float64)
            for k in range(1, hands + 1)
        ]

    def trick_distribution(self, k: int, hands: np.ndarray) -> np.ndarray:
        """``(..., k + 1)``: the distribution of the tricks taken in hand ``k`` with ``hands`` (card counts)."""
        expected = self.weights[k - 1][0] + hands.astype(np.float64) @ self.weights[k - 1][1:]
        return self.tricks[k - 1][bucket_of(expected, k)]

    def bid_points(self, k: int, hands: np.ndarray) -> np.ndarray:
        """``(..., k + 1)``: the expected points of every bid ``0..k`` in hand ``k`` with ``hands``."""
        return self.trick_distribution(k, hands) @ self.scores[k - 1].T

    def points_mid_hand(self, k: int, held: np.ndarray, won: np.ndarray, bids: np.ndarray) -> np.ndarray:
        """``(..., n)`` each seat's expected points of hand ``k`` in play: ``won`` tricks so far,
        ``held`` ``(..., n, kinds)`` the cards left (valued as a fresh hand of that size), ``bids``."""
        expected = np.zeros(won.shape)
        scores = self.scores[k - 1]
        for seat in range(won.shape[-1]):
            left = int(held[..., seat, :].sum(axis=-1).max())
            bid, taken = bids[..., seat], won[..., seat]
            if left == 0:
                expected[..., seat] = scores[bid, taken]
                continue
            chances = self.trick_distribution(left, held[..., seat, :])  # (..., left + 1)
            totals = np.minimum(taken[..., None] + np.arange(left + 1), k)
            expected[..., seat] = (chances * scores[bid[..., None], totals]).sum(axis=-1)
        return expected

    def win_shares(self, k: int, worth: np.ndarray) -> np.ndarray:
        """The seats' win shares (last axis) from ``worth``: scores before hand ``k`` plus expected points."""
        z = worth / self.taus[k - 1]
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return z / z.sum(axis=-1, keepdims=True)


def bucket_of(expected: np.ndarray, k: int) -> np.ndarray:
    """The bin (``0..BUCKETS - 1``) of an expected number of tricks in a hand of ``k`` cards."""
    return np.clip(np.round(np.asarray(expected) / k * (BUCKETS - 1)), 0, BUCKETS - 1).astype(np.int64)


@once
def bid_values(players: int) -> BidValues:
    """The stored model of ``players`` (from `VALUES_PATH`); a clear error when it has none."""
    stored = _stored()
    entry = stored["players"].get(str(players))
    if entry is None:
        known = ", ".join(sorted(stored["players"]))
        raise ValueError(f"no Skull King values for {players} players in {VALUES_PATH.name} (it has {known})")
    return BidValues(players, entry["weights"], entry["tricks"], entry["taus"])


@lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    stored = json.loads(VALUES_PATH.read_text())
    if stored.get("format") != FORMAT:
        raise ValueError(f"{VALUES_PATH.name}: format {stored.get('format')!r}, this code reads format {FORMAT}")
    return stored


# ----------------------------------------------------------------------------- the fit


def random_games(players: int, games: int, seed: int) -> dict[str, np.ndarray]:
    """``games`` games of uniformly random play at ``players`` seats (`rounds_of_games` of them, and ``shares``)."""
    import pirate_envs
    import pirate_envs.vector
    from agents.batched import make_batched_agent

    env_id = "skull_king_v0"
    venv = pirate_envs.vector.make(env_id, games, seed=seed, num_players=players)
    raw = pirate_envs.make(env_id, raw=True, num_players=players)
    agent = make_batched_agent("random", env_id, raw, games, seed=seed)
    venv.reset(seed)
    rows = np.arange(games)
    ended = np.zeros(games, dtype=bool)
    shares = np.zeros((games, players))
    while not ended.all():
        active = ~ended
        actions = np.zeros(games, dtype=np.int64)
        live = np.flatnonzero(active)
        actions[live] = agent.act_batch(live, venv.observation[live], venv.action_mask[live])
        venv.step(actions, active=active)
        done = np.flatnonzero(active & venv.terminated)
        if done.size:
            rewards = venv.rewards[done]
            winners = rewards >= rewards.max(axis=1, keepdims=True)
            shares[done] = winners / winners.sum(axis=1, keepdims=True)
        ended |= active & (venv.terminated | venv.truncated)
    result = rounds_of_games(venv, rows)
    result["shares"] = shares
    return result


def fit(players: int, games: int = FIT_GAMES, seed: int = FIT_SEED) -> dict[str, list]:
    """Fit the model of ``players`` on ``games`` random games from ``seed`` (see the module docstring)."""
    played = random_games(players, games, seed + players)
    weights, tricks, taus = [], [], []
    hands_played = played["hands"].shape[1]
    worth = np.zeros((games, hands_played, players))
    for k in range(1, hands_played + 1):
        hands = played["hands"][:, k - 1].reshape(-1, played["hands"].shape[-1]).astype(np.float64)
        taken = played["tricks"][:, k - 1].reshape(-1)
        design = np.column_stack([np.ones(len(hands)), hands])
        w = np.linalg.solve(design.T @ design + RIDGE * np.eye(design.shape[1]), design.T @ taken)
        table = np.full((BUCKETS, k + 1), 0.5)
        np.add.at(table, (bucket_of(design @ w, k), taken), 1.0)
        weights.append(w.tolist())
        tricks.append((table / table.sum(axis=1, keepdims=True)).tolist())
    model = BidValues(players, weights, tricks, [1.0] * hands_played)
    for k in range(1, hands_played + 1):
        points = model.bid_points(k, played["hands"][:, k - 1])
        bids = played["bids"][:, k - 1]
        worth[:, k - 1] = played["before"][:, k - 1] + np.take_along_axis(points, bids[..., None], -1)[..., 0]
        likelihood = []
        for tau in TAUS:
            model.taus[k - 1] = tau
            shares = model.win_shares(k, worth[:, k - 1])
            likelihood.append(float((played["shares"] * np.log(shares + 1e-12)).sum(axis=1).mean()))
        taus.append(TAUS[int(np.argmax(likelihood))])
        model.taus[k - 1] = taus[-1]
    return {"weights": weights, "tricks": tricks, "taus": taus}


def main() -> None:
    """Refit every table size and rewrite `VALUES_PATH` (atomically)."""
    from pirate_envs.core.files import write_atomic
    from pirate_envs.skull_king.rules import MAX_PLAYERS, MIN_PLAYERS

    stored = {
        "format": FORMAT,
        "fitted_by": "python -m agents.skull_king.values",
        "seed": FIT_SEED,
        "games": FIT_GAMES,
        "buckets": BUCKETS,
        "players": {str(n): fit(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)},
    }
    write_atomic(VALUES_PATH, json.dumps(stored) + "\n")
    print(f"wrote {VALUES_PATH}")


if __name__ == "__main__":
    main()
