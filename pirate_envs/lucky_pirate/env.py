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
follow), First Mate (on a Captain: the top becomes a plain 9), Porthole (copies the card
below, value and restrictions), Mermaid (on anything but a Captain; value 7), Parrot (on
anything but a Captain; any card may follow), Walk the Plank (on anything but a Captain;
clears the pile), Reverse (an odd number reverses the direction), Skip (skips one player per
card), Kraken (10).

Arguments
---------
``num_players`` (2..6, default 4), ``deck`` (mapping card kind -> copies, 0..6 each;
default below), ``first_dealer`` (``None``: random seat, or a seat), ``wins_to_win`` (1),
``choose_up_cards`` (``False``), ``run_clear_plays_again``, ``plank_plays_again``,
``first_mate_only_on_captain``, ``first_mate_on_empty_pile``, ``porthole_on_empty_pile``
(all ``True``),
``reverse_skip_value`` (``"keep"`` or ``"reset"``), ``captain_counts_in_runs`` (``True``),
``max_turns`` (5000, the turn-limit guard, per game), ``reward_mode`` (``"win"`` or
``"score"``), ``render_mode`` (``"ansi"`` or ``"human"``).

Reset options: ``deal`` (per seat ``{"hand": [...], "up": [...], "down": [...]}`` of card
names, down cards in slot order; deck cards not dealt are put aside unseen), ``dealer`` (the
seat left of it plays first), ``pile`` (with ``deal``: cards already on the pile, bottom to
top). Later games of a tournament are dealt at random.

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
``"score"``: the score is the number of games won, so each game won pays +1
(``SCORE_SCALE = 1``); with ``wins_to_win=1`` only the winner gets +1.

Settled points and assumptions (see RULINGS; each is an option)
---------------------------------------------------------------
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
* Picking up: the whole pile goes into the hand and the next player starts a new pile.
* Clearing (three equal numbers in a row, or Walk the Plank) removes the pile from the game;
  the same player plays again (*assumption*: ``run_clear_plays_again``,
  ``plank_plays_again``). Three Captains in a row (one set) clear too (*assumption*:
  ``captain_counts_in_runs``); a First Mate, Mermaid or Porthole never extends a run.
* First Mate (*assumption*): only on a Captain (``first_mate_only_on_captain``). Beyond
  RULINGS, ``first_mate_on_empty_pile=True`` also lets it start an empty pile (off by default,
  as RULINGS has it): without it a First Mate is dead once every Captain has been cleared out,
  which makes forced cycles common with two or three players (see the guard below).
* Porthole (*assumption*): playable on anything; copies value and restrictions of the card
  below (on a Captain: a Captain again; on a Parrot: free); on an empty pile its value is 0
  (``porthole_on_empty_pile=False`` forbids that).
* Reverse and Skip (*assumption*): playable on anything but a Captain; the pile keeps its
  value and restrictions (``reverse_skip_value="reset"``: the value drops to 0). k Skips
  skip k players; two players: a Skip lets the player play again.
* Parrot: the pile value becomes 0 with no restriction (any card but a First Mate follows).
* Mermaid: playable on anything but a Captain, including a Kraken; the value becomes 7.
* Kraken (*assumption*): a plain 10, the highest number.
* The player who sheds his last card wins at once, even if that play would clear the pile.
* Turn-limit guard: ``max_turns`` turns per game, then the episode is truncated. The rules
  (with these assumptions) allow endless cycles, mostly with two players: e.g. one player
  holds a First Mate and a Kraken, the other a Kraken and low cards, no Captain is left: First
  Mate on the empty pile, Kraken, pick up, low card, Kraken, pick up, ... every move forced.
  Before the stranded-First-Mate check below, random play (uniform by action block,
  ``max_turns=3000``, seeds 0..149 per count) hit the guard in 35/150 two-player, 13/150
  three-player and 0/150 four-player games with the defaults, most of them stranded games
  that now end early; with ``first_mate_on_empty_pile=True`` in 34/1000 two-player games and
  none of 1000 per count with three to six players (none went past 1100 turns). For training
  with two or three players, ``first_mate_on_empty_pile=True`` is recommended.
* Stranded First Mates: a First Mate that may go only on a Captain blocks what lies behind
  it (a player with one in his hand never reaches his up cards; with one in his hand or up
  cards, never his down cards). When no Captain is on the pile or in a hand, every other
  Captain is behind such a First Mate or out of the game, and every seat holds a First Mate,
  nobody can ever shed his last card: the episode is truncated as soon as the pile is next
  emptied, instead of at the guard (the engine's ``truncation_reason`` says which ended it).
  Random play with the defaults (``max_turns=3000``, seeds 0..299 per count): two players
  236 won, 57 stranded (median turn 12), 7 at the guard; three players 277 won, 23 stranded;
  four players 299 won, 1 stranded. So under the RULINGS First Mate about one two-player game
  in five cannot be won by anybody, whatever the players do.

Version history
---------------
v0: first release; stranded First Mates truncate at once (same outcome as the guard, earlier).
"""

from __future__ import annotations

from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.lucky_pirate.engine import Config, LuckyPirateEngine
from pirate_envs.lucky_pirate.observation import LuckyPirateEncoder, build_layout

#: Score mode pays +1 per game won (the score is the number of games won).
SCORE_SCALE = 1.0


class raw_env(PirateAECEnv):
    """Lucky Pirate as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "lucky_pirate_v0"}
    CONFIG = Config
    ENGINE = LuckyPirateEngine
    SCORE_SCALE = SCORE_SCALE

    def make_encoder(self) -> LuckyPirateEncoder:
        return LuckyPirateEncoder(build_layout(self.config), self.config)
