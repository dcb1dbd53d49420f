"""The benchmark page's compute statement (generated from the committed results files), and mcts's place."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import pirate_envs
from agents.benchmark.compute import BEGIN, END, compute_statement, cpu_by_machine, with_compute_statement
from agents.benchmark.pages import known_limits, load_documents
from agents.benchmark.protocol import lineups

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmark.md"
DATA = ROOT / "docs" / "results" / "data"
HERE = {"processor": "Here CPU", "cpus": 2}


def document(cpu: float, full: bool = True, **elsewhere: list) -> dict:
    """A minimal results document of ``cpu`` CPU seconds played here (and ``resumed``/``ray`` machines)."""
    origin = {"cpu_seconds": cpu, **HERE}
    for key, machines in elsewhere.items():
        origin[key] = {"machines": machines}
    line = {"compute": {"candidate_moves": 100, "candidate_cpu_us_per_move": 1e4}}
    return {
        "provenance": origin,
        "candidate": "x",
        "protocol": "pirate-bench v3",
        "full_protocol": full,
        "lineups": [line],
    }


def test_the_committed_compute_statement_is_the_one_the_committed_files_give():
    page = PAGE.read_text()
    committed = BEGIN + page.split(BEGIN, 1)[1].split(END, 1)[0] + END
    assert committed == compute_statement(load_documents(DATA))


def test_the_statement_counts_every_committed_file_and_their_total():
    games = load_documents(DATA)
    statement = compute_statement(games)
    files = sorted(DATA.rglob("*.json"))
    total = sum(d["provenance"]["cpu_seconds"] for docs in games.values() for d in docs)
    assert f"**{len(files)} committed results, {total / 3600:.2f} CPU-hours in all**" in statement


def test_cpu_is_split_by_the_machines_that_played_the_batches():
    other = {"processor": "Xeon", "cpus": 16}
    resumed = document(100.0, resumed=[{"machine": other, "cpu_seconds": 30.0}])
    on_ray = document(100.0, ray=[{"machine": other, "cpu_seconds": 50.0}, {"machine": None, "cpu_seconds": 10.0}])
    assert cpu_by_machine(resumed) == {"Here CPU, 2 CPUs": 70.0, "Xeon, 16 CPUs": 30.0}
    split = cpu_by_machine(on_ray)
    assert split["Xeon, 16 CPUs"] == 50.0 and split["Here CPU, 2 CPUs"] == 40.0
    assert split["CPU model not recorded, CPU count not recorded"] == 10.0


def test_a_reduced_run_gets_a_rough_full_run_figure_and_a_full_one_none():
    full = document(3600.0)
    full["lineups"][0]["compute"]["candidate_moves"] = 36_000  # the game's full run: 36,000 candidate moves
    reduced = document(60.0, full=False)  # 100 moves at 10 ms a move
    reduced["candidate"] = "y"
    statement = compute_statement({"skull_king_v0": [full, reduced]})
    assert "| skull_king_v0 | `y` | **reduced** (a full run: about 0.1 CPU-hours), v3 | 0.02 |" in statement
    bigger = copy.deepcopy(reduced)
    bigger["lineups"][0]["compute"]["candidate_cpu_us_per_move"] = 1e6  # 1 s a move: 10 hours
    assert "(a full run: about 10 CPU-hours)" in compute_statement({"skull_king_v0": [full, bigger]})
    assert "`x` | full, v3 | 1.00 |" in statement


def test_a_page_without_the_markers_is_refused():
    with pytest.raises(ValueError, match="no compute statement markers"):
        with_compute_statement("# a page", "statement")
    assert with_compute_statement(f"a\n{BEGIN}\nold\n{END}\nb", "new") == "a\nnew\nb"


def test_mcts_is_not_listed_among_the_built_in_agents_without_a_full_run():
    limits = "\n".join(known_limits("skull_king_v0", [], []))
    assert "Built-in agents without a full run" in limits and "`heuristic`" in limits
    assert "`mcts`" not in limits


def test_the_batches_of_full_mcts_runs_on_the_page_are_the_protocols():
    batches = 0
    for env_id in ("piraten_kapern_v0", "skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0"):
        plan = lineups(env_id, tuple(pirate_envs.player_counts(env_id)), None, None, 3)
        batches += sum(-(-lineup.deals // lineup.chunk_deals("mcts")) for lineup in plan)
    assert f"batches of 8 deals, **{batches:,}** for the four games" in PAGE.read_text()


def test_a_one_deal_result_without_an_interval_renders_its_known_limits():
    one_deal = {
        "candidate": "openspiel:ismcts:5",
        "full_protocol": False,
        "lineups": [
            {"lineup": "2p vs random", "opponent": "random", "estimates": {"win": {"corrected": [0.0, None, None]}}}
        ],
    }
    limits = "\n".join(known_limits("piraten_kapern_v0", [one_deal], []))
    assert "Built-in agents without a full run" in limits and "up to ±" not in limits
