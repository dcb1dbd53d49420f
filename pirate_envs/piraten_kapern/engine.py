"""Piraten Kapern engine: configuration, full game state, legal actions and their effects.

Pure Python + numpy. The scoring helpers live in `.rules`, the action table in
`.actions`, the dice in `.dice`. See `pirate_envs.piraten_kapern.env` for the
game's documentation page.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pirate_envs.core.chance import Chance, GeneratorChance, WithDice, as_chance
from pirate_envs.core.engine import Engine as BaseEngine
from pirate_envs.core.engine import TurnGuard, check_options, read_only
from pirate_envs.core.errors import check_name, check_range
from pirate_envs.core.events import Event
from pirate_envs.core.render import format_table
from pirate_envs.core.rewards import winners_by_score
from pirate_envs.piraten_kapern.actions import (
    ACTION_FEATURES,
    ACTIONS,
    CHEST_PUT_OFFSET,
    CHEST_TAKE_OFFSET,
    MIN_REROLL,
    NUM_ACTIONS,
    REROLL_OFFSET,
    REROLL_VECTORS,
    STOP,
    reroll_counts,
)
from pirate_envs.piraten_kapern.dice import DiceSource
from pirate_envs.piraten_kapern.rules import (
    BASE_CARDS,
    CARD_INDEX,
    CARDS,
    COIN,
    DIAMOND,
    DISQUALIFYING_SKULLS,
    FACES,
    ISLAND_SKULLS,
    MAX_CARD_COPIES,
    MONKEY,
    NON_SKULL_FACES,
    NUM_DICE,
    NUM_FACES,
    PARROT,
    PROMO_CARDS,
    SABRE,
    SEA_BATTLES,
    SKULL,
    STANDARD_DECK,
    card_skulls,
    check_card,
    disqualified_score,
    island_penalty,
    objects_points,
    score_counts,
)
from pirate_envs.piraten_kapern.view import View

__all__ = ["Config", "Engine", "KapernEngine", "Phase", "TurnState"]

MIN_PLAYERS, MAX_PLAYERS = 2, 5
DEFAULT_TARGET = 6000
DEFAULT_MAX_TURNS = 1000
#: The fewest dice of the option ``num_dice``: a re-roll takes at least two.
MIN_DICE = MIN_REROLL
#: The option ``fortune_deck``'s default: the base game's copies of each card of `BASE_CARDS`.
STANDARD_COPIES: tuple[int, ...] = tuple(STANDARD_DECK[card] for card in BASE_CARDS)
#: Guard, not a rule: chest moves allowed between two rolls (8 dice on and off is 16).
MAX_CHEST_MOVES_PER_ROLL = 2 * NUM_DICE


@dataclass(frozen=True)
class Config:
    """Game options (validated: a bad value raises ``ValueError`` naming the field)."""

    num_players: int = 2
    #: Score that triggers the final round.
    target_score: int = DEFAULT_TARGET
    #: Add the promo cards After the Storm and Peace to the fortune deck.
    promo_cards: bool = False
    #: Copies of each promo card when ``promo_cards`` is on (assumption: the count is not printed).
    promo_copies: int = 1
    #: Turn-limit guard: a game not over after this many turns is truncated.
    max_turns: int = DEFAULT_MAX_TURNS
    #: Dice rolled each turn (small variants; the rules: 8). Only "all the dice" scales with it (the full chest).
    num_dice: int = NUM_DICE
    #: Copies of each base card (`BASE_CARDS` order: treasure_chest .. skulls_2) in the fortune deck.
    fortune_deck: tuple[int, ...] = STANDARD_COPIES
    #: Rolls a turn may make, the first included (0: no limit, the rules); at the limit only stopping is left.
    max_rolls: int = 0

    def __post_init__(self) -> None:
        check_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_range("target_score", self.target_score, 1)
        check_range("promo_copies", self.promo_copies, 1, 10)
        check_range("max_turns", self.max_turns, 1)
        if not isinstance(self.promo_cards, bool):
            raise ValueError(f"promo_cards={self.promo_cards!r} must be True or False")
        check_range("num_dice", self.num_dice, MIN_DICE, NUM_DICE)
        check_range("max_rolls", self.max_rolls, 0)
        deck = self.fortune_deck
        if isinstance(deck, (str, bytes)) or not isinstance(deck, (tuple, list)) or len(deck) != len(BASE_CARDS):
            raise ValueError(
                f"fortune_deck={deck!r} must be {len(BASE_CARDS)} copy counts, one per card of {list(BASE_CARDS)}"
            )
        deck = tuple(check_range(f"fortune_deck[{card}]", n, 0, MAX_CARD_COPIES) for card, n in zip(BASE_CARDS, deck))
        object.__setattr__(self, "fortune_deck", deck)
        if not sum(deck) and not self.promo_cards:
            raise ValueError(f"fortune_deck={deck!r} holds no card; give at least one card a copy")

    def deck(self) -> dict[str, int]:
        """Card name -> copies in the fortune deck (cards with no copy left out)."""
        deck = {card: copies for card, copies in zip(BASE_CARDS, self.fortune_deck) if copies}
        if self.promo_cards:
            deck.update({card: self.promo_copies for card in PROMO_CARDS})
        return deck


class Phase(enum.Enum):
    """Where a turn stands. Chance (card draw, rolls) happens inside ``apply``."""

    ROLLING = "rolling"  # normal turn: stop, re-roll, chest moves
    ISLAND = "island"  # Island of Skulls: stop or re-roll non-skull dice
    GAME_OVER = "game_over"


#: The mask when only stopping is legal.
_STOP_ONLY = read_only(np.eye(1, NUM_ACTIONS, STOP, dtype=np.int8)[0])


#: ``_FITS[face][k]``: which re-roll rows take at most ``k`` dice of ``face`` (skull last).
_FITS = [[REROLL_VECTORS[:, face] <= k for k in range(NUM_DICE + 1)] for face in range(NUM_FACES)]


@functools.cache
def _rolling_mask(coin: int, diamond: int, monkey: int, parrot: int, sabre: int, skull_ok: bool) -> np.ndarray:
    """Stop plus every re-roll these free non-skull dice allow (no chest moves); read-only."""
    fits = _FITS[SKULL][int(skull_ok)].copy()
    for face, k in zip(NON_SKULL_FACES, (coin, diamond, monkey, parrot, sabre)):
        fits &= _FITS[face][k]
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[STOP] = 1
    mask[REROLL_OFFSET : REROLL_OFFSET + len(REROLL_VECTORS)] = fits
    return read_only(mask)


@dataclass
class TurnState:
    """The dice and card of the turn in progress."""

    card: str
    free: list[int] = field(default_factory=lambda: [0] * NUM_FACES)
    chest: list[int] = field(default_factory=lambda: [0] * NUM_FACES)
    rolls: int = 0
    sorceress_used: bool = False
    chest_moves: int = 0
    island: bool = False
    island_skulls: int = 0

    def showing(self) -> list[int]:
        """Counts per face of all the dice (free and on the chest)."""
        return [a + b for a, b in zip(self.free, self.chest)]

    def copy(self) -> TurnState:
        """An independent copy (its dice lists copied)."""
        twin = object.__new__(TurnState)  # cheaper than copy.copy, which goes through __reduce_ex__
        twin.__dict__.update(self.__dict__)
        twin.free, twin.chest = self.free.copy(), self.chest.copy()
        return twin


class KapernEngine(BaseEngine):
    """Full state of a Piraten Kapern game.

    Pickles, deep-copies and clones at any point: a copy rolls its own dice (the chance source is
    copied with it), so given the same actions it plays what the original would. The deck is
    shuffled with ``chance.shuffle`` and the dice rolled with ``chance.roll_dice``; the dice stream
    is seeded (``chance.seed_dice``) at ``reset`` before the deck's shuffle.
    """

    ACTIONS = ACTIONS
    ACTION_FEATURES = ACTION_FEATURES
    #: Public events since the last reset while recording is on (see :mod:`pirate_envs.core.events`).
    events: list[Event] | None = None
    RESET_OPTIONS: Mapping[str, str] = {
        "first_card": "name of a fortune card of this game's deck, dealt to the first turn "
        "(the rest of the deck is shuffled as usual)",
    }

    def __init__(self, config: Config, dice_source: DiceSource | None = None):
        """``dice_source(n)``, if given, replaces the dice of every reset's chance source (`WithDice`;
        tests script rolls with it)."""
        self.config = config
        self.num_players = config.num_players
        deck = config.deck()
        self.deck_cards = tuple(card for card in CARDS for _ in range(deck.get(card, 0)))
        self.dice_source = dice_source
        self.chance: Chance = GeneratorChance(np.random.default_rng())
        self._reset_state()

    def _reset_state(self) -> None:
        n = self.num_players
        self._scores = [0] * n
        self.current_player = 0
        self.terminated = False
        self.truncated = False
        self.phase = Phase.ROLLING
        self.guard = TurnGuard(self.config.max_turns)
        self.deck: list[str] = []
        self._deck_counts = [0] * len(CARDS)
        self.final_trigger: int | None = None
        self.final_turns_left = [False] * n
        self.turn: TurnState = TurnState(card=CARDS[0])
        self.turn_points = 0
        self.last_turn_points = [0] * n
        #: A turn has ended and the next player's has not started yet (see ``_start_turns``).
        self._next_turn_due = False

    #: The attributes `clone` copies (lists of integers), beside ``turn`` and ``guard``; every other one is shared.
    _COPIED_LISTS = ("_scores", "deck", "_deck_counts", "final_turns_left", "last_turn_points", "events")

    def clone(self, chance: Chance | None = None) -> KapernEngine:
        """`Engine.clone` for this engine's known attributes, several times faster (searches and OpenSpiel's
        explicit chance clone at every node); a test checks it against the generic copy."""
        twin = object.__new__(type(self))  # cheaper than copy.copy, which goes through __reduce_ex__
        state = twin.__dict__
        state.update(self.__dict__)
        for name in self._COPIED_LISTS:
            value = state.get(name)
            if value is not None:
                state[name] = value.copy()
        twin.turn = self.turn.copy()
        twin.guard = TurnGuard(self.guard.limit, self.guard.turns)
        twin.chance = self.chance.clone() if chance is None else chance
        return twin

    # ------------------------------------------------------------------ set-up
    def reset(self, rng: Chance | np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        options = check_options(options, self.RESET_OPTIONS)
        first = options.get("first_card")
        if first is not None:
            check_name("first_card", first, check_card, "a fortune card name")
            if first not in self.deck_cards:
                in_deck = [card for card in CARDS if card in self.deck_cards]
                raise ValueError(f"first_card={first!r} is not in this game's fortune deck; its cards: {in_deck}")
        chance = self.start_chance(rng)
        self.chance = chance if self.dice_source is None else WithDice(chance, self.dice_source)
        if self.events is not None:
            self.events = []
        self.chance.seed_dice()
        self._reset_state()
        self._shuffle_deck()
        if first is not None:
            self.deck.remove(first)
            self.deck.append(first)  # the top of the deck is the end of the list
        self._next_turn_due = True
        self._start_turns()

    def _shuffle_deck(self) -> None:
        self.deck = list(self.deck_cards)
        self.chance.shuffle(self.deck)
        self._deck_counts = [0] * len(CARDS)
        for card in self.deck:
            self._deck_counts[CARD_INDEX[card]] += 1

    def _draw_card(self) -> str:
        if not self.deck:
            self._shuffle_deck()
        card = self.deck.pop()
        self._deck_counts[CARD_INDEX[card]] -= 1
        return card

    def _start_turns(self) -> None:
        """Start turns until one waits for a decision or the game is over.

        A loop, not a recursion: any number of turns in a row may end on their first roll.
        """
        while self._next_turn_due:
            self._next_turn_due = False
            self._start_turn()

    def _start_turn(self) -> None:
        """Draw a fortune card and make the first roll of the current player's turn.

        A turn that ends on this roll asks for the next one (``_next_turn_due``); it does not start it.
        """
        self.turn = TurnState(card=self._draw_card())
        rolled = self.chance.roll_dice(self.config.num_dice)
        self.turn.free = list(rolled)
        self.turn.rolls = 1
        if self.events is not None:
            self.events.append(Event("draw", self.current_player, {"card": f"the fortune card {self.turn.card}"}))
            self._record_roll(rolled)
        skulls = rolled[SKULL] + card_skulls(self.turn.card)
        if skulls >= ISLAND_SKULLS and self.turn.card not in SEA_BATTLES:
            self.phase = Phase.ISLAND
            self.turn.island = True
            self.turn.island_skulls = skulls
            if self.events is not None:
                what = f"lands on the Island of Skulls ({skulls} skulls)"
                self.events.append(Event("move", self.current_player, {"what": what}))
            self._check_island_over(new_skulls=skulls)
        elif skulls >= DISQUALIFYING_SKULLS:
            self._bust()
        else:
            self.phase = Phase.ROLLING
            self._update_turn_points()

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self) -> np.ndarray:
        """Legal actions of the current player (cached masks are read-only and shared between equal states)."""
        t = self.turn
        free = t.free
        if not self._may_reroll():
            return _STOP_ONLY
        if self.phase is Phase.ISLAND:
            return _rolling_mask(free[COIN], free[DIAMOND], free[MONKEY], free[PARROT], free[SABRE], False)
        skull_ok = t.card == "sorceress" and not t.sorceress_used and free[SKULL] > 0
        mask = _rolling_mask(free[COIN], free[DIAMOND], free[MONKEY], free[PARROT], free[SABRE], skull_ok)
        if t.card == "treasure_chest" and t.chest_moves < MAX_CHEST_MOVES_PER_ROLL:
            mask = mask.copy()
            for i, face in enumerate(NON_SKULL_FACES):
                mask[CHEST_PUT_OFFSET + i] = free[face] > 0
                mask[CHEST_TAKE_OFFSET + i] = t.chest[face] > 0
        return mask

    def _may_reroll(self) -> bool:
        """After the Storm allows a single re-roll; the option ``max_rolls`` caps every turn's rolls."""
        rolls, limit = self.turn.rolls, self.config.max_rolls
        return not (self.turn.card == "storm" and rolls >= 2) and not (limit and rolls >= limit)

    # ------------------------------------------------------------------ effects
    def apply(self, action: int) -> None:
        """Apply a legal action of the current player."""
        t = self.turn
        if self.events is not None:
            self._record_move(action)
        if action == STOP:
            if self.phase is Phase.ISLAND:
                self._end_island_turn()
            else:
                self._end_turn(busted=False)
        elif action >= CHEST_TAKE_OFFSET:
            face = NON_SKULL_FACES[action - CHEST_TAKE_OFFSET]
            t.chest[face] -= 1
            t.free[face] += 1
            t.chest_moves += 1
        elif action >= CHEST_PUT_OFFSET:
            face = NON_SKULL_FACES[action - CHEST_PUT_OFFSET]
            t.free[face] -= 1
            t.chest[face] += 1
            t.chest_moves += 1
        else:
            self._reroll(reroll_counts(action))
        if self._next_turn_due:
            self._start_turns()

    def _reroll(self, counts: tuple[int, ...]) -> None:
        t = self.turn
        if counts[SKULL]:
            t.sorceress_used = True
        rolled = self.chance.roll_dice(sum(counts))
        if self.events is not None:
            self._record_roll(rolled)
        t.free = [f - c + r for f, c, r in zip(t.free, counts, rolled)]
        t.rolls += 1
        t.chest_moves = 0
        if self.phase is Phase.ISLAND:
            t.island_skulls += rolled[SKULL]
            self._check_island_over(new_skulls=rolled[SKULL])
        elif t.free[SKULL] + card_skulls(t.card) >= DISQUALIFYING_SKULLS:
            self._bust()
        else:
            self._update_turn_points()

    def _check_island_over(self, new_skulls: int) -> None:
        t = self.turn
        non_skull = self.config.num_dice - t.free[SKULL]
        if new_skulls == 0 or non_skull < MIN_REROLL or not self._may_reroll():
            self._end_island_turn()
        else:
            self.turn_points = 0

    def _update_turn_points(self) -> None:
        self.turn_points = score_counts(self.turn.showing(), self.turn.card, self.config.num_dice)

    # ------------------------------------------------------------------ turn end
    def _bust(self) -> None:
        """Three or more skulls: the turn ends (After the Storm scores it as an Island turn)."""
        t = self.turn
        if t.card == "storm":
            t.island_skulls = t.free[SKULL]
            self._end_island_turn()
        else:
            self._end_turn(busted=True)

    def _end_island_turn(self) -> None:
        """Opponents lose the Island penalty; the player scores nothing."""
        t = self.turn
        penalty = island_penalty(t.island_skulls, t.card)
        if t.card == "peace" and t.free[SABRE]:
            penalty = 0
        self._finish_turn(own_points=0, opponents_delta=-penalty, cause="Island of Skulls")

    def _end_turn(self, busted: bool) -> None:
        t = self.turn
        if not busted:
            points = score_counts(t.showing(), t.card, self.config.num_dice)
        elif t.card == "treasure_chest":
            points = objects_points(t.chest, t.card)
        else:
            points = disqualified_score(t.showing(), t.card)
        self._finish_turn(own_points=points, opponents_delta=0, cause="three skulls" if busted else "stopped")

    def _finish_turn(self, own_points: int, opponents_delta: int, cause: str) -> None:
        """Score the turn (``cause``: how it ended, for the event log) and pass the dice on."""
        player = self.current_player
        n = self.num_players
        for seat in range(n):
            self._scores[seat] += own_points if seat == player else opponents_delta
        if self.events is not None:
            self._record_turn_scores(own_points, opponents_delta, cause)
        self.last_turn_points[player] = own_points
        self.turn_points = 0
        self._advance_final_round(player)
        if self.terminated:
            self.phase = Phase.GAME_OVER
            if self.events is not None:
                self.events.append(Event("game_over", None, {"winners": self.winners(), "scores": list(self._scores)}))
            return
        if self.guard.tick():
            self.truncated = True
            self.phase = Phase.GAME_OVER
            if self.events is not None:
                data = {"winners": [], "scores": list(self._scores), "truncated": True}
                self.events.append(Event("game_over", None, data))
            return
        self.current_player = (player + 1) % n
        self._next_turn_due = True

    def _advance_final_round(self, player: int) -> None:
        """Trigger, cancel or finish the final round after ``player``'s turn."""
        target = self.config.target_score
        if self.final_trigger is not None:
            self.final_turns_left[player] = False
            if self._scores[self.final_trigger] < target:
                self.final_trigger = None
                self.final_turns_left = [False] * self.num_players
            elif not any(self.final_turns_left):
                self.terminated = True
                return
        if self.final_trigger is None and self._scores[player] >= target:
            self.final_trigger = player
            self.final_turns_left = [seat != player for seat in range(self.num_players)]
            if self.events is not None:
                self.events.append(Event("move", player, {"what": f"reaches {target}: the final round begins"}))

    # ------------------------------------------------------------------ event log
    def _record_roll(self, rolled: tuple[int, ...] | list[int]) -> None:
        assert self.events is not None
        dice = {FACES[f]: int(n) for f, n in enumerate(rolled) if n}
        self.events.append(Event("roll", self.current_player, {"dice": dice}))

    def _record_move(self, action: int) -> None:
        """The player's decision in words: stop, re-roll (which dice) or a chest move."""
        assert self.events is not None
        if action == STOP:
            what = "stops"
        elif action >= CHEST_PUT_OFFSET:
            what = ACTIONS.to_string(action).replace("put", "puts").replace("take", "takes")
        else:
            counts = reroll_counts(action)
            what = "re-rolls " + ", ".join(f"{n} {FACES[f]}" for f, n in enumerate(counts) if n)
        self.events.append(Event("move", self.current_player, {"what": what}))

    def _record_turn_scores(self, own_points: int, opponents_delta: int, cause: str) -> None:
        """Score events of a finished turn: the player's points and the opponents' Island penalty."""
        assert self.events is not None
        player, card = self.current_player, self.turn.card
        if own_points < 0 and card in SEA_BATTLES:
            cause = "failed Sea Battle"
        elif own_points < 0 and card == "peace":
            cause = "Peace broken: sabres showing"
        elif cause == "three skulls" and card == "treasure_chest":
            cause = "three skulls, the chest's dice kept"
        elif cause == "stopped" and card in SEA_BATTLES:
            cause = "stopped, Sea Battle won"
        self.events.append(Event("score", player, {"delta": own_points, "total": self._scores[player], "cause": cause}))
        if opponents_delta:
            for seat in range(self.num_players):
                if seat != player:
                    data = {"delta": opponents_delta, "total": self._scores[seat], "cause": cause, "by": player}
                    self.events.append(Event("score", seat, data))

    # ------------------------------------------------------------------ queries
    def scores(self) -> np.ndarray:
        return np.array(self._scores, dtype=np.float64)

    def winners(self) -> list[int]:
        return winners_by_score(self._scores)

    def deck_counts(self) -> tuple[int, ...]:
        """Cards of each kind left in the fortune deck (public: the discards are face up)."""
        return tuple(self._deck_counts)

    def view(self, seat: int) -> View:
        t = self.turn
        # positional (in View's field order): twice as fast as keywords, built every step
        return View._make(
            (
                seat,
                self.num_players,
                self.current_player,
                self.phase.value,
                t.card,
                tuple(t.free),
                tuple(t.chest),
                t.rolls,
                t.sorceress_used,
                t.island,
                t.island_skulls,
                t.chest_moves,
                self.turn_points,
                tuple(self._scores),
                self.final_trigger,
                tuple(self.final_turns_left),
                self.deck_counts(),
                self.config.target_score,
            )
        )

    def resample_hidden(self, seat: int, rng: Chance | np.random.Generator) -> None:
        """Reshuffle the unseen fortune deck, then draw every later card and die from ``rng`` (its dice seeded now)."""
        chance = as_chance(rng)
        chance.shuffle(self.deck)
        self.chance = chance
        chance.seed_dice()

    def render(self) -> str:
        t = self.turn
        rows = [
            [f"player_{s}" + (" *" if s == self.current_player else ""), self._scores[s]]
            for s in range(self.num_players)
        ]
        lines = [format_table(["player", "score"], rows)]
        if self.phase is Phase.GAME_OVER:
            lines.append("game over" + (" (truncated)" if self.truncated else ""))
            return "\n".join(lines)
        dice = ", ".join(f"{FACES[f]} x{n}" for f, n in enumerate(t.free) if n)
        lines.append(f"card: {t.card}   roll {t.rolls}   {'ISLAND OF SKULLS' if t.island else ''}".rstrip())
        lines.append(f"dice: {dice}")
        if any(t.chest):
            lines.append("chest: " + ", ".join(f"{FACES[f]} x{n}" for f, n in enumerate(t.chest) if n))
        lines.append(f"points at stake: {self.turn_points}")
        if self.final_trigger is not None:
            lines.append(f"final round (triggered by player_{self.final_trigger})")
        return "\n".join(lines)


#: The engine under its role name: every game package offers ``Engine``, ``Config``, ``View`` and ``Encoder``.
Engine = KapernEngine
