"""Per-game test data (`tests.game_data`): each game's files name only what exists and build the games they
describe; a missing golden value skips by name with the command that records it, which records it once."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

import pirate_envs
from agents.registry import make_agent
from experiments.web.sessions import page_options
from tests import game_data
from tests.game_data import (
    BY_VERSION,
    GOLDEN_FILE,
    GOLDEN_VALUES,
    RECORD_VARIABLE,
    SHORT_GAMES_FILE,
    USES,
    by_version,
    golden,
    short_game,
)
from tests.games import GAME_SPECS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {spec.package for spec in GAME_SPECS}
#: The uses whose entry is a list (of make options, of cases).
LISTS = ("observation_variants", "load_rows")
#: The keys of a ``load_rows`` case (``about`` optional).
CASE_KEYS = {"case", "options", "players", "about"}
#: The uses whose value is a lineup (agent names, one per seat).
LINEUPS = ("analysis_lineup", "saved_games_lineup", "analyze_lineup")
#: The keys of a ``selfplay_twins`` case (``stops`` optional).
TWIN_KEYS = {"case", "opponents", "reward_mode", "truncation_reward", "options", "stops"}


def data_files(name: str) -> list[Path]:
    return sorted((ROOT / "tests").rglob(name))


@pytest.mark.parametrize("name", [SHORT_GAMES_FILE, GOLDEN_FILE])
def test_data_files_lie_in_a_games_own_folder(name):
    folders = [path.parent.relative_to(ROOT / "tests").as_posix() for path in data_files(name)]
    assert folders and set(folders) <= PACKAGES, folders


@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda spec: spec.env_id)
def test_every_short_game_builds_the_game(spec):
    """Each entry names known uses and options the game takes (``make`` refuses an unknown or bad one)."""
    path = ROOT / "tests" / spec.package / SHORT_GAMES_FILE
    entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    assert set(entries) <= set(USES), f"{path}: unknown uses {sorted(set(entries) - set(USES))}"
    for use in set(USES) - set(LISTS) - set(BY_VERSION):
        pirate_envs.make(spec.env_id, raw=True, **short_game(spec.env_id, use))
    for kwargs in entries.get("observation_variants", []):
        pirate_envs.make(spec.env_id, raw=True, **kwargs)
    for case in entries.get("load_rows", []):
        assert {"case", "options", "players"} <= set(case) <= CASE_KEYS, case
        assert case["players"] and set(case["players"]) <= set(spec.player_counts), case
        for num_players in case["players"]:
            pirate_envs.make(spec.env_id, raw=True, num_players=num_players, **case["options"])


@pytest.mark.parametrize("path", data_files(SHORT_GAMES_FILE), ids=lambda path: path.parent.name)
def test_entries_by_version_name_versions_of_their_game(path):
    entries = json.loads(path.read_text(encoding="utf-8"))
    for use in set(BY_VERSION) & set(entries):
        versions = entries[use]
        assert isinstance(versions, dict) and versions, f"{path}: {use} holds {{env_id: value}}"
        for env_id in versions:
            assert pirate_envs.game_spec(env_id).package == path.parent.name, f"{path}: {use} names {env_id}"


@pytest.mark.parametrize("use", LINEUPS)
def test_every_lineup_seats_agents_that_build_for_its_table(use):
    assert by_version(use), f"no game has a {use}"
    for env_id, lineup in by_version(use).items():
        assert len(lineup) in pirate_envs.game_spec(env_id).player_counts, (use, env_id, lineup)
        env = pirate_envs.make(env_id, raw=True, num_players=len(lineup))
        for name in lineup:
            make_agent(name, env_id, seed=0, env=env)


@pytest.mark.parametrize("use", ["final_scores", "typed_moves", "selfplay_small"])
def test_every_version_with_options_builds_them(use):
    assert by_version(use)
    for env_id, options in by_version(use).items():
        pirate_envs.make(env_id, raw=True, **options)


def test_every_browser_table_seats_a_table_with_options_a_page_sets():
    """A phone table names the agents besides you, a browser game its players."""
    phones = [(env_id, table, "agents", 1) for env_id, tables in by_version("phone_tables").items() for table in tables]
    games = [(env_id, game, "players", 0) for env_id, game in by_version("browser_game").items()]
    assert phones and games
    for env_id, table, seats, you in [*phones, *games]:
        assert set(table) == {seats, "options"}, (env_id, table)
        assert table[seats] + you in pirate_envs.game_spec(env_id).player_counts, (env_id, table)
        assert set(table["options"]) <= set(page_options(env_id)), (env_id, table)


def test_every_value_network_names_sb3_policy_arguments():
    assert by_version("value_networks")
    for env_id, kwargs in by_version("value_networks").items():
        assert set(kwargs) <= {"net_arch", "activation_fn"}, (env_id, kwargs)


def test_every_kernel_integer_is_an_option_the_game_takes():
    assert by_version("kernel_integers")
    for env_id, fields in by_version("kernel_integers").items():
        pirate_envs.make(env_id, raw=True, **{field: 1 for field in fields})


def test_every_out_of_range_value_lies_outside_the_declared_range():
    assert by_version("web_out_of_range")
    for env_id, options in by_version("web_out_of_range").items():
        ranges = pirate_envs.game_spec(env_id).option_ranges
        for option, values in options.items():
            low, high = ranges[option]
            assert values and all(not low <= value <= high for value in values), (env_id, option, values)


def test_situation_starts_log_lines_and_halving_flags_are_texts_and_booleans():
    assert by_version("situation_starts") and by_version("search_by_halving") and by_version("reroll_log_line")
    for env_id, starts in by_version("situation_starts").items():
        assert starts and all(isinstance(start, str) and start for start in starts), (env_id, starts)
    assert all(isinstance(line, str) and line for line in by_version("reroll_log_line").values())
    assert all(isinstance(flag, bool) for flag in by_version("search_by_halving").values())
    for flags in ("opponent_ends_games", "without_halving"):
        assert set(by_version(flags).values()) == {True}, flags  # a flag: true, or no entry


def test_every_hint_agent_and_guided_search_builds_for_its_game():
    assert by_version("hint_figures") and by_version("guided_halving")
    for env_id, rows in by_version("hint_figures").items():
        env = pirate_envs.make(env_id, raw=True)
        for row in rows:
            assert set(row) == {"agent", "figure"}, (env_id, row)
            if row["agent"] is not None:
                make_agent(row["agent"], env_id, seed=0, env=env)
    for env_id, name in by_version("guided_halving").items():
        make_agent(name, env_id, seed=0, env=pirate_envs.make(env_id, raw=True))


def test_every_table_size_named_is_one_the_game_allows():
    tables = [(env_id, [n]) for env_id, case in by_version("fresh_chance").items() for n in [case["params"]["players"]]]
    assert tables and by_version("chance_centred_tables")
    for env_id, sizes in [*tables, *by_version("chance_centred_tables").items()]:
        assert sizes and set(sizes) <= set(pirate_envs.game_spec(env_id).player_counts), (env_id, sizes)
    for env_id, case in by_version("fresh_chance").items():
        assert set(case) == {"moves", "params"} and case["moves"] > 0, (env_id, case)


def test_every_small_memory_setting_names_a_module_constant():
    assert by_version("fused_small_memory")
    for env_id, memory in by_version("fused_small_memory").items():
        assert set(memory) == {"setting", "capacity"} and memory["capacity"] > 0, (env_id, memory)
        module, name = memory["setting"].rsplit(".", 1)
        assert isinstance(getattr(importlib.import_module(module), name), int), (env_id, memory)


def test_every_selfplay_twin_case_builds_its_game():
    cases = [(env_id, case) for env_id, cases in by_version("selfplay_twins").items() for case in cases]
    assert cases and len({case["case"] for _, case in cases}) == len(cases), "case names are the test ids: unique"
    for env_id, case in cases:
        assert TWIN_KEYS - {"stops"} <= set(case) <= TWIN_KEYS, case
        env = pirate_envs.make(env_id, raw=True, reward_mode=case["reward_mode"], **case["options"])
        if "stops" in case:
            assert set(case["stops"]) == {"action", "rate"} and 0 < case["stops"]["rate"] < 1, case
            assert 0 <= case["stops"]["action"] < env.action_space(env.possible_agents[0]).n, case


@pytest.mark.parametrize("path", data_files(GOLDEN_FILE), ids=lambda path: path.parent.name)
def test_golden_values_name_versions_of_their_game_and_known_values(path):
    recorded = json.loads(path.read_text(encoding="utf-8"))
    for env_id, values in recorded.items():
        assert pirate_envs.game_spec(env_id).package == path.parent.name, env_id
        unknown = [name for name in values if not any(re.fullmatch(p, name) for p in GOLDEN_VALUES)]
        assert unknown == [], f"{path}: {env_id} records unknown values {unknown}"


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """`tests.game_data` reading and writing the games' folders under ``tmp_path``."""
    monkeypatch.setattr(game_data, "TESTS", tmp_path / "tests")
    monkeypatch.delenv(RECORD_VARIABLE, raising=False)
    return tmp_path / "tests"


