"""The terminal player reads typed moves as the one parser does: numbers are values, ``#k`` the menu."""

from __future__ import annotations

import io
import re

from experiments.play import PlayArgs, play


def play_typed(env_id: str, agents: list[str], typed: str, seed: int) -> str:
    """Everything the terminal player writes for ``typed`` (one line per answer) as its stdin."""
    out = io.StringIO()
    play(PlayArgs(env_id=env_id, agents=agents, seed=seed), read=io.StringIO(typed), write=out)
    return out.getvalue()


def test_skull_king_bid_numbers_are_bids_at_every_hand():
    # hand 1: bid 1, play the card; hand 2: bid 2, two cards; hand 3: bid 2 (the menu's #3), then quit
    typed = ["2", "1", "#1", "2", "#1", "#1", "2", "q"]
    text = play_typed("skull_king_v0", ["random", "random"], "\n".join(typed) + "\n", seed=2)
    assert "opponents: player_1 random, player_2 random" in text  # the names typed on the command line
    assert "'2' is not a move: bids are 0 to 1 this hand" in text  # hand 1 holds one card
    assert re.findall(r"bids revealed: player_0 (\d+)", text) == ["1", "2", "2"]
    assert "  #1 bid 0" in text and "  #3 bid 2" in text
    standings = text.split("quit; the standings so far:\n")[1]
    assert sorted(line.split(":")[0].strip() for line in standings.splitlines()) == ["player_0", "player_1", "player_2"]


def test_lucky_pirate_seven_is_the_card_seven_not_the_kraken():
    # seed 12: player_0 leads holding two Krakens, no 7
    text = play_typed("lucky_pirate_v0", ["random"], "7\n10\n1xkraken\nq\n", seed=12)
    first_menu = text.split("your move")[0]
    assert "play 1 x kraken" in first_menu and "your hand: " in first_menu and " 7 " not in first_menu
    assert "'7' is not a move: you hold no 7 in your hand" in text
    assert "'10' could mean: play 1 x kraken, play 2 x kraken" in text.replace("\n    ", " ")
    assert "  * player_0 plays kraken" in text
    assert "quit; the standings so far:" in text


def test_a_card_named_without_a_count_asks_how_many_when_several_may_go():
    """Two Krakens in hand: ``kraken`` asks which move (one or both), as any ambiguous input does."""
    text = play_typed("lucky_pirate_v0", ["random"], "kraken\n2xkraken\nq\n", seed=12)
    asked = text.replace("\n    ", " ").split("'kraken' could mean: ")[1].split("; type one")[0]
    assert asked == "play 1 x kraken, play 2 x kraken"
    assert "(type one of: 1, 1x3, 2x3, 1x4, 2x4, 5, 6, 8, 1xcaptain, 2xcaptain, 1xkraken, 2xkraken)" in text
    assert "  * player_0 plays kraken kraken" in text.split("'kraken' could mean")[1]


def test_ambiguous_input_lists_the_moves_and_asks_again():
    # Kapern seed 1: "2" names every legal re-roll of two dice
    text = play_typed("piraten_kapern_v0", ["heuristic"], "2\nq\n", seed=1)
    asked = re.search(r"'2' could mean: (.+?); type one of them", text.replace("\n    ", " "))
    assert asked and all(label.startswith("reroll ") for label in asked.group(1).split(", ") if label != "...")
    assert "re-rolls" not in text.split("'2' could mean")[1].split("quit")[0]  # nothing was played


def test_end_of_input_shows_the_standings():
    text = play_typed("piratenpoker_v0", ["random", "random"], "", seed=4)
    assert text.endswith("quit; the standings so far:\n  player_0: 0\n  player_1: 0\n  player_2: 0\n")
