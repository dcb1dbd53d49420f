"""One meaning for every typed move: `pirate_envs.core.text.parse_move` at scripted positions of every game.

Positions come from seeded resets and a fixed rule (the first legal action) played until the
position is reached. What a typed number should mean is derived from the action labels (a
bid's number, a card's value, a re-roll's dice), never from a list written here: a number
naming one legal move plays it, several ask which, none is refused with a reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

import pirate_envs
from pirate_envs.core.text import Ambiguous, Refusal, text_module
from tests.game_data import short_game_entry
from tests.games import GAME_IDS

FIRST_LEGAL_BUDGET = 2_000  # steps of the first-legal rule before a position counts as unreachable


def reach(env_id: str, seed: int, where: Callable[[Any], bool], num_players: int = 3, **kwargs: Any) -> Any:
    """The raw env after a seeded reset and first-legal moves, at the first decision where ``where(env)``."""
    env = pirate_envs.make(env_id, raw=True, num_players=num_players, **kwargs)
    env.reset(seed=seed)
    for _ in range(FIRST_LEGAL_BUDGET):
        if env.game.done:
            break
        if where(env):
            return env
        env.step(env.game.legal_actions()[0])
    raise AssertionError(f"{env_id} seed {seed}: position not reached")


def position(env: Any) -> tuple[Any, Any, list[int], Any]:
    """The text module, the view of the seat on turn, the legal actions and its reader."""
    module = text_module(env)
    game = env.game
    view, legal = game.view(game.current_player), game.legal_actions()
    return module, view, legal, module.Reader(view, legal)


def check_number(env: Any, number: int, expected: list[int]) -> None:
    """``number`` typed names ``expected`` (legal actions): the one move, which of them, or a refusal."""
    module, view, legal, _ = position(env)
    parsed = module.parse_move(str(number), view, legal)
    if len(expected) == 1:
        assert parsed == expected[0], (number, parsed)
    elif expected:
        assert isinstance(parsed, Ambiguous), (number, parsed)
        assert set(parsed.choices) == set(expected)
        assert all(env.action_to_string(a) in parsed.message for a in parsed.choices[:12])
    else:
        assert isinstance(parsed, Refusal) and parsed.reason, (number, parsed)


def check_labels_and_menu(env: Any) -> None:
    """Every label of the menu, in any case, is its move; ``#k`` is menu move k; positions past it are refused."""
    module, view, legal, reader = position(env)
    menu = reader.menu()
    assert menu and set(menu) <= set(legal)
    for k, action in enumerate(menu, start=1):
        label = env.action_to_string(action)
        for typed in (label, label.upper(), f"  {label.title()} "):
            assert module.parse_move(typed, view, legal) == action, typed
        assert module.parse_move(f"#{k}", view, legal) == action
    for bad in ("#0", f"#{len(menu) + 1}", "#x", "#99999"):
        refusal = module.parse_move(bad, view, legal)
        assert isinstance(refusal, Refusal) and f"#{len(menu)}" in refusal.reason, bad


def legal_labelled(env: Any, pattern: str) -> list[int]:
    """The legal actions whose label matches the regular expression ``pattern`` in full."""
    return [a for a in env.game.legal_actions() if re.fullmatch(pattern, env.action_to_string(a))]


# ----------------------------------------------------------------------------- Skull King
def skull_king_bid_at_hand_3() -> Any:
    return reach("skull_king_v0", 5, lambda e: e.game.view(0).hand_number == 3 and e.game.view(0).phase == 0)


def skull_king_follow() -> Any:
    """A decision with a suit to follow, the player holding that suit and another suit card."""

    def must_follow(env: Any) -> bool:
        view = env.game.view(env.game.current_player)
        if view.phase != 1 or not view.has_led_suit:
            return False
        suits = {name.split("-")[0] for name in view.hand_cards() if "-" in name}
        from pirate_envs.skull_king.cards import SUITS

        return SUITS[view.led_suit] in suits and len(suits) > 1

    return reach("skull_king_v0", 1, must_follow, num_players=4)


def test_skull_king_bid_numbers_are_bids():
    env = skull_king_bid_at_hand_3()
    check_labels_and_menu(env)
    for number in range(0, 15):
        check_number(env, number, legal_labelled(env, f"bid {number}"))
    module, view, legal, _ = position(env)
    assert module.parse_move("2", view, legal) == env.unwrapped.actions.from_string("bid 2")  # once: menu #3
    assert module.parse_move("#2", view, legal) == env.unwrapped.actions.from_string("bid 1")
    assert module.parse_move("bid 5", view, legal) == Refusal("bids are 0 to 3 this hand")
    assert module.parse_move("red-7", view, legal) == Refusal("bid first: the cards are played once everybody has bid")