def test_a_missing_golden_value_skips_naming_the_game_and_the_command(data_root):
    with pytest.raises(pytest.skip.Exception) as skipped:
        golden("pig_v0", "search_decisions", lambda: pytest.fail("computed without being asked to record"))
    message = str(skipped.value)
    assert message.startswith("pig_v0 has no recorded search_decisions in tests/pig/golden.json; record it with: ")
    assert f"{RECORD_VARIABLE}=1 python -m pytest -p no:xdist 'tests/test_game_data.py::" in message
    assert not (data_root / "pig" / GOLDEN_FILE).exists()


def test_recording_writes_a_missing_value_once_and_never_replaces_it(data_root, monkeypatch):
    monkeypatch.setenv(RECORD_VARIABLE, "1")
    assert golden("pig_v0", "default_observation_hash_2p", lambda: "ab12") == "ab12"
    assert golden("pig_v0", "search_decisions", lambda: {"seeds": [3], "moves": [1, 0]}) == {
        "seeds": [3],
        "moves": [1, 0],
    }
    assert golden("pig_v0", "default_observation_hash_2p", lambda: "other") == "ab12"
    path = data_root / "pig" / GOLDEN_FILE
    recorded = {"default_observation_hash_2p": "ab12", "search_decisions": {"seeds": [3], "moves": [1, 0]}}
    assert json.loads(path.read_text())["pig_v0"] == recorded
    assert '"moves": [1, 0]' in path.read_text()  # a list of numbers on one line
    monkeypatch.delenv(RECORD_VARIABLE)
    assert golden("pig_v0", "default_observation_hash_2p", lambda: pytest.fail("recomputed")) == "ab12"


