"""The Piratenpoker rules engine: the episode's `Config`, the full state, legal actions and their effects.

Bids are built card by card (see `pirate_envs.piratenpoker.actions` and the env
docstring); the round is revealed when the last player has committed. All other decisions
belong to a round winner.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pirate_envs.core.chance import Chance, as_chance
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.engine import check_options, read_only
from pirate_envs.core.errors import (
    check_bool,
    check_choice,
    check_copies,
    check_list,
    check_mapping,
    check_name,
    check_names,
    check_range,
)
from pirate_envs.core.events import Event
from pirate_envs.core.render import fit_text, format_table, seat_name
from pirate_envs.piratenpoker.actions import ACTIONS, ADD, COMMIT, GIVE, KEEP, LOOT, PASS, RECIPIENT
from pirate_envs.piratenpoker.cards import (
    BACK_SIDE,
    COLOURS,
    DEFAULT_LOOT_FRONTS,
    DEFAULT_POKER_COPIES,
    DISPLAYED_NAMES,
    FRONT_INDEX,
    FRONT_SIDE,
    FRONT_VALUES,
    HAND_SIZE,
    IS_SHARK,
    NEGATIVE_KINDS,
    NUM_COLOURS,
    NUM_DISPLAYED_KINDS,
    NUM_FRONTS,
    NUM_POKER_KINDS,
    POKER_INDEX,
    POKER_NAMES,
    VALUES_PER_COLOUR,
    deck_counts,
    displayed_kind,
    names_of,
    parse_colour,
    parse_poker_card,
)
from pirate_envs.piratenpoker.piles import PileHistory
from pirate_envs.piratenpoker.rules import (
    MAX_LOOT_PER_COLOUR,
    MAX_PLAYERS,
    MIN_PLAYERS,
    bid_winner,
    final_score,
    final_winners,
)
from pirate_envs.piratenpoker.view import TableView, View

ROUNDS_PER_GAME = 3
HAND_ROW, BID_ROW = 0, 1  # rows of ``PiratenpokerEngine.cards[seat]``
OVERBOARD_ROUND, BELOW_DECK_ROUND, LOOT_ROUND = 0, 1, 2  # round indices
ROUND_NAMES: tuple[str, ...] = ("overboard", "below deck", "loot")


class Phase(enum.IntEnum):
    """Whose decision it is and of which kind."""

    BID = 0  # every player in seat order builds a bid or passes
    PICK_LOOT = 1  # round winner: the loot card going overboard (round 1) / below deck (round 2)
    GIFT = 2  # round-2 winner: give one of his negative cards, or keep them
    RECIPIENT = 3  # round winner: who receives the pending loot card (relative seat)
    OVER = 4


NUM_PHASES = 4  # decision phases (OVER excluded)
OVERBOARD_GIFTS = ("any", "negative_to_other")
ALL_TIED_LOOT = ("under_stack", "removed")
MAX_GIFTS = NUM_COLOURS * MAX_LOOT_PER_COLOUR  # as many as there can be loot cards
MAX_POKER_COPIES = max(DEFAULT_POKER_COPIES)  # copies of one poker kind (the int8 counts of the batched engine)


def check_front(field: str, value: object) -> int:
    """A loot card's front value as ``int``: ``ValueError`` naming ``field`` unless an integer in ``FRONT_VALUES``."""
    front = check_range(field, value, min(FRONT_VALUES), max(FRONT_VALUES))  # no float, no bool
    check_choice(field, front, FRONT_VALUES)
    return front


