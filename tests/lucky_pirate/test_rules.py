"""Pure Lucky Pirate helpers, traced by hand from the rule text and the rulings page (docs/rulings.md)."""

from __future__ import annotations

import pytest

from pirate_envs.lucky_pirate.cards import CAPTAIN, DEFAULT_DECK, KIND_INDEX, KINDS
from pirate_envs.lucky_pirate.engine import Config
from pirate_envs.lucky_pirate.rules import EMPTY_TOP, Mode, PileRules, PileTop, legal_plays, pile_top, place

FIVE = KIND_INDEX["5"]
#: The earlier First Mate ruling, kept as an option: only on a Captain.
OLD = PileRules(first_mate_only_on_captain=True)


def test_card_names_and_default_deck():
    names = "1 2 3 4 5 6 7 8 captain kraken first_mate porthole walk_the_plank mermaid parrot reverse skip"
    assert names.split() == list(KINDS)
    assert sum(DEFAULT_DECK.values()) == 60


def test_empty_pile_takes_any_card_and_every_set_size():
    assert legal_plays([], ["3", "3", "captain", "first_mate"]) == [
        ("3", 1),
        ("3", 2),
        ("captain", 1),
        ("first_mate", 1),  # a 9 starts a pile
    ]
    assert legal_plays([], ["3", "first_mate"], OLD) == [("3", 1)]
    lenient = PileRules(first_mate_only_on_captain=True, first_mate_on_empty_pile=True)
    assert legal_plays([], ["first_mate"], lenient) == [("first_mate", 1)]
    assert legal_plays([], ["porthole"], PileRules(porthole_on_empty_pile=False)) == []


def test_numbers_match_or_beat_the_value():
    cards = ["4", "5", "5", "6", "kraken", "captain", "mermaid"]
    assert legal_plays(["5"], cards) == [
        ("5", 1),
        ("5", 2),
        ("6", 1),
        ("captain", 1),
        ("kraken", 1),
        ("mermaid", 1),
    ]


def test_nothing_but_wild_cards_on_a_kraken():
    cards = ["8", "captain", "mermaid", "parrot", "walk_the_plank"]
    assert legal_plays(["kraken"], cards) == [("walk_the_plank", 1), ("mermaid", 1), ("parrot", 1)]


def test_only_first_mate_or_porthole_on_a_captain():
    everything = ["first_mate", "porthole", "kraken", "mermaid", "parrot", "walk_the_plank", "reverse", "skip"]
    assert legal_plays(["3", "captain"], everything) == [("first_mate", 1), ("porthole", 1)]
    assert legal_plays(["3", "captain"], ["captain", "captain"]) == []


def test_first_mate_makes_a_plain_nine():
    assert pile_top(["3", "captain", "first_mate"]) == PileTop(9, Mode.NORMAL)
    cards = ["8", "kraken", "captain", "first_mate"]
    assert legal_plays(["3", "captain", "first_mate"], cards) == [("captain", 1), ("kraken", 1), ("first_mate", 1)]
    assert legal_plays(["3", "captain", "first_mate"], cards, OLD) == [("captain", 1), ("kraken", 1)]
    assert legal_plays(["4"], ["first_mate"], OLD) == []  # the old ruling: only on a Captain


# The First Mate is a 9 that may also go on a Captain: wherever a 9 may (empty pile, any
# effective value up to 9, after a Parrot), and on a Captain, where the top becomes a plain 9.
@pytest.mark.parametrize(
    ("pile", "legal"),
    [
        ([], True),  # empty pile
        (["4"], True),
        (["8"], True),
        (["captain"], True),  # the text: on a Captain
        (["3", "captain", "first_mate"], True),  # a plain 9: a 9 matches it
        (["kraken"], False),  # a 10: a 9 cannot beat it
        (["kraken", "mermaid"], True),  # the Mermaid is a 7
        (["kraken", "parrot"], True),  # after a Parrot any card
        (["kraken", "reverse"], False),  # a Reverse keeps the Kraken's 10
        (["captain", "porthole"], True),  # the Porthole copies the Captain
        (["kraken", "porthole"], False),  # ... or the Kraken
        (["5", "5"], True),
    ],
)
def test_first_mate_goes_wherever_a_nine_may_and_on_a_captain(pile, legal):
    assert legal_plays(pile, ["first_mate"]) == ([("first_mate", 1)] if legal else [])
    # a Captain, the other 9, goes on the same piles but a Captain (a 9 on a 9 only via a First Mate)
    on_captain_mode = pile_top(pile).mode == Mode.CAPTAIN
    assert legal_plays(pile, ["captain"]) == ([("captain", 1)] if legal and not on_captain_mode else [])