def test_skull_king_card_numbers_are_ranks_and_follow_suit_says_why():
    from pirate_envs.skull_king.cards import SUITS

    env = skull_king_follow()
    check_labels_and_menu(env)
    for number in range(0, 15):
        check_number(env, number, legal_labelled(env, rf"play [a-z]+-{number}"))
    module, view, legal, _ = position(env)
    led = SUITS[view.led_suit]
    follow = [name for name in view.hand_cards() if name.startswith(f"{led}-")]
    off_suit = next(name for name in view.hand_cards() if "-" in name and not name.startswith(f"{led}-"))
    assert module.parse_move(off_suit, view, legal) == Refusal(f"you must follow {led}: you hold {' '.join(follow)}")
    absent = next(f"{s}-{r}" for s in SUITS for r in range(1, 14) if f"{s}-{r}" not in view.hand_cards())
    assert module.parse_move(f"play {absent}", view, legal) == Refusal(f"you hold no {absent}")


def test_skull_king_scary_mary_asks_which_mode():
    env = pirate_envs.make("skull_king_v0", raw=True, num_players=2, num_hands=2)
    env.reset(seed=0, options={"first_hand": 2, "deal": [["red-5", "scary_mary"], ["red-9", "escape"]]})
    env.step(env.game.legal_actions()[0])
    env.step(env.game.legal_actions()[0])
    module, view, legal, _ = position(env)
    parsed = module.parse_move("scary_mary", view, legal)
    assert isinstance(parsed, Ambiguous)
    assert parsed.labels == ("play scary_mary:pirate", "play scary_mary:escape")
    assert parsed.message == "'scary_mary' could mean: play scary_mary:pirate, play scary_mary:escape; type one of them"


# ----------------------------------------------------------------------------- Lucky Pirate
def lucky_pirate_with_the_kraken() -> Any:
    from pirate_envs.lucky_pirate.cards import KRAKEN

    return reach("lucky_pirate_v0", 1, lambda e: bool(e.game.view(e.game.current_player).hand[KRAKEN]))


def test_lucky_pirate_numbers_are_card_values_and_7_is_not_the_kraken():
    from pirate_envs.lucky_pirate.cards import FACE_VALUE, KINDS

    env = lucky_pirate_with_the_kraken()
    check_labels_and_menu(env)
    for number in range(0, 13):
        kinds = "|".join(re.escape(KINDS[k]) for k, value in enumerate(FACE_VALUE) if value == number) or "-"
        # a number names every count of its cards (asking how many when several may go)
        check_number(env, number, legal_labelled(env, rf"play \d+ x ({kinds})|lay ({kinds}) face up"))
    module, view, legal, reader = position(env)
    kraken = env.unwrapped.actions.from_string("play 1 x kraken")
    assert module.parse_move("10", view, legal) == module.parse_move("kraken", view, legal) == kraken
    assert module.parse_move("7", view, legal) != kraken
    assert module.parse_move(f"#{reader.menu().index(kraken) + 1}", view, legal) == kraken


def test_lucky_pirate_pile_rules_say_why():
    from pirate_envs.lucky_pirate.cards import CAPTAIN, FACE_VALUE, KINDS

    def after_a_captain(env: Any) -> bool:
        view = env.game.view(env.game.current_player)
        return view.pile_size > 0 and view.pile_top[0] == CAPTAIN and bool(view.hand[: len(FACE_VALUE)].any())

    env = reach("lucky_pirate_v0", 1, after_a_captain)
    module, view, legal, _ = position(env)
    held = next(KINDS[k] for k in range(8) if view.hand[k])
    assert module.parse_move(held, view, legal) == Refusal("after the Captain only a First Mate or a Porthole")

    def can_play_and_holds_a_low_card(env: Any) -> bool:
        view = env.game.view(env.game.current_player)
        low = [k for k in range(8) if view.hand[k] and FACE_VALUE[k] < view.pile_value]
        return bool(low) and view.pile_mode == 0 and len(env.game.legal_actions()) > 1

    env = reach("lucky_pirate_v0", 2, can_play_and_holds_a_low_card)
    module, view, legal, _ = position(env)
    low = next(KINDS[k] for k in range(8) if view.hand[k] and FACE_VALUE[k] < view.pile_value)
    reason = f"a {low} does not match or beat the pile's value {view.pile_value}"
    assert module.parse_move(low, view, legal) == Refusal(reason)
    pick_up = module.parse_move("pick up the pile", view, legal)
    assert pick_up == Refusal("you pick up the pile only when you cannot play")


