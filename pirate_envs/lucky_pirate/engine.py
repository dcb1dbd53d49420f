"""Lucky Pirate rules engine: the full state of a game (or tournament), legal actions, effects.

Pure Python + numpy. What may be played on the pile and what the pile becomes come from the
pure helpers of :mod:`.rules` (``can_play`` is tabulated once per config, ``place`` is called
for every play). See :mod:`pirate_envs.lucky_pirate.env` for the game's documentation page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pirate_envs.core.engine import Engine, TurnGuard, check_options, read_only
from pirate_envs.core.errors import check_range
from pirate_envs.core.render import format_table, seat_name
from pirate_envs.lucky_pirate.actions import (
    ACTIONS,
    DOWN_OFFSET,
    LAY_UP_OFFSET,
    NUM_ACTIONS,
    NUM_PLAY_ACTIONS,
    PICK_UP,
    decode_play,
)
from pirate_envs.lucky_pirate.rules import (
    CAPTAIN,
    EMPTY_TOP,
    FIRST_MATE,
    KINDS,
    MAX_COPIES,
    MAX_UP_DOWN,
    MAX_VALUE,
    NUM_KINDS,
    NUM_MODES,
    REVERSE,
    SKIP,
    TWO_PLAYER_HANDS,
    WALK_THE_PLANK,
    Config,
    Mode,
    PileTop,
    can_play,
    card_counts,
    kind_index,
    pile_top,
    place,
)
from pirate_envs.lucky_pirate.view import (
    DOWN_LEFT_COLUMN,
    HAND_SIZE_COLUMN,
    TABLE_COLUMNS,
    WINS_COLUMN,
    LuckyPirateView,
)

#: Cards of the pile shown in views and observations (topmost first).
PILE_TOP_CARDS = 3
EMPTY_SLOT = -1
ZONES = ("hand", "up", "down")


class LuckyPirateEngine(Engine):
    """One Lucky Pirate episode: a game, or a tournament of games to ``wins_to_win`` wins."""

    ACTIONS = ACTIONS
    #: Forced cycles exist (mostly with two players); the turn guard ends them (see env docstring).
    CAN_CYCLE = True
    RESET_OPTIONS: Mapping[str, str] = {
        "deal": "a chosen deal: per seat a mapping with 'hand', 'up' and 'down' lists of card "
        "names (down cards in slot order); deck cards not dealt are put aside unseen",
        "dealer": "seat of the dealer of the first game (the player to its left starts)",
        "pile": "with 'deal': card names already on the pile, bottom to top",
    }

    def __init__(self, config: Config):
        self.config = config
        self.rules = config.pile_rules
        n = self.num_players = config.num_players
        self._deck = np.repeat(np.arange(NUM_KINDS), [config.deck[k] for k in KINDS])
        #: playable[value, mode, kind]: one card of kind may be played on that top.
        self._playable = np.array(
            [
                [[can_play(k, v, Mode(m), self.rules) for k in range(NUM_KINDS)] for m in range(NUM_MODES)]
                for v in range(MAX_VALUE + 1)
            ],
            dtype=np.int64,
        )
        #: playable_rows[value][mode]: ``playable[value, mode]`` (list indexing is cheaper).
        self._playable_rows = [list(rows) for rows in self._playable]
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
        self.ups = self.table[:, :NUM_KINDS]
        self.hand_size = self.table[:, HAND_SIZE_COLUMN]
        self.down_left = self.table[:, DOWN_LEFT_COLUMN]
        self.wins = self.table[:, WINS_COLUMN]
        self.up_size = np.zeros(n, dtype=np.int64)
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
        #: First Mates can be stranded (playable only on a Captain, never on an empty pile).
        rules = self.rules
        self._first_mates_can_strand = rules.first_mate_only_on_captain and not rules.first_mate_on_empty_pile
        self._rng = np.random.default_rng()
        self._mask: np.ndarray | None = None

    # ------------------------------------------------------------------ set-up
    def reset(self, rng: np.random.Generator, options: Mapping[str, Any] | None = None) -> None:
        opts = check_options(options, self.RESET_OPTIONS)
        self._rng = rng
        n = self.num_players
        self.wins[:] = 0
        self.terminated = self.truncated = False
        self.truncation_reason = None
        dealer = opts.get("dealer", self.config.first_dealer)
        if dealer is None:
            dealer = int(rng.integers(n))
        check_range("dealer", dealer, 0, n - 1)
        if "deal" in opts:
            self._set_deal(opts["deal"], opts.get("pile", ()))
        elif "pile" in opts:
            raise ValueError("reset option 'pile' needs a chosen 'deal'")
        else:
            self._deal(dealer)
        self._start_game(dealer)

    def _deal(self, dealer: int) -> None:
        """Shuffle and deal every card, starting left of the dealer (two players: three hands)."""
        n = self.num_players
        cards = self._rng.permutation(self._deck)
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
        self._slots_filled[seat] = (True,) * len(down)
        self.down_left[seat] = len(down)

    def _clear_table(self) -> None:
        self.pile.clear()
        self.pile_counts[:] = 0
        self.top = EMPTY_TOP
        self.removed[:] = 0
        self._removed_copy = read_only(self.removed.copy())

    def _set_deal(self, deal: Sequence[Mapping[str, Sequence[str]]], pile: Sequence[str]) -> None:
        """Lay out a chosen deal (the ``deal`` and ``pile`` reset options)."""
        n = self.num_players
        if len(deal) != n:
            raise ValueError(f"reset option deal has {len(deal)} seats; expected {n}")
        used = np.array(card_counts(pile), dtype=np.int64)
        for seat, zones in enumerate(deal):
            unknown = sorted(set(zones) - set(ZONES))
            if unknown:
                raise ValueError(f"deal[{seat}] has unknown zone(s) {unknown}; valid: {list(ZONES)}")
            hand, up, down = ([kind_index(c) for c in zones.get(z, ())] for z in ZONES)
            if len(down) > MAX_UP_DOWN:
                raise ValueError(f"deal[{seat}]['down'] has {len(down)} cards; allowed: 0..{MAX_UP_DOWN}")
            self._seat_cards(seat, hand, up, down)
            used += np.bincount(np.asarray(hand + up + down, dtype=np.int64), minlength=NUM_KINDS)
        deck = np.array([self.config.deck[k] for k in KINDS], dtype=np.int64)
        over = [KINDS[k] for k in range(NUM_KINDS) if used[k] > deck[k]]
        if over:
            raise ValueError(f"deal uses more cards than the deck holds of {over}")
        self._clear_table()
        self.setting_up = False
        self.to_lay[:] = 0
        self.set_aside[:] = deck - used
        self.pile[:] = [kind_index(c) for c in pile]
        self.pile_counts[:] = np.bincount(np.asarray(self.pile, dtype=np.int64), minlength=NUM_KINDS)
        self.top = pile_top(pile, self.rules)

    def _start_game(self, dealer: int) -> None:
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
        top = self.top
        playable = (cards * self._playable_rows[top.value][top.mode]).tolist()
        if not any(playable):
            return self._pick_up_only
        # dtype positional: numpy parses a keyword more slowly
        return np.frombuffer(b"".join(map(self._sets_allowed.__getitem__, playable)) + self._no_other_actions, np.int8)

    # ------------------------------------------------------------------ effects
    def apply(self, action: int) -> None:
        p = self.current_player
        guard = self.guard
        self._mask = None
        if action < DOWN_OFFSET:
            kind, count = decode_play(action)
            if self.hand_size[p]:
                self.hands[p, kind] -= count
                self.hand_size[p] -= count
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
            if self._playable[self.top.value, self.top.mode, kind]:
                self._play(p, kind, 1)
            else:  # the revealed card goes into the hand with the pile
                self.hands[p, kind] += 1
                self.hand_size[p] += 1
                self._pick_up(p)
        elif action == PICK_UP:
            self._pick_up(p)
        else:
            self._lay_up(p, action - LAY_UP_OFFSET)
        if self.terminated:
            return
        if self.guard is guard and guard.tick():
            self.truncated, self.truncation_reason = True, "turn limit"
        elif not self.pile and self._first_mates_can_strand and self._first_mates_stranded():
            self.truncated, self.truncation_reason = True, "stranded First Mates"

    def _first_mates_stranded(self) -> bool:
        """Whether nobody can ever win: each seat holds a First Mate and no Captain can reach the pile.

        A First Mate that may be played only on a Captain blocks whatever lies behind it: a
        player with one in his hand never reaches his up cards, one with one in his hand or up
        cards never reaches his down cards. With no Captain on the pile or in a hand, and every
        other Captain behind such a First Mate (or out of the game), no First Mate can ever be
        played, and a player holding one can never shed his last card. ``apply`` asks only when
        the rules let First Mates strand and the pile has just been emptied (cleared or picked
        up): only then can this become true. Not during the set-up, when a First Mate may still
        leave the hand face up.
        """
        if self.setting_up:
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
        self.hands[p] += self.pile_counts
        self.hand_size[p] += len(self.pile)
        self.pile_counts[:] = 0
        self.pile.clear()
        self.top = EMPTY_TOP
        self.current_player = (p + self.direction) % self.num_players

    def _win(self, p: int) -> None:
        """``p`` has shed every card: the game is won; the tournament goes on if needed."""
        self.wins[p] += 1
        if self.wins[p] >= self.config.wins_to_win:
            self.terminated = True
            return
        self._deal(p)
        self._start_game(p)  # the winner deals the next game

    # ------------------------------------------------------------------ results
    def scores(self) -> np.ndarray:
        """Games won so far by each seat (+1 per game won)."""
        return self.wins.astype(np.float64)

    def winners(self) -> list[int]:
        if not self.terminated:
            return []
        return np.flatnonzero(self.wins >= self.config.wins_to_win).tolist()

    # ------------------------------------------------------------------ information
    def view(self, seat: int) -> LuckyPirateView:
        top = self.top
        table = self.table.take(self._order[seat], axis=0)  # a copy, cheaper than fancy indexing
        if self.setting_up:  # nobody sees the others' up cards before all are laid
            table[1:, :NUM_KINDS] = 0
        return LuckyPirateView.from_fields(  # positional, in field order
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
        )

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Redeal the other hands, every down card and the cards put aside, keeping all sizes.

        During the set-up the up cards the others have laid are hidden too, and redealt.
        """
        others = [q for q in range(self.num_players) if q != seat]
        pool = [np.repeat(np.arange(NUM_KINDS), self.hands[q]) for q in others]
        if self.setting_up:
            pool += [np.repeat(np.arange(NUM_KINDS), self.ups[q]) for q in others]
        pool.append(np.array([k for downs in self.downs for k in downs if k != EMPTY_SLOT], dtype=np.int64))
        pool.append(np.repeat(np.arange(NUM_KINDS), self.set_aside))
        cards = rng.permutation(np.concatenate(pool)).tolist()
        for q in others:
            size = int(self.hand_size[q])
            self.hands[q] = np.bincount(np.asarray(cards[:size], dtype=np.int64), minlength=NUM_KINDS)
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
        return "\n".join(lines)