def test_old_first_mate_ruling_only_on_a_captain():
    for pile in ([], ["4"], ["kraken", "parrot"], ["kraken", "mermaid"], ["3", "captain", "first_mate"]):
        assert legal_plays(pile, ["first_mate"], OLD) == [], pile
    for pile in (["captain"], ["captain", "porthole"]):
        assert legal_plays(pile, ["first_mate"], OLD) == [("first_mate", 1)], pile


def test_after_a_first_mate_the_top_is_a_plain_nine():
    cards = ["8", "captain", "kraken", "first_mate", "mermaid"]
    expected = [("captain", 1), ("kraken", 1), ("first_mate", 1), ("mermaid", 1)]
    assert pile_top(["first_mate"]) == PileTop(9, Mode.NORMAL)
    assert legal_plays(["first_mate"], cards) == expected
    assert legal_plays(["4", "first_mate"], cards) == expected
    # a First Mate is not a number: it never extends a run of Captains
    assert pile_top(["captain", "first_mate"]).run_length == 0


def test_empty_pile_options_mean_an_empty_pile_only():
    """A Reverse, Skip or Porthole lying on an empty pile has value 0, but the pile is not empty."""
    lenient = PileRules(first_mate_only_on_captain=True, first_mate_on_empty_pile=True)
    no_porthole = PileRules(porthole_on_empty_pile=False)
    for rules in (lenient, no_porthole):
        for pile in (["reverse"], ["skip"], ["porthole"], ["5", "5", "5", "reverse"]):
            assert pile_top(pile, rules) == PileTop(0, Mode.NORMAL), pile
    for pile in (["reverse"], ["skip", "skip"], ["porthole"]):
        assert legal_plays(pile, ["first_mate"], lenient) == [], pile
        assert legal_plays(pile, ["porthole"], no_porthole) == [("porthole", 1)], pile
    # with "reset", a Reverse or Skip drops the value to 0 but leaves the pile non-empty
    reset = {"reverse_skip_value": "reset"}
    lenient_reset = PileRules(first_mate_only_on_captain=True, first_mate_on_empty_pile=True, **reset)
    assert legal_plays(["kraken", "skip"], ["first_mate", "1"], lenient_reset) == [("1", 1)]
    no_porthole_reset = PileRules(porthole_on_empty_pile=False, **reset)
    assert legal_plays(["kraken", "reverse"], ["porthole"], no_porthole_reset) == [("porthole", 1)]
    # truly empty piles: none yet, or cleared
    for pile in ([], ["5", "5", "5"], ["8", "walk_the_plank"]):
        assert pile_top(pile) == EMPTY_TOP
        assert legal_plays(pile, ["first_mate"], lenient) == [("first_mate", 1)]
        assert legal_plays(pile, ["porthole"], no_porthole) == []


def test_porthole_copies_the_card_below():
    assert legal_plays(["captain", "porthole"], ["first_mate", "8"]) == [("first_mate", 1)]
    assert legal_plays(["6", "porthole"], ["5", "6"]) == [("6", 1)]
    assert legal_plays(["kraken", "parrot", "porthole"], ["1"]) == [("1", 1)]
    assert legal_plays(["kraken", "porthole"], ["captain"]) == []
    assert pile_top(["porthole"]) == PileTop(0, Mode.NORMAL)  # value 0, but not an empty pile


