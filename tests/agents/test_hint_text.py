"""Hints in words (`agents.analysis.hint_text`): the move said plainly, the best three with their figures in words."""

from __future__ import annotations

import pirate_envs
from agents.analysis.explain import explain
from agents.analysis.hint_text import HINT_TOP, describe, hint_named, move_words, percent
from tests.helpers import skip_without_shipped_agent


def position(env_id: str, seed: int = 1):
    env = pirate_envs.make(env_id, raw=True)
    env.reset(seed=seed)
    return env


def test_percent_reads_as_a_player_reads_it():
    assert [percent(p) for p in (0.0, 7.52e-8, 0.0004, 0.0005, 0.075, 0.34, 0.9996, 1.0)] == [
        "<0.1%",
        "<0.1%",
        "<0.1%",
        "0.1%",
        "7.5%",
        "34%",
        ">99.9%",
        "100%",
    ]


def test_moves_are_named_in_plain_words():
    assert move_words("reroll sabrex2") == "re-roll 2 sabres"
    assert move_words("reroll monkeyx1 parrotx1 sabrex2") == "re-roll 1 monkey, 1 parrot and 2 sabres"
    assert move_words("stop") == "stop and score"
    assert move_words("bid 1") == "bid 1 trick" and move_words("bid 0") == "bid 0 tricks"
    assert move_words("bid red-3") == "put red-3 into your bid"
    assert move_words("play 2 x walk_the_plank") == "play 2 cards of walk the plank"
    assert move_words("play scary_mary:pirate") == "play scary mary as pirate"
    assert move_words("play skull_king") == "play skull king"


def test_a_networks_hint_gives_its_shares_as_percentages_of_every_move():
    skip_without_shipped_agent("skull_king_v0")
    env = position("skull_king_v0")
    answer = hint_named(env, "ppo:skull_king_v0", rule="")  # "": no rule card line
    every = explain(env, "ppo:skull_king_v0", top=10_000)
    assert answer.kind == "network" and answer.choice == every.choice
    assert [line.action for line in answer.lines] == [m.action for m in every.moves[:HINT_TOP]]
    for line, move in zip(answer.lines, every.moves):
        assert line.figure == f"picked {percent(move.probability)} of the time"
    text = answer.text()
    assert text.splitlines()[0] == f"ppo:skull_king_v0 (a trained network) advises: {move_words(every.choice_label)}"
    assert "e-0" not in text and "not chances of winning" in text and "rule card" not in text


def test_a_searchs_shares_are_of_all_its_playouts_and_the_oracles_figures_are_points():
    env = position("piraten_kapern_v0")
    every = explain(env, "mcts:40", seed=0, top=10_000)
    answer = describe(every)
    assert answer.kind == "search" and len(answer.lines) == min(HINT_TOP, len(every.moves))
    for line, move in zip(answer.lines, every.moves):
        assert line.figure == f"{percent(move.visits / 40)} of the search, average lead {move.value:+.1f}"
    assert "40 playouts" in answer.meaning
    oracle = hint_named(env, "oracle")
    best = explain(env, "oracle", top=1).moves[0]
    assert oracle.kind == "exact" and oracle.lines[0].figure == f"{best.expected_points:.1f} points expected this turn"
    heuristic = hint_named(env, "heuristic", rule="")
    assert heuristic.kind == "choice" and heuristic.text().count("\n") == 1  # its choice and that it has no figures


def test_a_rule_line_is_added_in_one_place():
    env = position("skull_king_v0")
    plain = hint_named(env, "heuristic", rule="")
    ruled = hint_named(env, "heuristic", rule="bid 0: no trump, no special")
    assert ruled.text() == plain.text() + "\nthe rule card says: bid 0: no trump, no special"
    assert ruled.to_dict()["rule"] == "bid 0: no trump, no special" and not plain.to_dict()["rule"]


def test_a_hint_says_which_rule_of_the_games_rule_card_decides_the_position():
    """The shipped card's rule for the seat on turn (worked out by the card itself), or none without a card."""
    from agents.rules import applying_rule, load_card, shipped_card_path

    env = position("skull_king_v0", seed=3)
    card = load_card(shipped_card_path("skull_king_v0"), "skull_king_v0")
    rule = applying_rule(card, env, env.game.current_player)
    expected = rule.text if rule is not None else card.fallback_text()
    answer = hint_named(env, "heuristic")
    assert answer.rule == expected and f"the rule card says: {expected}" in answer.text()
    assert answer.to_dict()["rule"] == expected


def test_a_later_version_of_the_same_game_hints_with_the_earlier_versions_rule_card():
    """``lucky_pirate_v1`` plays version 0's card (``same_game_as``): its hints carry the card's rule line."""
    from agents.rules import applying_rule, load_card, shipped_card_path

    env = position("lucky_pirate_v1")
    card = load_card(shipped_card_path("lucky_pirate_v0"), "lucky_pirate_v0")
    rule = applying_rule(card, env, env.game.current_player)
    expected = rule.text if rule is not None else card.fallback_text()
    answer = hint_named(env, "heuristic")
    assert answer.rule == expected and f"the rule card says: {expected}" in answer.text()
