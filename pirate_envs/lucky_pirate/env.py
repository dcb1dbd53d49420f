"""Lucky Pirate (``lucky_pirate_v0``): a shedding card game with special pirate cards.

Rules summary
-------------
2 to 6 players. All cards are dealt, starting left of the dealer; each player lays some cards
face down and as many face up on them (3 players: 4, 4 players: 3, 5-6 players: 2; two
players are dealt three hands, one is put aside unseen, and set up as for three); the rest is
the hand. The player left of the dealer starts a pile; in turn, each player plays one or more
cards of one kind that match or beat the pile's value. Cards come from the hand; once it is
empty, from the up cards; once those are gone, one down card at a time, chosen blind (if it
cannot be played, it goes into the hand with the pile). A player who can play must play; one
who cannot picks up the pile, and the next player starts a new pile. Three equal numbers in a
row (not interrupted by a Porthole or any other card) clear the pile out of the game. The
first player to shed hand, up and down cards wins; an episode is one game, or a tournament of
first to ``wins_to_win`` wins (the winner deals the next game).

Special cards: Captain (9: on anything but a Kraken; only a First Mate or a Porthole may
follow), First Mate (a 9 that may also go on a Captain, where the top becomes a plain 9),
Porthole (copies the card below, value and restrictions), Mermaid (on anything but a Captain;
value 7), Parrot (on anything but a Captain; any card may follow), Walk the Plank (on anything
but a Captain; clears the pile), Reverse (an odd number reverses the direction), Skip (skips
one player per card), Kraken (10).

Arguments
---------
``num_players`` (2..6, default 4), ``deck`` (mapping card kind -> copies, 0..6 each;
default below), the short deck of the small variants cut from ``deck``: ``ranks`` (8: the
numbers above it leave), ``copies`` (6: at most this many of every kind), ``specials`` (9: the
special kinds kept, in the order Captain, Kraken, First Mate, Porthole, Walk the Plank, Mermaid,
Parrot, Reverse, Skip), and ``up_down_cards`` (0: the text's count for the players, else 1..4
up and as many down cards each), ``first_dealer`` (``None``: random seat, or a seat), ``wins_to_win`` (1),
``choose_up_cards`` (``False``), ``run_clear_plays_again``, ``plank_plays_again``,
``porthole_on_empty_pile``, ``captain_counts_in_runs`` (all ``True``),
``first_mate_only_on_captain``, ``first_mate_on_empty_pile`` (both ``False``),
``reverse_skip_value`` (``"keep"`` or ``"reset"``), ``max_turns`` (5000, the turn-limit guard,
per game), ``max_set_aside_games`` (10, the tournament limit), ``set_aside_dealer``
(``"same"`` or ``"random"``), ``reward_mode`` (``"win"`` or ``"score"``), ``table_layout``
(``"seated"`` or ``"max"``: the rows of a 6-player table, see Observation), ``observe_known``
(``False``; ``True`` appends the observation piece ``known``, see Observation), ``observe_pile``
(``False``; ``True`` appends the piece ``pile_cards``, see Observation), ``render_mode``
(``"ansi"``, ``"human"`` or ``"rgb_array"``). The game's options are fields of
``pirate_envs.lucky_pirate.engine.Config``.

Reset options: ``deal`` (per seat ``{"hand": [...], "up": [...], "down": [...]}`` of card
names, at most four down cards in slot order; deck cards not dealt are put aside unseen),
``dealer`` (the seat left of it plays first; ``None``: a random seat), ``pile`` (with ``deal``:
cards already on the pile, bottom to top). Later games of a tournament are dealt at random.
``deal`` or ``pile`` given as ``None`` is as if not given; a bad option (wrong type, unknown
card, more copies than the deck) is refused with one line naming it.

Card kinds (observation and action order): ``1`` .. ``8``, ``captain``, ``kraken``,
``first_mate``, ``porthole``, ``walk_the_plank``, ``mermaid``, ``parrot``, ``reverse``,
``skip``.

Observation (``env.unwrapped.observation_layout``; for 4 players, 201 floats)
----------------------------------------------------------------------------
| index | name | shape | meaning |
|---|---|---|---|
| 0-16 | hand | (17,) | own hand: copies per kind / most copies of a kind in the deck |
| 17-96 | players | (4, 20) | per seat, seat-relative rows (0 = me): up cards per kind, hand size, down cards, wins |
| 97-113 | removed | (17,) | cards cleared out of the game per kind / most copies |
| 114-117 | down_slots | (4,) | 1 for each own down-card slot still holding a card |
| 118 | pile_size | (1,) | cards in the pile / deck size |
| 119 | run_length | (1,) | equal numbers in a row on top of the pile / 3 |
| 120 | direction | (1,) | +1: play passes to seat + 1; -1: to seat - 1 |
| 121 | setting_up | (1,) | 1 while up cards are being laid (option choose_up_cards) |
| 122-172 | pile_top | (3, 17) | one-hot kind of the top 3 pile cards, topmost first |
| 173-183 | pile_value | (11,) | one-hot effective value of the pile 0..10 (0: empty or Parrot) |
| 184-186 | pile_mode | (3,) | one-hot: normal, captain (only First Mate/Porthole), free (Parrot) |
| 187-196 | run_kind | (10,) | one-hot number 1..10 of the run on top (all 0: no run) |
| 197-200 | to_play | (4,) | one-hot player on turn, seat-relative (index 0 = me) |

The 20 columns of a ``players`` row: up cards of each kind (17) / most copies, hand size /
deck size, down cards left / 4, games won / ``wins_to_win``. With n players, ``players`` and
``to_play`` have n rows and later indices shift. Card counts are divided by the most copies of
a kind in the deck (4 by default).

The option ``observe_known=True`` appends the piece ``known`` (n, 17) after ``to_play`` (for 4
players at 201-268, 269 floats; the older pieces keep their offsets): the View's ``known``, per
seat, the cards of its hand that every player saw go in,
a picked-up pile (every card of it) and a blind down card that failed, until they leave: a play
from the hand of k cards of a kind takes k off that kind's count (never below 0; the others
cannot tell a known card from an unseen one of the same kind), and every new deal (the next game
of a tournament, a set-aside game's redeal) clears it. Row 0 is the observer's own: the part of
its ``hand`` that the others know of.

The option ``observe_pile=True`` appends the piece ``pile_cards`` (17,) last (after ``known``
when both are on; for 4 players at 201-217, 218 floats, or at 269-285, 286 floats): the View's
``pile_counts``, the cards in the pile per kind / most copies. Every card of the pile was played
face up, so this is public; ``pile_top`` shows only the top three in order. A pick-up or a clear
empties it.

``table_layout="max"`` lays the per-player pieces out for the largest table (6 rows,
seat-relative as above; rows of absent seats are zero) and appends ``seat_present`` (6,): 1 for
each row with a player. Every other piece is as in the default ``"seated"`` layout; the vector
has the largest table's size plus 6 (243 + 6 = 249 floats; 345 + 6 = 351 with ``observe_known``,
+17 with ``observe_pile``)
at every table size, so one network
plays every count.

Actions (``Discrete(124)``, ``env.unwrapped.action_to_string(a)``)
-----------------------------------------------------------------
| actions | block | first label | last label |
|---|---|---|---|
| 0-101 | play | play 1 x 1 | play 6 x skip |
| 102-105 | down | play down card 1 blind | play down card 4 blind |
| 106 | pick_up | pick up the pile | pick up the pile |
| 107-123 | lay_up | lay 1 face up | lay skip face up |

Action ``kind * 6 + count - 1`` plays ``count`` cards of ``kind`` from the current source
(hand, or up cards once the hand is empty). The mask allows exactly the legal plays; pick up
only when no play is legal (on an empty pile it is a pass); with only down cards left, every
remaining slot is legal (the blind card may fail).

Rewards
-------
``"win"``: at the end, the winner gets +1 and every loser -1/(n-1); truncation pays 0.
``"score"``: the score is the number of games won, so each game won pays +1 when it is won
(``SCORE_SCALE = 1``), also in a tournament that is truncated later; with ``wins_to_win=1``
only the winner gets +1.

Settled points and assumptions
------------------------------
Where the rule text is silent the engine makes an assumption, each with an option that
changes it; the project's rulings page, ``docs/rulings.md`` (section Lucky Pirate), lists them
all with their defaults. In short:

* Deck (*assumption*, ``deck``): numbers 1..8 x 4, Captain, Kraken, First Mate, Porthole,
  Walk the Plank x 4, Mermaid, Parrot, Reverse, Skip x 2 (60 cards).
* Dealer: the text's cut for the lowest card gives every seat the same chance, so the first
  dealer is a random seat (``first_dealer`` fixes one); later the previous winner deals.
* Up cards are dealt at random and are public (*assumption*: the text says they are laid
  "without looking"). ``choose_up_cards=True`` adds a set-up phase instead: from the seat
  left of the dealer round to the dealer, each player lays his up cards one at a time from
  his hand (``lay_up`` actions); nobody sees the others' up cards until all are laid.
* Source order: hand, then up cards, then down cards; one source and one kind per play. A
  set of equal cards is legal when its first card is; the cards land one after the other.
* Picking up: the whole pile goes into the hand and the next player starts a new pile. The
  picked-up cards (and a failed blind down card, shown as it goes in) are public: the View's
  ``known`` (and the observation piece ``known`` of the option ``observe_known``) shows them in
  the taker's hand until played, and ``resample_hidden`` keeps them.
* Clearing (three equal numbers in a row, or Walk the Plank) removes the pile from the game;
  the same player plays again (*assumption*: ``run_clear_plays_again``,
  ``plank_plays_again``). Three Captains in a row (one set) clear too (*assumption*:
  ``captain_counts_in_runs``); a First Mate, Mermaid or Porthole never extends a run.
* First Mate (*assumption*): a 9 that may also be played on a Captain. It goes wherever a 9
  may (an empty pile, any effective value up to 9, anything after a Parrot) and on a Captain,
  where the top becomes a plain 9. ``first_mate_only_on_captain=True`` restores the earlier
  ruling, only on a Captain (``first_mate_on_empty_pile=True`` then also lets it start an
  empty pile); under it First Mates can be stranded (below).
* Porthole (*assumption*): playable on anything; copies value and restrictions of the card
  below (on a Captain: a Captain again; on a Parrot: free); on an empty pile its value is 0
  (``porthole_on_empty_pile=False`` forbids that; "empty" means no card on the pile, so a
  Porthole on a lone Reverse is still allowed).
* Reverse and Skip (*assumption*): playable on anything but a Captain; the pile keeps its
  value and restrictions (``reverse_skip_value="reset"``: the value drops to 0, the pile is
  not empty). k Skips skip k players; two players: a Skip lets the player play again.
* Parrot: the pile value becomes 0 with no restriction (any card follows).
* Mermaid: playable on anything but a Captain, including a Kraken; the value becomes 7.
* Kraken (*assumption*): a plain 10, the highest number.
* The player who sheds his last card wins at once, even if that play would clear the pile.

How games end
-------------
* Turn-limit guard: a game not won after ``max_turns`` turns is truncated. The rules (with
  these assumptions) allow endless forced play. A measured example under the default ruling
  (three heuristics, seed 172, from turn 33 on): player_0 holds a Captain in hand and one up,
  player_1 a Captain in hand and 1, 3, 5, Kraken up, player_2 an empty hand and 8, Kraken and
  two Parrots up; no First Mate or Porthole is in reach. Whoever holds a Captain in hand must
  play it, the next player cannot follow a Captain and picks it up, and after six forced moves
  the position repeats.
* Stranded First Mates (``first_mate_only_on_captain=True`` only): a First Mate that may go
  only on a Captain blocks what lies behind it (a player with one in his hand never reaches
  his up cards; with one in his hand or up cards, never his down cards). When no Captain is on
  the pile or in a hand, every other Captain is behind such a First Mate or out of the game,
  and every seat holds a First Mate, nobody can ever shed his last card: the game is truncated
  as soon as the pile is next emptied (``truncation_reason`` "stranded First Mates"; "turn
  limit" for the guard). Some deals are dead at the deal already (the same test right after
  it); other games are stranded by play. Under the default ruling every card may start a pile
  and nothing strands.
* Tournaments (``wins_to_win`` > 1): a game truncated by the guard or stranded is set aside
  with no winner (``set_aside_games`` on the engine lists why), the wins already earned stay,
  and the next game is dealt, by the same dealer (``set_aside_dealer``). Only the tournament
  limit truncates the episode: more than ``max_set_aside_games`` games set aside
  (``truncation_reason`` "set-aside game limit").

Measured outcomes (``python benchmarks/lucky_pirate_outcomes.py --games 300 --seed 0``: 300
one-game episodes per cell, seeds 0..299, ``max_turns=3000``; random: uniform by action block;
heuristic: ``agents.lucky_pirate.heuristic`` in every seat). Under the default ruling nothing
strands and the guard is rare; under the old ruling about one two-player game in five cannot
be won by anybody, and 19 of 300 two-player deals (6%) are dead at the deal. Each cell: won /
stranded / guarded games of 300, and in brackets the deals among them dead at the deal:

| players | default, random | default, heuristic | old ruling, random | old ruling, heuristic |
|---|---|---|---|---|
| 2 | 296 / 0 / 4 | 299 / 0 / 1 | 233 / 59 / 8 (19) | 274 / 24 / 2 (19) |
| 3 | 300 / 0 / 0 | 298 / 0 / 2 | 271 / 29 / 0 (1) | 298 / 2 / 0 (1) |
| 4 | 300 / 0 / 0 | 300 / 0 / 0 | 299 / 1 / 0 (0) | 300 / 0 / 0 (0) |
| 5 | 300 / 0 / 0 | 300 / 0 / 0 | 300 / 0 / 0 (0) | 300 / 0 / 0 (0) |
| 6 | 300 / 0 / 0 | 300 / 0 / 0 | 300 / 0 / 0 (0) | 300 / 0 / 0 (0) |

Two heuristics at two players, 1,000 games (``--games 1000 --players 2 --agents heuristic
--rulings default``): 997 won, 3 guarded. First-to-5 tournaments (``--games 200 --wins-to-win 5
--players 2 3``): all 200 finished in every cell (random and heuristic, 2 and 3 players, both
rulings); the most games set aside were 372 in the 200 two-player random tournaments under
the old ruling (346 stranded, 26 guarded), 34 (guarded) under the default.

Small variant
-------------
``pirate_envs.openspiel.SMALL_VARIANTS["lucky_pirate_small"]`` is small enough for OpenSpiel's
exact solvers under explicit chance (chance nodes for the dealer and each card of the deal): two
players, ``ranks=2, copies=3, specials=1`` (three 1s, three 2s, three Captains),
``up_down_cards=1`` (three hands of a down, an up and a hand card, one hand put aside),
``max_turns=12`` (a game not won by then is truncated and pays nothing; 9% of random games).
Its tree: 72,537 histories, 5,922 information states.

Code
----
``engine.py`` (``Config``, the state and the engine: deal, legal actions, effects, tournaments,
``resample_hidden``), ``rules.py`` (pure helpers of the pile: ``can_play``, ``place``,
``pile_top``, ``legal_plays``), ``cards.py`` (card kinds, values, the deck), ``actions.py``
(the action table), ``view.py``, ``observation.py``, ``env.py``.

Version history
---------------
v0: first release; stranded First Mates truncate at once (same outcome as the guard, earlier).
v0, revised: the First Mate is a 9 that may also go on a Captain (the earlier ruling is the
option ``first_mate_only_on_captain``); the empty-pile options act on an empty pile only;
tournaments set truncated games aside and go on.
v0, observation options: ``observe_known`` (off by default, so the default observation is as
before) appends the piece ``known``; ``observe_pile`` (off by default) appends ``pile_cards``.
v1 (``lucky_pirate_v1``, `pirate_envs.lucky_pirate.v1`): the same game; ``observe_known`` and
``observe_pile`` are on by default (for 4 players 286 floats: the table above, then ``known`` at
201-268 and ``pile_cards`` at 269-285), and the env has action features
(``env.unwrapped.action_features``, 42 per action: block, kind, count, special, run kind, the value
it sets on the pile and its effect there: keeps the value, restricts, frees, clears, copies the
card below, reverses, skips; a blind down card's slot; see `pirate_envs.lucky_pirate.actions`),
so the training commands score actions with the feature action head. Version 0 is unchanged, and
an agent trained on version 0 plays version 1 as it plays version 0, reading its own pieces of the
observation (`pirate_envs.core.spec.GameSpec.same_game_as`), and can start a version 1 training run,
its new inputs at zero weight.
"""

from __future__ import annotations

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.lucky_pirate.engine import MAX_PLAYERS, Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.observation import Encoder, build_layout, largest_layout, piece_bounds

#: Score mode pays +1 per game won (the score is the number of games won).
SCORE_SCALE = 1.0


class raw_env(TableLayoutOption, PirateAECEnv):
    """Lucky Pirate as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "lucky_pirate_v0"}
    CONFIG = Config
    ENGINE = LuckyPirateEngine
    SCORE_SCALE = SCORE_SCALE

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        seated = Encoder(build_layout(self.config), self.config)
        largest = largest_layout(self.config.observe_known, self.config.observe_pile)
        return table_layout_encoder(self.table_layout, seated, largest, MAX_PLAYERS, self.config.num_players)
