"""Piratenpoker (Michael Schacht, Piatnik): 3 to 5 pirates bid poker cards for loot.

Rules summary
=============
84 poker cards (green, red, yellow x values 1..8; per colour 1:1, 2:2, 3:4, 4:7, 5:7, 6:4,
7:2, 8:1), 21 loot cards in three colour stacks, back side up (the top card's back is public
and fixes its front: +5/shark (+4), +6/-3, +8/-4, +10/-5), one Pass card per player. Each
player holds 6 poker cards. A *game* reveals the top loot card of each stack and plays three
rounds; the *episode* (this env) runs games until a stack is empty when a game should start.

In every round each player secretly bids a non-empty set of his hand cards, or his Pass
(worth 0, once per game; it comes back at the next game). A player with no card and no Pass
bids nothing. The bids are revealed at once; the highest total wins, a tie goes to the higher
card values compared from the highest down, players still exactly tied are set aside and the
best of the others wins (a Pass can win that way); when nobody can win (everybody tied) the
game ends at once, the unclaimed loot goes under its stacks and a new game starts.

* Round 1 (overboard): the winner picks one face-up loot card and gives it back side up to any
  player, himself included.
* Round 2 (below deck): the winner puts one of the two remaining cards under its stack, then
  may give one of his displayed negative cards (-3/-4/-5, not a shark) to another player.
* Round 3 (loot): cards of the last loot card's colour count double; the winner displays the
  loot front side up.

Played cards go face up beside the draw pile; between games everybody draws back to six (an
empty draw pile is refilled by shuffling those cards). Final score: the displayed cards'
values (shark 4) plus 5 per set of three sharks and 5 per set of three front cards of equal
value (colour ignored). Highest total wins; ties go to the highest loot card, then the next;
a remaining tie is a shared win.

Arguments
=========
``env(num_players=4, loot_fronts=(5, 5, 6, 6, 8, 8, 10), max_games=100,
poker_copies=(1, 2, 4, 7, 7, 4, 2, 1), overboard_gift="any", below_deck_gifts=1,
all_tied_loot="under_stack", pass_sits_out=False, pass_can_win=True, hand_size=6,
reward_mode="win", table_layout="seated", render_mode=None)``

* ``num_players``: 3 to 5.
* ``loot_fronts``: front values of the loot cards of each colour (*assumption*, see below).
* ``max_games``: guard; the episode is truncated when it has not ended after this many games.
* ``poker_copies``: copies of the poker values 1..8 in each colour (0 to 7 each; the default is
  the rule text's 84 cards). A short deck keeps the three colours; it must hold ``hand_size``
  cards per player. The batched engine (``pirate_envs.vector``) plays the full deck only and
  refuses another in one line (training then runs one game per env).
* ``overboard_gift``, ``below_deck_gifts``, ``all_tied_loot``, ``pass_sits_out``,
  ``pass_can_win``, ``hand_size``: readings of the rules where the texts are silent or
  disagree (see Assumptions below and `pirate_envs.piratenpoker.engine.Config`).
* ``table_layout``: ``"seated"`` (one row per player at the table) or ``"max"`` (the rows of a
  5-player table, absent seats zero, and ``seat_present``; see Observation).
* ``reward_mode``: ``"win"`` (terminal, zero-sum, from the final ranking) or ``"score"``
  (changes of each player's final score of his displayed loot, times ``SCORE_SCALE = 0.1``:
  a card moves a score by 3 to 10, a set adds 5).

Reset options (``env.reset(options=...)``), for scripted games: ``hands`` (a list of card
names per seat; hands are then refilled to six in seat order), ``deck`` (the top of the draw
pile, first drawn first), ``discard``, ``rest_to_discard`` (cards not placed go to the discard
instead of under the deck, e.g. to test reshuffling; ``True`` or ``False``) and ``loot``
(``{colour: [front values, top first]}``, fronts left in ``loot_fronts``; the rest of each stack
is shuffled below). Without ``hands`` the first 6 x ``num_players`` cards of the draw pile are
dealt, seat 0 first. An option given as ``None`` is as if not given; a bad one (wrong type or
length, unknown card or front, more copies than the deck) is refused with one line naming it.

Actions
=======
One ``Discrete(44)`` space; the mask shows the legal ones.

| actions | block | first label | last label |
|---|---|---|---|
| 0-23 | add | bid green-1 | bid yellow-8 |
| 24 | commit | commit bid | commit bid |
| 25 | pass | pass | pass |
| 26-28 | loot | choose green loot | choose yellow loot |
| 29-37 | give | give green:-3 | give yellow:-5 |
| 38 | keep | keep negatives | keep negatives |
| 39-43 | recipient | to self | to seat +4 |

*Bid encoding.* A bid is built card by card: ``bid <card>`` moves one card of that kind from
the hand into the player's unrevealed bid, ``commit bid`` ends it (legal once it holds a
card), ``pass`` plays the Pass (legal with an empty bid while the Pass is available). Identical
cards are one kind, so the encoding has no duplicates, every action keeps one fixed meaning
(a learner sees "green-8" always in the same place, unlike subsets of sorted hand slots) and
it stays small (26 actions instead of the multisets of a 6-card hand). Only the order in which
the cards are added is free (it changes nothing; the heuristic adds them by kind). The partial bid is only
in the bidder's own View (``bid``); the others see nothing of this round's bids (not even
their size) until the last player has committed, when all bids are revealed together in
``last_bids``. Bidders are asked in seat order; a player without a choice is skipped.
``choose <colour> loot`` picks the overboard card (round 1) or the below-deck card (round 2);
``give``/``keep negatives`` is the round-2 winner's gift; ``to self`` / ``to seat +r``
names the receiver relative to the chooser (``+r``: r seats further in play order).

Observation
===========
``{"observation": float32 vector, "action_mask": int8 vector}``. Per-seat pieces are
seat-relative (row 0 is the observer, then the others in play order). Displayed loot kinds
are, per colour (green, red, yellow): fronts +5, +6, +8, +10, then backs shark, -3, -4, -5.
Nobody sees a bid before the reveal, so ``pass_available`` and ``hand_sizes`` count this
round's unrevealed bids as still in hand: while bidding they show the round's start, from the
reveal on the current values. In ``own_status`` the Pass flag of the unrevealed bid is cleared
at the reveal; the committed flag stays set until the next round's bidding starts.

``table_layout="max"`` lays the per-player pieces out for the largest table (5 rows,
seat-relative as above; rows of absent seats are zero) and appends ``seat_present`` (5,): 1 for
each row with a player. Every other piece is as in the default ``"seated"`` layout; the vector
has the largest table's size plus 5 (420 + 5 = 425 floats) at every table size, so one network
plays every count.

Layout for 4 players (``env.unwrapped.observation_layout.table()`` for another count):

| index | name | shape | meaning |
|---|---|---|---|
| 0-23 | hand | (24,) | own poker cards in hand per kind (green 1..8, red 1..8, yellow 1..8), x0.5 |
| 24-47 | bid | (24,) | own bid being built this round (unrevealed), per kind, x0.5 |
| 48-50 | own_status | (3,) | own Pass available, own bid committed this round, own Pass in the unrevealed bid |
| 51-54 | phase | (4,) | one-hot: bid, pick loot, give a negative card, choose recipient (zeros: over) |
| 55-57 | round | (3,) | one-hot: overboard, below deck, loot |
| 58-61 | chooser | (4,) | one-hot relative seat of the round winner deciding now |
| 62-85 | pending | (24,) | one-hot displayed kind about to be given (recipient phase) |
| 86-97 | face_up | (3, 4) | per colour: one-hot front value (+5,+6,+8,+10) face up |
| 98-109 | stack_tops | (3, 4) | per colour: one-hot front of the stack's top card |
| 110-113 | last_winner | (4,) | one-hot relative seat that won the last revealed round (zeros: all tied) |
| 114-116 | last_round | (3,) | one-hot round of the last revealed bids |
| 117-119 | stack_sizes | (3,) | loot cards left in each stack / loot per colour |
| 120-131 | stack_contents | (3, 4) | per colour: cards of each front left in the stack, x0.5 |
| 132 | draw_size | (1,) | poker cards in the draw pile / 84 |
| 133-136 | scores | (4,) | per seat: final score of the displayed loot so far / 40 |
| 137-140 | pass_available | (4,) | per seat: Pass available or in the unrevealed bid |
| 141-144 | hand_sizes | (4,) | per seat: cards in hand and in the unrevealed bid / 6 |
| 145-148 | last_passed | (4,) | per seat: played the Pass in the last revealed round |
| 149 | games_played | (1,) | games started so far / max_games |
| 150-173 | discard | (24,) | poker cards face up next to the draw pile, per kind, x0.25 |
| 174-269 | displayed | (4, 24) | per seat: displayed loot per kind (colour, side, front), x0.5 |
| 270-365 | last_bids | (4, 24) | per seat: the last revealed bid per kind, x0.5 |

Rewards
=======
``"win"``: at the end the winners share +1 and the losers share -1 (a truncated episode pays
0). ``"score"``: each change of ``final_score`` of a player's displayed loot, x0.1.

Assumptions
===========
Where the rule texts (English, and a French one) are silent or disagree; the project's page
``docs/rulings.md`` lists them for every game. The English text wins by default.

* The loot distribution per colour is 2x(+5/shark), 2x(+6/-3), 2x(+8/-4), 1x(+10/-5)
  (not in the texts): ``loot_fronts``.
* The Pass may be played once per game and the player bids cards in the game's later rounds
  (English "cannot play in the following rounds", read with the French "cannot play it
  again"): ``pass_sits_out=False``; ``True`` reads the English literally (he bids nothing).
* A Pass (total 0) takes part in the tie rules like any bid and wins when all bids above it
  are exactly tied ("the player who has the second-highest total wins"): ``pass_can_win=True``.
* Round 1: the winner may give the card to any player, himself included (English); the
  French text gives a negative card to another player and keeps a shark:
  ``overboard_gift="any"`` / ``"negative_to_other"``.
* Round 2: the winner gives at most one negative card (English; French "the card(s)"):
  ``below_deck_gifts=1``.
* When everybody ties, the unclaimed loot goes back under its stacks (English; French:
  removed from the game), hands are refilled and the Pass cards return (a new game):
  ``all_tied_loot="under_stack"`` / ``"removed"``.
* Hands hold six poker cards besides the Pass (English; the French refill is to "six cards,
  one of them the Pass"): ``hand_size=6`` / ``5`` (the deal and the refill).
* Fixed readings (no option): the episode ends when a stack is empty as a game should start
  (the game that revealed a stack's last card is played out); the final ranking's tie-break
  compares loot card values (shark 4, backs negative) from the highest down, and a player
  with more cards wins over one whose cards are a prefix of his; each complete set of three
  scores its bonus (six sharks: twice), a card counting in one set only; refills go in seat
  order, an empty draw pile being refilled by shuffling the played cards.

Small variant
=============
``pirate_envs.openspiel.SMALL_VARIANTS["piratenpoker_small"]`` is small enough for OpenSpiel's
exact solvers under explicit chance (chance nodes for every shuffle): three players,
``poker_copies=(0, 0, 0, 0, 1, 0, 0, 0)`` (a 5 of each colour), ``hand_size=1``,
``loot_fronts=(6,)`` (one +6 / -3 loot card per colour: the episode is one game of three rounds)
and ``max_games=1`` (a round everybody ties ends the episode truncated, paying nothing). What is
left to decide: when to play the Pass, which loot goes overboard and to whom, which goes below
deck, and the tie rules ("the second-highest total wins" lets a Pass win). Its tree: 3,538
histories, 2,259 information states. A 4 and a 5 of each colour (``poker_copies=(0, 0, 0, 1,
1, 0, 0, 0)``) is about 450,000 histories: the deal pops the draw pile's end, so every position
of its shuffle is dealt by chance nodes, the three cards nobody draws included.

Version history
===============
* v0: first version.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.piratenpoker.engine import Config, PiratenpokerEngine
from pirate_envs.piratenpoker.observation import Encoder, largest_layout, piece_bounds
from pirate_envs.piratenpoker.rules import MAX_PLAYERS


class raw_env(TableLayoutOption, PirateAECEnv):
    """Piratenpoker as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**PirateAECEnv.metadata, "name": "piratenpoker_v0"}
    CONFIG = Config
    ENGINE = PiratenpokerEngine
    SCORE_SCALE = 0.1

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        return table_layout_encoder(self.table_layout, Encoder(self.config), largest_layout(), MAX_PLAYERS, n)
