"""A protocol run keeps its finished batches, and a stopped run resumed plays only the rest, to the same figures."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")

from agents.benchmark import run
from agents.benchmark.protocol import Lineup
from agents.benchmark.provenance import MACHINE_FIELDS, code_sha256, machine_record
from agents.benchmark.run import ProtocolRun, run_protocol

KAPERN = "piraten_kapern_v0"
FIGURES = ("lineup", "deals", "games", "truncated", "win_rate", "mean_score", "rating", "estimates")


@pytest.fixture
def small_batches(monkeypatch):
    """Two deals a batch, so that a few deals make several batches; counts the batches played."""
    monkeypatch.setattr(Lineup, "chunk_deals", lambda self, candidate: 2)
    played = []
    play_chunk = run.play_chunk

    def counted(lineup, candidate, deals, chunk_index):
        played.append((lineup.key, chunk_index))
        return play_chunk(lineup, candidate, deals, chunk_index)

    monkeypatch.setattr(run, "play_chunk", counted)
    return played


def figures(document):
    return [{key: lineup[key] for key in FIGURES} for lineup in document["lineups"]]


def plan(folder, candidate="heuristic", resume=False):
    return ProtocolRun(KAPERN, candidate, (2,), 7, 1, ("random", "heuristic"), batches=folder, resume=resume)


def test_a_resumed_run_plays_only_the_batches_not_kept_and_gives_the_same_figures(tmp_path, small_batches):
    folder = tmp_path / "batches"
    whole = run_protocol(plan(folder))
    kept = sorted(folder.glob("*.npz"))
    assert len(kept) == len(small_batches) == 8  # 7 deals in batches of 2, two line-ups
    assert "resumed" not in whole["provenance"]
    for path in kept[1::3]:  # as if the run had stopped before these came back
        path.unlink()
    small_batches.clear()
    resumed = run_protocol(plan(folder, resume=True))
    assert len(small_batches) == 3
    assert figures(resumed) == figures(whole)
    again = resumed["provenance"]["resumed"]
    assert again["batches_reused"] == 5 and again["batches"] == 8
    assert resumed["provenance"]["cpu_seconds"] >= again["cpu_seconds_reused"] >= 0
    assert len(list(folder.glob("*.npz"))) == 8
    small_batches.clear()
    afresh = run_protocol(plan(folder))  # without resume: every batch played again
    assert len(small_batches) == 8 and figures(afresh) == figures(whole)


def _replay_on(path, machine):
    """Rewrite the batch file ``path`` as if played on ``machine`` (``None``: by code that recorded none)."""
    with np.load(path, allow_pickle=False) as kept:
        arrays = {name: kept[name] for name in kept.files if name != "machine"}
    if machine is not None:
        arrays["machine"] = np.array(json.dumps(machine))
    np.savez(path, **arrays)


def test_a_resumed_run_says_which_machine_played_each_batch_read_back(tmp_path, small_batches):
    folder = tmp_path / "batches"
    whole = run_protocol(plan(folder))
    kept = sorted(folder.glob("*.npz"))
    here = machine_record()
    assert tuple(here) == MACHINE_FIELDS  # what results.md compares a batch's machine by
    with np.load(kept[0], allow_pickle=False) as first:
        assert json.loads(str(first["machine"])) == here
    elsewhere = {**here, "processor": "a lent machine's CPU", "cpus": 16}
    _replay_on(kept[0], elsewhere)
    _replay_on(kept[1], elsewhere)
    _replay_on(kept[2], None)  # a batch file of the code before batches recorded their machine
    kept[3].unlink()
    resumed = run_protocol(plan(folder, resume=True))
    assert figures(resumed) == figures(whole)  # the machine is not part of a batch's identity
    machines = resumed["provenance"]["resumed"]["machines"]
    assert [(entry["machine"], entry["batches"]) for entry in machines] == [(here, 4), (elsewhere, 2), (None, 1)]
    assert sum(entry["cpu_seconds"] for entry in machines) == pytest.approx(
        resumed["provenance"]["resumed"]["cpu_seconds_reused"], abs=0.2
    )
    assert "Resumed: 7 of its 8 batches read back from earlier sittings, 3 of them" in run.markdown(resumed)
    with np.load(kept[3], allow_pickle=False) as played_again:
        assert json.loads(str(played_again["machine"])) == here
    for path in kept:
        _replay_on(path, here)
    same_machine = run.markdown(run_protocol(plan(folder, resume=True)))
    assert "Resumed: 8 of its 8 batches read back from earlier sittings." in same_machine


def test_batches_of_another_run_are_refused_not_mixed_in(tmp_path, small_batches):
    folder = tmp_path / "batches"
    run_protocol(plan(folder))
    with pytest.raises(ValueError, match=r"a batch of another run \(candidate differ\)"):
        run_protocol(plan(folder, candidate="random", resume=True))


def test_a_batch_file_is_read_without_unpickling(tmp_path, small_batches):
    folder = tmp_path / "batches"
    run_protocol(plan(folder))
    target = sorted(folder.glob("*.npz"))[0]
    np.savez(target, identity=np.array([{"not": "data"}], dtype=object), counters=np.zeros(5))  # pickled inside
    with pytest.raises(ValueError, match="not a readable batch file"):
        run_protocol(plan(folder, resume=True))
    target.write_bytes(b"not a zip file")
    with pytest.raises(ValueError, match="not a readable batch file"):
        run_protocol(plan(folder, resume=True))


def test_a_batch_played_by_other_code_is_refused_even_outside_a_checkout(tmp_path, small_batches, monkeypatch):
    folder = tmp_path / "batches"
    monkeypatch.setattr(run, "git_commit", lambda: None)  # an installed package: no commit to tell versions apart
    monkeypatch.setattr(run, "code_sha256", lambda: "a" * 64)
    run_protocol(plan(folder))
    monkeypatch.setattr(run, "code_sha256", lambda: "b" * 64)  # another version of the package
    with pytest.raises(ValueError, match=r"a batch of another run \(code_sha256 differ\)"):
        run_protocol(plan(folder, resume=True))


def test_the_code_hash_covers_the_playing_files_only(tmp_path, monkeypatch):
    package = tmp_path / "playing_package"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("RULE = 1\n")
    (package / "table.json").write_text("[1, 2]")
    (package / "notes.txt").write_text("not played")
    (package / "__pycache__" / "cached.py").write_text("# a cache")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = code_sha256(("playing_package",))
    (package / "notes.txt").write_text("changed, still not played")
    (package / "__pycache__" / "cached.py").write_text("# another cache")
    assert code_sha256(("playing_package",)) == first
    (package / "table.json").write_text("[1, 3]")
    assert code_sha256(("playing_package",)) != first
    (package / "table.json").write_text("[1, 2]")
    (package / "__init__.py").write_text("RULE = 2\n")
    assert code_sha256(("playing_package",)) != first


def _play_chunk_logged(lineup, candidate, deals, chunk_index):
    """`play_chunk`, noting each batch started in the file ``BATCH_LOG`` names (worker processes write it too)."""
    import os
    import time

    with open(os.environ["BATCH_LOG"], "a") as log:
        log.write(f"{lineup.key} {chunk_index}\n")
    time.sleep(0.05)  # a batch takes a while
    return _PLAY_CHUNK(lineup, candidate, deals, chunk_index)


_PLAY_CHUNK = run.play_chunk


def test_a_run_stopped_by_an_error_starts_no_further_batch_in_its_workers(tmp_path, monkeypatch):
    """An error where the results go (the disk full, say) stops the run: the workers do not play the
    batches not yet started, as they did when leaving the pool waited for every batch."""
    from agents.benchmark.batches import BatchStore

    log = tmp_path / "started.txt"
    monkeypatch.setenv("BATCH_LOG", str(log))
    monkeypatch.setattr(Lineup, "chunk_deals", lambda self, candidate: 2)
    monkeypatch.setattr(run, "play_chunk", _play_chunk_logged)

    def full_disk(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(BatchStore, "save", full_disk)
    doomed = ProtocolRun(KAPERN, "heuristic", (2,), 40, 2, ("random", "heuristic"), batches=tmp_path / "batches")
    with pytest.raises(OSError, match="No space left"):
        run_protocol(doomed)  # 40 batches: 20 of two deals in each line-up
    started = log.read_text().splitlines()
    assert 1 <= len(started) < 20, len(started)
