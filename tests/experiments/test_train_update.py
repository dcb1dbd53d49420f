"""``train --update sb3``: sb3-contrib's own update (and rollout) on the CPU, saved in the run's config."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from agents.ppo.algorithm import LeanMaskablePPO
from experiments import train
from tests.experiments.test_training_safety import GAME, QUIET, TINY


def test_update_sb3_never_takes_the_lean_path_and_is_saved(tmp_path, monkeypatch, capsys):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the lean path ran under --update sb3")

    monkeypatch.setattr(LeanMaskablePPO, "_collect_lean", refuse)
    monkeypatch.setattr(LeanMaskablePPO, "update_settings", refuse)
    train.main([*GAME, *TINY, *QUIET, "--out-dir", str(tmp_path), "--run-name", "run", "--total-timesteps", "128",
                "--update", "sb3"])  # fmt: skip
    assert json.loads((tmp_path / "run" / "config.json").read_text())["update"] == "sb3"
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["timesteps"] >= 128
    with pytest.raises(AssertionError, match="lean path"):  # the default takes it
        train.main([*GAME, *TINY, *QUIET, "--out-dir", str(tmp_path), "--run-name", "lean", "--total-timesteps", "128"])
    capsys.readouterr()
