"""Per-game test data, kept beside each game's own tests (``tests/<game>/``) so that no generic test holds a table
keyed by game.

* ``short_games.json``: the options a generic test plays for this game where it keeps other values than the
  declared quick game (`GameSpec.quick_game`), by use (`USES`); one file for every version of the game.
  `short_game` reads them, falling back to the quick game: a new game needs no entry. A use of `BY_VERSION`
  (lineups, cases, expected values tried on some versions only) holds ``{env_id: value}``: `by_version`.
* ``golden.json``: recorded regression values (observation hashes, a search's moves), by env id and name.
  `golden` reads one; a game with none recorded is skipped by name, with the command that records it
  (``PIRATE_ENVS_RECORD_GOLDEN=1`` records a missing value, never replaces one).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pirate_envs
from pirate_envs.core.files import write_atomic
from tests.games import GAME_IDS

#: The folder of the tests (each game's own folder is ``<TESTS>/<spec.package>``).
TESTS = Path(__file__).resolve().parent
SHORT_GAMES_FILE = "short_games.json"
GOLDEN_FILE = "golden.json"
#: The environment variable that makes `golden` record a missing value.
RECORD_VARIABLE = "PIRATE_ENVS_RECORD_GOLDEN"

#: The uses of ``short_games.json``: which generic test reads each, and what its value is.
USES: dict[str, str] = {
    "web": "the web table's tests (tests/web): the options of a short game served at the table",
    "page_state": "tests/web/test_page_state.py: make options of a game whose end comes within the positions checked",
    "waiting_games": "tests/vector/test_waiting_games.py: vector.make options of games that end within the test",
    "load_rows": "tests/vector/test_load_rows.py: cases [{case, options, players, about}] of loaded rows in lockstep",
    "observation_variants": "tests/test_observation_bounds.py: [make options] of the observation options played",
    "openspiel_bots": "tests/agents/test_openspiel_bots.py: make options of a short game (a small table)",
    "analysis_lineup": "tests/agents/test_analysis_batched.py: a deterministic lineup [agent names] by version",
    "saved_games_lineup": "tests/experiments/test_evaluate_duplicate.py: a lineup [agent names] by version",
    "analyze_lineup": "tests/experiments/test_analyze.py: a small lineup [agent names] by version",
    "selfplay_twins": "tests/agents/test_selfplay_core.py: cases [{case, opponents, reward_mode, truncation_reward,"
    " options, stops}] by version",
    "final_scores": "tests/agents/test_batched_vec_env.py: vector.make options of the final-scores check by version",
    "phone_tables": "tests/web/test_table_browser.py: tables on a phone [{agents (besides you), options}] by version",
    "value_networks": "tests/agents/policy/test_agent_files_value.py: SB3 policy_kwargs of a tiny network by version",
    "kernel_integers": "tests/test_bad_inputs.py: [options] the AEC env takes at any size, the kernels not, by version",
    "web_out_of_range": "tests/web/test_limits.py: {ranged option: [values out of its range]} by version",
    "situation_starts": "tests/agents/analysis/test_mistakes.py: [starts of the situation labels] by version",
    "search_by_halving": "tests/agents/test_benchmark_agent_kinds.py, test_benchmark.py: whether the protocol searches"
    " by halving",
    "hint_figures": "tests/web/test_hint_api.py: [{agent (null: the default), figure (null: none)}] by version",
    "typed_moves": "tests/test_typed_moves.py: make options of the random game typed into, by version (else none)",
    "reroll_log_line": "tests/web/test_drawn_table.py, test_browser.py: the start of a re-roll's log line, by version",
    "browser_game": "tests/web/test_browser.py: {players, options typed into the page} of a short game by version",
    "selfplay_small": "tests/agents/test_selfplay_env.py: make options of the smallest game besides its fewest players",
    "opponent_ends_games": "tests/agents/test_selfplay_env.py: true where random play must see an opponent end a game",
    "guided_halving": "tests/agents/search/test_halving.py: a guided search agent whose prior reads the View only",
    "without_halving": "tests/agents/search/test_halving.py: true where the game offers no halving search",
    "fresh_chance": "tests/test_openspiel_search.py: {moves, params of load_game} of the fresh-chance check",
    "chance_centred_tables": "tests/agents/test_benchmark.py: [table sizes] of the chance-centred estimate",
    "fused_small_memory": "tests/agents/search/test_fused_rollouts.py: {setting, capacity} of a heuristic's memory"
    " set small, so that it grows in the middle of fused rollouts",
}

#: The uses whose entry is ``{env_id: value}``, a value for some versions of the game (the rest play none).
BY_VERSION = (
    "analysis_lineup",
    "saved_games_lineup",
    "analyze_lineup",
    "selfplay_twins",
    "final_scores",
    "phone_tables",
    "value_networks",
    "kernel_integers",
    "web_out_of_range",
    "situation_starts",
    "search_by_halving",
    "hint_figures",
    "typed_moves",
    "reroll_log_line",
    "selfplay_small",
    "opponent_ends_games",
    "guided_halving",
    "without_halving",
    "fresh_chance",
    "chance_centred_tables",
    "fused_small_memory",
    "browser_game",
)

#: The names of the values of ``golden.json`` (regular expressions), and what each is.
GOLDEN_VALUES: dict[str, str] = {
    r"default_observation_hash_[0-9]+p": "tests/test_table_layout.py: the default observation's hash at that table",
    r"search_decisions": "tests/agents/search/test_ismcts.py: mcts:24's moves {seeds, moves} at fixed seeds",
}


def game_folder(env_id: str) -> Path:
    """The folder of the game's own tests, ``tests/<game>`` (every version of a game shares it)."""
    if env_id not in GAME_IDS:
        raise ValueError(f"unknown env id {env_id!r}; registered: {list(GAME_IDS)}")
    return TESTS / pirate_envs.game_spec(env_id).package


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` (``{}`` where there is no file)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def short_game_entry(env_id: str, use: str) -> Any:
    """The game's entry for ``use`` in its ``short_games.json``, this version's for a `BY_VERSION` use
    (``None``: none)."""
    if use not in USES:
        raise ValueError(f"unknown use {use!r} of {SHORT_GAMES_FILE}; uses: {list(USES)}")
    entry = read_json(game_folder(env_id) / SHORT_GAMES_FILE).get(use)
    return (entry or {}).get(env_id) if use in BY_VERSION else entry


def by_version(use: str) -> dict[str, Any]:
    """``{env_id: value}`` of every registered version with an entry for the `BY_VERSION` ``use``."""
    if use not in BY_VERSION:
        raise ValueError(f"use {use!r} is not kept by version; uses by version: {list(BY_VERSION)}")
    entries = {env_id: short_game_entry(env_id, use) for env_id in GAME_IDS}
    return {env_id: entry for env_id, entry in entries.items() if entry is not None}


def short_game(env_id: str, use: str) -> dict[str, Any]:
    """The game's options for ``use`` in its ``short_games.json``, else its declared quick game's options."""
    if use in BY_VERSION:
        raise ValueError(f"use {use!r} is kept by version, with no quick game to fall back to: read it by_version")
    entry = short_game_entry(env_id, use)
    return pirate_envs.game_spec(env_id).quick_options if entry is None else entry


def golden(env_id: str, name: str, compute: Callable[[], Any]) -> Any:
    """The value ``name`` recorded for ``env_id`` in its game's ``golden.json``.

    Where none is recorded: with ``PIRATE_ENVS_RECORD_GOLDEN=1``, ``compute()`` is recorded and returned;
    else the calling test is skipped, naming the game, the value and the command that records it.
    """
    if not any(re.fullmatch(pattern, name) for pattern in GOLDEN_VALUES):
        raise ValueError(f"unknown golden value {name!r}; names: {list(GOLDEN_VALUES)}")
    path = game_folder(env_id) / GOLDEN_FILE
    data = read_json(path)
    recorded = data.get(env_id, {})
    if name in recorded:
        return recorded[name]
    if os.environ.get(RECORD_VARIABLE) != "1":
        test = os.environ.get("PYTEST_CURRENT_TEST", "<test id>").rsplit(" ", 1)[0]
        pytest.skip(
            f"{env_id} has no recorded {name} in {path.relative_to(TESTS.parent)}; "
            f"record it with: {RECORD_VARIABLE}=1 python -m pytest -p no:xdist '{test}'"
        )
    value = compute()
    data[env_id] = {**recorded, name: value}
    write_atomic(path, dumps(data))
    return value


def dumps(data: Any, indent: str = "") -> str:
    """``data`` as JSON, one entry of an object per line and every list of plain values on one line."""
    inner = indent + "  "
    if isinstance(data, dict) and data:
        entries = [f"{inner}{json.dumps(key)}: {dumps(value, inner).lstrip()}" for key, value in data.items()]
        return indent + "{\n" + ",\n".join(entries) + f"\n{indent}}}" + ("\n" if not indent else "")
    if isinstance(data, list) and any(isinstance(item, (dict, list)) for item in data):
        return indent + "[\n" + ",\n".join(dumps(item, inner) for item in data) + f"\n{indent}]"
    return indent + json.dumps(data)


__all__ = [
    "BY_VERSION",
    "GOLDEN_FILE",
    "GOLDEN_VALUES",
    "RECORD_VARIABLE",
    "SHORT_GAMES_FILE",
    "USES",
    "by_version",
    "golden",
    "short_game",
    "short_game_entry",
]