def test_bad_names_are_refused_by_name(data_root):
    with pytest.raises(ValueError, match=r"unknown golden value 'hashes'; names: \["):
        golden("pig_v0", "hashes", lambda: 0)
    with pytest.raises(ValueError, match=r"unknown env id 'chess_v0'; registered: \["):
        golden("chess_v0", "search_decisions", lambda: 0)
    with pytest.raises(ValueError, match=r"unknown use 'lobby' of short_games.json; uses: \['web'"):
        short_game("pig_v0", "lobby")
    with pytest.raises(ValueError, match=r"use 'web' is not kept by version; uses by version: \['analysis_lineup'"):
        by_version("web")
    with pytest.raises(ValueError, match=r"use 'analyze_lineup' is kept by version, with no quick game to fall back"):
        short_game("pig_v0", "analyze_lineup")


def test_a_short_game_is_the_games_entry_else_its_quick_game(data_root):
    assert short_game("pig_v0", "web") == {"target_score": 30} == pirate_envs.game_spec("pig_v0").quick_options
    (data_root / "pig").mkdir(parents=True)
    (data_root / "pig" / SHORT_GAMES_FILE).write_text('{"web": {"target_score": 20}}')
    assert short_game("pig_v0", "web") == {"target_score": 20}
    assert short_game("pig_v0", "page_state") == {"target_score": 30}
