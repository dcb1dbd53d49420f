"""Skull King (first edition) engine: the config, the phases and the rules engine (full state, legal actions, apply).

No gymnasium or pettingzoo here; the pure helpers it calls are in `pirate_envs.skull_king.rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from pirate_envs.core.chance import Chance, as_chance
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.engine import check_options, read_only
from pirate_envs.core.errors import check_copies, check_list, check_names, check_range
from pirate_envs.core.events import Event
from pirate_envs.core.render import BLOCK_WIDTH, format_block, format_table, seat_name
from pirate_envs.skull_king.actions import ACTIONS, BID_OFFSET, CARD_OFFSET, MAX_BID
from pirate_envs.skull_king.cards import (
    KIND_NAMES,
    KIND_OF_TOKEN,
    MARY_ESCAPE,
    MARY_PIRATE,
    NO_SUIT,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUIT_CARDS,
    NUM_SUITS,
    SCARY_MARY,
    SPECIAL_COPIES,
    SPECIAL_NAMES,
    SUITS,
    TOKEN_NAMES,
    deck_copies,
    kind_index,
    names_of,
)
from pirate_envs.skull_king.rules import (
    DEFAULT_HANDS,
    DEFAULT_PLAYERS,
    MAX_HANDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    bonus_of_tokens,
    hand_score,
    held_card_actions,
    playable_card_actions,
    redeal,
    winner_of_tokens,
)
from pirate_envs.skull_king.view import View


class Phase(IntEnum):
    """What the player on turn decides."""

    BID = 0
    PLAY = 1
    DONE = 2


@dataclass(frozen=True)
class Config:
    """Game settings (validated).

    * ``num_players``: 2..6.
    * ``num_hands``: 1..10; hand k deals k cards, so ``num_hands * num_players`` must also fit
      the 66-card deck (never binding with 6 players or fewer: 6 x 10 = 60).
    * ``first_dealer``: the seat that deals hand 1 (the rule text does not say; seat 0 by
      default). The dealer moves one seat to the left (seat + 1) each hand.
    * A short deck (a variant for small games; no rule changes): ``suits``, the suits in play
      (indices into yellow, red, blue, black; default all four; black stays trump when in play),
      ``ranks``, the ranks ``1..ranks`` of each (1..13, default 13), and ``specials``, the copies
      of escape, pirate, mermaid, skull_king, scary_mary (at most 5, 5, 2, 1, 1, the default).
      The deck must hold ``num_hands * num_players`` cards.
    """

    num_players: int = DEFAULT_PLAYERS
    num_hands: int = DEFAULT_HANDS
    first_dealer: int = 0
    suits: tuple[int, ...] = tuple(range(NUM_SUITS))
    ranks: int = NUM_RANKS
    specials: tuple[int, ...] = SPECIAL_COPIES

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_range("first_dealer", self.first_dealer, 0, self.num_players - 1)
        suits = check_list("suits", self.suits, f"distinct suit indices 0..{NUM_SUITS - 1} (yellow, red, blue, black)")
        for i, suit in enumerate(suits):
            check_range(f"suits[{i}]", suit, 0, NUM_SUITS - 1)
        if len(set(suits)) != len(suits):
            raise ValueError(f"suits={list(suits)} names a suit twice; allowed: distinct indices 0..{NUM_SUITS - 1}")
        check_range("ranks", self.ranks, 1, NUM_RANKS)
        specials = check_list("specials", self.specials, f"copies of {list(SPECIAL_NAMES)}", length=len(SPECIAL_NAMES))
        for name, count, most in zip(SPECIAL_NAMES, specials, SPECIAL_COPIES):
            check_range(f"specials ({name})", count, 0, most)
        object.__setattr__(self, "suits", tuple(int(s) for s in suits))
        object.__setattr__(self, "specials", tuple(int(c) for c in specials))
        if self.deck_size < self.num_players:
            raise ValueError(f"the deck holds {self.deck_size} cards; {self.num_players} players need at least as many")
        # the last hand deals num_hands cards to everybody: it must fit the bid range and the deck
        check_range("num_hands", self.num_hands, 1, min(MAX_HANDS, self.deck_size // self.num_players))

    @property
    def copies(self) -> tuple[int, ...]:
        """Copies of each card kind in the deck (`cards.COPIES` for the full deck)."""
        return deck_copies(self.suits, self.ranks, self.specials)

    @property
    def deck_size(self) -> int:
        return len(self.suits) * self.ranks + sum(self.specials)

    @property
    def deck(self) -> np.ndarray:
        """The deck's physical cards as card kinds, in kind order (`cards.DECK` for the full deck)."""
        return np.repeat(np.arange(NUM_KINDS, dtype=np.int64), self.copies)


