"""The rank on the committed full runs: each one re-ranked among the others agrees with the leaderboard page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agents.benchmark.pages import load_documents
from agents.benchmark.protocol import TITLE
from agents.benchmark.rank import rank

ROOT = Path(__file__).resolve().parents[2]
GAMES = load_documents(ROOT / "docs" / "results" / "data")
COMMITTED = [document for documents in GAMES.values() for document in documents]
PAGE = (ROOT / "docs" / "leaderboard.md").read_text()


def page_tables(env_id: str, players: int, protocol: str = TITLE) -> tuple[list[str], list[str]]:
    """The candidates of the leaderboard page's full-run table and reduced-run table, in the page's order."""
    game = PAGE.split(f"\n## {env_id}\n", 1)[1].split("\n## ", 1)[0]
    section = game.split(f"\n### {players} players ({protocol})\n", 1)[1].split("\n### ", 1)[0]
    full, _, reduced = section.partition("Reduced runs")
    # a row: "| `name` |", or "| `name` (a note) |"
    return [re.findall(r"^\| `([^`]+)`[^|]* \|", part, re.M) for part in (full, reduced)]  # type: ignore[return-value]


FULL_RUNS = [
    (document, players)
    for document in COMMITTED
    if document["protocol"] == TITLE and document["full_protocol"]
    for players in sorted({r["players"] for r in document["lineups"]})
]


@pytest.mark.parametrize(
    ("document", "players"), FULL_RUNS, ids=[f"{d['env_id']}-{d['candidate']}-{n}p" for d, n in FULL_RUNS]
)
def test_a_committed_full_run_ranks_where_the_leaderboard_puts_it(document, players):
    others = [d for d in COMMITTED if d is not document]
    (entry,) = [e for e in rank(document, others) if e["players"] == players]
    full, reduced = page_tables(document["env_id"], players)
    assert entry["ranked"] and [name for name, _ in entry["table"]] == full
    assert entry["place"] == full.index(document["candidate"]) + 1 and entry["of"] == len(full)
    assert not set(reduced) & set(full)  # a reduced run never sorts beside the full ones


def test_the_committed_runs_give_real_ranks_and_leave_the_reduced_ones_out():
    assert len(FULL_RUNS) >= 60
    reduced = [d for d in COMMITTED if not d["full_protocol"]]
    assert reduced  # the outside baseline's reduced runs
    for document in reduced:
        for entry in rank(document, COMMITTED):
            assert not entry["ranked"] and "reduced run" in entry["why"]
            assert document["candidate"] in page_tables(document["env_id"], entry["players"], document["protocol"])[1]
    for document, players in FULL_RUNS:  # only the full runs of the current revision at that table size
        (entry,) = [e for e in rank(document, COMMITTED) if e["players"] == players]
        peers = {
            d["candidate"]
            for d in COMMITTED
            if d["env_id"] == document["env_id"] and d["protocol"] == TITLE and d["full_protocol"]
            if any(r["players"] == players for r in d["lineups"])
        }
        assert [name for name, _ in entry["table"]].count(document["candidate"]) == 1
        assert {name for name, _ in entry["table"]} == peers