def test_mermaid_is_seven_and_not_on_a_captain():
    assert legal_plays(["8", "mermaid"], ["6", "7", "8"]) == [("7", 1), ("8", 1)]
    assert legal_plays(["captain"], ["mermaid"]) == []


def test_parrot_lets_any_card_follow_but_not_on_a_captain():
    assert legal_plays(["kraken", "parrot"], ["1", "captain"]) == [("1", 1), ("captain", 1)]
    assert legal_plays(["kraken", "parrot"], ["first_mate"], OLD) == []
    assert legal_plays(["captain"], ["parrot"]) == []


def test_reverse_and_skip_keep_the_value():
    assert legal_plays(["6", "reverse"], ["5", "6"]) == [("6", 1)]
    assert legal_plays(["6", "skip", "skip"], ["5", "6"]) == [("6", 1)]
    assert legal_plays(["captain"], ["reverse", "skip"]) == []
    reset = PileRules(reverse_skip_value="reset")
    assert legal_plays(["6", "reverse"], ["5", "6"], reset) == [("5", 1), ("6", 1)]


def test_walk_the_plank_clears():
    assert place(pile_top(["4", "8"]), KIND_INDEX["walk_the_plank"], 1) == (EMPTY_TOP, True)
    assert legal_plays(["3", "captain"], ["walk_the_plank"]) == []


def test_three_equal_numbers_in_a_row_clear():
    assert pile_top(["5", "5"]) == PileTop(5, Mode.NORMAL, FIVE, 2)
    assert place(pile_top(["5", "5"]), FIVE, 1) == (EMPTY_TOP, True)
    assert place(pile_top(["5"]), FIVE, 2) == (EMPTY_TOP, True)
    assert place(EMPTY_TOP, FIVE, 3) == (EMPTY_TOP, True)
    assert place(EMPTY_TOP, FIVE, 2) == (PileTop(5, Mode.NORMAL, FIVE, 2), False)
    kraken = KIND_INDEX["kraken"]
    assert place(pile_top(["kraken", "kraken"]), kraken, 1) == (EMPTY_TOP, True)


def test_a_porthole_or_other_card_interrupts_the_run():
    # the text's example: two numbers, a Porthole, two more: no clear
    assert pile_top(["5", "5", "porthole", "5", "5"]) == PileTop(5, Mode.NORMAL, FIVE, 2)
    seven = KIND_INDEX["7"]
    assert pile_top(["7", "7", "mermaid"]) == PileTop(7, Mode.NORMAL)
    assert place(pile_top(["7", "7", "mermaid"]), seven, 1) == (PileTop(7, Mode.NORMAL, seven, 1), False)
    assert pile_top(["3", "3", "reverse", "3"]).run_length == 1


def test_three_captains_clear_unless_the_option_says_no():
    assert place(EMPTY_TOP, CAPTAIN, 3) == (EMPTY_TOP, True)
    rules = PileRules(captain_counts_in_runs=False)
    assert place(EMPTY_TOP, CAPTAIN, 3, rules) == (PileTop(9, Mode.CAPTAIN), False)


def test_unknown_card_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown card 'ace'"):
        legal_plays([], ["ace"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"wins_to_win": 0}, "wins_to_win"),
        ({"max_turns": 0}, "max_turns"),
        ({"reverse_skip_value": "flip"}, "reverse_skip_value"),
        ({"plank_plays_again": 1}, "plank_plays_again"),
        ({"deck": {"joker": 2}}, "deck kind"),
        ({"deck": {**DEFAULT_DECK, "5": 7}}, "deck\\['5'\\]"),
        ({"deck": {"1": 4}}, "deck has 4 cards"),
    ],
)
def test_config_errors_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Config(**kwargs)


def test_config_defaults_follow_the_rulings_page():
    config = Config()
    assert config.num_players == 4 and config.up_down == 3 and config.deck_size == 60
    assert [Config(num_players=n).up_down for n in range(2, 7)] == [4, 4, 3, 2, 2]
    assert config.pile_rules == PileRules()
