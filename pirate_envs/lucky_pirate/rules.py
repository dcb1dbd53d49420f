"""Lucky Pirate rules: card names, the game options and the pure pile helpers.

Pure Python, no gymnasium or pettingzoo import. The engine (:mod:`.engine`) builds its lookup
tables from these functions, so the rules of the pile live here only.

The pile is described by its *top*: the effective value (0 on an empty pile), a mode
(``NORMAL``; ``CAPTAIN``: only a First Mate or a Porthole may follow; ``FREE``: after a
Parrot, any card may follow) and the run of equal numbers on top (kind and length).
A play is ``count`` cards of one kind; it is legal when one card of that kind is legal on the
top (equal cards follow each other), and the cards land one after the other.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from pirate_envs.core.errors import check_choice, check_range

# ---------------------------------------------------------------- cards
NUMBER_CARDS = tuple(str(v) for v in range(1, 9))
#: Every card kind, in the order used by observations and actions.
KINDS: tuple[str, ...] = (
    *NUMBER_CARDS,
    "captain",
    "kraken",
    "first_mate",
    "porthole",
    "walk_the_plank",
    "mermaid",
    "parrot",
    "reverse",
    "skip",
)
NUM_KINDS = len(KINDS)
KIND_INDEX: Mapping[str, int] = MappingProxyType({k: i for i, k in enumerate(KINDS)})
(CAPTAIN, KRAKEN, FIRST_MATE, PORTHOLE, WALK_THE_PLANK, MERMAID, PARROT, REVERSE, SKIP) = range(
    len(NUMBER_CARDS), NUM_KINDS
)

EMPTY_PILE_VALUE = 0
CAPTAIN_VALUE = 9
KRAKEN_VALUE = 10  # assumption: a plain 10, the highest number
FIRST_MATE_VALUE = 9  # the First Mate turns the Captain into a plain 9
MERMAID_VALUE = 7
MAX_VALUE = KRAKEN_VALUE
#: Face value of each kind that has one (numbers, Captain, Kraken); ``None`` for the others.
FACE_VALUE: tuple[int | None, ...] = (
    *range(1, 9),
    CAPTAIN_VALUE,
    KRAKEN_VALUE,
    *([None] * (NUM_KINDS - len(NUMBER_CARDS) - 2)),
)
#: Kinds that can form a run of equal numbers (1..8, Captain 9, Kraken 10): kinds 0..9.
NUM_RUN_KINDS = KRAKEN + 1
#: Three equal numbers in a row clear the pile.
RUN_TO_CLEAR = 3
NO_RUN = -1

#: Assumed deck (60 cards): numbers 1..8 x 4, Captain, Kraken, First Mate, Porthole and
#: Walk the Plank x 4, Mermaid, Parrot, Reverse and Skip x 2.
DEFAULT_DECK: Mapping[str, int] = MappingProxyType(
    {
        **{n: 4 for n in NUMBER_CARDS},
        "captain": 4,
        "kraken": 4,
        "first_mate": 4,
        "porthole": 4,
        "walk_the_plank": 4,
        "mermaid": 2,
        "parrot": 2,
        "reverse": 2,
        "skip": 2,
    }
)
#: Most copies of one kind a deck may hold (it bounds the set sizes of the action space).
MAX_COPIES = 6


class Mode(enum.IntEnum):
    """What the top of the pile allows besides its value."""

    NORMAL = 0  # a card must match or beat the value
    CAPTAIN = 1  # only a First Mate or a Porthole may follow
    FREE = 2  # after a Parrot: any card may follow


NUM_MODES = len(Mode)


# ---------------------------------------------------------------- options
MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: Up (and down) cards per player, by number of players (two players set up as three).
UP_DOWN_CARDS: Mapping[int, int] = MappingProxyType({2: 4, 3: 4, 4: 3, 5: 2, 6: 2})
MAX_UP_DOWN = max(UP_DOWN_CARDS.values())
#: Two players: three hands are dealt and one is put aside unseen.
TWO_PLAYER_HANDS = 3
DEFAULT_MAX_TURNS = 5000
REVERSE_SKIP_VALUES = ("keep", "reset")


@dataclass(frozen=True)
class PileRules:
    """The options that change what may be played on the pile and what it becomes."""

    #: Assumption: the First Mate is playable only on a Captain (else also wherever a 9 is).
    first_mate_only_on_captain: bool = True
    #: Beyond RULINGS (off by default, as RULINGS says "only on a Captain"): a First Mate may start
    #: an empty pile, then a plain 9. Turning it on ends most forced cycles (see the env docstring).
    first_mate_on_empty_pile: bool = False
    #: Assumption: a Porthole may start an empty pile (it copies nothing: value 0).
    porthole_on_empty_pile: bool = True
    #: Assumption: Reverse and Skip ``"keep"`` the pile's value and mode (``"reset"``: value 0).
    reverse_skip_value: str = "keep"
    #: Assumption: three Captains in a row (one set of three) clear the pile like any number.
    captain_counts_in_runs: bool = True


@dataclass(frozen=True)
class Config:
    """Lucky Pirate options (validated: a bad value raises ``ValueError`` naming the field).

    Every field but ``num_players``, ``wins_to_win`` and ``max_turns`` is an assumption where
    the rule text is silent; the defaults are those of RULINGS.
    """

    num_players: int = 4
    #: The deck: card kind -> copies (assumption: the published deck is unknown).
    deck: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_DECK))
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
    first_mate_only_on_captain: bool = True
    first_mate_on_empty_pile: bool = False
    porthole_on_empty_pile: bool = True
    reverse_skip_value: str = "keep"
    captain_counts_in_runs: bool = True
    #: Turn-limit guard: a game not won after this many turns truncates the episode.
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if self.first_dealer is not None:
            check_range("first_dealer", self.first_dealer, 0, self.num_players - 1)
        check_range("wins_to_win", self.wins_to_win, 1)
        check_range("max_turns", self.max_turns, 1)
        check_choice("reverse_skip_value", self.reverse_skip_value, REVERSE_SKIP_VALUES)
        for name in (
            "run_clear_plays_again",
            "plank_plays_again",
            "choose_up_cards",
            "first_mate_only_on_captain",
            "first_mate_on_empty_pile",
            "porthole_on_empty_pile",
            "captain_counts_in_runs",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be True or False")
        object.__setattr__(self, "deck", check_deck(self.deck, self.num_players))  # a validated copy

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
        return UP_DOWN_CARDS[self.num_players]

    @property
    def deck_size(self) -> int:
        """Cards in the deck."""
        return sum(self.deck.values())


def check_deck(deck: Mapping[str, int], num_players: int) -> dict[str, int]:
    """Validate a deck mapping (kind -> copies) and return it with every kind present."""
    if not isinstance(deck, Mapping):
        raise ValueError(f"deck={deck!r} must be a mapping card kind -> copies")
    for kind in deck:
        check_choice("deck kind", kind, KINDS)
    full = {k: deck.get(k, 0) for k in KINDS}
    for kind, copies in full.items():
        check_range(f"deck[{kind!r}]", copies, 0, MAX_COPIES)
    hands = TWO_PLAYER_HANDS if num_players == 2 else num_players
    needed = hands * 2 * UP_DOWN_CARDS[num_players]
    if sum(full.values()) < needed:
        raise ValueError(
            f"deck has {sum(full.values())} cards; {num_players} players need at least {needed} "
            "(the up and down cards of every hand dealt)"
        )
    return full


# ---------------------------------------------------------------- the pile
@dataclass(frozen=True, slots=True)
class PileTop:
    """The effective top of the pile: what may be played on it."""

    value: int = EMPTY_PILE_VALUE
    mode: Mode = Mode.NORMAL
    run_kind: int = NO_RUN  # the number kind of the run on top, NO_RUN if none
    run_length: int = 0


EMPTY_TOP = PileTop()


def kind_index(card: str) -> int:
    """The index of a card name, with a clear error for an unknown one."""
    try:
        return KIND_INDEX[card]
    except KeyError:
        raise ValueError(f"unknown card {card!r}; valid cards: {list(KINDS)}") from None


def can_play(kind: int, value: int, mode: Mode, rules: PileRules = PileRules()) -> bool:
    """Whether one card of ``kind`` may be played on a top of this value and mode."""
    if mode == Mode.CAPTAIN:
        return kind in (FIRST_MATE, PORTHOLE)
    starts_pile = value == EMPTY_PILE_VALUE and mode == Mode.NORMAL
    if kind == FIRST_MATE:
        if starts_pile and rules.first_mate_on_empty_pile:
            return True
        return not rules.first_mate_only_on_captain and (mode == Mode.FREE or value <= FIRST_MATE_VALUE)
    if kind == PORTHOLE and starts_pile:
        return rules.porthole_on_empty_pile
    if mode == Mode.FREE:
        return True
    if kind == CAPTAIN:
        return value < KRAKEN_VALUE  # on anything except the Kraken
    face = FACE_VALUE[kind]
    return face is None or face >= value  # specials are playable on anything but a Captain


def counts_in_runs(kind: int, rules: PileRules = PileRules()) -> bool:
    """Whether ``kind`` is a number that builds runs of equal numbers."""
    return kind < NUM_RUN_KINDS and (kind != CAPTAIN or rules.captain_counts_in_runs)


def place(top: PileTop, kind: int, count: int, rules: PileRules = PileRules()) -> tuple[PileTop, bool]:
    """The top after ``count`` cards of ``kind`` land on ``top``, and whether the pile clears.

    Legality is not checked (see :func:`can_play`). A cleared pile has the empty top.
    """
    if kind == WALK_THE_PLANK:
        return EMPTY_TOP, True
    if counts_in_runs(kind, rules):
        run = top.run_length + count if top.run_kind == kind else count
        if run >= RUN_TO_CLEAR:
            return EMPTY_TOP, True
        mode = Mode.CAPTAIN if kind == CAPTAIN else Mode.NORMAL
        return PileTop(FACE_VALUE[kind], mode, kind, run), False  # type: ignore[arg-type]
    if kind == CAPTAIN:
        return PileTop(CAPTAIN_VALUE, Mode.CAPTAIN), False
    if kind == FIRST_MATE:
        return PileTop(FIRST_MATE_VALUE, Mode.NORMAL), False
    if kind == MERMAID:
        return PileTop(MERMAID_VALUE, Mode.NORMAL), False
    if kind == PARROT:
        return PileTop(EMPTY_PILE_VALUE, Mode.FREE), False
    if kind in (REVERSE, SKIP) and rules.reverse_skip_value == "reset":
        return EMPTY_TOP, False
    # Porthole (copies the card below), Reverse and Skip ("keep"): same value, run broken.
    return PileTop(top.value, top.mode), False


def pile_top(pile: Sequence[str], rules: PileRules = PileRules()) -> PileTop:
    """The top of a pile of card names listed bottom to top (a clearing card empties it)."""
    top = EMPTY_TOP
    for card in pile:
        top, _ = place(top, kind_index(card), 1, rules)
    return top


def card_counts(cards: Iterable[str]) -> list[int]:
    """Copies of each kind (in ``KINDS`` order) among card names."""
    counts = [0] * NUM_KINDS
    for card in cards:
        counts[kind_index(card)] += 1
    return counts


def legal_plays(pile: Sequence[str], cards: Sequence[str], rules: PileRules = PileRules()) -> list[tuple[str, int]]:
    """The ``(kind, count)`` plays these cards allow on this pile (listed bottom to top).

    Every count from 1 to the copies held is listed for each playable kind, in ``KINDS``
    order. An empty list means the player must pick up the pile.
    """
    top = pile_top(pile, rules)
    counts = card_counts(cards)
    return [
        (KINDS[kind], count)
        for kind in range(NUM_KINDS)
        if counts[kind] and can_play(kind, top.value, top.mode, rules)
        for count in range(1, counts[kind] + 1)
    ]