# ----------------------------------------------------------------------------- Piratenpoker
def piratenpoker_building_a_bid() -> Any:
    """A bid with a card in it and cards left in hand."""
    return reach("piratenpoker_v0", 4, lambda e: e.game.view(e.game.current_player).bid.any(), num_players=4)


def test_piratenpoker_numbers_are_poker_values_and_bid_rules_say_why():
    env = piratenpoker_building_a_bid()
    check_labels_and_menu(env)
    for number in range(-1, 12):
        check_number(env, number, legal_labelled(env, rf"bid [a-z]+-{number}"))
    module, view, legal, _ = position(env)
    commit = env.unwrapped.actions.from_string("commit bid")
    assert module.parse_move("COMMIT BID", view, legal) == module.parse_move("commit", view, legal) == commit
    assert module.parse_move("pass", view, legal) == Refusal("you have started a bid: pass only before adding a card")
    assert module.parse_move("bid green-5 red-3", view, legal).reason.startswith("one card at a time")
    from pirate_envs.piratenpoker.cards import POKER_NAMES

    absent = next(name for k, name in enumerate(POKER_NAMES) if not view.hand[k])
    assert module.parse_move(f"b {absent}", view, legal) == Refusal(f"you hold no {absent}")


def test_piratenpoker_fresh_bid_and_recipient_seats():
    env = reach("piratenpoker_v0", 4, lambda e: True, num_players=3)
    module, view, legal, _ = position(env)
    empty = module.parse_move("commit bid", view, legal)
    assert empty == Refusal("your bid holds no card yet: add one first (bid <card>)")
    env = reach("piratenpoker_v0", 0, lambda e: e.game.view(0).table.phase == 3, num_players=3)
    module, view, legal, _ = position(env)
    for seat in range(3):
        ahead = (seat - view.table.chooser) % 3
        expected = legal_labelled(env, rf"to seat \+{ahead}" if ahead else "to self")
        check_number(env, seat, expected)
    past_the_table = module.parse_move("to seat +3", view, legal)  # a label of the table, not of this game
    assert isinstance(past_the_table, Refusal) and past_the_table.reason.startswith("not legal now; legal: ")


# ----------------------------------------------------------------------------- Piraten Kapern
def kapern_after_a_roll(card: str = "") -> Any:
    """A first roll with at least three free non-skull dice (the fortune card ``card`` if given)."""

    def rolled(env: Any) -> bool:
        view = env.game.view(env.game.current_player)
        return sum(view.free[:5]) >= 3 and (not card or view.card == card) and len(env.game.legal_actions()) > 1

    return reach("piraten_kapern_v0", 3, rolled, num_players=2)


def reroll_dice(label: str) -> int:
    """How many dice a re-roll label (``reroll coinx2 parrotx1``) takes."""
    return sum(int(n) for n in re.findall(r"x(\d+)", label))


def test_kapern_numbers_are_die_counts():
    env = kapern_after_a_roll()
    check_labels_and_menu(env)
    for number in range(0, 11):
        expected = [a for a in legal_labelled(env, r"reroll .*") if reroll_dice(env.action_to_string(a)) == number]
        check_number(env, number, expected)
    module, view, legal, reader = position(env)
    assert not any(env.action_to_string(a).startswith("reroll") for a in reader.menu())  # named, not listed
    assert module.parse_move("#1", view, legal) == module.parse_move("STOP", view, legal) == 0


def test_kapern_held_dice_and_skulls_say_why_and_the_hint_uses_the_dice_shown():
    from pirate_envs.piraten_kapern.rules import FACES

    env = kapern_after_a_roll()
    module, view, legal, _ = position(env)
    face = next(f for f in range(5) if view.free[f])
    too_many = f"reroll {view.free[face] + 1} {FACES[face]}"
    refusal = module.parse_move(too_many, view, legal)
    assert refusal.reason.startswith(f"not that many free {FACES[face]} dice: you have {view.free[face]};")
    if view.card != "sorceress":
        skull = module.parse_move(f"r 1sk 2{FACES[face][0]}", view, legal)
        assert skull == Refusal("skulls stay put (only the Sorceress re-rolls one)")
    example = re.search(r"e\.g\. '([^']+)'", module.move_hint(view, legal)).group(1)
    assert isinstance(module.parse_move(example, view, legal), int)  # the example is a legal move here
    assert all(f"{FACES[f]}" in module.move_hint(view, legal) for f in range(5) if view.free[f])


