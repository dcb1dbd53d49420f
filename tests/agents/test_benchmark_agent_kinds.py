"""The protocol reads agent kinds from the grammar of agent names: deal batches and plans by kind, not by spelling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("numba")

from agents.benchmark import fingerprint, protocol
from agents.benchmark.protocol import CHUNK_DEALS, SEARCH_CHUNK_DEALS, V3_SEARCH_CHUNK_DEALS, Lineup
from tests.game_data import by_version

KAPERN = "piraten_kapern_v0"
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "data"


@pytest.mark.parametrize(
    ("candidate", "opponent", "deals"),
    [
        ("mcts", "random", SEARCH_CHUNK_DEALS),
        ("mcts:50:random", "heuristic", SEARCH_CHUNK_DEALS),
        ("mcts:50:batched", "random", SEARCH_CHUNK_DEALS),
        ("mcts:50:ppo:skull_king_v0", "random", SEARCH_CHUNK_DEALS),
        ("heuristic", "mcts", SEARCH_CHUNK_DEALS),
        ("gumbel:50:ppo:skull_king_v0", "random", CHUNK_DEALS),
        ("halving:50", "random", CHUNK_DEALS),
        ("ppo:skull_king_v0", "search", V3_SEARCH_CHUNK_DEALS),
        ("heuristic", "random", CHUNK_DEALS),
        ("mcts_bot.py:make_agent", "random", CHUNK_DEALS),  # a Python agent, whatever its file is called
    ],
)
def test_deal_batches_follow_the_kind_of_agent(candidate, opponent, deals):
    assert Lineup(KAPERN, 2, opponent, 9).chunk_deals(candidate) == deals


def test_the_search_opponent_is_halving_where_the_protocol_says():
    expected = by_version("search_by_halving")  # each game's, in tests/<game>/short_games.json
    assert {env_id: protocol.searches_by_halving(env_id) for env_id in protocol.SEARCH_OPPONENTS} == expected


def committed_full_runs() -> list[Path]:
    """The committed result documents of full runs of the current protocol."""
    paths = sorted(RESULTS.glob("*/*.json"))
    documents = {path: json.loads(path.read_text()) for path in paths}
    return [path for path, d in documents.items() if d["protocol"] == protocol.label() and d["full_protocol"]]


@pytest.mark.parametrize("path", committed_full_runs(), ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_committed_full_run_has_the_deal_plan_of_today(path):
    document = json.loads(path.read_text())
    assert document["deal_plan"] == fingerprint.deal_plan(document["env_id"])
