"""Skull King (first edition, Schmidt Spiele), ``skull_king_v0``.

A trick-taking game in which every player bids, each hand, exactly how many tricks he will
win.

Rules
-----
* 66 cards: yellow, red, blue and black (trump) 1..13, 5 Escapes, 5 Pirates, 2 Mermaids,
  Scary Mary and the Skull King. 2..6 players; ten hands (configurable), hand k deals k cards.
* The dealer moves one seat to the left each hand. Every player bids 0..k tricks; the bids are
  simultaneous: they are asked in seat order starting left of the dealer, and nobody sees
  another's bid until all have bid, then all bids are public.
* The player left of the dealer leads the first trick; each trick's winner leads the next.
  A player must follow the suit of the first suit card of the trick if he can (if a special
  card leads, the first suit card played sets the suit); special cards may always be played.
* Trick winner, first matching rule: Skull King with a Mermaid: the first Mermaid (+50 bonus);
  the Skull King (+30 per Pirate in the trick, Scary Mary counting even as an Escape); the first
  Pirate (Scary Mary as Pirate included); the first Mermaid; the highest black; the highest card
  of the led suit; only Escapes (Scary Mary as Escape included): the first one.
* Score per hand k, bid b: b > 0 made exactly: 20 b + bonuses; b > 0 missed: -10 per trick off
  (no bonus); b = 0 made: +10 k; b = 0 missed: -10 k. The highest total after the last hand
  wins (a tie is a shared win).

Arguments
---------
``skull_king_v0.env(num_players=4, num_hands=10, first_dealer=0, suits=(0, 1, 2, 3), ranks=13,
specials=(5, 5, 2, 1, 1), reward_mode="win", table_layout="seated", render_mode=None)``

* ``num_players``: 2..6. ``num_hands``: 1..10 (``num_hands * num_players`` must fit the
  deck). ``first_dealer``: the seat that deals hand 1 (*assumption*, see below).
* A short deck, for small variants (exact solving: ``pirate_envs.openspiel.SMALL_VARIANTS``);
  no rule changes: ``suits`` (the suits in play, indices into yellow, red, blue, black;
  default all four; black trumps when in play), ``ranks`` (ranks 1..``ranks`` of each, 1..13,
  default 13) and ``specials`` (copies of escape, pirate, mermaid, skull_king, scary_mary, at
  most and by default 5, 5, 2, 1, 1). Example: ``suits=(0, 3), ranks=3, specials=(1, 1, 1, 1, 0)``
  is a ten-card deck. The batched engine deals it too.
* ``reward_mode``: ``"win"`` (terminal, zero-sum: with ``w`` tied winners among ``n`` players,
  each of the ``w`` winners ``1/w`` and each loser ``-1/(n - w)``; everybody 0 when all tie) or
  ``"score"`` (each hand's scores as they are settled, times ``SCORE_SCALE = 0.01``).
* ``table_layout``: ``"seated"`` (one row per player at the table) or ``"max"`` (the rows of a
  6-player table, absent seats zero, and ``seat_present``; see Observation).
* ``reset(seed=..., options=...)``: options ``deal`` (the cards of the first hand played, one
  list of names per seat), ``deals`` (several consecutive hands), ``first_hand`` (start at a
  later hand). Example: ``options={"deal": [["yellow-2"], ["yellow-12"], ["blue-13"],
  ["black-1"]]}``. An option given as ``None`` is as if not given; a bad one (wrong type or
  length, unknown card, more copies than the deck) is refused with one line naming it.

Observation (``num_players=4``; per-player rows are seat-relative: the observer first, then
the others in play order; ``env.unwrapped.observation_layout``)

| index | name | shape | meaning |
|---|---|---|---|
| 0-56 | hand | (57,) | number of own cards of each kind, 0..5 (kind order: cards.KIND_NAMES) |
| 57-113 | played | (57,) | number of cards of each kind played this hand, 0..5 (current trick included) |
| 114-345 | trick | (4, 58) | one-hot card each player put into the current trick (token order) |
| 346-349 | led_suit | (4,) | one-hot suit to follow (yellow, red, blue, black); zeros if none yet |
| 350-353 | leader | (4,) | one-hot player who leads the current trick |
| 354-357 | tricks_won | (4,) | tricks won this hand / 10 |
| 358-373 | voids | (4, 4) | 1 where a player did not follow that led suit this hand |
| 374-383 | hand_number | (10,) | one-hot hand number 1..10 (hand k deals k cards) |
| 384-386 | phase | (3,) | one-hot: bidding, playing, game over |
| 387-390 | dealer | (4,) | one-hot dealer of this hand |
| 391-434 | bids | (4, 11) | one-hot bid 0..10: own bid once made, the others' once all have bid |
| 435 | bids_revealed | (1,) | 1 once every player has bid this hand |
| 436-439 | scores | (4,) | total score / 500 |
| 440-449 | hands_left | (10,) | one-hot hands still to come after this one, 0..9 (num_hands - hand_number) |

``table_layout="max"`` lays the per-player pieces out for the largest table (6 rows,
seat-relative as above; rows of absent seats are zero) and appends ``seat_present`` (6,): 1 for
each row with a player. Every other piece is as in the default ``"seated"`` layout; the vector
has the largest table's size plus 6 (604 + 6 = 610 floats) at every table size, so one network
plays every count.

Card kinds (hand, played): ``yellow-1..13, red-1..13, blue-1..13, black-1..13, escape, pirate,
mermaid, skull_king, scary_mary``. Trick tokens: the same, with ``scary_mary:pirate`` (56) and
``scary_mary:escape`` (57) in place of ``scary_mary``.

Actions (one ``Discrete(69)`` for every player; ``env.unwrapped.action_to_string(a)``)

| actions | block | first label | last label |
|---|---|---|---|
| 0-10 | bid | bid 0 | bid 10 |
| 11-68 | card | play yellow-1 | play scary_mary:escape |

One action per card kind (identical Escapes, Pirates and Mermaids are interchangeable); Scary
Mary has two actions, as Pirate and as Escape. The mask allows bids 0..k in hand k, and
exactly the cards the follow-suit rule allows.

Views and agents
----------------
``env.unwrapped.game.view(seat)`` is the seat's `pirate_envs.skull_king.view.View`
(its hand, the public table, bids once all are made); the observation is ``encode(view)``.
``game.resample_hidden(seat, rng)`` redeals the cards the seat cannot see, keeping hand sizes
and public voids, and redraws unrevealed bids. ``agents/skull_king/heuristic.py`` bids its
hand's strength and plays to make its bid exactly.

Assumptions (where the rule text is silent; ``docs/rulings.md`` lists them all with their options)
--------------------------------------------------------------------------------------------------
* *assumption*: the rule text does not say who deals first; seat 0 deals hand 1, so seat 1
  bids and leads first. Option ``first_dealer`` (default 0).
* *assumption*: 2..6 players (option ``num_players``, default 4); a shorter game
  (``num_hands`` < 10) plays hands 1..``num_hands``, hand k dealing k cards.
* Every hand is dealt from the whole deck (the 66 cards, or the short deck chosen), shuffled.
  The cards left over after the deal stay unseen by everybody. A Mermaid that catches the
  Skull King earns +50 once, whatever else lies in the trick.
* The observation adds the public voids (a player who did not follow a led suit holds none of
  it this hand); they are what an attentive player remembers from the earlier tricks.
* A tie for the highest total is a shared win (the project's convention; the rule text is
  silent).

Code
----
``engine.py`` (``Config``, ``Phase``, the engine), ``rules.py`` (constants and pure helpers:
trick winner, bonus, hand score, follow-suit legality, the redeal of hidden cards),
``actions.py`` (the action table), ``cards.py``, ``view.py``, ``observation.py``, ``env.py``.

Version history
---------------
* v0: first edition rules. The observation gained ``hands_left`` (appended after ``scores``; the
  older pieces kept their offsets and values).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.skull_king.engine import Config, SkullKingEngine
from pirate_envs.skull_king.observation import Encoder, build_layout, largest_layout, piece_bounds
from pirate_envs.skull_king.rules import MAX_PLAYERS


class raw_env(TableLayoutOption, PirateAECEnv):
    """Skull King as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**PirateAECEnv.metadata, "name": "skull_king_v0"}
    CONFIG = Config
    ENGINE = SkullKingEngine
    #: Score-mode rewards: a hand's score (typically -100..+200) times 0.01.
    SCORE_SCALE = 0.01

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        seated = Encoder(build_layout(self.config), n)
        return table_layout_encoder(self.table_layout, seated, largest_layout(), MAX_PLAYERS, n)
