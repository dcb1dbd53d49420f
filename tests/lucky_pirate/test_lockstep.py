"""The batched Lucky Pirate kernels against the AEC env, step by step.

`pirate_envs.testing.check_lockstep` mirrors every game of a batch by a raw AEC env whose engine
is ``venv.reference_engine(i)`` (the reference engine dealing from game ``i``'s stream): the same
dealers and deals, the later games of a tournament included. Uniform random legal play drives
both (drawing a block first, the pile is picked up so often that games are rarely won), and after every
step the observation, the mask, the seat shown, every seat's reward and the ends must be
identical; ``engine(i)`` must reproduce the AEC env's engine. Each test also counts what it went
through (set-up moves, blind down cards, set-aside games and why, truncations and why) and
asserts that the feature it is about was exercised.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.core.chance import SplitMix64Stream
from pirate_envs.lucky_pirate.actions import DOWN_OFFSET, LAY_UP_OFFSET, PICK_UP
from pirate_envs.lucky_pirate.batched import pile_tables
from pirate_envs.lucky_pirate.cards import CAPTAIN, FIRST_MATE, PORTHOLE
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.rules import EMPTY_TOP, Mode, PileRules, PileTop, can_play, place
from pirate_envs.testing import check_lockstep

ENV_ID = "lucky_pirate_v0"


class EventCounter:
    """``check_lockstep``'s ``on_step``: counts, per row, what the reference envs went through.

    Counted: ``steps``, ``lay_up``, ``down`` (blind down cards), ``games won`` (also inside
    tournaments), ``set aside: <reason>``, ``truncated: <reason>``, ``known`` (steps after which
    some hand holds publicly known cards).
    """

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self._seen: dict[int, tuple[int, int]] = {}  # row -> (games set aside, games won) before its move

    def __call__(self, venv: vector.VectorEnv, i: int, env: Any, action: int | None) -> None:
        game = env.game
        aside, wins = len(game.set_aside_games), int(game.wins.sum())
        if action is not None:
            before_aside, before_wins = self._seen[i]
            self.counts["steps"] += 1
            self.counts["lay_up"] += action >= LAY_UP_OFFSET
            self.counts["down"] += DOWN_OFFSET <= action < PICK_UP
            self.counts["known"] += bool(game.known.any())
            self.counts["games won"] += wins - before_wins
            for reason in game.set_aside_games[before_aside:]:
                self.counts[f"set aside: {reason}"] += 1
        self._seen[i] = aside, wins
        if venv.truncated[i]:
            self.counts[f"truncated: {game.truncation_reason}"] += 1


def uniform_actions(venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game."""
    return vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated)


