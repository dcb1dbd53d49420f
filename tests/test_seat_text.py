"""Seat screens: what one seat knows, as text of at most 100 columns, and moves typed by name."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pirate_envs
from agents.base import action_blocks, sample_legal
from pirate_envs.core.text import WIDTH, Refusal, env_seat_text, text_module
from pirate_envs.piraten_kapern.actions import CHEST_PUT_OFFSET, STOP, reroll_action
from pirate_envs.piraten_kapern.rules import FACES
from pirate_envs.skull_king.actions import BID_OFFSET, CARD_OFFSET
from pirate_envs.skull_king.cards import token_index
from tests.games import GAME_IDS


def random_states(env_id: str, games: int = 2, max_steps: int = 600, **kwargs):
    """Yield the raw env at every decision of a few random games, and once more at each end."""
    env = pirate_envs.make(env_id, raw=True, **kwargs)
    rng = np.random.default_rng(0)
    blocks = action_blocks(env)
    for game in range(games):
        env.reset(seed=game)
        steps = 0
        while not env.game.done and steps < max_steps:
            yield env
            env.step(sample_legal(env.game.legal_mask(), rng, blocks))
            steps += 1
        yield env


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_screens_fit_100_columns_and_name_the_turn(env_id):
    module = None
    for env in random_states(env_id):
        module = text_module(env)
        for seat, agent in enumerate(env.possible_agents):
            text = env_seat_text(env, agent)
            assert max(len(line) for line in text.splitlines()) <= WIDTH
            first, second = text.splitlines()[:2]
            assert first.startswith(module.GAME_NAME) and f"you are {agent}" in first
            if env.game.done:
                assert second.startswith("game over")
            elif seat == env.game.current_player:
                assert second.startswith("your turn")
            else:
                assert second.startswith(f"on turn: player_{env.game.current_player}")
    assert module is not None


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_the_screen_is_a_function_of_the_view(env_id):
    """Redraw what a seat cannot see: its View is the same, and so is its screen."""
    module = text_module(pirate_envs.make(env_id, raw=True))
    checked = 0
    for step, env in enumerate(random_states(env_id, games=1, max_steps=200)):
        if step % 7 or env.game.done:
            continue
        for seat in range(env.game.num_players):
            other = copy.deepcopy(env.game)
            other.resample_hidden(seat, np.random.default_rng(step))
            view = env.game.view(seat)
            assert other.view(seat) == view
            assert module.seat_text(other.view(seat)) == module.seat_text(view)
            checked += 1
    assert checked > 10


def table_rows(lines: list[str]) -> dict[str, list[str]]:
    """The players table's rows by seat name, each as its words."""
    rows = {}
    for line in lines:
        words = line.replace(">", " ").split()
        if words and words[0].startswith("player_") and ":" not in line:
            rows[words[0]] = words
    return rows


def test_skull_king_screen_shows_own_cards_only_and_bids_once_revealed():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=3, num_hands=2)
    deal = [["red-5", "pirate"], ["red-9", "escape"], ["black-13", "mermaid"]]
    env.reset(seed=0, options={"first_hand": 2, "deal": deal})  # hand 2: seat 1 deals, seat 2 bids first
    env.step(BID_OFFSET + 2)  # seat 2
    text = env_seat_text(env, "player_0")
    lines = text.splitlines()
    assert lines[0] == "Skull King | hand 2 of 2 | you are player_0"
    assert lines[1] == "your turn: bid"
    assert "your hand: red-5 pirate" in lines
    for hidden in ("red-9", "escape", "black-13", "mermaid"):
        assert hidden not in text
    row_of = table_rows(lines)
    assert row_of["player_2"][-3:] == ["?", "0", "0"]  # seat 2 has bid: hidden
    env.step(BID_OFFSET + 0)  # seat 0
    env.step(BID_OFFSET + 1)  # seat 1: all bids revealed
    lines = env_seat_text(env, "player_0").splitlines()
    bids = {name: row[-3] for name, row in table_rows(lines).items()}
    assert bids == {"player_0": "0", "player_1": "1", "player_2": "2"}
    assert lines[1] == "on turn: player_2 (play a card)"
    env.step(CARD_OFFSET + token_index("black-13"))
    assert "trick: player_2 black-13; led suit black" in env_seat_text(env, "player_0").splitlines()


def test_skull_king_final_standings():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2, num_hands=1)
    env.reset(seed=0, options={"deal": [["red-5"], ["red-9"]]})
    for action in (BID_OFFSET + 1, BID_OFFSET + 1, CARD_OFFSET + token_index("red-9")):
        env.step(action)
    env.step(CARD_OFFSET + token_index("red-5"))
    lines = env_seat_text(env, "player_0").splitlines()
    # seat 1 made his bid of 1 (+20), seat 0 took no trick for a bid of 1 (-10)
    assert lines[1:4] == ["game over: final standings", "  1. player_1: 20  winner", "  2. player_0 (you): -10"]


