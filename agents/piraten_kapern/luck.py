"""Piraten Kapern's control variate for the benchmark (`agents.benchmark.control_variates`): the dice-and-card luck."""

from __future__ import annotations

from typing import Any

import numpy as np


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
