"""Every screen fits 100 columns at every table size of every game, and drawing one never raises.

Random games (uniform by action block, so Kapern's 2,073 re-rolls do not drown its ``stop``)
at every player count each game allows. At every decision and at each game's end: every seat's
screen (``seat_text`` of its view, with the player on turn), the env's full ``render()`` (ansi)
and, once the game is over, its public events as the terminal game writes them.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import pirate_envs
from experiments.play import write_events
from pirate_envs.core.events import record_events
from pirate_envs.core.render import format_table
from pirate_envs.core.text import WIDTH, item_lines, screen, text_module
from tests.games import GAME_IDS
from tests.helpers import play_random_game, supported_player_counts

TABLES = [(env_id, n) for env_id in GAME_IDS for n in supported_player_counts(env_id)]


def assert_fits(text: str, what: str) -> None:
    """Every line of ``text`` is at most :data:`WIDTH` columns (the first one too wide named)."""
    too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not too_wide, f"{what}: a line of {len(too_wide[0])} columns: {too_wide[0]!r}"


def check_screens(env) -> int:
    """Draw every seat's screen and the full render of ``env`` now; the number of screens drawn."""
    game = env.game
    module = text_module(env)
    on_turn = None if game.done else game.current_player
    for seat in range(game.num_players):
        assert_fits(module.seat_text(game.view(seat), on_turn), f"seat {seat}'s screen")
    assert_fits(env.render(), "render()")
    return game.num_players + 1


def play_and_check(env_id: str, num_players: int, games: int) -> int:
    """Play ``games`` random games checking every screen at every step; the screens drawn."""
    env = pirate_envs.make(env_id, raw=True, num_players=num_players, render_mode="ansi")
    record_events(env.game)
    rng = np.random.default_rng(num_players)
    drawn = [0]

    def check(env) -> None:
        drawn[0] += check_screens(env)

    for game in range(games):
        env.reset(seed=game)
        play_random_game(env, rng, check=check)
        assert env.game.done
        drawn[0] += check_screens(env)
        if pirate_envs.game_spec(env_id).has("events"):
            events = io.StringIO()
            assert write_events(env.game, 0, events) > 0
            assert_fits(events.getvalue(), "the events")
    return drawn[0]


@pytest.mark.parametrize(("env_id", "num_players"), TABLES)
def test_every_screen_fits_at_every_table_size(env_id, num_players):
    assert play_and_check(env_id, num_players, games=2) > 2 * (num_players + 1)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "num_players"), TABLES)
def test_every_screen_fits_at_every_table_size_long(env_id, num_players):
    assert play_and_check(env_id, num_players, games=30) > 30 * (num_players + 1)


def test_a_long_line_wraps_under_its_label_instead_of_raising():
    items = [f"player_{s} scary_mary:pirate," for s in range(8)]
    line = "trick: " + " ".join(items) + "; led suit red"
    lines = screen(["title", line, "  " + "x" * 250]).splitlines()
    assert lines[0] == "title" and max(len(line) for line in lines) <= WIDTH
    trick = [part for part in lines if "scary_mary" in part]
    assert len(trick) == 3 and trick[0].startswith("trick: player_0 ")
    assert all(part[:7] == " " * 7 and part[7] != " " for part in trick[1:])  # under the first item
    assert " ".join(" ".join(trick).split()) == " ".join(line.split())  # no word lost or split
    long_word = lines[len(trick) + 1 :]
    assert long_word[0] == "  " + "x" * 98 and all(part.startswith("      x") for part in long_word[1:])
    assert "".join(part.strip() for part in long_word) == "x" * 250
    assert item_lines("hand", ["a"] * 60) == screen(item_lines("hand", ["a"] * 60)).splitlines()


def test_a_wide_table_wraps_its_widest_cells_within_their_columns():
    rows = [["player_0", "yes", " ".join(["green-5"] * 30)], ["player_1", "no", "red-3"]]
    lines = format_table(["seat", "pass", "hand"], rows).splitlines()
    assert max(len(line) for line in lines) <= WIDTH and lines[1].startswith("--------  ----  ----")
    column = lines[0].index("hand")
    assert lines[2].startswith("player_0  yes   green-5") and lines[2][column:].startswith("green-5")
    continued = lines[3 : lines.index(next(line for line in lines if line.startswith("player_1")))]
    assert continued and all(line[:column].isspace() and line[column] == "g" for line in continued)
    assert " ".join(" ".join(line[column:] for line in lines[2:-1]).split()) == rows[0][2]
    assert format_table(["a", "b"], [["x", "y"]]) == "a  b\n-  -\nx  y"  # a narrow table as it was
