"""The golden playthroughs (``tests/playthroughs``): every env id and table size plays exactly its file.

A failure shows the difference as a diff. An intended change of what an env id plays or observes
needs a new env id (the version policy of ``docs/ADDING_A_GAME.md``); then ``python -m
pirate_envs.playthroughs --write`` rewrites the files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pirate_envs import playthroughs
from pirate_envs.playthroughs import difference, expected_files, main, read_header, regenerate

DIRECTORY = Path(__file__).resolve().parent / "playthroughs"
FILES = expected_files(DIRECTORY)
#: The files together stay small (bytes; Lucky Pirate's second version adds about 1.9 MB).
MAX_TOTAL_SIZE = 4_500_000


def test_every_env_id_and_table_size_has_exactly_one_file():
    missing = [path.name for path in FILES if not path.exists()]
    assert not missing, f"write them: python -m pirate_envs.playthroughs --write ({missing})"
    extra = sorted({path.name for path in DIRECTORY.iterdir()} - {path.name for path in FILES})
    assert not extra, f"files of no env id and table size: {extra}"
    assert sum(path.stat().st_size for path in FILES) < MAX_TOTAL_SIZE


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_the_env_plays_its_playthrough(path):
    committed, played = regenerate(path)
    if committed != played:
        pytest.fail(
            "the env no longer plays its golden playthrough. An intended change of play, observations or "
            "rewards needs a new env id (docs/ADDING_A_GAME.md), one of the screens alone not; then rewrite: "
            "python -m pirate_envs.playthroughs --write\n" + difference(path, committed, played),
            pytrace=False,
        )


def test_every_playthrough_ends_its_game():
    for path in FILES:
        assert "== end after " in path.read_text() and ": terminated ==" in path.read_text(), path.name


def _copy_game(tmp_path: Path, env_id: str) -> list[Path]:
    copies = []
    for path in FILES:
        if path.name.startswith(f"{env_id}_"):
            copies.append(Path(shutil.copy(path, tmp_path / path.name)))
    return copies


def test_a_difference_fails_with_a_diff_and_write_restores_the_file(tmp_path, capsys):
    first = _copy_game(tmp_path, "skull_king_v0")[0]
    good = first.read_text()
    first.write_text(good.replace("action: ", "action: not ", 1))
    assert main(["--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 1
    out = capsys.readouterr().out
    assert f"--- {first} (committed)" in out and "-action: not " in out and "+action: " in out
    assert main(["--write", "--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 0
    assert first.read_text() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in FILES if "skull_king" in p.name)
    assert main(["--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 0


def test_a_missing_file_fails_the_check_and_write_makes_it(tmp_path):
    assert main(["--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 1
    assert main(["--write", "--dir", str(tmp_path), "--env-id", "skull_king_v0", "--options", '{"num_hands": 1}']) == 0
    options, seed = read_header((tmp_path / "skull_king_v0_3p.txt").read_text())
    assert options == {"num_hands": 1, "num_players": 3, "reward_mode": "score"} and seed == 0
    assert main(["--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 0


def test_a_new_file_takes_the_first_seed_of_a_short_game(monkeypatch):
    monkeypatch.setattr(playthroughs, "SHORT_GAME", 90)
    seed = playthroughs.short_game_seed("lucky_pirate_v0", {"num_players": 2})
    assert playthroughs._play("lucky_pirate_v0", {"num_players": 2}, seed, 90)[1]
    assert not any(playthroughs._play("lucky_pirate_v0", {"num_players": 2}, s, 90)[1] for s in range(seed))


@pytest.mark.parametrize("text", ["", "# make: [1]\n# reset seed: 0\n", "# make: {}\n"])
def test_a_header_without_options_or_seed_is_a_clear_error(text):
    with pytest.raises(ValueError, match=r"a playthrough starts with '# make:' .* and '# reset seed:' lines"):
        read_header(text)


def test_a_broken_header_is_one_line_naming_the_file(tmp_path, capsys):
    (tmp_path / "skull_king_v0_2p.txt").write_text("no header\n")
    assert main(["--dir", str(tmp_path), "--env-id", "skull_king_v0"]) == 1
    assert f"{tmp_path / 'skull_king_v0_2p.txt'}: a playthrough starts with" in capsys.readouterr().out


def test_bad_options_are_a_one_line_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--write", "--dir", str(tmp_path), "--options", "{num_hands: 2}"])
    assert exit_.value.code == 2 and "is not JSON" in capsys.readouterr().err
