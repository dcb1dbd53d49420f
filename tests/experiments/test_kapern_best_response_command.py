"""`python -m experiments.kapern_best_response`: solving, writing the tables, refusing bad values."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.piraten_kapern import best_response as br
from agents.piraten_kapern import race
from experiments import kapern_best_response as command


@pytest.mark.parametrize(
    "argv", [["--opponent", "random"], ["--out", "tables.txt"], ["--tables", "t.json"], ["--play", "-1"]]
)
def test_the_command_refuses_bad_values(argv):
    with pytest.raises(SystemExit) as exit_info:
        command.main(argv)
    assert exit_info.value.code == 2


@pytest.mark.slow
def test_the_command_solves_plays_and_writes_the_tables(monkeypatch, tmp_path, capsys):
    """In the race to 300 points: the figures printed, the tables written data-only."""
    monkeypatch.setattr(race, "TARGET", 3)
    monkeypatch.setattr(race, "FLOOR", -2)
    monkeypatch.setattr(race, "DEFAULT_TARGET", 300)
    out = tmp_path / "br.npz"
    command.main(["--opponent", "heuristic", "--play", "10", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "best response to heuristic" in printed and "in 10 games" in printed
    with np.load(out, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        assert data["mover"].shape == race._shape() and meta["opponent"] == "heuristic"
    assert f"{meta['win_rate']:.6f} with the seats rotated" in printed
    command.main(["--tables", str(out)])
    assert f"{meta['win_rate']:.6f} with the seats rotated" in capsys.readouterr().out  # read, not solved


def test_a_file_that_is_not_a_best_response_is_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, mover=np.zeros((2, 2)), opponent=np.zeros((2, 2)), meta=np.array('{"format": "other"}'))
    with pytest.raises(ValueError, match="not a best-response file"):
        br.load_best_response(bad)
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a best-response file"):
        br.load_best_response(bad)
