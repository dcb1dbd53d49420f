"""The protocol cannot drift silently: opponents' fingerprints, ``--verify``, labels, ranks, bounded estimates."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")
pytest.importorskip("stable_baselines3")

from agents.benchmark import control_variates, fingerprint
from agents.benchmark.bounds import bounded_win
from agents.benchmark.protocol import TITLE, label
from agents.benchmark.rank import rank, rank_lines
from agents.benchmark.run import ProtocolRun, markdown, run_protocol, write_results
from agents.benchmark.verify import verify_folder
from agents.piraten_kapern.batched_heuristic import KapernHeuristicBatch

KAPERN = "piraten_kapern_v0"
ROOT = Path(__file__).resolve().parents[2]


def kapern_run(tmp_path: Path) -> Path:
    """A tiny reduced run of Kapern against the heuristic, written to ``tmp_path``; its folder."""
    document = run_protocol(ProtocolRun(KAPERN, "random", (2,), 1, 1, ("heuristic",), command="python -m test"))
    write_results(document, tmp_path)
    return tmp_path


def shift_first_choice(monkeypatch) -> None:
    """Change the Kapern heuristic's play: where it has another legal move, it takes the next one."""
    original = KapernHeuristicBatch.act_batch

    def changed(self, games, observations, masks):
        actions = original(self, games, observations, masks)
        legal = np.asarray(masks).astype(bool)
        for row, action in enumerate(actions):
            others = np.flatnonzero(legal[row])
            others = others[others != action]
            if len(others):
                actions[row] = others[0]
        return actions

    monkeypatch.setattr(KapernHeuristicBatch, "act_batch", changed)


def test_the_package_holds_the_fingerprints_and_deal_plan_of_every_game():
    for env_id in ("piraten_kapern_v0", "skull_king_v0", "piratenpoker_v0", "lucky_pirate_v0"):
        data = fingerprint.package_data(env_id)
        assert data["protocol"] == TITLE and data["deal_plan"] == fingerprint.deal_plan(env_id)
        assert set(data["fingerprints"]) == {"random", "heuristic", "search", "ppo"}
        for tables in data["fingerprints"].values():
            for entry in tables.values():
                assert 20 <= entry["positions"] <= fingerprint.GAMES * fingerprint.STEPS // fingerprint.STRIDE


def test_positions_do_not_depend_on_the_agent_and_a_fingerprint_repeats():
    heuristic = fingerprint.fingerprint("heuristic", KAPERN, 3)
    assert fingerprint.fingerprint("heuristic", KAPERN, 3) == heuristic
    random = fingerprint.fingerprint("random", KAPERN, 3)
    assert random["positions_sha256"] == heuristic["positions_sha256"]
    assert random["moves_sha256"] != heuristic["moves_sha256"]
    assert fingerprint.compare(heuristic, random, KAPERN).startswith("heuristic in piraten_kapern_v0 at 3 players")


def test_a_run_stores_its_opponents_fingerprints_deal_plan_and_command(tmp_path):
    document = json.loads((kapern_run(tmp_path) / "results.json").read_text())
    assert document["protocol"] == label() == "pirate-bench v3.1"
    package = fingerprint.package_data(KAPERN)
    assert document["fingerprints"]["heuristic"]["2"] == package["fingerprints"]["heuristic"]["2"]
    assert document["deal_plan"] == package["deal_plan"]
    assert document["fingerprint_differences"] == []
    assert document["provenance"]["command"] == "python -m test"
    assert "Opponents pinned: 1 fingerprints" in (tmp_path / "results.md").read_text()


def test_verify_fails_on_a_changed_opponent_naming_it_and_the_position(tmp_path, monkeypatch):
    folder = kapern_run(tmp_path)
    assert verify_folder(folder, package=False).ok
    shift_first_choice(monkeypatch)
    found = verify_folder(folder, package=False)
    assert not found.ok
    assert len(found.differences) == 1
    assert "results.json: heuristic in piraten_kapern_v0 at 2 players: position 0 of" in found.differences[0]


def test_a_run_against_a_changed_opponent_says_so_and_is_not_ranked(tmp_path, monkeypatch):
    shift_first_choice(monkeypatch)
    document = run_protocol(ProtocolRun(KAPERN, "random", (2,), 1, 1, ("heuristic",)))
    assert document["fingerprint_differences"] and "heuristic" in document["fingerprint_differences"][0]
    assert "Opponents NOT as the protocol's" in markdown(document)


def test_verify_passes_on_the_committed_results_and_the_package():
    """What CI runs: every results file and the package, v3.0 files against the package's v3.0 set."""
    found = verify_folder(ROOT / "docs" / "results" / "data")
    assert found.ok, found.differences
    assert len(found.checked) >= 4  # the package's four games at least
    assert not found.other_versions  # every committed file is checked against its revision's set
    for why in found.earlier.values():
        assert why.startswith(f"made under {label(3, 0)}, cannot be reproduced at the current code: ")