# ----------------------------------------------------------------------------- anything else
@pytest.mark.parametrize("env_id", GAME_IDS)
def test_nothing_and_nonsense_are_refused_with_a_hint(env_id):
    env = reach(env_id, 0, lambda e: True, num_players=3)
    module, view, legal, _ = position(env)
    hint = module.move_hint(view, legal)
    for typed in ("", "   ", "zzz-not-a-move", "12345678901", "²", "#"):
        refusal = module.parse_move(typed, view, legal)
        assert isinstance(refusal, Refusal) and refusal.reason and "\n" not in refusal.reason, typed
    assert module.parse_move("", view, legal) == Refusal(f"nothing typed; {hint}")


def test_kapern_dice_held_on_the_chest_say_so():
    from pirate_envs.piraten_kapern.rules import FACES

    env = kapern_after_a_roll("treasure_chest")
    module, view, legal, _ = position(env)
    face = next(f for f in range(5) if view.free[f])
    env.step(module.parse_move(f"put {FACES[face]}", view, legal))
    module, view, legal, _ = position(env)
    free, held = view.free[face], view.chest[face]
    assert held == 1
    label = f"reroll {FACES[face]}x{free + 1}"
    assert module.parse_move(label, view, legal) == Refusal(
        f"not that many free {FACES[face]} dice: you have {free} ({held} held on the chest)"
    )
    assert module.parse_move(f"take {FACES[face]} off chest", view, legal) == env.unwrapped.actions.from_string(
        f"take {FACES[face]} off chest"
    )


def test_a_number_is_a_menu_position_only_where_it_names_nothing_else():
    from pirate_envs.core.actions import ActionTable
    from pirate_envs.core.text import MoveReader, parse_move

    class Compass(MoveReader):
        """A game whose moves carry no number: a bare number can only be a menu position."""

        actions = ActionTable([("go", ["go north", "go east", "go south"])])

    legal = [0, 2]  # the menu: #1 go north, #2 go south
    assert parse_move("2", legal, Compass, None) == parse_move("#2", legal, Compass, None) == 2
    assert parse_move("GO NORTH", legal, Compass, None) == 0
    assert parse_move("3", legal, Compass, None) == Refusal("'3': the menu has moves 1 to 2")
    assert parse_move("go east", legal, Compass, None) == Refusal("not legal now; legal: go north, go south")


@pytest.mark.parametrize("env_id", GAME_IDS)
def test_every_answer_is_a_legal_move_an_ambiguity_among_legal_moves_or_a_refusal(env_id):
    """Over a random game (the Lucky Pirate set-up included), typed numbers, labels and words never raise."""
    import numpy as np

    from pirate_envs.core.actions import action_blocks, sample_legal

    options = short_game_entry(env_id, "typed_moves") or {}  # the game's, in tests/<game>/short_games.json
    env = pirate_envs.make(env_id, raw=True, num_players=3, **options)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    words = ["-4", "+8", "0", "13", "x", "to 1", "r 2", "b 5", "down 1", "lay 5", "scary_mary", "put coin", "keep"]
    for _ in range(150):
        if env.game.done:
            break
        module, view, legal, reader = position(env)
        typed = [*map(str, range(12)), *words, *(env.action_to_string(a) for a in reader.menu()[:5])]
        for text in typed:
            parsed = module.parse_move(text, view, legal)
            if isinstance(parsed, Ambiguous):
                assert len(parsed.choices) > 1 and set(parsed.choices) <= set(legal), text
            elif not isinstance(parsed, Refusal):
                assert parsed in legal, text
        env.step(sample_legal(env.game.legal_mask(), rng, action_blocks(env)))


def test_lucky_pirate_set_up_numbers_and_names_lay_cards_up():
    from pirate_envs.lucky_pirate.cards import FACE_VALUE, KINDS

    env = reach("lucky_pirate_v0", 0, lambda e: e.game.view(e.game.current_player).setting_up, choose_up_cards=True)
    check_labels_and_menu(env)
    module, view, legal, _ = position(env)
    held = next(k for k in range(len(FACE_VALUE)) if view.hand[k] and FACE_VALUE[k] is not None)
    lay = env.unwrapped.actions.from_string(f"lay {KINDS[held]} face up")
    assert module.parse_move(str(FACE_VALUE[held]), view, legal) == module.parse_move(KINDS[held], view, legal) == lay
    assert module.parse_move(f"2x{KINDS[held]}", view, legal) == Refusal("lay your up cards first (lay <card>)")
