"""Every committed results file has a complete provenance, and ``benchmarks/complete_provenance.py`` fills it."""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")

from agents.benchmark.board import line_up_opponent
from agents.benchmark.fingerprint import compare, package_data
from agents.benchmark.pages import command
from agents.benchmark.protocol import TITLE, lineups, table_sizes
from benchmarks.complete_provenance import completed, completed_command, completed_ratios
from experiments.benchmark import BenchmarkArgs
from experiments.cli import parse_args

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "results" / "data"
PATHS = sorted(DATA.rglob("*.json"))
#: A ratio of variances above this is float rounding over no variance, not a measurement.
SANE_RATIO = 1e6


def _played_by_command(document: dict[str, Any]) -> dict[str, int]:
    """The line-ups (and their deals) that the recorded command line plays at the current code."""
    recorded = document["provenance"]["command"]
    assert isinstance(recorded, str), "no command line"
    words = shlex.split(recorded)
    assert words[:3] == ["python", "-m", "experiments.benchmark"]
    args = parse_args(BenchmarkArgs, words[3:])
    assert (args.env_id, args.agent) == (document["env_id"], document["candidate"])
    sizes = tuple(args.players) or table_sizes(args.env_id, args.agent)
    plan = lineups(args.env_id, sizes, args.deals or None, tuple(args.opponents) or None, int(args.protocol[1:]))
    return {lineup.key: lineup.deals for lineup in plan}


def provenance_problems(document: dict[str, Any]) -> list[str]:
    """What a results document's provenance lacks or holds that is not sane (empty: complete)."""
    origin, problems = document["provenance"], []
    if not re.fullmatch(r"pirate-bench v[0-9]+\.[0-9]+", document["protocol"]):
        problems.append(f"protocol {document['protocol']!r} names no revision")
    if not isinstance(origin.get("command"), str) or not origin["command"].startswith("python -m experiments."):
        problems.append("no command line")
    elif origin.get("command_reconstructed") and not origin.get("command_reconstructed_from"):
        problems.append("a reconstructed command that does not say from what")
    if not re.fullmatch(r"[0-9a-f]{64}", str(origin.get("code_sha256"))):
        problems.append("no code hash")
    if not origin.get("processor") and not (origin.get("missing") or {}).get("processor"):
        problems.append("no CPU model, and no reason why")
    if not isinstance(origin.get("cpu_seconds"), (int, float)) or not origin["cpu_seconds"] > 0:
        problems.append("no CPU time")
    pinned = {(o, int(n)) for o, tables in (document.get("fingerprints") or {}).items() for n in tables}
    played = {(line_up_opponent(r), r["players"]) for r in document["lineups"]}
    if played - pinned:
        problems.append(f"no fingerprints of {sorted(played - pinned)}")
    if document["protocol"] != TITLE and not (document.get("migration") or {}).get("differences"):
        problems.append(f"made under {document['protocol']} without the differences that put it there")
    for lineup in document["lineups"]:
        for figure, estimate in lineup["estimates"].items():
            ratios = [estimate[key] for key in ("variance_ratio", "vs_single_games")]
            if "ratio_undefined" not in estimate or (estimate["ratio_undefined"] is None) != (None not in ratios):
                problems.append(f"{lineup['lineup']} {figure}: a null ratio without its reason (or the reverse)")
            if any(r is not None and not (math.isfinite(r) and 0 < r < SANE_RATIO) for r in ratios):
                problems.append(f"{lineup['lineup']} {figure}: a ratio of {ratios} (over no variance)")
    return problems


def test_every_committed_results_file_has_a_complete_provenance():
    assert len(PATHS) >= 26
    found = {str(p.relative_to(DATA)): provenance_problems(json.loads(p.read_text())) for p in PATHS}
    assert not {name: problems for name, problems in found.items() if problems}


def test_every_committed_file_stores_its_revisions_fingerprints_as_the_package_keeps_them():
    """v3.1 files play as the package's fingerprints, v3.0 files as the package's v3.0 set (as they played then);
    the hashes of the classes' source files are for information only (`agents.benchmark.fingerprint.compare`)."""
    found = {}
    for path in PATHS:
        document, name = json.loads(path.read_text()), str(path.relative_to(DATA))
        try:
            tables = package_data(document["env_id"], document["protocol"])["fingerprints"]
        except ValueError as error:
            found[name] = str(error)
            continue
        stored = document.get("fingerprints") or {}
        for opponent, players in sorted({(line_up_opponent(r), str(r["players"])) for r in document["lineups"]}):
            mine, kept = stored.get(opponent, {}).get(players), tables.get(opponent, {}).get(players)
            if mine is None or kept is None or compare(kept, mine, document["env_id"]) is not None:
                found[f"{name} {opponent} {players}"] = f"not as the package's {document['protocol']} set"
    assert not found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: str(p.relative_to(DATA)))
def test_the_command_of_a_committed_file_plays_its_line_ups(path):
    """A reconstructed command plays the file's line-ups; at the current revision, the same deals too."""
    document = json.loads(path.read_text())
    played = _played_by_command(document)
    assert sorted(played) == sorted(r["lineup"] for r in document["lineups"])
    if document["protocol"] == TITLE:
        assert played == {r["lineup"]: r["deals"] for r in document["lineups"]}


def _lineup(vs_single_games: float | None, deals: int = 534) -> dict[str, Any]:
    estimate = {"variance_ratio": 1.0, "per_game_variance": 0.222, "vs_single_games": vs_single_games}
    return {"lineup": "3p vs heuristic", "players": 3, "deals": deals, "estimates": {"win": estimate}}


def test_a_ratio_over_no_variance_becomes_null_with_its_reason():
    (nulled,) = completed_ratios(_lineup(2.3974662498325096e31))["estimates"].values()
    assert nulled["variance_ratio"] is None and nulled["vs_single_games"] is None
    assert nulled["ratio_undefined"] == "no variance over deals left (every deal gives the same value)"
    (kept,) = completed_ratios(_lineup(1.01))["estimates"].values()
    assert kept["vs_single_games"] == 1.01 and kept["variance_ratio"] == 1.0 and kept["ratio_undefined"] is None
    (one,) = completed_ratios(_lineup(None, deals=1))["estimates"].values()
    assert one["ratio_undefined"] == "one deal: no variance over deals"


def test_a_missing_command_is_reconstructed_and_marked_and_a_recorded_one_kept():
    document = {
        "env_id": "skull_king_v0",
        "candidate": "heuristic",
        "protocol": TITLE,
        "reduced": None,
        "lineups": [_lineup(1.01)],
        "provenance": {"command": None, "missing": {"command": "made before", "processor": "not recorded"}},
    }
    origin = completed_command(document)
    assert origin["command"] == command(document) and origin["command_reconstructed"] is True
    assert origin["missing"] == {"processor": "not recorded"}
    recorded = {**document, "provenance": {"command": "python -m experiments.benchmark --agent x"}}
    assert completed(recorded)["provenance"] == recorded["provenance"]
    assert completed(completed(document)) == completed(document)  # a second run changes nothing
