"""The benchmark's batches as Ray tasks: a local Ray head on 127.0.0.1 plays the figures ``--workers`` plays."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")
pytest.importorskip("ray")

from agents.benchmark import protocol
from agents.benchmark.batches import BatchStore
from agents.benchmark.run import ProtocolRun, run_protocol
from experiments import benchmark
from tests.agents.test_benchmark import without_compute

KAPERN = "piraten_kapern_v0"


def batch_arrays(folder) -> dict:
    """Every kept batch file's arrays, by file name."""
    kept = {}
    for path in sorted(folder.glob("*.npz")):
        with np.load(path, allow_pickle=False) as batch:
            arrays = [name for name in batch.files if name not in ("machine", "counters")]
            kept[path.name] = {name: batch[name].tolist() for name in arrays}
    return kept


def played(document: dict) -> dict:
    """What the games gave: the document without timings, provenance and the command's rank."""
    return {key: value for key, value in without_compute(document).items() if key != "rank"}


def test_ray_tasks_give_the_figures_and_batches_of_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "CHUNK_DEALS", 3)  # several batches: 3 + 3 + 1 deals per line-up
    plan = ProtocolRun(KAPERN, "random", (2,), 7, 2, ("random", "heuristic"), batches=tmp_path / "workers")
    with_workers = run_protocol(plan)
    out = tmp_path / "ray"  # the command, its batches as tasks of a Ray head of 1 CPU on 127.0.0.1
    argv = ["--env-id", KAPERN, "--agent", "random", "--players", "2", "--deals", "7"]
    with_ray = benchmark.main([*argv, "--opponents", "random", "heuristic", "--ray", "local", "--out", str(out)])
    assert with_ray["rank"][0]["ranked"] is False  # the command ranks (a reduced run: not); the API call does not
    assert played(with_ray) == played(with_workers)
    assert played(json.loads((out / "results.json").read_text())) == played(with_workers)
    kept = batch_arrays(out / "batches")
    assert kept == batch_arrays(tmp_path / "workers") and len(kept) == 6
    ray_record = with_ray["provenance"]["ray"]
    assert ray_record["batches"] == 6 and sum(m["batches"] for m in ray_record["machines"]) == 6
    assert with_ray["provenance"]["cpu_seconds"] >= sum(m["cpu_seconds"] for m in ray_record["machines"]) > 0
    assert "ray" not in with_workers["provenance"]
    store = BatchStore(out / "batches", {})
    assert all(json.loads(str(np.load(p)["machine"]))["cpus"] for p in store.folder.glob("*.npz"))
    import ray

    assert not ray.is_initialized()  # the instance started for the run is shut down after it


def test_workers_with_a_cluster_address_are_refused_in_one_line():
    with pytest.raises(ValueError, match="--workers 2 with --ray 'auto'"):
        benchmark.check(benchmark.BenchmarkArgs(env_id=KAPERN, agent="random", ray="auto", workers=2, out="x"))
    with pytest.raises(ValueError, match="workers=2 with ray='auto'"):
        run_protocol(ProtocolRun(KAPERN, "random", (2,), 1, 2, ("random",), ray="auto"))


def test_ray_is_refused_for_a_leaderboard(tmp_path, capsys):
    with pytest.raises(SystemExit):
        benchmark.main(["--leaderboard", str(tmp_path / "board.md"), "--ray", "auto"])
    assert "--ray: a --leaderboard run plays every game and agent; leave it out" in capsys.readouterr().err
