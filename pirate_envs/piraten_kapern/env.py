"""Piraten Kapern (``piraten_kapern_v0``): press-your-luck dice with fortune cards.

Rules summary
-------------
2 to 5 players take turns. A turn draws a fortune card and rolls eight dice (coin, diamond,
monkey, parrot, sabre, skull). The player stops and scores, or re-rolls at least two dice
that are not skulls. Three skulls end the turn with nothing (card skulls count). Four or more
skulls on the first roll send him to the Island of Skulls: he re-rolls while each roll brings
a skull, and every opponent loses 100 per skull. Sets of 3..8 identical objects score
100/200/500/1000/2000/4000, each coin and diamond 100 more, eight scoring dice 500 more (full
chest). When a player ends a turn at the target (6000), every other player gets one more
turn; the highest score wins, a tie is a shared win.

Fortune cards: Treasure Chest (dice on the card score even after three skulls), Captain
(double everything), Sorceress (re-roll one skull once), Gold / Diamond (one more coin /
diamond), Monkey Business (monkeys and parrots form one set), Sea Battle 2/3/4 (that many
sabres win 300/500/1000, otherwise lose it; no Island), Skulls 1/2 (start with skulls).
Promo cards (option ``promo_cards``): After the Storm and Peace.

Arguments
---------
``num_players`` (2..5, default 2), ``target_score`` (6000), ``promo_cards`` (False),
``promo_copies`` (1), ``max_turns`` (1000, the turn-limit guard), ``reward_mode``
(``"win"`` or ``"score"``), ``table_layout`` (``"seated"`` or ``"max"``: the rows of a 5-player
table, see Observation), ``render_mode`` (``"ansi"``, ``"human"`` or ``"rgb_array"``).
Small variants (their defaults are the printed game): ``num_dice`` (2..8, default 8: the dice
rolled each turn), ``fortune_deck`` (11 copy counts, 0..4 each, one per base card in the card
order below, Treasure Chest to Skulls 2; default ``(4, 4, 4, 4, 4, 4, 2, 2, 2, 3, 2)``, the
35-card deck) and ``max_rolls`` (0: no limit; else the rolls a turn may make, the first
included, after which only stopping is left). With fewer dice only "all eight dice" scales: the
full chest asks all ``num_dice`` dice to score. Every other number stays printed: three skulls
end a turn, four on the first roll reach the Island, a re-roll takes two dice, sets score by the
table, the Sea Battles ask 2/3/4 sabres (a battle that asks more sabres than there are dice is
always lost: leave it out of ``fortune_deck``). The observation still gives dice as fractions
of eight and the action table is unchanged (the mask allows the re-rolls the dice showing allow).
The batched engine plays every variant. Under OpenSpiel (``pirate_envs.openspiel``) a variant
with ``max_rolls`` of at least 1 takes ``chance="explicit"``: every deck shuffle and every roll
is a chance node with exact odds; ``load_variant("piraten_kapern_two_dice")`` loads the one
small enough for CFR (two players, two dice, a deck of one Gold, two rolls a turn, one turn each
with ``target_score=100``: the higher score wins).
Reset option: ``options={"first_card": "captain"}`` deals that card, one of this game's fortune
deck, to the first turn (the rest of the deck is shuffled as usual; ``None``: no card chosen).

Observation (``env.unwrapped.observation_layout``; for 2 players, 50 floats)
---------------------------------------------------------------------------
| index | name | shape | meaning |
|---|---|---|---|
| 0-1 | on_turn | (2,) | one-hot: player on turn, seat-relative (index 0 = me) |
| 2-14 | card | (13,) | one-hot: fortune card of the turn in play |
| 15-20 | dice | (6,) | free dice per face (coin diamond monkey parrot sabre skull) / 8 |
| 21-26 | chest | (6,) | dice on the Treasure Chest per face / 8 |
| 27 | rolls | (1,) | rolls made this turn / 10 (counted up to 50) |
| 28 | sorceress_available | (1,) | 1 if the Sorceress skull re-roll is still unused |
| 29 | island | (1,) | 1 on the Island of Skulls |
| 30 | skulls | (1,) | skulls counting this turn (dice + card) / 8 |
| 31 | turn_points | (1,) | points at stake if the player on turn stops now / 1000 |
| 32-33 | scores | (2,) | scores / target score, seat-relative |
| 34 | final_round | (1,) | 1 once the final round is triggered |
| 35-36 | final_turn_left | (2,) | 1 for players who still have their final turn, seat-relative |
| 37-49 | deck_left | (13,) | fortune cards of each kind left in the deck / 4 |

Card order: treasure_chest captain sorceress gold diamond monkey_business sea_battle_2
sea_battle_3 sea_battle_4 skulls_1 skulls_2 storm peace. With n players the per-player pieces
have n entries and the later indices shift.

``table_layout="max"`` lays the per-player pieces out for the largest table (5 rows,
seat-relative as above; rows of absent seats are zero) and appends ``seat_present`` (5,): 1 for
each row with a player. Every other piece is as in the default ``"seated"`` layout; the vector
has the largest table's size plus 5 (59 + 5 = 64 floats) at every table size, so one network
plays every count.

Actions (``Discrete(2084)``, ``env.unwrapped.action_to_string(a)``)
------------------------------------------------------------------
| actions | block | meaning |
|---|---|---|
| 0 | stop | end the turn and score |
| 1-2073 | reroll | re-roll a count of free dice per face, ``(coin, diamond, monkey, parrot, sabre, skull<=1)`` |
| 2074-2078 | chest_put | put one free die of a face on the Treasure Chest |
| 2079-2083 | chest_take | take one die of a face off the Treasure Chest |

Dice of one face are interchangeable, so a re-roll is a count per face: one action for each
distinct choice, never one per die. The mask allows exactly the legal ones: at least two
non-skull dice, or a single skull (with or without others) under an unused Sorceress; chest
moves only with the Treasure Chest, between rolls.

``env.unwrapped.action_features`` describes every action by 68 fixed numbers (its block, the
dice a re-roll takes per face as a fraction and as one-hots, the Sorceress skull, the dice
re-rolled in all, the chest face): ``experiments.train`` uses them (``--action-features``) so
that what a policy learns about one re-roll carries over to similar ones.

Rewards
-------
``"win"``: at the end, winners share +1 and losers share -1 (zero-sum); truncation pays 0.
``"score"``: every change of a player's score (his turns, Island penalties) / 1000.

Assumptions (beyond the printed rules; all of them, with their options, in ``docs/rulings.md``)
------------------------------------------------------------------------------------------------
* A tie for the highest score is a shared win.
* Seat 0 takes the first turn.
* Discarded fortune cards are public: the observation counts the cards left in the deck.
* The Sorceress cannot be used on the Island of Skulls (its re-rolls take non-skull dice).
* Chest moves are not allowed on the Island of Skulls (its dice score nothing); at most 16
  chest moves between two rolls (a guard against loops: any arrangement needs at most 8).
* The final round is cancelled if its trigger falls below the target; the next player who
  ends a turn at the target triggers a new one.
* After the Storm: one re-roll at most, also on the Island; only coins and diamonds score
  (100 each plus their sets), doubled, no full chest; three skulls end the turn as an Island
  turn (each opponent loses 100 per skull, not doubled).
* Peace: a turn that ends with sabres showing, three skulls included, scores -1000 per sabre;
  an Island turn that ends with a sabre showing costs the opponents nothing.
* ``promo_copies`` (1): copies of each promo card in the deck.
* Small variants (``num_dice``, ``fortune_deck``, ``max_rolls``): see Arguments; each choice is a
  row of ``docs/rulings.md``.

Version history
---------------
v0: first release.
"""

from __future__ import annotations

from pirate_envs.core.aec import Encoder as ObservationEncoder
from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import TableLayoutOption, table_layout_encoder
from pirate_envs.piraten_kapern.engine import MAX_PLAYERS, Config, KapernEngine
from pirate_envs.piraten_kapern.observation import Encoder, build_layout, largest_layout, piece_bounds

SCORE_SCALE = 1.0 / 1000.0


class raw_env(TableLayoutOption, PirateAECEnv):
    """Piraten Kapern as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {**PirateAECEnv.metadata, "name": "piraten_kapern_v0"}
    CONFIG = Config
    ENGINE = KapernEngine
    SCORE_SCALE = SCORE_SCALE

    def observation_bounds(self) -> dict[str, tuple[float, float]]:
        return piece_bounds(self.config)

    def make_encoder(self) -> ObservationEncoder:
        n = self.config.num_players
        return table_layout_encoder(self.table_layout, Encoder(build_layout(n)), largest_layout(), MAX_PLAYERS, n)
