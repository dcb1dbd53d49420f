"""`python -m experiments.kapern_race`: checking a race table, refusing bad values."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from agents.piraten_kapern import race
from experiments import kapern_race as command


def test_the_command_checks_a_table_and_refuses_bad_values(capsys):
    command.main(["--check", "--samples", "3", "--play", "2", "--out", str(race.TABLE_PATH)])
    out = capsys.readouterr().out
    first = f"{race.load_race_table().first_player_win:.6f}"
    assert "3 states solved again" in out and "in 2 games" in out and f"win probability {first}" in out
    with pytest.raises(SystemExit) as exit_info:
        command.main(["--out", "table.txt"])
    assert exit_info.value.code == 2