@dataclass(frozen=True)
class Config:
    """Options of a Piratenpoker episode (validated: a bad value raises ``ValueError``, a non-bool flag ``TypeError``).

    * ``num_players``: 3 to 5.
    * ``loot_fronts``: front values of the loot cards of *each* colour (values among +5, +6,
      +8, +10; backs are fixed by the front). Default ``(5, 5, 6, 6, 8, 8, 10)``: 7 per colour,
      21 in all (*assumption*, the published distribution is not in the rule text).
    * ``poker_copies``: copies of the poker values 1..8 in *each* colour, in value order (0..7
      each). Default ``(1, 2, 4, 7, 7, 4, 2, 1)``: the rule text's 84 cards. A short deck (the
      small variants, e.g. ``(0, 0, 0, 1, 1, 0, 0, 0)``: a 4 and a 5 of each colour) keeps the
      three colours of the loot stacks; it must hold at least ``hand_size`` cards per player.
    * ``max_games``: guard; the episode is truncated when this many games (three-round deals
      of loot, aborted all-tied games included) have been played without a stack running out.

    Readings of the rules where the texts are silent or disagree (``docs/rulings.md``); the
    defaults follow the English text:

    * ``overboard_gift``: ``"any"``: the round-1 winner gives the card to any player, himself
      included; ``"negative_to_other"`` (French text): a negative back goes to another player,
      a shark back stays with the winner.
    * ``below_deck_gifts``: how many of his negative cards the round-2 winner may give away,
      one at a time (default 1, at most ``MAX_GIFTS``; the French text's "the card(s)": more).
    * ``all_tied_loot``: ``"under_stack"``: when everybody ties, the unclaimed loot goes under
      its stacks; ``"removed"`` (French text): it leaves the game.
    * ``pass_sits_out``: ``False``: the Pass may be played once per game; ``True`` (the English
      "cannot play in the following rounds" read literally): a player who passed bids nothing
      for the rest of the game.
    * ``pass_can_win``: ``True``: a Pass (total 0) takes part in the tie rules and wins when
      every bid above it is tied away; ``False``: an empty bid never wins.
    * ``hand_size``: poker cards dealt and refilled to, 6 besides the Pass (the French refill
      to "six cards, one of them a Pass": 5); at most 6.
    """

    num_players: int = 4
    loot_fronts: tuple[int, ...] = DEFAULT_LOOT_FRONTS
    max_games: int = 100
    poker_copies: tuple[int, ...] = DEFAULT_POKER_COPIES
    overboard_gift: str = "any"
    below_deck_gifts: int = 1
    all_tied_loot: str = "under_stack"
    pass_sits_out: bool = False
    pass_can_win: bool = True
    hand_size: int = HAND_SIZE

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if isinstance(self.loot_fronts, (str, bytes)) or not isinstance(self.loot_fronts, Sequence):
            raise ValueError(f"loot_fronts={self.loot_fronts!r} must be a sequence of front values")
        object.__setattr__(self, "loot_fronts", tuple(self.loot_fronts))
        check_range("len(loot_fronts)", len(self.loot_fronts), 1, MAX_LOOT_PER_COLOUR)
        for i, front in enumerate(self.loot_fronts):
            check_front(f"loot_fronts[{i}]", front)
        check_range("max_games", self.max_games, 1)
        check_choice("overboard_gift", self.overboard_gift, OVERBOARD_GIFTS)
        gifts = check_range("below_deck_gifts", self.below_deck_gifts, 1, MAX_GIFTS)
        object.__setattr__(self, "below_deck_gifts", gifts)
        check_choice("all_tied_loot", self.all_tied_loot, ALL_TIED_LOOT)
        object.__setattr__(self, "pass_sits_out", check_bool("pass_sits_out", self.pass_sits_out))
        object.__setattr__(self, "pass_can_win", check_bool("pass_can_win", self.pass_can_win))
        object.__setattr__(self, "hand_size", check_range("hand_size", self.hand_size, 1, HAND_SIZE))
        copies = check_list("poker_copies", self.poker_copies, "copies of the values 1..8", length=VALUES_PER_COLOUR)
        copies = tuple(check_range(f"poker_copies[{i}]", c, 0, MAX_POKER_COPIES) for i, c in enumerate(copies))
        object.__setattr__(self, "poker_copies", copies)
        needed = self.num_players * self.hand_size
        if self.deck_size < needed:
            raise ValueError(
                f"poker_copies={copies} make a deck of {self.deck_size} poker cards; {self.num_players} players "
                f"with hand_size={self.hand_size} need at least {needed}"
            )

    @property
    def deck_counts(self) -> np.ndarray:
        """Copies of every poker kind in this game's deck (``(24,)``)."""
        return deck_counts(self.poker_copies)

    @property
    def deck_size(self) -> int:
        """Poker cards in this game's deck."""
        return NUM_COLOURS * sum(self.poker_copies)


_NEGATIVE_KINDS = np.array(NEGATIVE_KINDS)
_KINDS = np.arange(NUM_POKER_KINDS)

RESET_OPTIONS: dict[str, str] = {
    "hands": "list of num_players lists of at most hand_size poker card names dealt to each seat "
    "(refilled to hand_size)",
    "deck": "list of poker card names on top of the draw pile, first drawn first",
    "discard": "list of poker card names lying face up next to the draw pile",
    "rest_to_discard": "True or False: cards not placed by the options go to the discard "
    "(default False: shuffled under the deck)",
    "loot": "{colour: [front values, top first]} on top of each loot stack (the rest shuffled below), "
    "each front left in loot_fronts",
}


