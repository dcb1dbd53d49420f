"""Every command checks where it will write before any work: an output it cannot write (here a folder
of a virtual file system, which even root cannot write into) ends it at once with one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.cli import check_folder, check_output_file
from tests.helpers import refused

#: A place no process can write to: not a real folder of /proc (which permission checks alone pass for root).
UNWRITABLE = "/proc/pirate_envs_nowhere"


def test_the_shared_checks_probe_the_folder_and_make_nothing(tmp_path):
    check_folder(tmp_path / "new" / "deeper", "--out")
    check_output_file(tmp_path / "new" / "a.npz", "--out")
    assert list(tmp_path.iterdir()) == []  # nothing made, the probe removed
    with pytest.raises(ValueError, match=f"--out {UNWRITABLE}/x: cannot write there"):
        check_folder(f"{UNWRITABLE}/x", "--out")
    with pytest.raises(ValueError, match="is a folder; give a file name"):
        check_output_file(tmp_path, "--out")


def _commands(tmp_path: Path) -> dict[str, tuple[str, list[str]]]:
    """name: (module, its command line writing to the unwritable place)."""
    a_zip = tmp_path / "model.zip"
    a_zip.write_bytes(b"")
    out = f"{UNWRITABLE}/out"
    return {
        "benchmark": ("benchmark", ["--env-id", "skull_king_v0", "--agent", "heuristic", "--out", out]),
        "imitate": ("imitate", ["--env-id", "piraten_kapern_v0", "--teacher", "heuristic", "--out", f"{out}.npz"]),
        "export": ("export", ["--checkpoint", str(a_zip), "--out", f"{out}.npz"]),
        "expert_iteration": ("expert_iteration", ["--env-id", "skull_king_v0", "--players", "2", "--out", out]),
        "kapern_race": ("kapern_race", ["--out", f"{out}.npz"]),
        "kapern_best_response": ("kapern_best_response", ["--opponent", "heuristic", "--out", f"{out}.npz"]),
        "exact": ("exact", ["--out", f"{out}.md", "--quick"]),
        "evaluate": ("evaluate", ["--env-id", "skull_king_v0", "--agents", "random", "random", "--out", out]),
        "analyze": ("analyze", ["--env-id", "skull_king_v0", "--agents", "heuristic", "random", "--out", out]),
    }


@pytest.mark.parametrize(
    "name",
    ["benchmark", "imitate", "export", "expert_iteration", "kapern_race", "kapern_best_response", "exact",
     "evaluate", "analyze"],
)  # fmt: skip
def test_an_unwritable_output_is_refused_before_any_work(tmp_path, capsys, name):
    import importlib

    module, argv = _commands(tmp_path)[name]
    main = importlib.import_module(f"experiments.{module}").main
    err = refused(capsys, main, argv)
    assert "--out" in err and "cannot write there" in err, err