def play_lockstep(num_envs: int, episodes: int, seed: int, env_id: str = ENV_ID, **env_kwargs: Any) -> Counter:
    """``check_lockstep`` until at least ``episodes`` episodes ended; the counts of what was seen.

    Counted: ``episodes``, ``won`` (terminated), ``engine_checks`` and those of `EventCounter`.
    """
    counter = EventCounter()
    report = check_lockstep(env_id, num_envs, seed=seed, games=episodes, policy=uniform_actions, on_step=counter,
                            **env_kwargs)  # fmt: skip
    return counter.counts + Counter(episodes=report.games, won=report.terminated, engine_checks=report.engine_checks)


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_lockstep_default_game(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(8, 8, seed=300 + num_players, num_players=num_players, reward_mode=reward_mode)
    assert counts["episodes"] >= 8 and counts["won"] > 0 and counts["down"] > 0 and counts["engine_checks"] > 0


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_lockstep_turn_limit_truncates(reward_mode: str) -> None:
    counts = play_lockstep(8, 24, seed=11, num_players=3, max_turns=60, first_dealer=2, reward_mode=reward_mode)
    assert counts["truncated: turn limit"] > 0 and counts["won"] > 0


@pytest.mark.parametrize("num_players", [2, 3])
def test_lockstep_old_first_mate_ruling_strands(num_players: int) -> None:
    """Under ``first_mate_only_on_captain`` games strand and are truncated at once, in both engines."""
    counts = play_lockstep(8, 16, seed=20 + num_players, num_players=num_players, first_mate_only_on_captain=True,
                           reward_mode="score")  # fmt: skip
    assert counts["truncated: stranded First Mates"] > 0 and counts["won"] > 0


@pytest.mark.parametrize("reward_mode", ["win", "score"])
def test_lockstep_tournaments_set_games_aside(reward_mode: str) -> None:
    """First to 2 wins: games set aside by the guard and by stranding, the set-aside limit, a random dealer."""
    counts = play_lockstep(8, 10, seed=31, num_players=2, wins_to_win=2, max_turns=200, max_set_aside_games=2,
                           first_mate_only_on_captain=True, set_aside_dealer="random",
                           reward_mode=reward_mode)  # fmt: skip
    assert counts["set aside: turn limit"] > 0 and counts["set aside: stranded First Mates"] > 0
    assert counts["truncated: set-aside game limit"] > 0 and counts["won"] > 0
    assert counts["games won"] > counts["won"]  # tournament games won before the last


def test_lockstep_pile_options_and_a_chosen_set_up() -> None:
    """Every pile option away from its default, up cards laid in a set-up phase, a short deck."""
    deck = {**{str(v): 3 for v in range(1, 9)}, "captain": 3, "kraken": 2, "first_mate": 3, "porthole": 3,
            "walk_the_plank": 2, "mermaid": 1, "parrot": 1, "reverse": 3, "skip": 3}  # fmt: skip
    counts = play_lockstep(8, 12, seed=41, num_players=4, deck=deck, choose_up_cards=True,
                           first_mate_only_on_captain=True, first_mate_on_empty_pile=True,
                           porthole_on_empty_pile=False, reverse_skip_value="reset", captain_counts_in_runs=False,
                           run_clear_plays_again=False, plank_plays_again=False, wins_to_win=2,
                           reward_mode="score")  # fmt: skip
    assert counts["lay_up"] > 0 and counts["games won"] > 0


def test_lockstep_set_up_phase_default_pile_rules() -> None:
    counts = play_lockstep(8, 12, seed=43, num_players=5, choose_up_cards=True)
    assert counts["lay_up"] > 0 and counts["won"] > 0


@pytest.mark.parametrize("num_players", [2, 5])
def test_lockstep_largest_table_layout(num_players: int) -> None:
    """``table_layout="max"``: the rows of a six-player table (absent seats zero) and ``seat_present``."""
    counts = play_lockstep(4, 4, seed=50 + num_players, num_players=num_players, table_layout="max")
    assert counts["episodes"] >= 4 and counts["won"] > 0


@pytest.mark.parametrize("table_layout", ["seated", "max"])
def test_lockstep_observe_known(table_layout: str) -> None:
    """The option ``observe_known``: picked-up piles and failed down cards in ``known``, cleared by each
    tournament deal, in both layouts."""
    counts = play_lockstep(6, 8, seed=61, num_players=3, wins_to_win=2, observe_known=True, table_layout=table_layout)
    assert counts["games won"] > counts["won"] > 0


@pytest.mark.parametrize(("table_layout", "observe_known"), [("seated", False), ("max", True)])
def test_lockstep_observe_pile(table_layout: str, observe_known: bool) -> None:
    """The option ``observe_pile``: the pile's cards per kind, emptied by a pick-up or a clear, alone
    and after ``known``, in both layouts."""
    counts = play_lockstep(
        6, 8, seed=71, num_players=4, observe_pile=True, observe_known=observe_known, table_layout=table_layout
    )
    assert counts["won"] > 0


@pytest.mark.parametrize(("table_layout", "num_players"), [("seated", 4), ("max", 3)])
def test_lockstep_version_1(table_layout: str, num_players: int) -> None:
    """``lucky_pirate_v1``: its observation (``known`` and ``pile_cards`` on by default) in both layouts."""
    counts = play_lockstep(6, 8, seed=81, env_id="lucky_pirate_v1", num_players=num_players, table_layout=table_layout)
    assert counts["known"] > 0 and counts["won"] > 0


def test_pile_tables_are_the_reference_rules() -> None:
    """The tables answer ``can_play`` and ``place`` as the reference does, on tops reached by play."""
    rules = PileRules(first_mate_only_on_captain=True, reverse_skip_value="reset")
    playable, next_top, clears, top_info = pile_tables(rules)
    assert tuple(top_info[0]) == (0, Mode.NORMAL, -1, 0)  # row 0: the empty pile
    assert playable[0, PORTHOLE] == 1 and playable[0, FIRST_MATE] == 0
    captain_row = next_top[0, CAPTAIN, 0]  # one Captain on the empty pile
    assert tuple(top_info[captain_row]) == (9, Mode.CAPTAIN, CAPTAIN, 1)
    assert np.flatnonzero(playable[captain_row]).tolist() == [FIRST_MATE, PORTHOLE]
    assert clears[0, CAPTAIN, 2] == 1  # three Captains in one set clear
    tops = [EMPTY_TOP, PileTop(9, Mode.CAPTAIN, CAPTAIN, 1), PileTop(0, Mode.FREE)]
    for top in tops:
        row = next(
            r
            for r in range(len(top_info))
            if tuple(top_info[r]) == (top.value, top.mode, top.run_kind, top.run_length) and (r == 0) == top.empty
        )
        for kind in range(len(playable[0])):
            assert playable[row, kind] == can_play(kind, top, rules)
            new, cleared = place(top, kind, 2, rules)
            assert clears[row, kind, 1] == cleared
            assert tuple(top_info[next_top[row, kind, 1]]) == (new.value, new.mode, new.run_kind, new.run_length)


def test_stream_engine_draws_the_dealer_then_the_deal() -> None:
    """The engine on a stream: the dealer is its first draw, the deck order the next ones."""
    config = Config(num_players=3)
    engine = LuckyPirateEngine(config)
    engine.reset(SplitMix64Stream(12345))
    stream = SplitMix64Stream(12345)
    dealer = stream.integers(3)
    cards = stream.permutation(engine._deck)
    assert engine.dealer == dealer and engine.current_player == (dealer + 1) % 3
    first_seat = (dealer + 1) % 3
    assert engine.downs[first_seat] == cards[0::3][:4].tolist()


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5, 6])
def test_lockstep_long(num_players: int, reward_mode: str) -> None:
    counts = play_lockstep(32, 300, seed=3000 + num_players, num_players=num_players, reward_mode=reward_mode)
    assert counts["episodes"] >= 300


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_lockstep_long_tournaments_old_ruling(num_players: int) -> None:
    counts = play_lockstep(32, 100, seed=4000 + num_players, num_players=num_players, wins_to_win=3,
                           first_mate_only_on_captain=True, max_turns=300, reward_mode="score")  # fmt: skip
    assert counts["episodes"] >= 100
