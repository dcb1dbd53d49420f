"""``experiments.results_pages``: a game's page rendered from tiny results files of real runs."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")

from agents.benchmark.pages import command, render
from agents.benchmark.run import ProtocolRun, run_protocol
from experiments import results_pages
from tests.helpers import refused

KAPERN = "piraten_kapern_v0"


@pytest.fixture(scope="module")
def documents():
    return [
        json.loads(json.dumps(run_protocol(ProtocolRun(KAPERN, agent, (2,), 2, 1, ("random", "heuristic")))))
        for agent in ("heuristic", "random")
    ]


def test_a_page_from_tiny_results_files(tmp_path, documents):
    data = tmp_path / "data" / KAPERN
    data.mkdir(parents=True)
    for document in documents:
        (data / f"{document['candidate']}.json").write_text(json.dumps(document))
    out = tmp_path / "pages"
    [page] = results_pages.main(["--data", str(tmp_path / "data"), "--out", str(out)])
    assert page == out / f"{KAPERN}.md"
    text = page.read_text()
    assert text.startswith(f"# Results: {KAPERN}") and "pirate-bench v3" in text
    assert "| line-up | `heuristic` | `random` |" in text
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| 2p vs")}
    assert set(rows) == {"| 2p vs random", "| 2p vs heuristic"}
    heuristic = documents[1]["lineups"][1]["estimates"]["win"]["corrected"][0]  # random against the heuristic
    assert f"{heuristic:.3f}" in rows["| 2p vs heuristic"] and "(2)" in rows["| 2p vs heuristic"]
    assert documents[0]["provenance"]["git"]["commit"][:12] in text
    assert (
        "python -m experiments.benchmark --env-id piraten_kapern_v0 --agent heuristic --protocol v3 --deals 2 "
        "--players 2 --opponents random heuristic --out runs/bench" in text
    )


def test_the_command_of_a_page_reproduces_the_run(documents):
    """The command a page prints, run again, gives the same figures."""
    from experiments import benchmark

    words = command(documents[0]).split()[3:-2] + ["--out", "unused", "--no-progress"]
    assert words[:4] == ["--env-id", KAPERN, "--agent", "heuristic"]
    args = benchmark.parse_args(benchmark.BenchmarkArgs, words)
    again = run_protocol(
        ProtocolRun(args.env_id, args.agent, tuple(args.players), args.deals, 1, tuple(args.opponents))
    )
    assert again["lineups"][0]["estimates"] == documents[0]["lineups"][0]["estimates"]


def test_one_protocol_version_per_page(documents):
    mixed = [documents[0], {**documents[1], "protocol": "pirate-bench v2"}]
    with pytest.raises(ValueError, match="one protocol version per page"):
        render(mixed)


def test_no_results_files_is_refused(tmp_path, capsys):
    assert "no results files" in refused(capsys, results_pages.main, ["--data", str(tmp_path), "--out", str(tmp_path)])
