"""Skull King's control variate for the benchmark (`agents.benchmark.control_variates`): the random seats' luck."""

from __future__ import annotations

from typing import Any

import numpy as np


def bid_luck(
    values: Any, k: int, hands: np.ndarray, bids: np.ndarray, before: np.ndarray, uniform: np.ndarray
) -> np.ndarray:
    """``(G, n)`` the luck of hand ``k``'s bids of the ``uniform`` seats, for every seat.

    ``values``: a `agents.skull_king.values.BidValues`; ``hands`` ``(G, n, kinds)``,
    ``bids`` and ``before`` (scores before the hand) ``(G, n)``; ``uniform`` ``(G, n)``: the seats
    that bid uniformly over ``0..k``. Per uniform seat ``j``: ``V(bids) - mean_b V(bids with j's
    bid b)``, ``V`` the model's win shares. The bids are hidden until every seat has bid, so no
    other bid depends on ``j``'s and each term has expectation zero given everything else.
    """
    points = values.bid_points(k, hands)  # (G, n, k + 1)
    worth = before + np.take_along_axis(points, bids[..., None], -1)[..., 0]
    actual = values.win_shares(k, worth)
    luck = np.zeros_like(actual)
    for seat in range(worth.shape[1]):
        games = np.flatnonzero(uniform[:, seat])
        if games.size == 0:
            continue
        every_bid = np.repeat(worth[games, None, :], k + 1, axis=1)  # (g, k + 1, n)
        every_bid[:, :, seat] = before[games, seat, None] + points[games, seat]
        luck[games] += actual[games] - values.win_shares(k, every_bid).mean(axis=1)
    return luck


#: The share of an unfinished trick that the model gives its winner so far.
PROVISIONAL_TRICK = 0.5


def card_luck(values: Any, engine: Any) -> np.ndarray:
    """``(L, n)`` the luck of the card about to be chosen uniformly on ``engine``, for every seat: the
    model's win shares after each of the ``L`` legal actions minus their mean (row ``i``: the terms
    if the ``i``-th legal action is played; each column has mean zero over the uniform choice).

    The win shares come from each seat's expected points of the hand in play
    (`BidValues.points_mid_hand`: its tricks so far, the cards it still holds, and the trick on the
    table: a finished one to its winner, an unfinished one `PROVISIONAL_TRICK` to its winner so far).
    """
    from pirate_envs.skull_king.actions import CARD_OFFSET
    from pirate_envs.skull_king.cards import KIND_OF_TOKEN
    from pirate_envs.skull_king.rules import winner_of_tokens

    n, seat, k = engine.num_players, engine.current_player, engine.hand_number
    tokens = np.flatnonzero(engine.legal_mask()) - CARD_OFFSET
    options = len(tokens)
    held = np.repeat(engine.hands[None].astype(np.int64), options, axis=0)
    held[np.arange(options), seat, KIND_OF_TOKEN[tokens]] -= 1
    won = np.repeat(np.array(engine.tricks_won, dtype=np.int64)[None], options, axis=0)
    taking = won.copy()
    for option, token in enumerate(tokens.tolist()):
        taking[option, (engine.leader + winner_of_tokens([*engine.trick, token])) % n] += 1
    share = 1.0 if len(engine.trick) == n - 1 else PROVISIONAL_TRICK  # the card ends the trick or not
    bids = np.broadcast_to(np.array(engine.bids, dtype=np.int64), (options, n))
    points = share * values.points_mid_hand(k, held, taking, bids)
    if share < 1.0:
        points += (1.0 - share) * values.points_mid_hand(k, held, won, bids)
    shares = values.win_shares(k, np.array(engine.score, dtype=np.float64) + points)
    return shares - shares.mean(axis=0)


def skull_king_luck(venv: Any, rows: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """``(len(rows), n, 2)`` each seat's luck from the bids (``[..., 0]``) and the cards (``[..., 1]``)
    of the ``uniform`` seats (see the module docstring)."""
    from agents.skull_king.values import bid_values, rounds_of_games
    from pirate_envs.skull_king.engine import Phase

    uniform = np.asarray(uniform, dtype=bool)
    luck = np.zeros((len(rows), venv.num_players, 2))
    if not uniform.any():
        return luck
    values = bid_values(venv.num_players)

    def card_term(game: int, engine: Any, action: int) -> None:
        if engine.phase != Phase.PLAY or not uniform[game, engine.current_player]:
            return
        mask = engine.legal_mask()
        if mask.sum() > 1:
            chosen = int(mask[:action].sum())  # the action's rank among the legal ones
            luck[game, :, 1] += card_luck(values, engine)[chosen]

    rounds = rounds_of_games(venv, rows, card_term)
    for k in range(1, rounds["bids"].shape[1] + 1):
        hand = k - 1
        luck[..., 0] += bid_luck(
            values, k, rounds["hands"][:, hand], rounds["bids"][:, hand], rounds["before"][:, hand], uniform
        )
    return luck
