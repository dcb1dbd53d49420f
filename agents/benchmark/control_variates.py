"""Control variates (AIVAT-style): luck measured by value functions fixed in advance, then subtracted.

Each game's luck is a sum of terms ``V(after a chance event) - E[V(after) | before]`` for each
seat, with ``V`` fixed before any evaluation and never depending on the agent under test, so
every term has expectation zero whatever the agents do (a martingale difference; whether a term
is counted is decided before its chance event). Subtracting ``beta x luck`` from an outcome thus
keeps its expectation for any ``beta`` fixed independently of that game:

* **Piraten Kapern** (`kapern_luck`): the exact one-turn oracle (`agents.kapern_oracle`). At the
  start of a turn, the fortune card and the first roll: the oracle's value of that position
  (0 on the Island of Skulls) minus the expected turn value over the cards left in the deck; at
  each re-roll (plain cards: not the Treasure Chest, Sorceress or Storm, whose option states the
  term would have to follow): the oracle's value of the dice that came up minus its worth of the
  dice kept (``kept_value``, the exact expectation over the roll).
* **Skull King** (`skull_king_luck`): the hands dealt, valued by a fixed card strength
  (`SKULL_KING_STRENGTH`: rank within suit, trump above, the special cards by what they beat)
  minus the deck's mean strength per card (every card of a uniform deal is marginally uniform).
* the other games: none yet (the corrected estimate equals the raw one).

`estimates` turns the per-game luck into the corrected estimates. Per deal, the candidate's
outcome ``Y`` (mean over the deal's rotations) and covariates ``X`` (its own luck and the mean of
its opponents', mean over rotations); ``beta`` is fitted by least squares on the *other* half of
the deals (cross-fitting by deal parity), so it is independent of the deal it corrects and
``Y - beta X`` keeps the expectation of ``Y`` exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.stats import mean_interval

# ----------------------------------------------------------------------------- Piraten Kapern


def kapern_luck(venv: Any, rows: np.ndarray) -> np.ndarray:
    """``(len(rows), n)`` each seat's dice-and-card luck in points (see the module docstring).

    Replays each game on its reference engine with its dice rolled through a hook that sees every
    roll (the engine's ``dice_source``; the dice still come from the row's stream, in its order).
    """
    from agents.kapern_oracle import _tables, optimal_turn_value, solve_turn
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


def _skull_king_strength() -> np.ndarray:
    """A fixed strength per card kind in ``[0, 1]``: the share of the deck a card beats when played."""
    from pirate_envs.skull_king import cards

    strength = np.zeros(cards.NUM_KINDS)
    for kind in range(cards.NUM_SUIT_CARDS):
        rank = cards.rank_of(kind) / cards.NUM_RANKS
        strength[kind] = 0.45 + 0.35 * rank if cards.suit_of(kind) == cards.TRUMP_SUIT else 0.35 * rank
    strength[cards.ESCAPE] = 0.0
    strength[cards.PIRATE] = 0.9
    strength[cards.MERMAID] = 0.8
    strength[cards.SKULL_KING] = 0.95
    strength[cards.SCARY_MARY] = 0.85
    return strength


#: The card strengths of Skull King's control variate (fixed in advance; see `_skull_king_strength`).
SKULL_KING_STRENGTH = _skull_king_strength()


def skull_king_luck(venv: Any, rows: np.ndarray) -> np.ndarray:
    """``(len(rows), n)`` each seat's hand luck: the strength of the cards dealt to it minus the deck mean."""
    from pirate_envs.skull_king import cards

    kinds = {name: kind for kind, name in enumerate(cards.KIND_NAMES)}
    mean = float(np.dot(cards.COPIES, SKULL_KING_STRENGTH) / cards.DECK_SIZE)
    luck = np.zeros((len(rows), venv.num_players))
    for r, row in enumerate(np.asarray(rows).tolist()):
        for hands in venv.reset_options(row)["deals"]:  # one list per round: each seat's hand, card names
            for seat, hand in enumerate(hands):
                luck[r, seat] += sum(SKULL_KING_STRENGTH[kinds[name]] - mean for name in hand)
    return luck


# ----------------------------------------------------------------------------- dispatch

#: The luck of each game that has a control variate, by env id, and its description.
LUCK: dict[str, tuple[Callable[[Any, np.ndarray], np.ndarray], str]] = {
    "piraten_kapern_v0": (kapern_luck, "the exact one-turn oracle's value of each card and roll"),
    "skull_king_v0": (skull_king_luck, "a fixed card strength of each hand dealt"),
}


def describe(env_id: str) -> str:
    """The control variate of ``env_id`` in words (``none`` when it has none)."""
    return LUCK[env_id][1] if env_id in LUCK else "none (corrected = raw)"


def seat_luck(venv: Any, rows: np.ndarray) -> np.ndarray | None:
    """The luck per game and seat of the finished games ``rows`` of ``venv`` (``None``: no control variate)."""
    entry = LUCK.get(venv.env_id)
    return None if entry is None else entry[0](venv, rows)


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

    ``shares``, ``scores``, ``luck``: ``(G, players)`` per game and seat, the games deal-major (the
    ``players`` rotations of deal ``d`` are games ``d * players ...``); ``seat``: the candidate's seat per game.

    Per figure: ``raw`` and ``corrected`` (mean and 95% normal interval over deals),
    ``variance_ratio`` (raw over corrected variance per deal), ``per_game_variance`` (one game
    of a fresh deal), and ``vs_single_games``: how many times fewer games the corrected duplicate
    estimate needs than single games on fresh deals for the same interval. A ratio is ``None``
    where it is undefined: one deal, or no variance left (deterministic identical agents).
    """
    games = len(shares)
    deals = games // players
    rows = np.arange(games)
    if luck is None:
        covariates = np.zeros((games, 2))
    else:
        others = (luck.sum(axis=1) - luck[rows, seat]) / max(players - 1, 1)
        covariates = np.column_stack([luck[rows, seat], others])
    x = covariates.reshape(deals, players, 2).mean(axis=1)
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
    "SKULL_KING_STRENGTH",
    "cross_fitted",
    "describe",
    "estimates",
    "interval",
    "kapern_luck",
    "seat_luck",
    "skull_king_luck",
]