@dataclass(frozen=True)
class PokerSetup:
    """The poker-card reset options, checked: poker kinds per seat's hand (``None``: dealt), on top of
    the draw pile (first drawn first) and in the discard, and where the cards not placed go."""

    hands: list[list[int]] | None
    deck: list[int]
    discard: list[int]
    rest_to_discard: bool


class PiratenpokerEngine(BaseEngine):
    """Full Piratenpoker state; see the env module docstring for the rules and the actions."""

    ACTIONS = ACTIONS
    RESET_OPTIONS = RESET_OPTIONS
    #: Public events since the last reset while recording is on (see :mod:`pirate_envs.core.events`).
    events: list[Event] | None = None

    def __init__(self, config: Config):
        self.config = config
        self.num_players = config.num_players
        self._base_mask = np.zeros(len(ACTIONS), dtype=np.int8)
        self.reset(np.random.default_rng(0))

    # ----------------------------------------------------------------- setup
    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        opts = check_options(options, RESET_OPTIONS)
        poker = self._parse_poker_options(opts)
        loot = self._parse_loot_option(opts.get("loot"))
        n = self.num_players
        self.chance = self.start_chance(rng)
        if self.events is not None:
            self.events = []
        self.terminated = self.truncated = False
        self.cards = np.zeros((n, 2, NUM_POKER_KINDS), dtype=np.int16)  # per seat: hand, own bid
        self.hand_size = [0] * n
        self.bid_names: list[list[str]] = [[] for _ in range(n)]  # unrevealed bids, card names
        self.committed = [False] * n
        self.passed = [False] * n
        self.pass_available = [True] * n
        self.discard = np.zeros(NUM_POKER_KINDS, dtype=np.int16)
        self.draw: list[int] = []  # top of the pile = end of the list
        #: The draw piles (the deck, then each reshuffled discard), who drew how many cards from which
        #: and the bids revealed: what ``resample_hidden`` needs to redraw the others' cards within
        #: the piles they may have come from (`pirate_envs.piratenpoker.piles`).
        self.piles = PileHistory.start(n)
        self.displayed = np.zeros((n, NUM_DISPLAYED_KINDS), dtype=np.int16)
        self.face_up = [-1] * NUM_COLOURS
        self.stacks: list[list[int]] = []  # front indices, top first
        self.known_bottom = [0] * NUM_COLOURS  # cards put under a stack in public view
        self.round = 0
        self.phase = Phase.BID
        self.chooser = -1
        self.pending = -1
        self.may_give_to_self = False
        self.gifts = 0  # negative cards the round-2 winner has given this round
        self.games_played = 0
        self.last_bids = np.zeros((n, NUM_POKER_KINDS), dtype=np.int16)
        self.last_passed = (False,) * n
        self.last_winner = -1
        self.last_round = -1
        self._scores = [0.0] * n  # final_score of each seat's displayed loot
        self._mask: np.ndarray | None = None
        self._table: TableView | None = None
        self._setup_poker_cards(poker)
        self._setup_loot(loot)
        self._start_game()

    def _parse_poker_options(self, opts: dict[str, Any]) -> PokerSetup:
        """The ``hands``, ``deck``, ``discard`` and ``rest_to_discard`` options, checked (``None``: not given).

        The cards they place together may hold no kind more often than the deck.
        """
        given = np.zeros(NUM_POKER_KINDS, dtype=np.int64)

        def placed(field: str, names: object, max_length: int | None = None) -> list[int]:
            kinds = check_names(field, names, parse_poker_card, max_length=max_length, what="poker card names")
            given[:] += np.bincount(np.asarray(kinds, dtype=np.int64), minlength=NUM_POKER_KINDS)
            check_copies(field, given.tolist(), self.config.deck_counts.tolist(), POKER_NAMES, "the deck")
            return kinds

        hands: list[list[int]] | None = None
        if opts.get("hands") is not None:
            size = self.config.hand_size
            what = f"lists of at most {size} poker card names (one per seat)"
            seats = check_list("hands", opts["hands"], what, length=self.num_players)
            hands = [placed(f"hands[{seat}]", names, size) for seat, names in enumerate(seats)]
        deck = [] if opts.get("deck") is None else placed("deck", opts["deck"])
        discard = [] if opts.get("discard") is None else placed("discard", opts["discard"])
        rest = opts.get("rest_to_discard")
        return PokerSetup(hands, deck, discard, rest is not None and check_bool("rest_to_discard", rest))

    def _parse_loot_option(self, value: object) -> dict[int, list[int]]:
        """The ``loot`` option as front indices (top first) per colour index, checked (``None``: not given).

        Each colour's fronts must be left in ``loot_fronts`` (each stack holds one card per entry).
        """
        fronts_per_stack = np.bincount([FRONT_INDEX[f] for f in self.config.loot_fronts], minlength=NUM_FRONTS)
        holder = f"a stack of loot_fronts={self.config.loot_fronts}"
        chosen: dict[int, list[int]] = {}
        for colour, fronts in check_mapping("loot", value).items():
            field = f"loot[{colour!r}]"
            index = check_name("loot key", colour, parse_colour, "a colour name")
            items = check_list(field, fronts, "front values, top first")
            chosen[index] = [FRONT_INDEX[check_front(f"{field}[{i}]", front)] for i, front in enumerate(items)]
            used = np.bincount(np.asarray(chosen[index], dtype=np.int64), minlength=NUM_FRONTS)
            check_copies(field, used.tolist(), fronts_per_stack.tolist(), [f"+{v}" for v in FRONT_VALUES], holder)
        return chosen

    def _setup_poker_cards(self, setup: PokerSetup) -> None:
        """Place the cards of the options, shuffle the rest under the deck (or discard them) and deal."""
        remaining = self.config.deck_counts
        if setup.hands is not None:
            for seat, kinds in enumerate(setup.hands):
                for k in kinds:
                    remaining[k] -= 1
                    self._add_to_hand(seat, k)
        for k in setup.deck:
            remaining[k] -= 1
        for k in setup.discard:
            remaining[k] -= 1
            self.discard[k] += 1
        rest = np.repeat(_KINDS, remaining)
        if setup.rest_to_discard:
            self.discard += remaining
            rest = rest[:0]
        self.draw = self.chance.permutation(rest).tolist() + setup.deck[::-1]
        self.piles.set_first(self.config.deck_counts - self.discard)
        if setup.hands is None:  # deal from the top, seat 0 first (reshuffling the discard if needed)
            for seat in range(self.num_players):
                for _ in range(self.config.hand_size):
                    self._add_to_hand(seat, self._draw_card())

    def _setup_loot(self, chosen: dict[int, list[int]]) -> None:
        """Build the loot stacks: the chosen fronts on top, the rest of ``loot_fronts`` shuffled below."""
        for colour in range(NUM_COLOURS):
            rest = [FRONT_INDEX[f] for f in self.config.loot_fronts]
            top = chosen.get(colour, [])
            for front in top:
                rest.remove(front)
            self.stacks.append(top + self.chance.permutation(rest).tolist())
        self._stacks_changed()

    @property
    def hands(self) -> np.ndarray:
        """Cards in hand, ``(num_players, 24)`` counts per poker kind (a view of ``cards``)."""
        return self.cards[:, HAND_ROW]

    @property
    def bids(self) -> np.ndarray:
        """Unrevealed bids of this round, ``(num_players, 24)`` counts (a view of ``cards``)."""
        return self.cards[:, BID_ROW]

    # ----------------------------------------------------------------- game flow
    def _add_to_hand(self, seat: int, kind: int) -> None:
        """Give ``seat`` a card drawn from the current pile (or placed by the reset options)."""
        self.cards[seat, HAND_ROW, kind] += 1
        self.hand_size[seat] += 1
        self.piles.draw(seat, kind)

    def _draw_card(self) -> int | None:
        """Top card of the draw pile; an empty pile is first refilled by shuffling the discard."""
        if not self.draw:
            self.draw = self.chance.permutation(np.repeat(_KINDS, self.discard)).tolist()
            self.piles.reshuffle(self.discard)
            self.discard[:] = 0
            if not self.draw:
                return None
        return self.draw.pop()

    def _start_game(self) -> None:
        """Refill hands, return Pass cards, reveal three loot cards; or end the episode."""
        if any(not stack for stack in self.stacks):
            self.terminated = True
        elif self.games_played >= self.config.max_games:
            self.truncated = True
        if self.done:
            self.phase = Phase.OVER
            if self.events is not None:
                data = {"winners": self.winners() if self.terminated else [], "scores": list(self._scores)}
                self.events.append(Event("game_over", None, {**data, "truncated": self.truncated}))
            return
        self.games_played += 1
        seats, kinds = [], []  # the refill, in seat order, added to the hands at once
        for seat in range(self.num_players):
            while self.hand_size[seat] < self.config.hand_size:
                kind = self._draw_card()
                if kind is None:
                    break
                seats.append(seat)
                kinds.append(kind)
                self.hand_size[seat] += 1
                self.piles.draw(seat, kind)
            self.pass_available[seat] = True
        np.add.at(self.cards, (seats, HAND_ROW, kinds), 1)
        for colour, stack in enumerate(self.stacks):
            self.face_up[colour] = stack.pop(0)
            self.known_bottom[colour] = min(self.known_bottom[colour], len(stack))
        self._stacks_changed()
        if self.events is not None:
            offer = ", ".join(f"{c} +{FRONT_VALUES[f]}" for c, f in zip(COLOURS, self.face_up) if f >= 0)
            self.events.append(Event("deal", None, {"what": f"game {self.games_played}: loot on offer {offer}"}))
        self.round = OVERBOARD_ROUND
        self._start_round()

    def _start_round(self) -> None:
        self.phase = Phase.BID
        self.chooser = -1
        self.committed = [False] * self.num_players
        self._next_bidder(0)

    def _next_bidder(self, seat: int) -> None:
        """Hand the bid to the first seat from ``seat`` on that has a choice; reveal after the last."""
        for s in range(seat, self.num_players):
            if self._has_choice(self.hand_size[s], self.pass_available[s]):
                self.current_player = s
                return
            self.committed[s] = True  # nothing to play: bids nothing
        self._reveal()

    def _has_choice(self, cards_in_hand: int, holds_pass: bool) -> bool:
        """Whether a player with these cards and Pass at his turn to bid has a choice (else he bids nothing)."""
        if self.config.pass_sits_out:
            return holds_pass  # having passed he sits out the game; with the Pass he may bid or pass
        return bool(cards_in_hand) or holds_pass

    def _reveal(self) -> None:
        """Reveal every bid at once, discard the cards and act on the winner."""
        n = self.num_players
        self._table = None
        remaining = [c for c in range(NUM_COLOURS) if self.face_up[c] >= 0]
        loot_colour = COLOURS[remaining[0]] if self.round == LOOT_ROUND else None
        self.last_bids = self.bids.copy()
        self.cards[:, BID_ROW] = 0
        winner = bid_winner(self.bid_names, loot_colour, empty_can_win=self.config.pass_can_win)
        if self.events is not None:
            self._record_reveal(winner)
        self.discard += self.last_bids.sum(axis=0, dtype=np.int16)
        self.piles.reveal(self.last_bids)
        self.bid_names = [[] for _ in range(n)]
        self.last_passed = tuple(self.passed)
        self.passed = [False] * n
        self.last_winner = -1 if winner is None else winner
        self.last_round = self.round
        if winner is None:  # all tied: the game ends at once, unclaimed loot goes under its stack
            for colour in remaining:
                if self.config.all_tied_loot == "under_stack":
                    self._put_under_stack(colour)
                else:
                    self.face_up[colour] = -1  # out of the game
            self._start_game()
        elif self.round == LOOT_ROUND:
            colour = remaining[0]
            kind = displayed_kind(colour, FRONT_SIDE, self.face_up[colour])
            self.displayed[winner, kind] += 1
            self.face_up[colour] = -1
            self._rescore(winner, cause=f"displays {DISPLAYED_NAMES[kind]}")
            self._start_game()
        else:
            self.phase = Phase.PICK_LOOT
            self.chooser = self.current_player = winner

    def _put_under_stack(self, colour: int) -> None:
        self.stacks[colour].append(self.face_up[colour])
        self.known_bottom[colour] += 1
        self.face_up[colour] = -1
        self._stacks_changed()

    def _stacks_changed(self) -> None:
        """Recompute the public facts of the loot stacks: sizes, contents per front, top cards."""
        self._stack_facts = (
            tuple(len(s) for s in self.stacks),
            tuple(s.count(f) for s in self.stacks for f in range(NUM_FRONTS)),
            tuple(s[0] if s else -1 for s in self.stacks),
        )

    def _next_round(self) -> None:
        self.pending = -1
        self.round += 1
        self._start_round()

    def _rescore(self, *seats: int, cause: str = "", by: int | None = None) -> None:
        """Recompute the scores of ``seats`` after their displayed loot changed (``cause``: why, for the log)."""
        for seat in seats:
            old = self._scores[seat]
            self._scores[seat] = float(final_score(names_of(self.displayed[seat], DISPLAYED_NAMES)))
            if self.events is not None and self._scores[seat] != old:
                data = {"delta": self._scores[seat] - old, "total": self._scores[seat], "cause": cause}
                self.events.append(Event("score", seat, data if by is None or by == seat else {**data, "by": by}))

    def displayed_names(self) -> list[list[str]]:
        """Every seat's displayed loot as names (``"green:+8"``...)."""
        return [names_of(row, DISPLAYED_NAMES) for row in self.displayed]

    # ----------------------------------------------------------------- decisions
    def legal_mask(self) -> np.ndarray:
        """The cached, read-only mask of ``current_player``."""
        if self._mask is None:
            self._mask = read_only(self._compute_mask())
        return self._mask

    def _compute_mask(self) -> np.ndarray:
        mask = self._base_mask.copy()
        if self.done:
            return mask
        phase = self.phase
        if phase == Phase.BID:
            p = self.current_player
            mask[ADD:COMMIT] = self.cards[p, HAND_ROW] > 0
            mask[COMMIT] = len(self.bid_names[p]) > 0
            mask[PASS] = self.pass_available[p] and not self.bid_names[p]
        elif phase == Phase.PICK_LOOT:
            for colour in range(NUM_COLOURS):
                mask[LOOT + colour] = self.face_up[colour] >= 0
        elif phase == Phase.GIFT:
            mask[GIVE:KEEP] = self.displayed[self.chooser, _NEGATIVE_KINDS] > 0
            mask[KEEP] = 1
        else:
            mask[RECIPIENT : RECIPIENT + self.num_players] = 1
            mask[RECIPIENT] = self.may_give_to_self
        return mask

    def apply(self, action: int) -> None:
        previous_mask, self._mask = self._mask, None
        phase = self.phase
        if phase == Phase.BID:
            p = self.current_player
            if action < COMMIT:
                left = self.cards[p, HAND_ROW, action] = self.cards[p, HAND_ROW, action] - 1
                self.cards[p, BID_ROW, action] += 1
                self.hand_size[p] -= 1
                self.bid_names[p].append(POKER_NAMES[action])
                if previous_mask is not None:  # the same bidder: at most three entries change
                    mask = previous_mask.copy()
                    if not left:
                        mask[action] = 0
                    if len(self.bid_names[p]) == 1:  # his first card: he may commit, no longer pass
                        mask[COMMIT] = 1
                        mask[PASS] = 0
                    self._mask = read_only(mask)
                return  # nothing public changed
            if action == PASS:
                self.pass_available[p] = False
                self.passed[p] = True
            self.committed[p] = True
            if self.events is not None:  # a bid or a Pass: nobody can tell which before the reveal
                self.events.append(Event("bid", p, {}))
            self._next_bidder(p + 1)  # the table changes only on the reveal
            return
        if phase == Phase.PICK_LOOT:
            self._pick_loot(action - LOOT)
        elif phase == Phase.GIFT:
            if action == KEEP:
                if self.events is not None:
                    self.events.append(Event("move", self.chooser, {"what": "keeps his negative cards"}))
                self._next_round()
            else:
                kind = NEGATIVE_KINDS[action - GIVE]
                self.displayed[self.chooser, kind] -= 1
                self._rescore(self.chooser, cause=f"gives {DISPLAYED_NAMES[kind]} away")
                self._give(kind, to_self=False)
        else:
            target = (self.chooser + action - RECIPIENT) % self.num_players
            self.displayed[target, self.pending] += 1
            name = DISPLAYED_NAMES[self.pending]
            if self.events is not None:
                what = f"keeps {name}" if target == self.chooser else f"gives {name} to player_{target}"
                self.events.append(Event("move", self.chooser, {"what": what}))
            self._rescore(target, cause=f"gets {name}", by=self.chooser)
            if self.round == BELOW_DECK_ROUND:
                self.gifts += 1
                self._offer_gift()
            else:
                self._next_round()
        self._table = None

    def _pick_loot(self, colour: int) -> None:
        if self.round == OVERBOARD_ROUND:
            kind = displayed_kind(colour, BACK_SIDE, self.face_up[colour])
            if self.events is not None:
                what = f"throws the {COLOURS[colour]} loot card overboard: {DISPLAYED_NAMES[kind]}"
                self.events.append(Event("move", self.chooser, {"what": what}))
            self.face_up[colour] = -1
            if self.config.overboard_gift == "any":
                self._give(kind, to_self=True)
            elif IS_SHARK[kind]:  # the winner keeps a shark ...
                self.displayed[self.chooser, kind] += 1
                self._rescore(self.chooser, cause=f"keeps {DISPLAYED_NAMES[kind]}")
                self._next_round()
            else:  # ... and gives a negative card to another player
                self._give(kind, to_self=False)
        else:
            if self.events is not None:
                what = f"puts the {COLOURS[colour]} loot card under its stack"
                self.events.append(Event("move", self.chooser, {"what": what}))
            self._put_under_stack(colour)
            self.gifts = 0
            self._offer_gift()

    def _offer_gift(self) -> None:
        """Round 2: the winner may give a negative card while he holds one and has gifts left."""
        self.pending = -1
        if self.gifts < self.config.below_deck_gifts and self.displayed[self.chooser, _NEGATIVE_KINDS].any():
            self.phase = Phase.GIFT
        else:
            self._next_round()

    def _give(self, kind: int, to_self: bool) -> None:
        self.pending = kind
        self.may_give_to_self = to_self
        self.phase = Phase.RECIPIENT

    # ----------------------------------------------------------------- event log
    def _record_reveal(self, winner: int | None) -> None:
        """The revealed bids (cards, ``pass``, or nothing) and the round's winner."""
        assert self.events is not None
        bids = [
            "pass" if self.passed[s] else sorted(names, key=POKER_INDEX.__getitem__) or "nothing"
            for s, names in enumerate(self.bid_names)
        ]
        self.events.append(Event("bids_revealed", None, {"bids": bids}))
        round_name = ROUND_NAMES[self.round]
        if winner is None:
            self.events.append(Event("no_winner", None, {"what": f"the {round_name} round: all tied, the game ends"}))
        else:
            self.events.append(Event("round_won", winner, {"what": f"the {round_name} round"}))

    # ----------------------------------------------------------------- results
    def scores(self) -> np.ndarray:
        return np.array(self._scores)

    def winners(self) -> list[int]:
        return final_winners(self.displayed_names())

    # ----------------------------------------------------------------- information
    def view(self, seat: int) -> View:
        table = self._table
        if table is None:
            table = self._table = self._table_view()
        return View(
            seat,
            self.cards[seat].copy(),
            self.pass_available[seat],
            self.committed[seat],
            self.passed[seat],
            self.current_player == seat and not self.done,
            table,
        )

    def _table_view(self) -> TableView:
        # positional (in TableView's field order): keywords cost twice as much
        return TableView._make(
            (
                self.num_players,
                self.games_played,
                self.round,
                int(self.phase),
                self.chooser,
                self.pending,
                self.may_give_to_self,
                tuple(self.face_up),
                *self._stack_facts,  # stack_sizes, stack_contents, stack_tops
                len(self.draw),
                read_only(self.discard.copy()),
                read_only(self.displayed.copy()),
                tuple(self._scores),
                tuple(a or p for a, p in zip(self.pass_available, self.passed)),
                tuple(h + len(b) for h, b in zip(self.hand_size, self.bid_names)),
                read_only(self.last_bids.copy()),
                self.last_passed,
                self.last_winner,
                self.last_round,
            )
        )

    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Redraw what ``seat`` cannot see: the others' unrevealed bids, their hands, the draw pile, the loot.

        While bidding, each other seat's choice of this round is redrawn within what is public:
        his cards in hand and bid together and whether he held his Pass at the round's start.
        A seat that has bid is redrawn uniformly among the Pass (if he held it) and bids of
        1..all those cards; the seat building his bid now, among partial bids of 0..all of them.

        The others' cards are redrawn within the draw pile each may have come from. Once the
        discard was reshuffled into a new pile while cards of the older one were still held, which
        pile a revealed card came from is unseen; every attribution the seat cannot rule out is
        weighed from what the seat knows and one is drawn (`PileHistory.sample_world`). Then each
        pile's cards the seat has not seen are shuffled and dealt back, as many to each seat as
        that attribution leaves him from the pile, the rest (of the current pile) to the draw pile:
        the pile keeps cards of the reshuffled discard only. Each seat's cards are then split anew
        into hand and bid of the sizes drawn above. The loot stacks keep their visible top card and
        the cards seen going under them; the rest of each stack is shuffled.
        """
        rng = as_chance(rng)
        others = [s for s in range(self.num_players) if s != seat]
        in_hand = {s: self.hand_size[s] + len(self.bid_names[s]) for s in others}  # hand and bid: public
        bid_sizes = {s: len(self.bid_names[s]) for s in others}
        if self.phase == Phase.BID:
            for s in others:
                bid_sizes[s] = self._redraw_choice(s, in_hand[s], rng)
        world = self.piles.sample_world(seat, lambda: rng.integers(1 << 52) / (1 << 52))
        dealt = {s: np.zeros((len(world.unseen), NUM_POKER_KINDS), dtype=np.int16) for s in others}
        for pile, (cards_left, counts) in enumerate(zip(world.unseen, world.held)):
            cards = rng.permutation(np.repeat(_KINDS, cards_left)).tolist() if any(cards_left) else []
            for s in others:
                if counts[s]:
                    dealt[s][pile] = np.bincount(cards[len(cards) - counts[s] :], minlength=NUM_POKER_KINDS)
                    del cards[len(cards) - counts[s] :]
            if pile == len(world.unseen) - 1:
                self.draw = cards
        self.piles.redrawn(others, {s: dealt[s] + world.played[:, s] for s in others})
        for s in others:
            mine = rng.permutation(np.repeat(_KINDS, dealt[s].sum(axis=0)))
            self.cards[s, BID_ROW] = np.bincount(mine[: bid_sizes[s]], minlength=NUM_POKER_KINDS)
            self.cards[s, HAND_ROW] = np.bincount(mine[bid_sizes[s] :], minlength=NUM_POKER_KINDS)
            self.hand_size[s] = in_hand[s] - bid_sizes[s]
            self.bid_names[s] = names_of(self.cards[s, BID_ROW], POKER_NAMES)
        for colour, stack in enumerate(self.stacks):
            hidden_end = len(stack) - self.known_bottom[colour]
            if hidden_end > 1:  # the top card's back is face up
                stack[1:hidden_end] = rng.permutation(stack[1:hidden_end]).tolist()
        self._mask = None
        self._table = None

    def _redraw_choice(self, s: int, in_hand: int, rng: Chance) -> int:
        """Redraw seat ``s``'s hidden choice of this round (Pass flags set here); return his bid's size.

        ``in_hand`` is his cards in hand and bid together, public like whether he held his Pass
        at the round's start.
        """
        held_pass = self.pass_available[s] or self.passed[s]
        if s == self.current_player and not self.committed[s]:
            return rng.integers(0, in_hand + 1)  # building his bid: 0..all cards so far
        if not self.committed[s] or not self._has_choice(in_hand, held_pass):
            return 0  # not asked yet, or nothing to play
        size = rng.integers(0 if held_pass else 1, in_hand + 1)  # 0: the Pass
        self.passed[s] = size == 0
        self.pass_available[s] = held_pass and size > 0
        return size

    def render(self) -> str:
        names = self.displayed_names()
        rows = []
        for s in range(self.num_players):
            hand = " ".join(names_of(self.hands[s], POKER_NAMES))
            bid = "PASS" if self.passed[s] else " ".join(names_of(self.bids[s], POKER_NAMES))
            turn = " *" if s == self.current_player and not self.done else ""
            rows.append(
                [
                    seat_name(s) + turn,
                    hand,
                    bid,
                    "yes" if self.pass_available[s] else "no",
                    " ".join(names[s]),
                    int(self._scores[s]),
                ]
            )
        loot = ", ".join(
            f"{c}: {'-' if f < 0 else '+' + str(FRONT_VALUES[f])} ({len(st)} in stack)"
            for c, f, st in zip(COLOURS, self.face_up, self.stacks)
        )
        head = f"game {self.games_played}, round {self.round + 1}, phase {self.phase.name}; loot {loot}"
        if self.pending >= 0:
            head += f"; player_{self.chooser} gives {DISPLAYED_NAMES[self.pending]}"
        if self.done:
            head += "; episode " + ("truncated" if self.truncated else "over")
        table = format_table(["player", "hand", "bid", "pass", "displayed", "score"], rows)
        return fit_text(f"{head}\n{table}")


#: The engine under its role name: every game package offers ``Engine``, ``Config``, ``View`` and ``Encoder``.
Engine = PiratenpokerEngine
