"""Lucky Pirate rules engine: the full state of a game (or tournament), legal actions, effects.

Pure Python + numpy. What may be played on the pile and what the pile becomes come from the
pure helpers of `.rules` (``can_play`` is tabulated once per config, ``place`` is called
for every play). See `pirate_envs.lucky_pirate.env` for the game's documentation page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pirate_envs.core.chance import Chance, GeneratorChance, as_chance
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.engine import TurnGuard, check_options, read_only
from pirate_envs.core.errors import (
    check_choice,
    check_copies,
    check_list,
    check_mapping,
    check_names,
    check_range,
    shown,
)
from pirate_envs.core.events import Event
from pirate_envs.core.render import fit_text, format_table, seat_name
from pirate_envs.lucky_pirate.actions import (
    ACTIONS,
    DOWN_OFFSET,
    LAY_UP_OFFSET,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    PICK_UP,
    decode_play,
)
from pirate_envs.lucky_pirate.cards import (
    CAPTAIN,
    DEFAULT_DECK,
    FIRST_MATE,
    KINDS,
    MAX_COPIES,
    MAX_UP_DOWN,
    MAX_VALUE,
    NUM_KINDS,
    NUMBER_CARDS,
    REVERSE,
    SKIP,
    SPECIAL_KINDS,
    TWO_PLAYER_HANDS,
    UP_DOWN_CARDS,
    WALK_THE_PLANK,
    kind_index,
)
from pirate_envs.lucky_pirate.rules import (
    EMPTY_TOP,
    NUM_MODES,
    REVERSE_SKIP_VALUES,
    Mode,
    PileRules,
    PileTop,
    can_play,
    pile_top,
    place,
)
from pirate_envs.lucky_pirate.view import (
    DOWN_LEFT_COLUMN,
    HAND_SIZE_COLUMN,
    TABLE_COLUMNS,
    WINS_COLUMN,
    View,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 6
DEFAULT_MAX_TURNS = 5000
DEFAULT_MAX_SET_ASIDE_GAMES = 10
SET_ASIDE_DEALERS = ("same", "random")


@dataclass(frozen=True)
class Config:
    """Lucky Pirate options (validated: a bad value raises ``ValueError`` naming the field).

    Every field but ``num_players``, ``wins_to_win`` and the two limits is an assumption where
    the rule text is silent (see the project's rulings page, ``docs/rulings.md``).
    """

    num_players: int = 4
    #: The deck: card kind -> copies (assumption: the published deck is unknown).
    deck: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_DECK))
    #: Short deck (the small variants): the numbers above ``ranks`` leave ``deck`` (1..8; 8: none leave).
    ranks: int = len(NUMBER_CARDS)
    #: Short deck: at most this many copies of every kind stay (1..6; 6: all stay).
    copies: int = MAX_COPIES
    #: Short deck: the first ``specials`` special kinds stay, in the order Captain, Kraken, First
    #: Mate, Porthole, Walk the Plank, Mermaid, Parrot, Reverse, Skip (0..9; 9: all stay).
    specials: int = len(SPECIAL_KINDS)
    #: Up (and down) cards per player; 0: the rule text's count for the players (`UP_DOWN_CARDS`).
    up_down_cards: int = 0
    #: Dealer of the first game: ``None`` = a random seat (the text's cut for the lowest card
    #: gives every seat the same chance), or a seat. Later games: the previous winner deals.
    first_dealer: int | None = None
    #: Episode = first to this many game wins (1: one game; the text's tournament is 5).
    wins_to_win: int = 1
    #: Assumption (False): up cards are dealt at random, unseen. True: each player, having seen
    #: all his cards but the down ones, lays his up cards himself (a set-up phase).
    choose_up_cards: bool = False
    #: Assumption: the player who clears the pile with three equal numbers plays again.
    run_clear_plays_again: bool = True
    #: Assumption: the player of Walk the Plank plays again on the empty pile.
    plank_plays_again: bool = True
    #: Assumption (False): the First Mate is a 9 that may also go on a Captain. True: only on a
    #: Captain (the earlier ruling; First Mates can then be stranded, see the env docstring).
    first_mate_only_on_captain: bool = False
    #: With ``first_mate_only_on_captain=True`` only: a First Mate may also start an empty pile.
    first_mate_on_empty_pile: bool = False
    porthole_on_empty_pile: bool = True
    reverse_skip_value: str = "keep"
    captain_counts_in_runs: bool = True
    #: Turn-limit guard, per game: a game not won after this many turns is truncated (in a
    #: tournament: set aside).
    max_turns: int = DEFAULT_MAX_TURNS
    #: Tournament limit: the episode is truncated when more than this many of its games have
    #: been set aside unwon (guard or stranded); 0 truncates at the first one.
    max_set_aside_games: int = DEFAULT_MAX_SET_ASIDE_GAMES
    #: Assumption (``"same"``): who deals after a game set aside unwon: the same dealer again,
    #: or ``"random"``: a random seat.
    set_aside_dealer: str = "same"
    #: Observation option (False): True appends the piece ``known`` (the cards every player saw go
    #: into each hand). Off by default, so that ``lucky_pirate_v0`` observes what it always did.
    observe_known: bool = False
    #: Observation option (False): True appends the piece ``pile_cards`` (the cards in the pile,
    #: per kind: every one was played face up). Off by default, as ``observe_known``.
    observe_pile: bool = False

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if self.first_dealer is not None:
            check_range("first_dealer", self.first_dealer, 0, self.num_players - 1)
        check_range("wins_to_win", self.wins_to_win, 1)
        check_range("max_turns", self.max_turns, 1)
        check_range("max_set_aside_games", self.max_set_aside_games, 0)
        check_choice("reverse_skip_value", self.reverse_skip_value, REVERSE_SKIP_VALUES)
        check_choice("set_aside_dealer", self.set_aside_dealer, SET_ASIDE_DEALERS)
        check_range("ranks", self.ranks, 1, len(NUMBER_CARDS))
        check_range("copies", self.copies, 1, MAX_COPIES)
        check_range("specials", self.specials, 0, len(SPECIAL_KINDS))
        check_range("up_down_cards", self.up_down_cards, 0, MAX_UP_DOWN)
        for name in (
            "run_clear_plays_again",
            "plank_plays_again",
            "choose_up_cards",
            "first_mate_only_on_captain",
            "first_mate_on_empty_pile",
            "porthole_on_empty_pile",
            "captain_counts_in_runs",
            "observe_known",
            "observe_pile",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be True or False")
        deck = check_deck(self.deck, self.num_players, self.up_down)  # a validated copy
        deck = short_deck(deck, self.ranks, self.copies, self.specials)
        needed = cards_needed(self.num_players, self.up_down)
        if sum(deck.values()) < needed:
            raise ValueError(
                f"ranks={self.ranks}, copies={self.copies} and specials={self.specials} leave "
                f"{sum(deck.values())} cards; {self.num_players} players with up_down_cards={self.up_down} "
                f"need at least {needed}"
            )
        object.__setattr__(self, "deck", deck)

    @property
    def pile_rules(self) -> PileRules:
        """The pile options of this config."""
        return PileRules(
            self.first_mate_only_on_captain,
            self.first_mate_on_empty_pile,
            self.porthole_on_empty_pile,
            self.reverse_skip_value,
            self.captain_counts_in_runs,
        )

    @property
    def up_down(self) -> int:
        """Up cards (and down cards) per player."""
        return self.up_down_cards or UP_DOWN_CARDS[self.num_players]

    @property
    def deck_size(self) -> int:
        """Cards in the deck."""
        return sum(self.deck.values())


def cards_needed(num_players: int, up_down: int) -> int:
    """The fewest cards a deal needs: the up and down cards of every hand dealt (two players: three hands)."""
    return (TWO_PLAYER_HANDS if num_players == 2 else num_players) * 2 * up_down


def short_deck(deck: Mapping[str, int], ranks: int, copies: int, specials: int) -> dict[str, int]:
    """``deck`` without the numbers above ``ranks`` and the special kinds after the first ``specials``,
    at most ``copies`` of each kind (applied twice it changes nothing more)."""
    kept = set(NUMBER_CARDS[:ranks]) | set(SPECIAL_KINDS[:specials])
    return {kind: min(count, copies) if kind in kept else 0 for kind, count in deck.items()}


def check_deck(deck: Mapping[str, int], num_players: int, up_down: int | None = None) -> dict[str, int]:
    """Validate a deck mapping (kind -> copies) and return it with every kind present.

    ``up_down``: up (and down) cards per player (``None``: the rule text's count for the players)."""
    if not isinstance(deck, Mapping):
        raise ValueError(f"deck={deck!r} must be a mapping card kind -> copies")
    for kind in deck:
        check_choice("deck kind", kind, KINDS)
    full = {k: deck.get(k, 0) for k in KINDS}
    for kind, copies in full.items():
        check_range(f"deck[{kind!r}]", copies, 0, MAX_COPIES)
    needed = cards_needed(num_players, up_down or UP_DOWN_CARDS[num_players])
    if sum(full.values()) < needed:
        raise ValueError(
            f"deck has {sum(full.values())} cards; {num_players} players need at least {needed} "
            "(the up and down cards of every hand dealt)"
        )
    return full


#: Cards of the pile shown in views and observations (topmost first).
PILE_TOP_CARDS = 3
EMPTY_SLOT = -1
ZONES = ("hand", "up", "down")
#: The most cards a chosen deal (reset option ``deal``) may give a seat in a zone (absent: any number).
ZONE_MAX_CARDS: dict[str, int] = {"down": MAX_UP_DOWN}
#: Engine attributes that are views of its ``table`` (not copied: ``__setstate__`` relinks them).
_TABLE_VIEWS = ("ups", "hand_size", "down_left", "wins")


class LuckyPirateEngine(BaseEngine):
    """One Lucky Pirate episode: a game, or a tournament of games to ``wins_to_win`` wins."""

    ACTIONS = ACTIONS
    #: Public events since the last reset while recording is on (see :mod:`pirate_envs.core.events`).
    events: list[Event] | None = None
    #: Forced cycles exist (rare: see the env docstring's measured outcomes); the turn guard ends them.
    CAN_CYCLE = True
    RESET_OPTIONS: Mapping[str, str] = {
        "deal": "a chosen deal: a list of num_players mappings with 'hand', 'up' and 'down' lists of card "
        f"names (at most {MAX_UP_DOWN} down cards, in slot order); deck cards not dealt are put aside unseen",
        "dealer": "seat of the dealer of the first game (the player to its left starts), or None: a random seat",
        "pile": "with 'deal': a list of card names already on the pile, bottom to top",
    }

    def __init__(self, config: Config):
        self.config = config
        self.rules = config.pile_rules
        n = self.num_players = config.num_players
        self._deck = np.repeat(np.arange(NUM_KINDS), [config.deck[k] for k in KINDS])
        #: playable[value][mode]: per kind, 1 if one card of it may be played on that top of a
        #: pile that is not empty; ``playable_on_empty``: the same on an empty pile.
        self._playable = [
            [
                np.array([can_play(k, PileTop(v, Mode(m)), self.rules) for k in range(NUM_KINDS)], dtype=np.int64)
                for m in range(NUM_MODES)
            ]
            for v in range(MAX_VALUE + 1)
        ]
        self._playable_on_empty = np.array([can_play(k, EMPTY_TOP, self.rules) for k in range(NUM_KINDS)], np.int64)
        #: sets_allowed[c]: the mask bytes of one kind's play actions when c copies may be played
        #: (a set of j + 1 needs c > j); joined into a read-only mask with ``np.frombuffer``.
        self._sets_allowed = [bytes(j < c for j in range(MAX_COPIES)) for c in range(MAX_COPIES + 1)]
        self._no_other_actions = bytes(NUM_ACTIONS - NUM_PLAY_ACTIONS)
        self._pick_up_only = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._pick_up_only[PICK_UP] = 1
        read_only(self._pick_up_only)
        self._order = [np.array([(s + i) % n for i in range(n)]) for s in range(n)]
        self.hands = np.zeros((n, NUM_KINDS), dtype=np.int64)
        #: Public per-seat table (columns ``TABLE_COLUMNS``); the named arrays below are views of it.
        self.table = np.zeros((n, len(TABLE_COLUMNS)), dtype=np.int64)
        self.ups: np.ndarray
        self.hand_size: np.ndarray
        self.down_left: np.ndarray
        self.wins: np.ndarray
        self._link_table()
        self.up_size = np.zeros(n, dtype=np.int64)
        #: known[seat, kind]: cards of seat's hand that every player saw go in (a picked-up
        #: pile, a revealed down card that failed); public until played.
        self.known = np.zeros((n, NUM_KINDS), dtype=np.int64)
        #: Set-up phase (option ``choose_up_cards``): up cards each seat has still to lay.
        self.setting_up = False
        self.to_lay = np.zeros(n, dtype=np.int64)
        self.downs: list[list[int]] = [[] for _ in range(n)]
        self.pile: list[int] = []
        self.pile_counts = np.zeros(NUM_KINDS, dtype=np.int64)
        self.top: PileTop = EMPTY_TOP
        self.removed = np.zeros(NUM_KINDS, dtype=np.int64)
        #: Read-only copies handed to views, rebuilt only when the cards change.
        self._removed_copy = read_only(self.removed.copy())
        self._slots_filled: list[tuple[bool, ...]] = [() for _ in range(n)]
        self.set_aside = np.zeros(NUM_KINDS, dtype=np.int64)
        self.direction = 1
        self.dealer = 0
        self.guard = TurnGuard(config.max_turns)
        #: Why each game of this episode set aside unwon ended (tournaments only).
        self.set_aside_games: list[str] = []
        #: First Mates can be stranded (playable only on a Captain, never on an empty pile).
        rules = self.rules
        self._first_mates_can_strand = rules.first_mate_only_on_captain and not rules.first_mate_on_empty_pile
        self.chance: Chance = GeneratorChance(np.random.default_rng())
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ set-up
    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        opts = check_options(options, self.RESET_OPTIONS)
        n = self.num_players
        dealer = opts.get("dealer", self.config.first_dealer)
        if dealer is not None:
            dealer = check_range("dealer", dealer, 0, n - 1)
        deal, pile = opts.get("deal"), opts.get("pile")
        if deal is None and pile is not None:
            raise ValueError(f"reset option pile={shown(pile)} needs a chosen 'deal'")
        chosen = None if deal is None else self._parse_deal(deal, pile)
        self.chance = self.start_chance(rng)
        if self.events is not None:
            self.events = []
        self.wins[:] = 0
        self.set_aside_games = []
        self.terminated = self.truncated = False
        self.truncation_reason = None
        if dealer is None:
            dealer = self.chance.integers(n)
        if chosen is None:
            self._deal(dealer)
        else:
            self._set_deal(*chosen)
        self._start_game(dealer)

    def _deal(self, dealer: int) -> None:
        """Shuffle and deal every card, starting left of the dealer (two players: three hands)."""
        n = self.num_players
        cards = self.chance.permutation(self._deck)
        hands_dealt = TWO_PLAYER_HANDS if n == 2 else n
        d = self.config.up_down
        choose = self.config.choose_up_cards
        for h in range(hands_dealt):
            dealt = cards[h::hands_dealt]
            if h >= n:  # the two-player extra hand, put aside unseen
                self.set_aside[:] = np.bincount(dealt, minlength=NUM_KINDS)
                continue
            seat = (dealer + 1 + h) % n
            if choose:  # the up cards stay in the hand until the player lays them
                self._seat_cards(seat, dealt[d:], (), dealt[:d].tolist())
            else:
                self._seat_cards(seat, dealt[2 * d :], dealt[d : 2 * d], dealt[:d].tolist())
        if hands_dealt == n:
            self.set_aside[:] = 0
        self.setting_up = choose
        self.to_lay[:] = d if choose else 0
        self._clear_table()

    def _seat_cards(self, seat: int, hand: Sequence[int], up: Sequence[int], down: list[int]) -> None:
        """Give ``seat`` these cards (kind indices)."""
        self.hands[seat] = np.bincount(np.asarray(hand, dtype=np.int64), minlength=NUM_KINDS)
        self.ups[seat] = np.bincount(np.asarray(up, dtype=np.int64), minlength=NUM_KINDS)
        self.hand_size[seat] = len(hand)
        self.up_size[seat] = len(up)
        self.downs[seat] = list(down)
        self.known[seat] = 0
        self._slots_filled[seat] = (True,) * len(down)
        self.down_left[seat] = len(down)

    def _clear_table(self) -> None:
        self.pile.clear()
        self.pile_counts[:] = 0
        self.top = EMPTY_TOP
        self.removed[:] = 0
        self._removed_copy = read_only(self.removed.copy())

    def _parse_deal(self, deal: object, pile: object) -> tuple[list[tuple[list[int], ...]], list[int]]:
        """The ``deal`` and ``pile`` options, checked: per seat the kinds of its hand, up and down cards,
        and the pile's kinds (bottom to top); together they hold no kind more often than the deck."""
        zones_text = "{" + ", ".join(f"{zone!r}: [card names]" for zone in ZONES) + "}"
        seats = check_list("deal", deal, f"mappings {zones_text} (one per seat)", length=self.num_players)
        pile_kinds = [] if pile is None else check_names("pile", pile, kind_index)
        used = np.bincount(np.asarray(pile_kinds, dtype=np.int64), minlength=NUM_KINDS)
        cards = []
        for seat, zones in enumerate(seats):
            field = f"deal[{seat}]"
            zones = check_mapping(field, zones)
            unknown = sorted((zone for zone in zones if zone not in ZONES), key=repr)
            if unknown:
                raise ValueError(f"{field} has unknown zone(s) {unknown}; valid: {list(ZONES)}")
            seat_cards = tuple(
                []
                if zones.get(zone) is None
                else check_names(f"{field}[{zone!r}]", zones[zone], kind_index, max_length=ZONE_MAX_CARDS.get(zone))
                for zone in ZONES
            )
            for kinds in seat_cards:
                used += np.bincount(np.asarray(kinds, dtype=np.int64), minlength=NUM_KINDS)
            cards.append(seat_cards)
        deck = [self.config.deck[k] for k in KINDS]
        check_copies("deal" if pile is None else "deal and pile", used.tolist(), deck, KINDS, "the deck")
        return cards, pile_kinds

    def _set_deal(self, cards: list[tuple[list[int], ...]], pile: list[int]) -> None:
        """Lay out a chosen deal (the checked ``deal`` and ``pile`` options: see `_parse_deal`)."""
        used = np.bincount(np.asarray(pile, dtype=np.int64), minlength=NUM_KINDS)
        for seat, (hand, up, down) in enumerate(cards):
            self._seat_cards(seat, hand, up, down)
            used += np.bincount(np.asarray(hand + up + down, dtype=np.int64), minlength=NUM_KINDS)
        self._clear_table()
        self.setting_up = False
        self.to_lay[:] = 0
        self.set_aside[:] = np.array([self.config.deck[k] for k in KINDS], dtype=np.int64) - used
        self.pile[:] = pile
        self.pile_counts[:] = np.bincount(np.asarray(self.pile, dtype=np.int64), minlength=NUM_KINDS)
        self.top = pile_top([KINDS[k] for k in pile], self.rules)

    def _start_game(self, dealer: int) -> None:
        if self.events is not None:
            number = int(self.wins.sum()) + len(self.set_aside_games) + 1
            self.events.append(Event("deal", None, {"what": f"game {number}", "dealer": dealer}))
        self.dealer = dealer
        self.direction = 1
        self.current_player = (dealer + 1) % self.num_players
        self.guard = TurnGuard(self.config.max_turns)
        self._mask = None

    # ------------------------------------------------------------------ legal actions
    def source(self, seat: int) -> str:
        """Where ``seat`` plays from: ``"hand"``, then ``"up"``, then ``"down"`` (``"none"``: out)."""
        if self.hand_size[seat]:
            return "hand"
        if self.up_size[seat]:
            return "up"
        return "down" if self.down_left[seat] else "none"

    def legal_mask(self) -> np.ndarray:
        mask = self._mask
        if mask is None:
            mask = self._mask = self._compute_mask()
        return mask

    def _compute_mask(self) -> np.ndarray:
        """The read-only mask of the player on turn (plays, else a blind down card, else pick up)."""
        p = self.current_player
        if self.setting_up:  # lay one card of any kind held
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[LAY_UP_OFFSET : LAY_UP_OFFSET + NUM_KINDS] = self.hands[p] > 0
            return read_only(mask)
        if self.hand_size[p]:
            cards = self.hands[p]
        elif self.up_size[p]:
            cards = self.ups[p]
        else:  # only down cards: any of them, blind (it may fail)
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            for slot, kind in enumerate(self.downs[p]):
                mask[DOWN_OFFSET + slot] = kind != EMPTY_SLOT
            return read_only(mask)
        playable = (cards * self._playable_row()).tolist()
        if not any(playable):
            return self._pick_up_only
        # dtype positional: numpy parses a keyword more slowly
        return np.frombuffer(b"".join(map(self._sets_allowed.__getitem__, playable)) + self._no_other_actions, np.int8)

    def _playable_row(self) -> np.ndarray:
        """Per kind, 1 if one card of it may be played on the pile now."""
        top = self.top
        return self._playable_on_empty if top.empty else self._playable[top.value][top.mode]

    # ------------------------------------------------------------------ effects
    def apply(self, action: int) -> None:
        p = self.current_player
        guard = self.guard
        self._mask = None
        if self.events is not None:
            self._record_move(p, action)
        if action < DOWN_OFFSET:
            kind, count = decode_play(action)
            if self.hand_size[p]:
                self.hands[p, kind] -= count
                self.hand_size[p] -= count
                if self.known[p, kind]:  # the others cannot tell known cards from unseen ones
                    self.known[p, kind] = max(0, self.known[p, kind] - count)
            else:
                self.ups[p, kind] -= count
                self.up_size[p] -= count
            self._play(p, kind, count)
        elif action < PICK_UP:
            slot = action - DOWN_OFFSET
            kind = self.downs[p][slot]
            self.downs[p][slot] = EMPTY_SLOT
            self.down_left[p] -= 1
            self._slots_filled[p] = tuple(k != EMPTY_SLOT for k in self.downs[p])
            if self._playable_row()[kind]:
                self._play(p, kind, 1)
            else:  # the revealed card goes into the hand with the pile, seen by all
                self.hands[p, kind] += 1
                self.hand_size[p] += 1
                self.known[p, kind] += 1
                self._pick_up(p)
        elif action == PICK_UP:
            self._pick_up(p)
        else:
            self._lay_up(p, action - LAY_UP_OFFSET)
        if self.terminated or self.guard is not guard:  # won (a tournament's next game is dealt)
            return
        if guard.tick():
            self._set_aside("turn limit")
        elif not self.pile and self._first_mates_can_strand and self.first_mates_stranded():
            self._set_aside("stranded First Mates")

    def _set_aside(self, reason: str) -> None:
        """End the game unwon: a one-game episode is truncated; a tournament deals the next game.

        The tournament is truncated instead once ``max_set_aside_games`` games have been set aside.
        """
        config = self.config
        if self.events is not None:
            self.events.append(Event("no_winner", None, {"what": f"this game ({reason})"}))
        if config.wins_to_win == 1:
            self.truncated, self.truncation_reason = True, reason
            self._record_game_over()
            return
        self.set_aside_games.append(reason)
        if len(self.set_aside_games) > config.max_set_aside_games:
            self.truncated, self.truncation_reason = True, "set-aside game limit"
            self._record_game_over()
            return
        dealer = self.dealer if config.set_aside_dealer == "same" else self.chance.integers(self.num_players)
        self._deal(dealer)
        self._start_game(dealer)

    def first_mates_stranded(self) -> bool:
        """Whether nobody can ever win: each seat holds a First Mate and no Captain can reach the pile.

        A First Mate that may be played only on a Captain blocks whatever lies behind it: a
        player with one in his hand never reaches his up cards, one with one in his hand or up
        cards never reaches his down cards. With no Captain on the pile or in a hand, and every
        other Captain behind such a First Mate (or out of the game), no First Mate can ever be
        played, and a player holding one can never shed his last card. Always False unless the
        rules let First Mates strand (``first_mate_only_on_captain=True`` without
        ``first_mate_on_empty_pile``); not during the set-up, when a First Mate may still leave
        the hand face up. ``apply`` asks when the pile has just been emptied (cleared or picked
        up); right after the deal it tells a deal that is dead before any play.
        """
        if self.setting_up or not self._first_mates_can_strand or self.pile_counts[CAPTAIN]:
            return False
        hands, ups, downs = self.hands, self.ups, self.downs
        if hands[:, CAPTAIN].any():
            return False
        for seat in range(self.num_players):
            blocked_ups = hands[seat, FIRST_MATE] > 0
            if ups[seat, CAPTAIN] and not blocked_ups:
                return False
            if CAPTAIN in downs[seat] and not (blocked_ups or ups[seat, FIRST_MATE]):
                return False
        return all(
            hands[s, FIRST_MATE] or ups[s, FIRST_MATE] or FIRST_MATE in downs[s] for s in range(self.num_players)
        )

    def _play(self, p: int, kind: int, count: int) -> None:
        """``p`` puts ``count`` cards of ``kind`` on the pile."""
        self.pile.extend([kind] * count)
        self.pile_counts[kind] += count
        if not (self.hand_size[p] or self.up_size[p] or self.down_left[p]):
            self._win(p)
            return
        top, cleared = place(self.top, kind, count, self.rules)
        if cleared and self.events is not None:
            what = f"clears the pile out of the game ({len(self.pile)} cards)"
            self.events.append(Event("move", p, {"what": what}))
        if cleared:
            self.removed += self.pile_counts
            self._removed_copy = read_only(self.removed.copy())
            self.pile_counts[:] = 0
            self.pile.clear()
            self.top = EMPTY_TOP
            config = self.config
            again = config.plank_plays_again if kind == WALK_THE_PLANK else config.run_clear_plays_again
            self.current_player = p if again else (p + self.direction) % self.num_players
            return
        self.top = top
        if kind == REVERSE and count % 2:
            self.direction = -self.direction
        skipped = count if kind == SKIP else 0
        self.current_player = (p + self.direction * (1 + skipped)) % self.num_players

    def _lay_up(self, p: int, kind: int) -> None:
        """Set-up: ``p`` lays one card of ``kind`` from the hand face up."""
        self.hands[p, kind] -= 1
        self.hand_size[p] -= 1
        self.ups[p, kind] += 1
        self.up_size[p] += 1
        self.to_lay[p] -= 1
        if not self.to_lay[p]:  # the next seat lays; after the dealer, play begins at his left
            self.current_player = (p + 1) % self.num_players
            self.setting_up = bool(self.to_lay.any())

    def _pick_up(self, p: int) -> None:
        """``p`` takes the pile into the hand; the next player starts a new pile."""
        if self.events is not None:
            size = len(self.pile)
            self.events.append(Event("move", p, {"what": f"picks up the pile ({size} card{'s' * (size != 1)})"}))
        self.hands[p] += self.pile_counts
        self.known[p] += self.pile_counts  # every card of the pile was played face up
        self.hand_size[p] += len(self.pile)
        self.pile_counts[:] = 0
        self.pile.clear()
        self.top = EMPTY_TOP
        self.current_player = (p + self.direction) % self.num_players

    def _win(self, p: int) -> None:
        """``p`` has shed every card: the game is won; the tournament goes on if needed."""
        self.wins[p] += 1
        if self.events is not None:
            self.events.append(Event("round_won", p, {"what": "the game: no cards left"}))
            data = {"delta": 1, "total": int(self.wins[p]), "cause": "game won"}
            self.events.append(Event("score", p, data))
        if self.wins[p] >= self.config.wins_to_win:
            self.terminated = True
            self._record_game_over()
            return
        self._deal(p)
        self._start_game(p)  # the winner deals the next game

    # ------------------------------------------------------------------ event log
    def _record_move(self, p: int, action: int) -> None:
        """The public face of ``p``'s move: the cards played (a card laid in the set-up stays unnamed)."""
        assert self.events is not None
        if action < DOWN_OFFSET:
            kind, count = decode_play(action)
            how = "" if self.hand_size[p] else "from the up cards"
            self.events.append(Event("play", p, {"cards": [KINDS[kind]] * count, "how": how}))
        elif action < PICK_UP:
            slot = action - DOWN_OFFSET
            kind = self.downs[p][slot]
            if self._playable_row()[kind]:
                self.events.append(Event("play", p, {"cards": [KINDS[kind]], "how": f"down card {slot + 1}, blind"}))
            else:
                what = f"turns down card {slot + 1} over: {KINDS[kind]}, which cannot be played"
                self.events.append(Event("move", p, {"what": what}))
        elif action >= LAY_UP_OFFSET:
            self.events.append(Event("move", p, {"what": "lays a card face up"}))

    def _record_game_over(self) -> None:
        if self.events is not None:
            data = {"winners": self.winners(), "scores": self.wins.tolist(), "truncated": self.truncated}
            self.events.append(Event("game_over", None, data))

    # ------------------------------------------------------------------ results
    def scores(self) -> np.ndarray:
        """Games won so far by each seat (+1 per game won)."""
        return self.wins.astype(np.float64)

    def winners(self) -> list[int]:
        if not self.terminated:
            return []
        return np.flatnonzero(self.wins >= self.config.wins_to_win).tolist()

    # ------------------------------------------------------------------ information
    def view(self, seat: int) -> View:
        top = self.top
        table = self.table.take(self._order[seat], axis=0)  # a copy, cheaper than fancy indexing
        if self.setting_up:  # nobody sees the others' up cards before all are laid
            table[1:, :NUM_KINDS] = 0
        return View.from_fields(  # positional, in field order
            seat,
            self.num_players,
            (self.current_player - seat) % self.num_players,
            self.hands[seat].copy(),
            table,
            self._slots_filled[seat],
            tuple(self.pile[: -PILE_TOP_CARDS - 1 : -1]),
            len(self.pile),
            top.value,
            top.mode,
            top.run_kind,
            top.run_length,
            self.direction,
            self._removed_copy,
            self.setting_up,
            self.known.take(self._order[seat], axis=0),
            self.pile_counts.copy(),
            int(self.dealer - seat) % self.num_players,
        )

    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Redraw what ``seat`` has not seen, keeping every size and every public card.

        The unseen cards of the other hands, every down card and the cards put aside are
        redealt; the cards each hand took in public (``known``: a picked-up pile, a revealed
        down card) stay in it. During the set-up the up cards the others have laid are hidden
        too, and redealt.
        """
        others = [q for q in range(self.num_players) if q != seat]
        unseen = self.hands - self.known
        pool = [np.repeat(np.arange(NUM_KINDS), unseen[q]) for q in others]
        if self.setting_up:
            pool += [np.repeat(np.arange(NUM_KINDS), self.ups[q]) for q in others]
        pool.append(np.array([k for downs in self.downs for k in downs if k != EMPTY_SLOT], dtype=np.int64))
        pool.append(np.repeat(np.arange(NUM_KINDS), self.set_aside))
        cards = as_chance(rng).permutation(np.concatenate(pool)).tolist()
        for q in others:
            size = int(unseen[q].sum())
            self.hands[q] = self.known[q] + np.bincount(np.asarray(cards[:size], dtype=np.int64), minlength=NUM_KINDS)
            del cards[:size]
            if self.setting_up:
                size = int(self.up_size[q])
                self.ups[q] = np.bincount(np.asarray(cards[:size], dtype=np.int64), minlength=NUM_KINDS)
                del cards[:size]
        for downs in self.downs:
            for slot, kind in enumerate(downs):
                if kind != EMPTY_SLOT:
                    downs[slot] = cards.pop()
        self.set_aside[:] = np.bincount(np.asarray(cards, dtype=np.int64), minlength=NUM_KINDS)
        self._mask = None

    # ------------------------------------------------------------------ copies
    def __getstate__(self) -> dict[str, Any]:
        """The state without the views of ``table`` (rebuilt by ``__setstate__``)."""
        state = self.__dict__.copy()
        for name in _TABLE_VIEWS:
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or deep-copied engine: the named columns view its own ``table`` again."""
        self.__dict__.update(state)
        self._link_table()
        read_only(self._pick_up_only)
        read_only(self._removed_copy)

    def clone(self, chance: Chance | None = None) -> LuckyPirateEngine:
        """An independent copy (`Engine.clone`) whose named per-seat arrays view its own ``table``."""
        twin = super().clone(chance)
        twin._link_table()
        return twin  # type: ignore[return-value]

    def _link_table(self) -> None:
        """Point the named per-seat arrays at the columns of ``table`` (they are views of it)."""
        self.ups = self.table[:, :NUM_KINDS]
        self.hand_size = self.table[:, HAND_SIZE_COLUMN]
        self.down_left = self.table[:, DOWN_LEFT_COLUMN]
        self.wins = self.table[:, WINS_COLUMN]

    def render(self) -> str:
        def names(counts: np.ndarray) -> str:
            return " ".join(f"{c}x{KINDS[k]}" for k, c in enumerate(counts) if c) or "-"

        rows = [
            [
                f"{'>' if s == self.current_player else ' '} {seat_name(s)}",
                names(self.hands[s]),
                names(self.ups[s]),
                " ".join(KINDS[k] if k != EMPTY_SLOT else "." for k in self.downs[s]) or "-",
                int(self.wins[s]),
            ]
            for s in range(self.num_players)
        ]
        top = self.top
        pile = " ".join(KINDS[k] for k in self.pile) or "(empty)"
        lines = [
            format_table(["seat", "hand", "up", "down (hidden)", "wins"], rows),
            f"pile (bottom to top): {pile}",
            f"value {top.value}, {top.mode.name.lower()}, run {top.run_length}"
            + (f" x {KINDS[top.run_kind]}" if top.run_length else ""),
            f"direction {'+1' if self.direction > 0 else '-1'}, dealer {self.dealer}, "
            f"turn {self.guard.turns}/{self.guard.limit}",
            f"cleared out of the game: {names(self.removed)}",
        ]
        if self.setting_up:
            lines.append(f"set-up: up cards still to lay {self.to_lay.tolist()}")
        if self.done:
            lines.append(f"truncated: {self.truncation_reason}" if self.truncated else f"winners: {self.winners()}")
        return fit_text("\n".join(lines))


#: The engine under its role name: every game package offers ``Engine``, ``Config``, ``View`` and ``Encoder``.
Engine = LuckyPirateEngine
