"""The batched Piratenpoker kernels against the reference engine and the AEC env, step by step.

The games are played by `pirate_envs.testing.check_lockstep` (every observation, mask, seat
shown, reward and end compared at every step, ``engine(i)`` checked now and then),
driven by a random player that commits short bids and passes often, so that ties, all-tied
rounds and won Passes come up. The policy also counts, from the batched state, the events each
test must have reached (all-tied rounds, Passes that won, gifts, reshuffles of the played
cards, ...), so that a test cannot pass without playing what it names.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from pirate_envs import vector
from pirate_envs.core.chance import SplitMix64Stream
from pirate_envs.piratenpoker import batched
from pirate_envs.piratenpoker.actions import COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import COLOURS, DISPLAYED_NAMES, FRONT_INDEX, POKER_NAMES
from pirate_envs.piratenpoker.engine import PiratenpokerEngine
from pirate_envs.piratenpoker.rules import bid_strength, final_rank_key, final_score
from pirate_envs.testing import check_lockstep

ENV_ID = "piratenpoker_v0"


class CountingPolicy:
    """Random legal play that commits and passes with the given probabilities, counting what it sees."""

    def __init__(self, commit: float = 0.4, pass_: float = 0.15):
        self.commit, self.pass_ = commit, pass_
        self.seen: Counter[str] = Counter()
        self._before: tuple[np.ndarray, np.ndarray] | None = None

    def __call__(self, venv: vector.VectorEnv, rng: np.random.Generator) -> np.ndarray:
        mask = venv.action_mask
        actions = vector.random_legal_actions(mask, rng, venv.terminated | venv.truncated)
        u = rng.random(venv.num_envs)
        actions[(mask[:, COMMIT] == 1) & (u < self.commit)] = COMMIT
        actions[(mask[:, PASS] == 1) & (u < self.pass_)] = PASS
        self._count(venv._backend, actions, ~(venv.terminated | venv.truncated))
        return actions

    def _count(self, b: batched.PiratenpokerBatch, actions: np.ndarray, live: np.ndarray) -> None:
        game, seats, index = b.game, b.seats, np.arange(b.num_envs)
        phase, rnd = game[:, batched.F_PHASE], game[:, batched.F_ROUND]
        winner = game[:, batched.F_LAST_WINNER]
        revealed = live & (game[:, batched.F_LAST_ROUND] >= 0)
        self.seen["all_tied"] += int(np.count_nonzero(revealed & (winner < 0)))
        won_empty = seats[index, np.maximum(winner, 0), batched.S_LAST_PASSED] == 1
        self.seen["pass_won"] += int(np.count_nonzero(revealed & (winner >= 0) & won_empty))
        gift = live & (phase == batched.PHASE_GIFT)
        self.seen["gift_given"] += int(np.count_nonzero(gift & (actions >= GIVE) & (actions < KEEP)))
        self.seen["second_gift_offered"] += int(np.count_nonzero(gift & (game[:, batched.F_GIFTS] >= 1)))
        recipient = live & (phase == batched.PHASE_RECIPIENT)
        self.seen["kept_by_chooser"] += int(np.count_nonzero(recipient & (actions == RECIPIENT)))
        pick = live & (phase == batched.PHASE_PICK_LOOT) & (rnd == 0)
        colour = np.clip(actions - LOOT, 0, len(COLOURS) - 1)
        shark = b.face_up[index, colour] == FRONT_INDEX[5]
        self.seen["shark_overboard"] += int(np.count_nonzero(pick & shark))
        moves, draw = game[:, batched.F_MOVES].copy(), game[:, batched.F_DRAW_LEN].copy()
        if self._before is not None:  # the draw pile grew within a game: the played cards were reshuffled
            old_moves, old_draw = self._before
            self.seen["reshuffle"] += int(np.count_nonzero((moves == old_moves + 1) & (draw > old_draw)))
        self._before = moves, draw


def lockstep(num_envs: int, games: int, seed: int, **env_kwargs: Any) -> dict[str, int]:
    """``check_lockstep`` until ``games`` games ended, with a :class:`CountingPolicy`: the report's
    counts (``games``, ``truncated``, ``engine_checks``, ...) and the policy's, together."""
    policy = CountingPolicy()
    report = check_lockstep(ENV_ID, num_envs, seed=seed, games=games, policy=policy, **env_kwargs)
    return {**dataclasses.asdict(report), **policy.seen}


@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_piratenpoker_lockstep(num_players: int, reward_mode: str) -> None:
    counts = lockstep(16, 24, seed=300 + num_players, num_players=num_players, reward_mode=reward_mode, max_games=8)
    assert counts["games"] >= 24 and counts["engine_checks"] > 0
    assert 0 < counts["truncated"] < counts["games"]  # both ends: a stack ran out, the guard cut off
    assert counts["all_tied"] and counts["reshuffle"] and counts["kept_by_chooser"]
    assert counts["pass_won"] or num_players == 5  # at five, four bids must tie away in pairs


def test_piratenpoker_lockstep_french_readings() -> None:
    """A negative card overboard goes to another player (a shark stays), several gifts, all-tied loot removed."""
    counts = lockstep(16, 24, seed=11, num_players=4, reward_mode="score", overboard_gift="negative_to_other",
                      below_deck_gifts=3, all_tied_loot="removed", hand_size=5)  # fmt: skip
    assert counts["games"] >= 24 and counts["shark_overboard"] and counts["second_gift_offered"]
    assert counts["all_tied"] and counts["gift_given"] and counts["kept_by_chooser"] == 0


