"""``benchmarks/migrate_protocol_labels.py``: which revision a committed file was made under, and its provenance."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("numba")

from agents.benchmark.fingerprint import package_data
from agents.benchmark.protocol import TITLE, label
from benchmarks.migrate_protocol_labels import (
    completed_provenance,
    decide,
    earlier_set,
    pinned,
    plan_difference,
    tree_code_sha256,
)

KAPERN = "piraten_kapern_v0"
ROOT = Path(__file__).resolve().parents[2]


def _document(deals: dict[str, int], full: bool = True) -> dict:
    lineups = [{"lineup": key, "players": int(key.split("p")[0]), "deals": n} for key, n in deals.items()]
    return {"env_id": KAPERN, "protocol": "pirate-bench v3", "full_protocol": full, "lineups": lineups}


def test_a_full_run_follows_the_plan_only_at_the_table_sizes_it_plays():
    plan = {"2p vs random": 100, "2p vs search": 50, "3p vs random": 80}
    assert plan_difference(_document({"2p vs random": 100, "2p vs search": 50}), plan) is None  # a two-seat agent
    moved = plan_difference(_document({"2p vs random": 100, "2p vs search": 400}), plan)
    assert moved == "deals differ from the deal plan at 2p vs search"
    assert plan_difference(_document({"2p vs search": 4}, full=False), plan) is None  # reduced: the first deals
    assert "not in the deal plan" in plan_difference(_document({"6p vs random": 4}, full=False), plan)


def test_a_file_is_labelled_by_its_opponents_play_at_its_commit():
    package = package_data(KAPERN)
    plan = {key: n for key, n in package["deal_plan"].items() if key.startswith("2p")}
    document = {**_document(plan), "provenance": {"git": {"commit": "abc", "dirty": False}}}
    found = {f"{o} 2": package["fingerprints"][o]["2"] for o in ("random", "heuristic", "search", "ppo")}
    same = decide(document, found, package)
    assert same["protocol"] == TITLE and same["fingerprints"]["search"]["2"] == found["search 2"]
    moves = found["heuristic 2"]["moves"].split()
    moves[3] = str(int(moves[3]) + 1)
    changed = {**found["heuristic 2"], "moves": " ".join(moves), "moves_sha256": "other"}
    other = decide(document, {**found, "heuristic 2": changed}, package)
    assert other["protocol"] == label(3, 0) and "fingerprints" not in other
    assert other["migration"]["differences"][0].startswith("heuristic in piraten_kapern_v0 at 2 players: position 3")
    assert decide(document, None, package)["protocol"] == label(3, 0)  # a modified checkout: not knowable


def test_the_code_hash_of_a_commit_is_the_one_its_runs_recorded():
    """Checked on a committed file that recorded its hash (skipped where the history is not there)."""
    path = ROOT / "docs" / "results" / "data" / "skull_king_v0" / "halving.json"
    origin = json.loads(path.read_text())["provenance"]
    commit = origin["git"]["commit"]
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", commit], capture_output=True)
    if known.returncode:
        pytest.skip("the commit is not in this checkout's history")
    assert tree_code_sha256(commit) == origin["code_sha256"]
    missing = completed_provenance({"provenance": {**origin, "code_sha256": None, "command": None}})["provenance"]
    assert missing["code_sha256"] == origin["code_sha256"] and missing["command"] is None
    assert set(missing["missing"]) == {"command"} | ({"processor"} if not origin.get("processor") else set())


def test_a_v3_0_file_is_pinned_as_it_played_and_its_revisions_set_built_from_such_files():
    package = package_data(KAPERN)
    plan = {key: n for key, n in package["deal_plan"].items() if key.startswith("2p")}
    found = {f"{o} 2": package["fingerprints"][o]["2"] for o in ("random", "heuristic", "search", "ppo")}
    moves = found["search 2"]["moves"].split()
    moves[1] = str(int(moves[1]) + 1)
    found["search 2"] = {**found["search 2"], "moves": " ".join(moves), "moves_sha256": "then"}
    document = {**_document(plan), "provenance": {"git": {"commit": "abc", "dirty": False}}}
    earlier = decide(document, found, package)
    assert earlier["protocol"] == label(3, 0) and "fingerprints" not in earlier
    made = pinned(earlier, found)
    assert made["fingerprints"]["search"]["2"] == found["search 2"] and made["deal_plan"] == plan
    assert made["fingerprint_differences"] == earlier["migration"]["differences"]
    assert made["migration"]["computed_at"] == "abc"
    built = earlier_set(KAPERN, {"a.json": made, "b.json": made})
    assert built["protocol"] == label(3, 0) and built["fingerprints"]["search"]["2"] == found["search 2"]
    assert built["computed_at"] == ["abc"] and built["deal_plan"] == plan
    other = pinned(earlier, {**found, "search 2": package["fingerprints"]["search"]["2"]})
    with pytest.raises(ValueError, match=re.escape("b.json and a.json differ under pirate-bench v3.0: oracle")):
        earlier_set(KAPERN, {"a.json": made, "b.json": other})
