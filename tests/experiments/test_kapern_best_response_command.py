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


def crafted_npz(path, header: bytes) -> None:
    """An ``.npz`` whose ``mover`` array has the ``.npy`` header ``header`` (a 1.0 header, padded) and 8 bytes."""
    import zipfile

    text = header + b" " * (-(len(header) + 11) % 64) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + bytes(8)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mover.npy", npy)


@pytest.mark.parametrize(
    ("header", "fault"),
    [
        (b"{'descr': '<f8', 'fortran_order': False, 'shape': (10**12,), }", "has no valid .npy header"),
        (b"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", "is declared as"),
        (b"{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((1,),),),),),),),), }", "no valid .npy header"),
        (b"{'descr': [('a', 'O')], 'fortran_order': False, 'shape': (1,), }", "pickles are refused"),
        (b"not a header at all", "no valid .npy header"),
    ],
)
def test_a_crafted_npy_header_is_one_line(tmp_path, capsys, header, fault):
    from tests.helpers import refused

    bad = tmp_path / "bad.npz"
    crafted_npz(bad, header)
    err = refused(capsys, command.main, ["--tables", str(bad)])
    assert "not a best-response file" in err and fault in err, err
