"""Control variates (AIVAT-style): luck measured by value functions fixed in advance, then subtracted.

Each game's luck is a sum of terms ``V(after a chance event) - E[V(after) | before]`` for each
seat, with ``V`` fixed before any evaluation and never depending on the agent under test, so
every term has expectation zero whatever the agents do (a martingale difference; whether a term
is counted is decided before its chance event). Subtracting ``beta x luck`` from an outcome thus
keeps its expectation for any ``beta`` fixed independently of that game:

* **Piraten Kapern** (`kapern_luck`): the exact one-turn oracle (`agents.piraten_kapern.oracle`). At the
  start of a turn, the fortune card and the first roll: the oracle's value of that position
  (0 on the Island of Skulls) minus the expected turn value over the cards left in the deck; at
  each re-roll (plain cards: not the Treasure Chest, Sorceress or Storm, whose option states the
  term would have to follow): the oracle's value of the dice that came up minus its worth of the
  dice kept (``kept_value``, the exact expectation over the roll).
* **Skull King** (`skull_king_luck`): the decisions of the line-up's ``random`` opponents, whose
  law is known (uniform over the legal actions): the win shares of a fixed model
  (`agents.skull_king.values`, fitted once on random play) after the bid (`bid_luck`)
  or card (`card_luck`) chosen, minus their mean over every choice it had; the bids' and the
  cards' luck are two covariates. Every hand is dealt when the game starts and the duplicate
  rotation gives each seat's cards to the candidate once, so the deal's luck is already
  cancelled; against deterministic line-ups (``heuristic``, ``ppo``) no term is left (the
  corrected estimate equals the raw one).
* the other games: none yet (the corrected estimate equals the raw one).

`estimates` turns the per-game luck into the corrected estimates. Per deal, the candidate's
outcome ``Y`` (mean over the deal's rotations) and covariates ``X`` (per kind of luck, its own and
the mean of its opponents', mean over rotations); ``beta`` is fitted by least squares on the *other* half of
the deals (cross-fitting by deal parity), so it is independent of the deal it corrects and
``Y - beta X`` keeps the expectation of ``Y`` exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.evaluation.stats import mean_interval

# ----------------------------------------------------------------------------- Piraten Kapern


def kapern_luck(venv: Any, rows: np.ndarray, uniform: np.ndarray | None = None) -> np.ndarray:
    """``(len(rows), n)`` each seat's dice-and-card luck in points (see the module docstring; ``uniform`` unused).

    Replays each game on its reference engine with its dice rolled through a hook that sees every
    roll (the engine's ``dice_source``; the dice still come from the row's stream, in its order).
    """
    from agents.piraten_kapern.oracle import _tables, optimal_turn_value, solve_turn
    from pirate_envs.piraten_kapern.actions import REROLL_OFFSET, reroll_counts
    from pirate_envs.piraten_kapern.engine import Phase
    from pirate_envs.piraten_kapern.rules import CARDS, ISLAND_SKULLS, SEA_BATTLES, SKULL, card_skulls

    tables = _tables()
    no_reroll_term = {"treasure_chest", "sorceress", "storm"}
    turn_values = np.array([optimal_turn_value(card) for card in CARDS])
    n = venv.num_players
    luck = np.zeros((len(rows), n))
    for j, row in enumerate(rows.tolist()):
        engine = venv.reference_engine(row)
        pending: dict[str, Any] = {}

        def roll(count: int, engine: Any = engine, j: int = j, pending: dict = pending) -> Any:
            rolled = engine.chance.source.roll_dice(count)  # the row's stream (``WithDice`` wraps it)
            turn = engine.turn
            if turn.rolls == 0:  # a turn starts: its card was just drawn (before: the counts left + it)
                card = turn.card
                left = np.array(engine.deck_counts(), dtype=np.float64)
                left[CARDS.index(card)] += 1
                expected = float(left @ turn_values / left.sum())
                skulls = rolled[SKULL] + card_skulls(card)
                solution = solve_turn(card)
                island = skulls >= ISLAND_SKULLS and card not in SEA_BATTLES
                value = 0.0 if island else solution.state_value(rolled, card in ("sorceress", "storm"))
                luck[j, engine.current_player] += value - expected
            elif "kept" in pending:
                kept = pending.pop("kept")
                after = tuple(k + r for k, r in zip(kept, rolled))
                solution = solve_turn(turn.card)
                value = float(solution.values[False][tables.state_index(after)])
                luck[j, engine.current_player] += value - solution.kept_value(kept)
            return rolled

        engine.dice_source = roll
        engine.reset(None, venv.reset_options(row))
        for action in venv.moves(row):
            turn = engine.turn
            if (
                action >= REROLL_OFFSET
                and engine.phase is Phase.ROLLING
                and not turn.island
                and turn.card not in no_reroll_term
                and not turn.chest_moves
            ):
                rerolled = reroll_counts(action)
                pending["kept"] = tuple(s - r for s, r in zip(turn.showing(), rerolled))
            engine.apply(action)
            pending.clear()
    return luck


# ----------------------------------------------------------------------------- Skull King


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


# ----------------------------------------------------------------------------- dispatch

#: The luck of each game that has a control variate, by env id, and its description.
LUCK: dict[str, tuple[Callable[[Any, np.ndarray, np.ndarray], np.ndarray], str]] = {
    "piraten_kapern_v0": (kapern_luck, "the exact one-turn oracle's value of each card and roll"),
    "skull_king_v0": (skull_king_luck, "a fixed model's win shares after each bid and card of a random opponent"),
}


def describe(env_id: str) -> str:
    """The control variate of ``env_id`` in words (``none`` when it has none)."""
    return LUCK[env_id][1] if env_id in LUCK else "none (corrected = raw)"


def seat_luck(venv: Any, rows: np.ndarray, uniform: np.ndarray | None = None) -> np.ndarray | None:
    """The luck per game and seat of the finished games ``rows`` of ``venv`` (``None``: no control variate).

    ``uniform`` ``(len(rows), n)``: the seats whose every decision is uniform over the legal
    actions (a ``random`` opponent; their decisions are chance events of known law); none if ``None``.
    """
    entry = LUCK.get(venv.env_id)
    if entry is None:
        return None
    known = np.zeros((len(rows), venv.num_players), dtype=bool) if uniform is None else np.asarray(uniform, dtype=bool)
    return entry[0](venv, rows, known)


# ----------------------------------------------------------------------------- estimates


def cross_fitted(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``y - x @ beta`` per unit, ``beta`` fitted (with an intercept) on the units of the other parity.

    ``x`` has expectation zero, so the result keeps the expectation of ``y``; fewer than four
    units per fold: ``beta = 0``.
    """
    fold = np.arange(len(y)) % 2
    corrected = y.astype(np.float64).copy()
    for f in (0, 1):
        train, apply = fold != f, fold == f
        if train.sum() < max(4, x.shape[1] + 2):
            continue
        design = np.column_stack([np.ones(int(train.sum())), x[train]])
        beta = np.linalg.lstsq(design, y[train], rcond=None)[0][1:]
        corrected[apply] = y[apply] - x[apply] @ beta
    return corrected