def kapern_at_first_roll(card: str, **faces: int):
    env = pirate_envs.make("piraten_kapern_v0", raw=True, num_players=2)
    roll = [faces.get(face, 0) for face in FACES]
    env.game.dice_source = lambda n: list(roll) if n == 8 else [0, 0, n, 0, 0, 0]
    env.reset(seed=0, options={"first_card": card})
    return env


def test_kapern_screen_shows_dice_by_face():
    env = kapern_at_first_roll("captain", coin=2, parrot=3, sabre=2, skull=1)
    lines = env_seat_text(env, "player_1").splitlines()
    assert lines[1] == "on turn: player_0 (stop or re-roll, roll 1)"
    assert "fortune card: captain" in lines
    assert "dice: coin coin parrot parrot parrot sabre sabre skull" in lines
    # 2 coins (200, no set) + 3 parrots (100) = 300, doubled by the Captain
    assert "skulls: 1 (3 end the turn); points if stopped now: 600" in lines


def test_kapern_moves_by_naming_dice():
    env = kapern_at_first_roll("treasure_chest", coin=2, parrot=3, sabre=2, skull=1)
    view, legal = env.game.view(0), env.game.legal_actions()
    parse = text_module(env).parse_move
    both = reroll_action([0, 0, 0, 2, 1, 0])
    for typed in ("reroll 2 parrot 1 sabre", "r 2p 1s", "r p p s", "R 2 parrots 1 sabre", "r 1s, 2p"):
        assert parse(typed, view, legal) == both, typed
    assert parse("stop", view, legal) == STOP
    assert parse("put coin", view, legal) == CHEST_PUT_OFFSET + FACES.index("coin")
    for bad, hint in (
        ("r 4p", "not that many free parrot dice: you have 3"),
        ("r 1p", "a re-roll takes two dice or more"),
        ("r 2q", "'q' is not a face"),
        ("r 2 3p", "follows another number"),
        ("r 1sk 1p", "skulls stay put (only the Sorceress re-rolls one)"),
        ("take coin", "no coin die on the chest"),
        ("", "nothing typed"),
    ):
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal) and hint in refusal.reason, (bad, refusal)
        assert "e.g. 'r 2c 1p'" in text_module(env).move_hint(view, legal)  # from the dice on the table


def test_skull_king_moves_by_name():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2, num_hands=2)
    env.reset(seed=0, options={"first_hand": 2, "deal": [["red-5", "scary_mary"], ["red-9", "escape"]]})
    parse = text_module(env).parse_move
    # hand 2 with seat 0 first dealer: seat 1 deals, seat 0 bids first
    assert parse("2", env.game.view(0), env.game.legal_actions()) == BID_OFFSET + 2
    assert parse("3", env.game.view(0), env.game.legal_actions()) == Refusal("bids are 0 to 2 this hand")
    env.step(BID_OFFSET + 2)
    env.step(BID_OFFSET + 0)
    view, legal = env.game.view(0), env.game.legal_actions()
    assert parse("red-5", view, legal) == CARD_OFFSET + token_index("red-5")
    assert parse("play scary_mary:escape", view, legal) == CARD_OFFSET + token_index("scary_mary:escape")
    assert parse("red-9", view, legal) == Refusal("you hold no red-9")
    assert text_module(env).move_hint(view, legal) == "type a card: red-5 scary_mary:pirate scary_mary:escape"