def test_verify_checks_a_v3_0_file_against_its_revisions_set_and_fails_on_a_change(tmp_path):
    committed = ROOT / "docs" / "results" / "data" / "piratenpoker_v0" / "heuristic.json"
    document = json.loads(committed.read_text())
    assert document["protocol"] == label(3, 0)
    (tmp_path / "heuristic.json").write_text(json.dumps(document))
    found = verify_folder(tmp_path, package=False)
    assert found.ok, found.differences
    (why,) = found.earlier.values()
    assert "cannot be reproduced at the current code: halving:50 in piratenpoker_v0 at 3 players: position" in why
    entry = document["fingerprints"]["random"]["4"]
    moves = entry["moves"].split()
    moves[2] = str(int(moves[2]) + 1)
    document["fingerprints"]["random"]["4"] = {**entry, "moves": " ".join(moves), "moves_sha256": "edited"}
    (tmp_path / "heuristic.json").write_text(json.dumps(document))
    (difference,) = verify_folder(tmp_path, package=False).differences
    assert difference.endswith(
        "random in piratenpoker_v0 at 4 players: position 2 of "
        f"{len(moves)} differs "
        f"(recorded move {moves[2]}, now {int(moves[2]) - 1})"
    )


def test_a_variance_ratio_over_no_variance_is_none_with_a_reason():
    players, deals = 3, 8
    shares = np.full((players * deals, players), 1 / 3)
    shares[::2, 0] += 1e-17  # float rounding: the variance left is ~1e-35, not 0
    scores = np.ones_like(shares)
    seat = np.tile(np.arange(players), deals)
    luck = np.random.default_rng(0).normal(size=shares.shape)
    found = control_variates.estimates(shares, scores, luck, seat, players)["win"]
    assert found["variance_ratio"] is None and found["vs_single_games"] is None
    assert found["ratio_undefined"] == "no variance over deals left (every deal gives the same value)"


def test_win_estimates_stay_in_the_unit_interval_and_a_zero_rate_gets_an_interval():
    over = bounded_win([1.0104, 0.96, 1.06], 100)
    assert over == {"interval": [1.0, 0.96, 1.0], "clipped_from": 1.0104, "wilson": False}
    never = bounded_win([0.0, 0.0, 0.0], 100)
    assert never["wilson"] and never["interval"][:2] == [0.0, 0.0]
    assert never["interval"][2] == pytest.approx(3.8415 / (100 + 3.8415), rel=1e-3)  # Wilson's upper bound at 0
    always = bounded_win([1.0, 1.0, 1.0], 100)
    assert always["interval"][1] == pytest.approx(1 - never["interval"][2])


def _document(candidate: str, win: float, full: bool = True, protocol: str = TITLE) -> dict:
    lineup = {"players": 2, "chance": 0.5, "lineup": "2p vs heuristic", "deals": 100}
    lineup["estimates"] = {"win": {"corrected": [win, win - 0.05, win + 0.05]}}
    return {"env_id": KAPERN, "protocol": protocol, "full_protocol": full, "candidate": candidate, "lineups": [lineup]}


def test_a_full_run_is_ranked_among_committed_full_runs_of_its_revision_only():
    committed = [
        _document("a", 0.8),
        _document("b", 0.52),
        _document("c", 0.3),
        _document("reduced", 0.99, full=False),
        _document("old", 0.95, protocol=label(3, 0)),
    ]
    (entry,) = rank(_document("mine", 0.5), committed)
    assert entry["ranked"] and (entry["place"], entry["of"]) == (3, 4)
    assert entry["tied"] == ["b"]
    assert [name for name, _ in entry["table"]] == ["a", "b", "mine", "c"]
    assert entry["strength"] == pytest.approx([1.0, 0.9, 1.1])
    assert "- 2 players: 3 of 4, strength 1.00 [0.90, 1.10]; tied within intervals with `b`:" in rank_lines(
        [entry], "mine"
    )


def test_a_reduced_run_is_not_ranked_and_says_why():
    (entry,) = rank(_document("mine", 0.9, full=False), [_document("a", 0.8)])
    assert not entry["ranked"] and "reduced run" in entry["why"]
    lines = rank_lines([entry], "mine")
    assert "- 2 players: not ranked: a reduced run is not ranked beside full runs (other deals, wider intervals)." in (
        lines
    )


def test_the_benchmark_page_quotes_the_positions_parameters():
    text = " ".join((ROOT / "docs" / "benchmark.md").read_text().split())
    for name in ("GAMES", "STEPS", "STRIDE"):
        assert f"`{name}` = {getattr(fingerprint, name)}" in text
    assert f"at most {fingerprint.GAMES * fingerprint.STEPS // fingerprint.STRIDE} positions" in text