def interval(values: np.ndarray) -> list[float | None]:
    """``[mean, low, high]``: the mean and its 95% normal interval (bounds ``None`` from one value)."""
    mean, low, high = mean_interval(np.asarray(values, dtype=np.float64).tolist())
    return [float(mean), *(float(b) if np.isfinite(b) else None for b in (low, high))]


def _variance(values: np.ndarray) -> float | None:
    return float(np.var(values, ddof=1)) if len(values) > 1 else None


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``; ``None`` when either is undefined (one deal) or the denominator is zero."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def estimates(
    shares: np.ndarray, scores: np.ndarray, luck: np.ndarray | None, seat: np.ndarray, players: int
) -> dict[str, Any]:
    """Raw and corrected estimates of the candidate's win rate and mean score.

    ``shares``, ``scores``: ``(G, players)`` per game and seat, the games deal-major (the
    ``players`` rotations of deal ``d`` are games ``d * players ...``); ``luck``: the same, or
    ``(G, players, c)`` for ``c`` kinds of luck, each with its own coefficient; ``seat``: the
    candidate's seat per game.

    Per figure: ``raw`` and ``corrected`` (mean and 95% normal interval over deals),
    ``variance_ratio`` (raw over corrected variance per deal), ``per_game_variance`` (one game
    of a fresh deal), and ``vs_single_games``: how many times fewer games the corrected duplicate
    estimate needs than single games on fresh deals for the same interval. A ratio is ``None``
    where it is undefined: one deal, or no variance left (deterministic identical agents).
    """
    games = len(shares)
    deals = games // players
    rows = np.arange(games)
    parts = np.zeros((games, players, 1)) if luck is None else luck.reshape(games, players, -1)
    own = parts[rows, seat]  # (G, c)
    others = (parts.sum(axis=1) - own) / max(players - 1, 1)
    covariates = np.concatenate([own, others], axis=1)
    x = covariates.reshape(deals, players, -1).mean(axis=1)
    result = {}
    for figure, values in (("win", shares[rows, seat]), ("score", scores[rows, seat])):
        y = values.reshape(deals, players).mean(axis=1)
        corrected = cross_fitted(y, x) if luck is not None else y
        raw_var, corrected_var = _variance(y), _variance(corrected)
        per_game = _variance(values)
        result[figure] = {
            "raw": interval(y),
            "corrected": interval(corrected),
            "variance_ratio": _ratio(raw_var, corrected_var),
            "per_game_variance": per_game,
            "vs_single_games": _ratio(per_game, None if corrected_var is None else players * corrected_var),
        }
    return result


__all__ = [
    "LUCK",
    "bid_luck",
    "cross_fitted",
    "describe",
    "estimates",
    "interval",
    "kapern_luck",
    "seat_luck",
    "skull_king_luck",
]