def test_piratenpoker_bid_by_naming_cards_and_hidden_until_revealed():
    from pirate_envs.piratenpoker.actions import ADD, COMMIT, PASS
    from pirate_envs.piratenpoker.cards import POKER_INDEX

    env = pirate_envs.make("piratenpoker_v0", raw=True, num_players=3)
    hands = [["green-5", "green-5", "red-3", "red-8", "yellow-1", "yellow-2"]]
    hands += [["green-4"] * 6, ["yellow-4"] * 6]
    env.reset(seed=0, options={"hands": hands})
    view, legal = env.game.view(0), env.game.legal_actions()
    parse = text_module(env).parse_move
    green5 = ADD + POKER_INDEX["green-5"]
    assert parse("bid green-5", view, legal) == parse("b g5", view, legal) == parse("add g5", view, legal) == green5
    assert parse("pass", view, legal) == PASS
    bad_moves = (
        ("bid g5 r3", "one card at a time"),
        ("b g9", "is not a poker card"),
        ("commit", "your bid holds no card yet"),
        ("b g4", "you hold no green-4"),
    )
    for bad, hint in bad_moves:
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal) and hint in refusal.reason, (bad, refusal)
    assert "e.g. 'bid green-5'" in text_module(env).move_hint(view, legal)
    for typed in ("bid green-5", "bid red-8", "commit bid"):
        env.step(parse(typed, env.game.view(0), env.game.legal_actions()))
    mine = env_seat_text(env, "player_0")
    assert "your bid: green-5 red-8" in mine.splitlines()
    theirs = env_seat_text(env, "player_1")
    assert "red-8" not in theirs and "green-5" not in theirs  # seat 0's hand and bid stay hidden
    assert theirs.splitlines()[1] == "your turn: bid: add cards and commit, or pass"
    env.step(PASS)  # seat 1
    env.step(ADD + POKER_INDEX["yellow-4"])
    env.step(COMMIT)  # seat 2: the bids are revealed, seat 0's 13 wins
    lines = env_seat_text(env, "player_1").splitlines()
    assert lines[1] == "on turn: player_0 (choose a loot card)"
    last = "last bids (overboard, player_0 won): player_0 green-5 red-8; player_1 pass;"
    assert any(line.startswith(last) for line in lines)


def test_lucky_pirate_moves_by_naming_cards():
    from pirate_envs.lucky_pirate.actions import PICK_UP, play_action
    from pirate_envs.lucky_pirate.cards import KIND_INDEX

    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=2)
    deal = [
        {"hand": ["5", "5", "captain", "parrot"], "up": ["1", "2", "3", "4"], "down": ["6", "6", "7", "7"]},
        {"hand": ["8", "8", "kraken", "skip"], "up": ["1", "2", "3", "4"], "down": ["6", "6", "7", "7"]},
    ]
    env.reset(seed=0, options={"deal": deal, "dealer": 1})
    view, legal = env.game.view(0), env.game.legal_actions()
    parse = text_module(env).parse_move
    two_fives = play_action(KIND_INDEX["5"], 2)
    for typed in ("2x5", "5 5", "play 2 x 5", "2 x 5"):
        assert parse(typed, view, legal) == two_fives, typed
    assert parse("cap", view, legal) == play_action(KIND_INDEX["captain"], 1)
    assert parse("play parrot", view, legal) == play_action(KIND_INDEX["parrot"], 1)
    bad_moves = (("3x5", "you hold 2 x 5 in your hand"), ("zz", "'zz' is not a card"), ("5 6", "one kind at a time"))
    for bad, hint in (*bad_moves, ("pick up", "you pick up the pile only when you cannot play")):
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal) and hint in refusal.reason, (bad, refusal)
    assert text_module(env).move_hint(view, legal) == "type one of: 1x5, 2x5, captain, parrot"
    text = env_seat_text(env, "player_0")
    assert "your hand: 5 5 captain parrot" in text.splitlines()
    assert "kraken" not in text and "8" not in text.split("your hand")[1]
    env.step(play_action(KIND_INDEX["captain"], 1))
    assert parse("pick up", env.game.view(1), env.game.legal_actions()) == PICK_UP


# ----------------------------------------------------------------------------- the terminal game
def play_script(env_id: str, agents: list[str], typed: str, seed: int = 1, reveal: bool = False) -> str:
    import io

    from experiments.play import PlayArgs, play

    out = io.StringIO()
    play(PlayArgs(env_id=env_id, agents=agents, seed=seed, reveal=reveal), read=io.StringIO(typed), write=out)
    return out.getvalue()


def test_play_shows_the_seat_screen_and_the_events_and_takes_named_dice():
    text = play_script("piraten_kapern_v0", ["heuristic"], "r 9p\nhello\nr 2m\nq\n")
    assert "your turn: stop or re-roll, roll 1" in text and "  #1 stop" in text
    assert "reroll coinx" not in text  # Kapern's re-rolls are named, not listed
    assert "  * player_0 draws the fortune card gold" in text
    assert "'r 9p' is not a move: not that many free parrot dice: you have " in text
    assert "'hello' is not a move: 'hello' is not a face" in text
    assert "  * player_0 re-rolls 2 monkey" in text  # 'r 2m' was played
    assert max(len(line) for line in text.splitlines() if not line.startswith(("  *", "your move"))) <= WIDTH


def test_play_a_whole_skull_king_game_without_seeing_hidden_bids():
    text = play_script("skull_king_v0", ["random", "random"], "#1\n" * 200, seed=2)
    assert "game over; scores" in text and "game over: final standings" in text
    first_reveal = text.index("  * bids revealed:")
    before = text[:first_reveal]
    assert "(random): bid" not in before and "player_1 has bid" in before
    assert "wins the trick" in text and "(bid " in text  # score changes with their cause
    asked_again = play_script("skull_king_v0", ["random", "random"], "5\nq\n", seed=2)  # hand 1: bids 0 or 1
    assert "'5' is not a move: bids are 0 to 1 this hand" in asked_again