# ----------------------------------------------------------------------------- engine
_KIND_OF_TOKEN_LIST: list[int] = KIND_OF_TOKEN.tolist()
#: The card actions of each card kind, as a slice (two actions for Scary Mary, one for the others).
_ACTIONS_OF_KIND: tuple[slice, ...] = tuple(slice(CARD_OFFSET + k, CARD_OFFSET + k + 1) for k in range(SCARY_MARY)) + (
    slice(CARD_OFFSET + MARY_PIRATE, CARD_OFFSET + MARY_ESCAPE + 1),
)


def _bid_mask(max_bid: int) -> np.ndarray:
    """Read-only action mask of the bids ``0..max_bid``."""
    mask = np.zeros(len(ACTIONS), dtype=np.int8)
    mask[BID_OFFSET : BID_OFFSET + max_bid + 1] = 1
    return read_only(mask)


_BID_MASKS = tuple(_bid_mask(k) for k in range(MAX_BID + 1))
_NO_ACTION_MASK = _bid_mask(-1)


@dataclass(frozen=True)
class HandResult:
    """The record of one settled hand."""

    hand_number: int
    dealer: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    bonuses: tuple[int, ...]
    points: tuple[int, ...]


class SkullKingEngine(BaseEngine):
    """The full state of one game of Skull King and its transitions."""

    ACTIONS = ACTIONS
    #: Public events since the last reset while recording is on (see :mod:`pirate_envs.core.events`).
    events: list[Event] | None = None
    RESET_OPTIONS: Mapping[str, str] = {
        "deal": "the hands of the first hand played: one list of card names per seat (seat order), "
        "each as long as the hand number",
        "deals": "a list of such deals for consecutive hands from the first hand played; later hands are shuffled",
        "first_hand": "start at this hand number (1..num_hands, default 1); earlier hands are skipped "
        "and the dealer is the one of that hand",
    }

    def __init__(self, config: Config | None = None):
        self.config = config if config is not None else Config()
        n = self.num_players = self.config.num_players
        self.hands = np.zeros((n, NUM_KINDS), dtype=np.int8)
        self.played = np.zeros(NUM_KINDS, dtype=np.int8)
        #: Mirrors kept in step with ``hands`` and ``played`` on the hot path: the same counts as
        #: Python lists (``counts[seat][kind]``, ``played_counts[kind]``), the card actions of each
        #: hand, and each seat's number of cards of each suit.
        self.held = np.zeros((n, len(ACTIONS)), dtype=np.int8)
        self.suit_counts = [[0] * NUM_SUITS for _ in range(n)]
        self._next_seat = [(s + 1) % n for s in range(n)]
        #: ``seat * NUM_KINDS`` per seat: turns card kinds dealt to seats into one bincount.
        self._kind_offsets = np.arange(n) * NUM_KINDS
        self._copies = self.config.copies
        self._deck = read_only(self.config.deck)
        self.reset(np.random.default_rng(0))

    # ------------------------------------------------------------------ setup
    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        opts = check_options(options, self.RESET_OPTIONS)
        first_hand = opts.get("first_hand")
        first_hand = 1 if first_hand is None else check_range("first_hand", first_hand, 1, self.config.num_hands)
        self._pending_deals = self._parse_deals(opts, first_hand)
        self.chance = self.start_chance(rng)
        if self.events is not None:
            self.events = []
        self.score = [0] * self.num_players
        self.results: list[HandResult] = []
        self.terminated = False
        self.truncated = False
        self._start_hand(first_hand)

    def _parse_deals(self, opts: dict[str, Any], first_hand: int) -> list[np.ndarray]:
        """The ``deal`` or ``deals`` option as per-seat kind counts, one array per hand, checked up front."""
        deal, deals = opts.get("deal"), opts.get("deals")
        if deal is not None and deals is not None:
            raise ValueError("give either the 'deal' or the 'deals' reset option, not both")
        if deal is not None:
            return [self._parse_deal("deal", deal, first_hand)]
        if deals is None:
            return []
        deals = check_list("deals", deals, "deals (per seat a list of card names)")
        last = self.config.num_hands
        if len(deals) > last - first_hand + 1:
            raise ValueError(f"deals: {len(deals)} deals given but only hands {first_hand}..{last} are played")
        return [self._parse_deal(f"deals[{i}]", deal, first_hand + i) for i, deal in enumerate(deals)]

    def _parse_deal(self, field: str, deal: object, hand_number: int) -> np.ndarray:
        """The deal ``field`` of hand ``hand_number`` (per seat a list of card names) as per-seat kind counts.

        Each seat gets ``hand_number`` cards and the deal holds no card more often than the deck.
        """
        n, k = self.num_players, hand_number
        seats = check_list(field, deal, f"lists of {k} card names (one per seat)", length=n)
        what = f"card names (hand {k} deals {k} to each seat)"
        counts = np.zeros((n, NUM_KINDS), dtype=np.int64)
        for seat, cards in enumerate(seats):
            for kind in check_names(f"{field}[{seat}]", cards, kind_index, length=k, what=what):
                counts[seat, kind] += 1
        check_copies(field, counts.sum(axis=0).tolist(), self._copies, KIND_NAMES, "the deck")
        return counts.astype(np.int8)

    def _start_hand(self, hand_number: int) -> None:
        """Deal hand ``hand_number`` and ask for bids, starting left of the dealer."""
        n = self.num_players
        self.hand_number = hand_number
        self.dealer = (self.config.first_dealer + hand_number - 1) % n
        if self._pending_deals:
            self._set_hands(self._pending_deals.pop(0))
        else:
            cards = self.chance.permutation(self._deck)[: n * hand_number] + np.repeat(self._kind_offsets, hand_number)
            self._set_hands(np.bincount(cards, minlength=n * NUM_KINDS).reshape(n, NUM_KINDS))
        self.played[:] = 0
        self.played_counts = [0] * NUM_KINDS
        self.voids: tuple[tuple[bool, ...], ...] = ((False,) * NUM_SUITS,) * n
        self.bids = [-1] * n
        self.bids_revealed = False
        self.tricks_won = [0] * n
        self.bonuses = [0] * n
        self.trick: list[int] = []
        self.led_suit = NO_SUIT
        self.leader = self._next_seat[self.dealer]
        self.tricks_done = 0
        self.phase = Phase.BID
        self.current_player = self.leader
        self._mask: np.ndarray | None = None
        if self.events is not None:
            what = f"hand {hand_number} of {self.config.num_hands}, {hand_number} card{'s' * (hand_number > 1)} each"
            self.events.append(Event("deal", None, {"what": what, "dealer": self.dealer}))

    def _set_hands(self, counts: np.ndarray) -> None:
        """Set every seat's hand from per-kind ``counts`` (shape ``(n, NUM_KINDS)``) and the derived tables."""
        self.hands[:] = counts
        self.counts = self.hands.tolist()
        self.held[:] = held_card_actions(self.hands)
        suits = self.hands[:, :NUM_SUIT_CARDS].reshape(self.num_players, NUM_SUITS, NUM_RANKS).sum(axis=2)
        self.suit_counts = suits.tolist()

    # ------------------------------------------------------------------ contract
    def legal_mask(self) -> np.ndarray:
        """``int8`` mask over ``ACTIONS`` for the player on turn (cached per state; bid masks shared, read-only)."""
        mask = self._mask
        if mask is None:
            if self.phase == Phase.BID:
                mask = _BID_MASKS[self.hand_number]
            elif self.phase == Phase.PLAY:
                seat, led = self.current_player, self.led_suit
                holds_led_suit = led != NO_SUIT and self.suit_counts[seat][led] > 0
                mask = playable_card_actions(self.held[seat], led, holds_led_suit)
            else:
                mask = _NO_ACTION_MASK
            self._mask = mask
        return mask

    def apply(self, action: int) -> None:
        """Apply a legal bid or card of the player on turn."""
        self._mask = None
        if self.phase == Phase.BID:
            self._apply_bid(action - BID_OFFSET)
        else:
            self._apply_card(action - CARD_OFFSET)

    def _apply_bid(self, bid: int) -> None:
        seat = self.current_player
        self.bids[seat] = bid
        nxt = self._next_seat[seat]
        events = self.events
        if events is not None:
            events.append(Event("bid", seat, {}))
        if nxt == self.leader:  # everybody has bid: the bids are revealed together
            self.bids_revealed = True
            self.phase = Phase.PLAY
            if events is not None:
                events.append(Event("bids_revealed", None, {"bids": list(self.bids)}))
        self.current_player = nxt

    def _apply_card(self, token: int) -> None:
        seat = self.current_player
        kind = _KIND_OF_TOKEN_LIST[token]
        counts = self.counts[seat]
        left = counts[kind] = counts[kind] - 1
        self.hands[seat, kind] = left
        if left == 0:
            self.held[seat, _ACTIONS_OF_KIND[kind]] = 0
        self.played[kind] = self.played_counts[kind] = self.played_counts[kind] + 1
        trick = self.trick
        trick.append(token)
        if self.events is not None:
            self.events.append(Event("play", seat, {"cards": [TOKEN_NAMES[token]]}))
        if token < NUM_SUIT_CARDS:
            suit = token // NUM_RANKS
            self.suit_counts[seat][suit] -= 1
            if self.led_suit == NO_SUIT:
                self.led_suit = suit
            elif suit != self.led_suit:
                self._record_void(seat, self.led_suit)
        if len(trick) < self.num_players:
            self.current_player = self._next_seat[seat]
            return
        winner = (self.leader + winner_of_tokens(trick)) % self.num_players
        bonus = bonus_of_tokens(trick)
        self.tricks_won[winner] += 1
        self.bonuses[winner] += bonus
        if self.events is not None:
            self.events.append(Event("trick_won", winner, {"bonus": bonus}))
        self.trick = []
        self.led_suit = NO_SUIT
        self.leader = self.current_player = winner
        self.tricks_done += 1
        if self.tricks_done == self.hand_number:
            self._settle_hand()

    def _record_void(self, seat: int, suit: int) -> None:
        """Note publicly that ``seat`` holds no card of ``suit`` (he did not follow it)."""
        voids = list(self.voids)
        voids[seat] = tuple(v or s == suit for s, v in enumerate(voids[seat]))
        self.voids = tuple(voids)

    def _settle_hand(self) -> None:
        """Score the hand, then deal the next one or end the game."""
        k = self.hand_number
        points = tuple(
            hand_score(self.bids[s], self.tricks_won[s], k, self.bonuses[s]) for s in range(self.num_players)
        )
        for seat, p in enumerate(points):
            self.score[seat] += p
        if self.events is not None:
            self._record_hand_scores(points)
        self.results.append(
            HandResult(k, self.dealer, tuple(self.bids), tuple(self.tricks_won), tuple(self.bonuses), points)
        )
        if k == self.config.num_hands:
            self.phase = Phase.DONE
            self.terminated = True
            if self.events is not None:
                self.events.append(Event("game_over", None, {"winners": self.winners(), "scores": list(self.score)}))
        else:
            self._start_hand(k + 1)

    def _record_hand_scores(self, points: tuple[int, ...]) -> None:
        """One score event per seat for the hand just settled, its cause in words."""
        assert self.events is not None
        for seat, p in enumerate(points):
            bid, won, bonus = self.bids[seat], self.tricks_won[seat], self.bonuses[seat]
            tricks = f"{won} trick{'s' * (won != 1)}"
            if bid == won:
                cause = f"bid {bid} made" + (f", bonus {bonus}" if bonus else "")
            else:
                cause = f"missed bid {bid}, took {tricks}"
            self.events.append(Event("score", seat, {"delta": p, "total": self.score[seat], "cause": cause}))

    def scores(self) -> np.ndarray:
        """Every seat's total score so far."""
        return np.array(self.score, dtype=np.float64)

    def winners(self) -> list[int]:
        """Seats with the highest total (several on a tie)."""
        best = max(self.score)
        return [s for s, v in enumerate(self.score) if v == best]

    def view(self, seat: int) -> View:
        """What ``seat`` knows now: his hand, the public table, and bids once all are made."""
        hand = self.hands[seat].copy()
        hand.setflags(write=False)
        played = self.played.copy()
        played.setflags(write=False)
        if self.bids_revealed:
            bids = tuple(self.bids)
        else:
            bids = tuple(b if s == seat else -1 for s, b in enumerate(self.bids))
        return View(  # positional, in field order: keywords cost a lot on the hot path
            seat,
            self.num_players,
            self.config.num_hands,
            self.hand_number,
            int(self.phase),
            self.dealer,
            self.leader,
            self.current_player,
            hand,
            tuple(self.trick),
            self.led_suit,
            bids,
            self.bids_revealed,
            tuple(self.tricks_won),
            tuple(self.score),
            played,
            self.voids,
        )

    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Redeal the cards ``seat`` cannot see to the other seats and redraw their hidden bids.

        The redeal keeps every hand size and every publicly shown void (a seat that did not
        follow a led suit gets no card of it; see `pirate_envs.skull_king.rules.redeal`,
        which always finds one, since the true deal is one). Unrevealed bids of the others become
        uniform over 0..k.
        """
        rng = as_chance(rng)
        others = [s for s in range(self.num_players) if s != seat]
        unseen = np.asarray(self._copies) - self.hands[seat] - self.played
        pool = np.repeat(np.arange(NUM_KINDS), unseen)
        sizes = {s: int(self.hands[s].sum()) for s in others}
        dealt = redeal(pool, sizes, {s: self.voids[s] for s in others}, rng)
        if dealt is None:  # cannot happen: the true deal respects the voids
            raise RuntimeError("no redeal respects the public voids; the engine state is inconsistent")
        hands = self.hands.copy()
        for s, cards in dealt.items():
            hands[s] = np.bincount(cards, minlength=NUM_KINDS)
        self._set_hands(hands)
        if not self.bids_revealed:
            for s in others:
                if self.bids[s] >= 0:
                    self.bids[s] = rng.integers(0, self.hand_number + 1)
        self._mask = None

    def render(self) -> str:
        """The full state as text: scores, bids, tricks, hands and the current trick."""
        rows = []
        for s in range(self.num_players):
            role = "dealer" if s == self.dealer else ("on turn" if s == self.current_player else "")
            bid = "-" if self.bids[s] < 0 else self.bids[s]
            hand = " ".join(names_of(self.hands[s]))
            rows.append([seat_name(s), role, bid, self.tricks_won[s], self.bonuses[s], self.score[s], hand])
        table = format_table(["seat", "", "bid", "tricks", "bonus", "score", "hand"], rows, BLOCK_WIDTH)
        n = self.num_players
        played = [f"{seat_name((self.leader + i) % n)}: {TOKEN_NAMES[t]}" for i, t in enumerate(self.trick)]
        led = SUITS[self.led_suit] if self.led_suit != NO_SUIT else "none"
        lines = [*table.splitlines(), f"trick: {', '.join(played) or '(empty)'}; led suit: {led}"]
        title = f"Skull King: hand {self.hand_number} of {self.config.num_hands}, {self.phase.name.lower()}"
        return format_block(title, lines)


#: The engine under its role name: every game package offers ``Engine``, ``Config``, ``View`` and ``Encoder``.
Engine = SkullKingEngine

__all__ = ["Config", "Engine", "HandResult", "Phase", "SkullKingEngine"]