def test_piratenpoker_lockstep_pass_sits_out_and_cannot_win() -> None:
    counts = lockstep(16, 24, seed=12, num_players=5, pass_sits_out=True, pass_can_win=False, hand_size=3)
    assert counts["games"] >= 24 and counts["all_tied"] and counts["pass_won"] == 0


def test_piratenpoker_lockstep_other_loot_and_the_guard_at_one_game() -> None:
    counts = lockstep(16, 24, seed=13, num_players=3, loot_fronts=(10, 5, 5, 8), reward_mode="score")
    assert counts["games"] >= 24 and counts["truncated"] < counts["games"]
    counts = lockstep(8, 16, seed=14, num_players=4, max_games=1)
    assert counts["truncated"] == counts["games"] >= 16


def test_piratenpoker_lockstep_max_table_layout() -> None:
    counts = lockstep(8, 8, seed=15, num_players=3, table_layout="max", reward_mode="score")
    assert counts["games"] >= 8


@pytest.mark.slow
@pytest.mark.parametrize("reward_mode", ["win", "score"])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_piratenpoker_lockstep_long(num_players: int, reward_mode: str) -> None:
    options = {"overboard_gift": "negative_to_other", "below_deck_gifts": 2} if num_players == 4 else {}
    if num_players == 5:
        options = {"pass_sits_out": True, "all_tied_loot": "removed", "pass_can_win": False}
    counts = lockstep(64, 1000, seed=3000 + num_players, num_players=num_players, reward_mode=reward_mode,
                      max_games=10, **options)  # fmt: skip
    assert counts["games"] >= 1000


# ----------------------------------------------------------------------------- the kernels' pieces
def _random_bid(rng: np.random.Generator) -> list[str]:
    return list(rng.choice(POKER_NAMES, size=int(rng.integers(0, 7))))


def test_bid_keys_order_bids_as_the_rules() -> None:
    """A bid's key orders bids exactly as ``rules.bid_strength`` (totals, then values high to low)."""
    rng = np.random.default_rng(0)
    tables = batched._rule_tables()
    for _ in range(400):
        pair = [_random_bid(rng), _random_bid(rng)]
        if rng.random() < 0.3:  # equal totals are where the tie-break works
            pair[1] = [f"{rng.choice(COLOURS)}-{name.split('-')[1]}" for name in pair[0]]
        doubled = int(rng.integers(-1, 3))
        bids = np.zeros((1, 2, 24), dtype=np.int8)
        for seat, bid in enumerate(pair):
            for name in bid:
                bids[0, seat, POKER_NAMES.index(name)] += 1
        work = np.zeros(batched.WORK_SIZE, dtype=np.int64)
        keys = [batched._bid_key(0, seat, doubled, tables, work, bids) for seat in range(2)]
        strengths = [bid_strength(bid, None if doubled < 0 else COLOURS[doubled]) for bid in pair]
        assert (keys[0] > keys[1], keys[0] == keys[1]) == (strengths[0] > strengths[1], strengths[0] == strengths[1])


def test_final_scores_and_rank_keys_as_the_rules() -> None:
    """The kernels' final score and ranking order equal ``rules.final_score`` and ``final_rank_key``."""
    rng = np.random.default_rng(1)
    tables = batched._rule_tables()
    for _ in range(200):
        displayed = np.zeros((1, 2, 24), dtype=np.int8)
        for seat in range(2):
            for kind in rng.integers(0, 24, size=int(rng.integers(0, 12))):
                displayed[0, seat, kind] += 1
        if rng.random() < 0.3:
            displayed[0, 1] = displayed[0, 0]
            displayed[0, 1, rng.integers(0, 24)] += 1
        seats = np.zeros((1, 2, batched.NUM_SEAT_FIELDS), dtype=np.int64)
        names = [[DISPLAYED_NAMES[k] for k in range(24) for _ in range(displayed[0, s, k])] for s in range(2)]
        for seat in range(2):
            batched._rescore(0, seat, tables, seats, displayed)
            assert seats[0, seat, batched.S_SCORE] == final_score(names[seat])
        keys = np.zeros((2, 25), dtype=np.int64)
        batched._rank_keys(0, 2, tables, seats, displayed, keys)
        reference = [final_rank_key(n) for n in names]
        assert batched._key_compare(keys, 0, 1) == (reference[0] > reference[1]) - (reference[0] < reference[1])


def test_engine_reset_options_and_the_move_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    venv = vector.make(ENV_ID, 2, seed=0, num_players=3)
    venv.reset()
    rng = np.random.default_rng(4)
    for _ in range(7):
        venv.step(vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    engine = venv.engine(1)
    assert type(engine) is PiratenpokerEngine and isinstance(engine.pinned_chance, SplitMix64Stream)
    assert venv.reset_options(1) == {}
    assert engine.legal_mask().tolist() == venv.action_mask[1].tolist() and len(venv.moves(1)) == 7
    again = venv.reference_engine(1)  # every reset deals the same game
    first = [again.view(s) for s in range(3)]
    again.reset(np.random.default_rng(5))  # the generator is not used: the stream is pinned
    assert [again.view(s) for s in range(3)] == first
    monkeypatch.setattr(batched.PiratenpokerBatch, "HISTORY_SIZE", 4)
    short = vector.make(ENV_ID, 1, seed=0, num_players=3)
    short.reset()
    for _ in itertools.repeat(None, 5):
        short.step(vector.random_legal_actions(short.action_mask, rng, short.terminated | short.truncated))
    with pytest.raises(RuntimeError, match="game 0 has made 5 moves; only the first 4 are kept"):
        short.engine(0)