def test_play_a_piratenpoker_bid_by_naming_cards():
    env = pirate_envs.make("piratenpoker_v0", raw=True, num_players=3)
    env.reset(seed=4)
    first = text_module(env).seat_text(env.game.view(0)).split("your hand: ")[1].split()[0]
    text = play_script("piratenpoker_v0", ["random", "random"], f"bid {first}\ncommit bid\nq\n", seed=4)
    assert "  * player_0 has bid" in text
    assert f"  * bids revealed: player_0 [{first}]" in text


@pytest.mark.parametrize("reveal", [False, True])
def test_play_a_six_player_skull_king_game_to_the_end(reveal):
    """Long trick lines at a six-seat table wrap (they once stopped the game with a ValueError)."""
    text = play_script("skull_king_v0", ["random"] * 5, "#1\n" * 200, seed=3, reveal=reveal)
    assert "game over; scores" in text and "player_5" in text
    assert "game over: final standings" in text or reveal
    assert max(len(line) for line in text.splitlines() if not line.startswith("your move")) <= WIDTH


@pytest.mark.parametrize("env_id", pirate_envs.ENV_IDS)  # the play command seats the agents floor's agents
def test_play_writes_no_line_over_100_columns_even_a_refusal(env_id):
    text = play_script(env_id, ["random"] * 4, "hello\nq\n", seed=4)
    assert "'hello' is not a move: " in text and "quit; the standings so far:" in text
    prompt = "q to quit): "  # in a terminal the typed line and its Enter end the prompt's line
    assert max(len(line.split(prompt)[-1]) for line in text.splitlines()) <= WIDTH


# ------------------------------------------------------------- numbers and names out of range
def test_piratenpoker_refuses_a_recipient_seat_the_table_does_not_have():
    from pirate_envs.piratenpoker.actions import RECIPIENT

    env = next(e for e in random_states("piratenpoker_v0", games=5, num_players=4) if e.game.view(0).table.phase == 3)
    chooser = env.game.current_player
    view, legal = env.game.view(chooser), env.game.legal_actions()
    parse = text_module(env).parse_move
    assert parse("to player_3", view, legal) == parse("3", view, legal) == RECIPIENT + (3 - chooser) % 4
    assert parse("to self", view, legal) == parse(f"to player_{chooser}", view, legal) == RECIPIENT
    for bad in ("to player_7", "to 4", "player_4", "to player_10", "to 123", "4"):
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal), bad
        assert "names no seat; the seats are player_0 to player_3; type to and a seat" in refusal.reason


def test_lucky_pirate_refuses_counts_and_down_slots_out_of_range():
    from pirate_envs.lucky_pirate.actions import PICK_UP, play_action
    from pirate_envs.lucky_pirate.cards import KIND_INDEX, MAX_COPIES, MAX_UP_DOWN

    env = pirate_envs.make("lucky_pirate_v0", raw=True, num_players=2)
    deal = [
        {"hand": ["5", "6", "captain", "kraken"], "up": ["1", "2", "3", "4"], "down": ["6", "6", "7", "7"]},
        {"hand": ["8", "8", "kraken", "skip"], "up": ["1", "2", "3", "4"], "down": ["7", "7", "mermaid", "reverse"]},
    ]
    env.reset(seed=0, options={"deal": deal, "dealer": 1})
    view, legal = env.game.view(0), env.game.legal_actions()
    parse = text_module(env).parse_move
    assert play_action(KIND_INDEX["5"], MAX_COPIES + 1) == play_action(KIND_INDEX["6"], 1) in legal  # the trap
    for bad in ("7x5", "5 5 5 5 5 5 5", "12 captain", "0x5", "10x5"):
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal) and f"1 to {MAX_COPIES} cards of a kind" in refusal.reason, bad
        assert "type one of: " in refusal.reason
    env.step(play_action(KIND_INDEX["captain"], 1))
    view, legal = env.game.view(1), env.game.legal_actions()
    assert legal == [PICK_UP]  # after the Captain only a First Mate or a Porthole
    for bad in ("down 5", "down 12", "d 0", "down 99"):
        refusal = parse(bad, view, legal)
        assert isinstance(refusal, Refusal) and f"down-card slots are 1 to {MAX_UP_DOWN}" in refusal.reason, bad
    assert parse("down 1", view, legal) == Refusal("down cards come last: play your hand, then your up cards")
