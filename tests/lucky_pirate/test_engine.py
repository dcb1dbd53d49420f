"""Lucky Pirate engine: hand-traced turns and whole games from chosen deals."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from pirate_envs.lucky_pirate.actions import ACTIONS, LAY_UP_OFFSET, PICK_UP, down_action, play_action
from pirate_envs.lucky_pirate.cards import DEFAULT_DECK, KIND_INDEX, KINDS, MAX_COPIES, NUM_KINDS
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.rules import Mode

FILLER = {"up": ["1"], "down": ["2"]}  # keeps a seat in the game while its hand empties
#: A deck large enough for every scripted deal (the deck only bounds what a deal may use).
BIG_DECK = dict.fromkeys(KINDS, MAX_COPIES)
#: The earlier First Mate ruling, kept as an option: only on a Captain.
OLD_FIRST_MATE = {"first_mate_only_on_captain": True}


def start(deal, dealer=None, pile=(), **config) -> LuckyPirateEngine:
    """An engine reset to a chosen deal (the seat left of ``dealer`` plays first)."""
    n = len(deal)
    config.setdefault("deck", BIG_DECK)
    game = LuckyPirateEngine(Config(num_players=n, **config))
    options = {"deal": deal, "dealer": n - 1 if dealer is None else dealer}
    if pile:
        options["pile"] = list(pile)
    game.reset(np.random.default_rng(0), options)
    return game


def legal(game: LuckyPirateEngine) -> list[str]:
    return [ACTIONS.to_string(a) for a in game.legal_actions()]


def play(game: LuckyPirateEngine, card: str, count: int = 1) -> None:
    action = play_action(KIND_INDEX[card], count)
    assert action in game.legal_actions(), f"{ACTIONS.to_string(action)} not in {legal(game)}"
    game.apply(action)


def hand(game: LuckyPirateEngine, seat: int) -> dict[str, int]:
    return {KINDS[k]: int(c) for k, c in enumerate(game.hands[seat]) if c}


def test_must_play_a_legal_set_and_pick_up_only_when_stuck():
    game = start([{"hand": ["8", "2"], **FILLER}, {"hand": ["3", "4"], **FILLER}, {"hand": ["5", "6"], **FILLER}])
    assert game.current_player == 0
    assert legal(game) == ["play 1 x 2", "play 1 x 8"]
    play(game, "8")
    assert game.current_player == 1
    assert legal(game) == ["pick up the pile"]
    game.apply(PICK_UP)
    assert hand(game, 1) == {"3": 1, "4": 1, "8": 1}
    assert game.pile == [] and game.top.value == 0
    assert game.current_player == 2  # the next player starts a new pile
    assert legal(game) == ["play 1 x 5", "play 1 x 6"]


def test_hand_first_then_up_cards_then_down_cards_blind():
    # seat 0 cannot beat the 7 from its hand: it must pick up even though its Kraken (up) could
    game = start([{"hand": ["2"], "up": ["kraken"], "down": ["3"]}, {"hand": ["4"], **FILLER}], pile=["7"])
    assert legal(game) == ["pick up the pile"]
    # hand empty: the up cards are the source
    game = start([{"up": ["kraken", "2"], "down": ["3", "6"]}, {"hand": ["4"], **FILLER}], pile=["7"])
    assert legal(game) == ["play 1 x kraken"]
    # only down cards: every remaining slot may be chosen, blind
    game = start([{"down": ["3", "kraken"]}, {"hand": ["4"], **FILLER}], pile=["7"])
    assert legal(game) == ["play down card 1 blind", "play down card 2 blind"]


def test_blind_down_card_that_fails_goes_into_the_hand_with_the_pile():
    game = start([{"down": ["3", "kraken"]}, {"hand": ["4", "6"], **FILLER}], pile=["5", "7"])
    game.apply(down_action(0))  # the 3 cannot beat the 7
    assert hand(game, 0) == {"3": 1, "5": 1, "7": 1}
    assert game.downs[0] == [-1, KIND_INDEX["kraken"]] and game.down_left[0] == 1
    assert game.pile == [] and game.current_player == 1
    assert game.view(1).known[1].tolist() == game.hands[0].tolist()  # all three went in face up


def test_blind_down_card_that_plays_can_win_the_game():
    game = start([{"down": ["kraken"]}, {"hand": ["4"], **FILLER}], pile=["8"])
    game.apply(down_action(0))
    assert game.terminated and not game.truncated
    assert game.winners() == [0]
    assert game.scores().tolist() == [1.0, 0.0]


def test_three_in_a_row_across_players_clear_and_the_clearer_plays_again():
    deal = [{"hand": ["5", "2"], **FILLER}, {"hand": ["5", "5", "3"], **FILLER}, {"hand": ["6"], **FILLER}]
    game = start(deal)
    play(game, "5")
    play(game, "5", 2)
    assert game.pile == [] and game.top.value == 0
    assert game.removed[KIND_INDEX["5"]] == 3 and game.removed.sum() == 3
    assert game.current_player == 1
    game = start(deal, run_clear_plays_again=False)
    play(game, "5")
    play(game, "5", 2)
    assert game.current_player == 2


def test_porthole_interrupts_the_run():
    deal = [{"hand": ["5", "5", "2"], **FILLER}, {"hand": ["porthole", "3"], **FILLER}, {"hand": ["5", "5"], **FILLER}]
    game = start(deal)
    play(game, "5", 2)
    play(game, "porthole")
    assert (game.top.value, game.top.run_length) == (5, 0)
    play(game, "5", 2)  # 5 5 porthole 5 5: not three in a row
    assert len(game.pile) == 5 and game.top.run_length == 2 and game.removed.sum() == 0
    assert game.current_player == 0


def test_walk_the_plank_clears_and_its_player_plays_again():
    deal = [{"hand": ["kraken", "2"], **FILLER}, {"hand": ["walk_the_plank", "3"], **FILLER}, {"hand": ["6"], **FILLER}]
    game = start(deal, pile=["4"])
    play(game, "kraken")
    play(game, "walk_the_plank")
    assert game.pile == [] and game.current_player == 1
    removed = {k: int(game.removed[KIND_INDEX[k]]) for k in ("4", "kraken", "walk_the_plank")}
    assert removed == {"4": 1, "kraken": 1, "walk_the_plank": 1} and game.removed.sum() == 3
    game = start(deal, pile=["4"], plank_plays_again=False)
    play(game, "kraken")
    play(game, "walk_the_plank")
    assert game.current_player == 2


def test_captain_first_mate_and_porthole():
    deal = [
        {"hand": ["captain", "2"], **FILLER},
        {"hand": ["first_mate", "8", "porthole"], **FILLER},
        {"hand": ["kraken", "captain", "8"], **FILLER},
    ]
    game = start(deal, pile=["6"])
    play(game, "captain")
    assert legal(game) == ["play 1 x first_mate", "play 1 x porthole"]
    play(game, "porthole")  # copies the Captain
    assert (game.top.value, game.top.mode) == (9, Mode.CAPTAIN)
    assert legal(game) == ["pick up the pile"]
    game = start(deal, pile=["6"])
    play(game, "captain")
    play(game, "first_mate")  # a plain 9 now
    assert (game.top.value, game.top.mode) == (9, Mode.NORMAL)
    assert legal(game) == ["play 1 x captain", "play 1 x kraken"]
    play(game, "kraken")
    assert legal(game) == ["pick up the pile"]  # seat 0: a 2, and no Captain on a Kraken


def test_mermaid_and_parrot():
    deal = [{"hand": ["mermaid", "2"], **FILLER}, {"hand": ["6", "7", "parrot"], **FILLER}, {"hand": ["3"], **FILLER}]
    game = start(deal, pile=["kraken"])
    play(game, "mermaid")
    assert game.top.value == 7
    assert legal(game) == ["play 1 x 7", "play 1 x parrot"]
    play(game, "parrot")
    assert (game.top.value, game.top.mode) == (0, Mode.FREE)
    assert legal(game) == ["play 1 x 3"]


def test_reverse_and_skip_change_who_plays_next():
    deal = [
        {"hand": ["reverse", "4"], **FILLER},
        {"hand": ["skip", "skip", "6"], **FILLER},
        {"hand": ["reverse", "reverse", "7"], **FILLER},
        {"hand": ["skip", "8"], **FILLER},
    ]
    game = start(deal, pile=["3"])
    play(game, "reverse")
    assert (game.direction, game.current_player, game.top.value) == (-1, 3, 3)
    play(game, "skip")  # seat 2 is skipped
    assert game.current_player == 1
    play(game, "skip", 2)  # seats 0 and 3 are skipped
    assert game.current_player == 2
    play(game, "reverse", 2)  # two Reverses cancel out
    assert (game.direction, game.current_player) == (-1, 1)
    assert game.top.value == 3 and len(game.pile) == 7


def test_whole_two_player_game_from_a_chosen_deal():
    game = start([{"hand": ["2"], "up": ["4"], "down": ["kraken"]}, {"hand": ["3"], "up": ["1"], "down": ["6"]}])
    assert game.current_player == 0
    play(game, "2")
    play(game, "3")
    play(game, "4")  # seat 0's hand is empty: an up card
    assert legal(game) == ["pick up the pile"]  # seat 1's up 1 cannot beat the 4
    game.apply(PICK_UP)
    assert hand(game, 1) == {"2": 1, "3": 1, "4": 1}
    assert legal(game) == ["play down card 1 blind"]
    game.apply(down_action(0))  # the Kraken starts the new pile: seat 0 is out of cards
    assert game.terminated and game.winners() == [0] and game.guard.turns == 4


def test_tournament_the_winner_deals_the_next_game():
    game = start(
        [{"down": ["kraken"]}, {"hand": ["4"], **FILLER}, {"hand": ["5"], **FILLER}], pile=["8"], wins_to_win=2
    )
    game.apply(down_action(0))
    assert not game.terminated and game.wins.tolist() == [1, 0, 0]
    assert game.dealer == 0 and game.current_player == 1 and game.direction == 1
    assert game.hand_size.sum() + game.up_size.sum() + game.down_left.sum() == 6 * NUM_KINDS  # a full deal
    assert game.scores().tolist() == [1.0, 0.0, 0.0] and game.winners() == []


@pytest.mark.parametrize(("n", "down", "hand_size"), [(2, 4, 12), (3, 4, 12), (4, 3, 9), (5, 2, 8), (6, 2, 6)])
def test_random_deal_sizes_and_card_conservation(n, down, hand_size):
    game = LuckyPirateEngine(Config(num_players=n))
    game.reset(np.random.default_rng(n))
    assert game.down_left.tolist() == [down] * n and game.up_size.tolist() == [down] * n
    assert game.hand_size.tolist() == [hand_size] * n
    downs = np.bincount([k for d in game.downs for k in d], minlength=NUM_KINDS)
    total = game.hands.sum(0) + game.ups.sum(0) + downs + game.set_aside
    assert total.tolist() == [DEFAULT_DECK[k] for k in DEFAULT_DECK]
    assert game.set_aside.sum() == (20 if n == 2 else 0)


def test_chosen_deal_errors():
    game = LuckyPirateEngine(Config(num_players=2))  # the default deck: two Parrots
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="has 1 items; expected a list of 2 mappings"):
        game.reset(rng, {"deal": [{"hand": ["1"]}]})
    with pytest.raises(ValueError, match="deal: parrot is given 3 times; the deck holds 2"):
        game.reset(rng, {"deal": [{"hand": ["parrot"] * 2}, {"hand": ["parrot"]}]})
    with pytest.raises(ValueError, match="unknown zone"):
        game.reset(rng, {"deal": [{"hands": ["1"]}, {}]})
    with pytest.raises(ValueError, match="needs a chosen 'deal'"):
        game.reset(rng, {"pile": ["1"]})


def test_turn_limit_truncates():
    game = start(
        [{"hand": ["first_mate"], **FILLER}, {"hand": ["first_mate"], **FILLER}],
        max_turns=3,
        first_mate_on_empty_pile=True,
        **OLD_FIRST_MATE,
    )
    play(game, "first_mate")  # with the option, a First Mate may start an empty pile
    assert legal(game) == ["pick up the pile"]  # a First Mate only goes on a Captain
    game.apply(PICK_UP)
    assert hand(game, 1) == {"first_mate": 2} and not game.done
    play(game, "1")  # seat 0's up card; the third turn reaches the guard
    assert game.truncated and not game.terminated and game.winners() == []
    assert game.truncation_reason == "turn limit"


def test_resample_hidden_keeps_what_the_seat_sees():
    game = LuckyPirateEngine(Config(num_players=3))
    game.reset(np.random.default_rng(5))
    for _ in range(10):
        game.apply(game.legal_actions()[0])
    before = game.view(1)
    sizes = (game.hand_size.copy(), game.down_left.copy())
    game.resample_hidden(1, np.random.default_rng(9))
    assert game.view(1) == before
    assert (game.hand_size.tolist(), game.down_left.tolist()) == (sizes[0].tolist(), sizes[1].tolist())
    assert [int(game.hands[q].sum()) for q in range(3)] == game.hand_size.tolist()


def test_two_players_a_skip_lets_the_player_play_again():
    game = start([{"hand": ["skip", "4"], **FILLER}, {"hand": ["6"], **FILLER}], pile=["3"])
    play(game, "skip")
    assert game.current_player == 0 and game.top.value == 3


def test_first_dealer_option_and_random_dealer():
    game = LuckyPirateEngine(Config(num_players=5, first_dealer=2))
    game.reset(np.random.default_rng(0))
    assert (game.dealer, game.current_player) == (2, 3)
    dealers = set()
    game = LuckyPirateEngine(Config(num_players=5))
    for seed in range(40):
        game.reset(np.random.default_rng(seed))
        dealers.add(game.dealer)
        assert game.current_player == (game.dealer + 1) % 5
    assert dealers == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("choose_up_cards", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_tournament_conserves_cards_and_counts(n, choose_up_cards):
    config = Config(num_players=n, wins_to_win=2, max_turns=3000, choose_up_cards=choose_up_cards)
    game = LuckyPirateEngine(config)
    deck = np.array([DEFAULT_DECK[k] for k in KINDS])
    rng = np.random.default_rng(n)
    for _ in range(3):
        game.reset(rng)
        while not game.done:
            downs = np.bincount([k for d in game.downs for k in d if k >= 0], minlength=NUM_KINDS)
            on_table = game.hands.sum(0) + game.ups.sum(0) + downs + game.pile_counts
            assert (on_table + game.removed + game.set_aside).tolist() == deck.tolist()
            assert game.hands.sum(1).tolist() == game.hand_size.tolist()
            assert game.ups.sum(1).tolist() == game.up_size.tolist()
            assert len(game.pile) == game.pile_counts.sum()
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        if game.terminated:
            assert game.wins.max() == 2 and game.winners() == [int(game.wins.argmax())]


def test_chosen_up_cards_are_laid_in_turn_and_hidden_until_all_are_laid():
    game = LuckyPirateEngine(Config(num_players=3, choose_up_cards=True, first_dealer=2))
    game.reset(np.random.default_rng(4))
    assert game.setting_up and game.up_size.tolist() == [0, 0, 0]
    assert game.hand_size.tolist() == [16, 16, 16] and game.down_left.tolist() == [4, 4, 4]
    assert game.current_player == 0
    labels = legal(game)
    assert labels and all(label.startswith("lay ") for label in labels)
    held = {KINDS[k] for k in np.flatnonzero(game.hands[0])}
    assert {label.split()[1] for label in labels} == held
    kind = int(np.flatnonzero(game.hands[0])[0])
    for _ in range(4):
        game.apply(LAY_UP_OFFSET + kind if game.hands[0, kind] else game.legal_actions()[0])
    assert game.current_player == 1 and game.up_size.tolist() == [4, 0, 0]
    view = game.view(1)
    assert not view.up[2].any() and view.setting_up  # seat 0's up cards are hidden from seat 1
    assert game.view(0).up[0].sum() == 4  # but not from seat 0
    resampled = copy.deepcopy(game)
    resampled.resample_hidden(1, np.random.default_rng(1))
    assert resampled.view(1) == view and resampled.up_size.tolist() == [4, 0, 0]
    for _ in range(8):
        game.apply(game.legal_actions()[0])
    assert not game.setting_up and game.up_size.tolist() == [4, 4, 4]
    assert game.hand_size.tolist() == [12, 12, 12] and game.current_player == 0
    assert game.view(1).up[2].sum() == 4
    assert legal(game)[0].startswith("play ")


def test_under_the_old_ruling_a_first_mate_cannot_start_a_pile():
    """The option ``first_mate_only_on_captain``: playable only on a Captain, so not on an empty pile."""
    game = start([{"hand": ["first_mate", "2"], **FILLER}, {"hand": ["6"], **FILLER}], **OLD_FIRST_MATE)
    assert legal(game) == ["play 1 x 2"]


def stuck_on_kraken(*deal, **config):
    """A chosen deal with a Kraken on the pile; player_0 cannot follow it and picks it up (old ruling)."""
    config = {**OLD_FIRST_MATE, **config}
    game = start(list(deal), pile=["kraken"], **config)
    assert legal(game) == ["pick up the pile"]
    game.apply(PICK_UP)
    return game


def test_stranded_first_mates_truncate_the_game_at_once():
    # Every Captain is out of the game (put aside: the deal holds none) and both seats hold a
    # First Mate, which may be played only on a Captain: nobody can ever shed his last card.
    game = stuck_on_kraken({"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "5"]})
    assert game.truncated and not game.terminated and game.truncation_reason == "stranded First Mates"
    assert game.guard.turns == 1 and game.winners() == []
    assert "truncated: stranded First Mates" in game.render()


def test_a_captain_behind_a_first_mate_cannot_save_the_game():
    # player_0's only Captain is an up card, behind the First Mate in his hand
    game = stuck_on_kraken({"hand": ["first_mate", "3"], "up": ["captain"]}, {"hand": ["first_mate", "5"]})
    assert game.truncation_reason == "stranded First Mates"
    # a down Captain behind a First Mate among the up cards
    game = stuck_on_kraken({"hand": ["3"], "up": ["first_mate"], "down": ["captain"]}, {"hand": ["first_mate", "5"]})
    assert game.truncation_reason == "stranded First Mates"


def test_first_mates_are_not_stranded_while_a_captain_can_reach_the_pile():
    ok = [
        # a Captain in a hand
        [{"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "captain", "5"]}],
        # an up Captain with no First Mate in front of it (player_0's First Mate is a down card)
        [{"hand": ["3"], "up": ["captain"], "down": ["first_mate"]}, {"hand": ["first_mate", "5"]}],
        # a seat with no First Mate can still win
        [{"hand": ["first_mate", "3"]}, {"hand": ["4", "5"]}],
    ]
    for deal in ok:
        game = stuck_on_kraken(*deal)
        assert not game.done, deal
    # the option that lets a First Mate start an empty pile: never stranded
    game = stuck_on_kraken({"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "5"]}, first_mate_on_empty_pile=True)
    assert not game.done
    # checked only once the pile is empty: a play that leaves cards on the pile goes on
    game = start([{"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "5"]}], **OLD_FIRST_MATE)
    play(game, "3")
    assert not game.done


def test_no_stranding_is_declared_during_the_set_up():
    game = start([{"hand": ["first_mate", "captain", "3"]}, {"hand": ["first_mate", "5", "6"]}], **OLD_FIRST_MATE)
    game.setting_up, game.to_lay[:] = True, [2, 1]  # as the choose_up_cards set-up leaves it
    game.apply(LAY_UP_OFFSET + KIND_INDEX["captain"])  # the Captain goes up behind the First Mate...
    assert not game.done
    game.apply(LAY_UP_OFFSET + KIND_INDEX["first_mate"])  # ...which follows it face up: nothing blocks it
    assert not game.done


def test_first_mate_is_a_nine_by_default_hand_traced():
    # player_0 (left of the dealer) starts: its First Mate may start the pile as a 9
    deal = [{"hand": ["first_mate", "2"], **FILLER}, {"hand": ["8", "captain", "first_mate"], **FILLER}]
    game = start(deal)
    assert legal(game) == ["play 1 x 2", "play 1 x first_mate"]
    play(game, "first_mate")
    assert (game.top.value, game.top.mode, game.top.run_length) == (9, Mode.NORMAL, 0)
    # player_1: the 8 cannot beat a 9; a Captain may follow, and so may a First Mate (a 9 on a 9)
    assert legal(game) == ["play 1 x captain", "play 1 x first_mate"]
    play(game, "captain")
    assert legal(game) == ["pick up the pile"]  # player_0: a 2 on a Captain
    game.apply(PICK_UP)
    assert hand(game, 0) == {"2": 1, "captain": 1, "first_mate": 1}
    # player_1 starts a new pile with its First Mate: a plain 9 again
    play(game, "first_mate")
    assert legal(game) == ["play 1 x captain", "play 1 x first_mate"]
    play(game, "captain")
    # player_1's 8 cannot go on the Captain; only a First Mate or a Porthole could
    assert legal(game) == ["pick up the pile"]


def test_first_mate_on_a_kraken_only_after_a_mermaid_or_parrot():
    deal = [{"hand": ["first_mate", "3"], **FILLER}, {"hand": ["mermaid"], **FILLER}]
    assert legal(start(deal, pile=["kraken"])) == ["pick up the pile"]
    assert legal(start(deal, pile=["kraken", "mermaid"])) == ["play 1 x first_mate"]  # a 7 now
    assert legal(start(deal, pile=["kraken", "parrot"])) == ["play 1 x 3", "play 1 x first_mate"]


def test_stranding_is_checked_only_under_the_old_ruling():
    # the stranded deal of the old ruling: under the new default the First Mates start piles
    deal = [{"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "5"]}]
    game = start(deal, pile=["kraken"])
    game.apply(PICK_UP)
    assert not game.done and legal(game) == ["play 1 x 5", "play 1 x first_mate"]
    play(game, "first_mate")
    assert legal(game) == ["play 1 x kraken", "play 1 x first_mate"]  # player_0 took the Kraken
    play(game, "first_mate")  # a 9 on a 9
    assert legal(game) == ["pick up the pile"] and not game.done


def three_player_tournament(**config) -> LuckyPirateEngine:
    """A first-to-3 tournament whose first game player_0 wins at once; later games are random."""
    deal = [{"down": ["kraken"]}, {"hand": ["4"], **FILLER}, {"hand": ["5"], **FILLER}]
    game = start(deal, pile=["8"], wins_to_win=3, **config)
    game.apply(down_action(0))
    assert game.wins.tolist() == [1, 0, 0] and not game.done and game.dealer == 0
    return game


def test_a_tournament_sets_a_guarded_game_aside_and_goes_on():
    game = three_player_tournament(max_turns=2, max_set_aside_games=2)
    for games_set_aside in (1, 2):
        first_deal = (game.hands.copy(), [list(d) for d in game.downs])
        game.apply(game.legal_actions()[0])
        game.apply(game.legal_actions()[0])  # the second turn of this game reaches the guard
        assert not game.done and game.set_aside_games == ["turn limit"] * games_set_aside
        # set aside with no winner: the wins stay, the same dealer deals a full new game
        assert game.wins.tolist() == [1, 0, 0] and game.scores().tolist() == [1.0, 0.0, 0.0]
        assert game.dealer == 0 and game.current_player == 1 and game.guard.turns == 0
        assert game.hand_size.sum() + game.up_size.sum() + game.down_left.sum() == 6 * NUM_KINDS
        assert not (np.array_equal(game.hands, first_deal[0]) and game.downs == first_deal[1])
        assert game.pile == [] and not game.known.any()
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])  # a third game set aside: past the tournament's limit
    assert game.truncated and not game.terminated and game.truncation_reason == "set-aside game limit"
    assert game.wins.tolist() == [1, 0, 0] and game.winners() == []


def test_set_aside_limit_zero_truncates_at_the_first_game_set_aside():
    game = three_player_tournament(max_turns=1, max_set_aside_games=0)
    game.apply(game.legal_actions()[0])
    assert game.truncated and game.truncation_reason == "set-aside game limit"


def test_a_tournament_sets_a_stranded_game_aside():
    # the old ruling's stranded deal inside a first-to-2 tournament: set aside, a new deal
    deal = [{"hand": ["first_mate", "3"]}, {"hand": ["first_mate", "5"]}]
    game = start(deal, pile=["kraken"], wins_to_win=2, dealer=1, deck=DEFAULT_DECK, **OLD_FIRST_MATE)
    game.apply(PICK_UP)
    assert not game.done and game.set_aside_games == ["stranded First Mates"]
    assert game.dealer == 1 and game.current_player == 0
    assert game.hand_size.tolist() == [12, 12] and game.down_left.tolist() == [4, 4] and game.set_aside.sum() == 20


@pytest.mark.parametrize("n", [2, 3])
def test_random_first_to_3_tournaments_finish_under_the_old_ruling(n):
    """Stranded games (about one two-player game in five) no longer throw the tournament away."""
    rng = np.random.default_rng(n)
    game = LuckyPirateEngine(Config(num_players=n, wins_to_win=3, max_turns=3000, **OLD_FIRST_MATE))
    finished = 0
    for _ in range(10):
        game.reset(rng)
        while not game.done:
            legal_actions = game.legal_actions()
            game.apply(legal_actions[rng.integers(len(legal_actions))])
        finished += game.terminated
    assert finished == 10


def test_resample_keeps_a_picked_up_pile_in_the_takers_hand():
    deal = [
        {"hand": ["3", "4", "5"], **FILLER},
        {"hand": ["2", "8"], **FILLER},
        {"hand": ["3", "8"], **FILLER},
    ]
    game = start(deal, pile=["6", "kraken"], deck=DEFAULT_DECK)
    game.apply(PICK_UP)  # player_0 takes the 6 and the Kraken in front of everybody
    picked = {"6": 1, "kraken": 1}
    assert hand(game, 0) == {"3": 1, "4": 1, "5": 1, **picked}
    known = {KINDS[k]: int(c) for k, c in enumerate(game.known[0]) if c}
    assert known == picked and game.view(2).known[1].tolist() == game.known[0].tolist()
    rng = np.random.default_rng(0)
    unseen_draws = set()
    for _ in range(200):
        world = copy.deepcopy(game)
        world.resample_hidden(1, rng)
        assert world.view(1) == game.view(1)
        taker = hand(world, 0)
        assert all(taker.get(card, 0) >= copies for card, copies in picked.items()), taker
        assert sum(taker.values()) == 5
        unseen_draws.add(tuple(world.hands[0] - world.known[0]))
    assert len(unseen_draws) > 20  # the three unseen cards are redrawn
    # a known card played leaves the known cards; the others stay known
    play(game, "2")
    play(game, "3")
    play(game, "6")
    assert {KINDS[k]: int(c) for k, c in enumerate(game.known[0]) if c} == {"kraken": 1}
