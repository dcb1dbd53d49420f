"""Distil a game's card and measure it: agreement with the teacher, strength on duplicate deals.

The seeds are fixed here, in advance and apart: the card is distilled from games dealt from
`TRAIN_SEED`, its agreement is measured on games dealt from `HOLDOUT_SEED`, its strength on
duplicate deals from `EVAL_SEED`; nothing about the card (features, choices, leaf budget) is
chosen on the evaluation deals. `markdown` writes the figures as a page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.analysis.rule_cards.positions import Positions, collect_positions
from agents.evaluation import run_tournament
from agents.games import game_module
from agents.rules.card import RuleCard, card_text
from agents.rules.distil import card_actions, distil
from agents.rules.vocabulary import Vocabulary

TRAIN_SEED = 1_000_000
HOLDOUT_SEED = 2_000_000
EVAL_SEED = 9_000_000
MAX_RULES = 19

#: The teacher of each game's card: its shipped network, except Piraten Kapern's exact turn
#: oracle (as strong as the network against the heuristic at two players, and exact: see the page)
#: and Lucky Pirate's guided search (0.46 against three heuristics where the network wins 0.32; a
#: card distilled from it won 0.289 [0.268, 0.310] against them, the network's card 0.270 [0.248,
#: 0.292], on 300 duplicate deals from seed 700000, apart from the evaluation deals).
TEACHERS = {
    "skull_king_v0": "ppo:skull_king_v0",
    "piratenpoker_v0": "ppo:piratenpoker_v0",
    "lucky_pirate_v0": "halving:ppo:lucky_pirate_v0",
    "piraten_kapern_v0": "oracle",
}


@dataclass(frozen=True)
class Budget:
    """Games to distil from, held-out games, duplicate deals per strength figure, and per figure where
    the teacher plays (``teacher_deals``; 0: ``deals``), fewer where the teacher is a costly search."""

    train_games: int
    holdout_games: int
    deals: int
    teacher_deals: int = 0


#: Each game's budget (a few CPU-minutes per game on one core).
BUDGETS = {
    "skull_king_v0": Budget(300, 100, 300),
    "piratenpoker_v0": Budget(300, 100, 300),
    "lucky_pirate_v0": Budget(400, 150, 300, teacher_deals=60),
    "piraten_kapern_v0": Budget(400, 150, 400),
}


def distil_card(vocabulary: Vocabulary, teacher: str, budget: Budget) -> tuple[RuleCard, Positions, Positions]:
    """The card distilled from ``budget.train_games`` teacher games, and the train and held-out positions."""
    train = collect_positions(vocabulary, teacher, budget.train_games, TRAIN_SEED)
    held = collect_positions(vocabulary, teacher, budget.holdout_games, HOLDOUT_SEED)
    min_leaf = max(20, len(train) // 500)
    weights = position_weights(vocabulary, train)
    card = distil(vocabulary, train.X, train.A, train.y, teacher, MAX_RULES, min_leaf, weights)
    return card, train, held


def balance_weights(vocabulary: Vocabulary, positions: Positions) -> np.ndarray | None:
    """Weights giving each value of the vocabulary's ``balance`` feature the same total (``None``: none)."""
    if not vocabulary.balance:
        return None
    column = [f.name for f in vocabulary.features].index(vocabulary.balance)
    _, kind, counts = np.unique(positions.X[:, column], return_inverse=True, return_counts=True)
    return len(positions) / (len(counts) * counts[kind])


def position_weights(vocabulary: Vocabulary, positions: Positions) -> np.ndarray | None:
    """Each position's weight in distilling: the balance weights times the positions' stakes (``None``: none)."""
    weights = balance_weights(vocabulary, positions)
    if positions.stakes is None:
        return weights
    return positions.stakes if weights is None else weights * positions.stakes


def agreement(card: RuleCard, positions: Positions) -> float:
    """The share of positions where the card makes the teacher's move."""
    return float(np.mean(card_actions(card, positions.X, positions.A, positions.first_legal) == positions.y))


def strength(env_id: str, agent: str, opponent: str, players: int, deals: int) -> dict[str, Any]:
    """``agent`` against ``players - 1`` copies of ``opponent`` on ``deals`` duplicate deals from `EVAL_SEED`."""
    lineup = [agent] + [opponent] * (players - 1)
    start = time.process_time()
    results, _ = run_tournament(env_id, lineup, games=deals * players, seed=EVAL_SEED, duplicate=True)
    mine = next(r for r in results if r.agent == agent)
    return {
        "agent": agent,
        "opponent": opponent,
        "players": players,
        "deals": deals,
        "win_rate": mine.win_rate,
        "win_low": mine.win_low,
        "win_high": mine.win_high,
        "chance": 1.0 / players,
        "cpu_s": round(time.process_time() - start, 1),
    }


def measure(
    env_id: str,
    card_name: str,
    card: RuleCard,
    vocabulary: Vocabulary,
    train: Positions,
    held: Positions,
    deals: int,
    teacher_deals: int = 0,
) -> dict[str, Any]:
    """Every figure of one game's card (see the module docstring); the figures where the teacher plays
    on ``teacher_deals`` deals (0: ``deals``)."""
    n = vocabulary.players
    teacher = card.teacher
    vs_heuristic = strength(env_id, card_name, "heuristic", n, deals)
    teacher_vs_heuristic = strength(env_id, teacher, "heuristic", n, teacher_deals or deals)
    vs_teacher = strength(env_id, card_name, teacher, n, teacher_deals or deals)
    chance = 1.0 / n
    edge = teacher_vs_heuristic["win_rate"] - chance
    return {
        "env_id": env_id,
        "teacher": teacher,
        "rules": len(card.rules),
        "train_positions": len(train),
        "heldout_positions": len(held),
        "train_agreement": agreement(card, train),
        "heldout_agreement": agreement(card, held),
        "vs_heuristic": vs_heuristic,
        "teacher_vs_heuristic": teacher_vs_heuristic,
        "vs_teacher": vs_teacher,
        "edge_kept": (vs_heuristic["win_rate"] - chance) / edge if edge > 0 else None,
        "card_text": card_text(card),
        "seeds": {"train": TRAIN_SEED, "heldout": HOLDOUT_SEED, "eval": EVAL_SEED},
    }


def _rate(figure: dict[str, Any]) -> str:
    return f"{figure['win_rate']:.3f} [{figure['win_low']:.3f}, {figure['win_high']:.3f}]"


def _deals(figures: dict[str, Any]) -> str:
    """The deals of the card's figure, and of the teacher's where fewer."""
    card, teacher = figures["vs_heuristic"]["deals"], figures["teacher_vs_heuristic"]["deals"]
    return f"{card}" if teacher == card else f"{card} / {teacher}"


def markdown(figures: dict[str, dict[str, Any]]) -> str:
    """The rule-card page: per game the figures, the goals met or not, and the card in words."""
    lines = [
        "# Rule cards",
        "",
        "Each game's strongest honest agent distilled into a short decision list over named features of the",
        "deciding seat's view, shipped as the agent `rules:<env_id>` (`agents/rules/`, the card data in",
        "`agents/<game>/rule_card.json`). Each game's figures were made by the command in its section,",
        "and written to `docs/strategy/rule_cards.json`.",
        "",
        f"Positions to distil from: the teacher's moves in games dealt from seed {TRAIN_SEED} on (the teacher",
        f"in one seat, the heuristic in the others); held-out positions: games from seed {HOLDOUT_SEED} on;",
        f"strength: duplicate deals from seed {EVAL_SEED} on (each deal played once per seat rotation), win rate",
        "with its 95% interval over deals. Edge kept: (card's win rate - chance) / (teacher's win rate - chance)",
        "against the heuristic. Piraten Kapern's teacher is the exact turn oracle, not its network: against",
        "the heuristic at two players the two were equally strong on deals chosen apart from the evaluation",
        "deals (seed 500000 on), and the oracle is exact and deterministic. Lucky Pirate's teacher is its",
        "guided search, the strongest honest agent of that game: the figures where it plays come from fewer",
        "deals (the deals column gives the card's, then the teacher's), as it costs about 20 ms a move.",
        "",
        "| game | teacher | rules | held-out agreement | card vs heuristics | teacher vs heuristics | edge kept "
        "| card vs teacher |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for env_id, f in figures.items():
        kept = "n/a (no edge)" if f["edge_kept"] is None else f"{f['edge_kept']:.2f}"
        lines.append(
            f"| {env_id} ({f['vs_heuristic']['players']} players, {_deals(f)} deals) | "
            f"`{f['teacher']}` | {f['rules']} | {f['heldout_agreement']:.3f} ({f['heldout_positions']} positions) | "
            f"{_rate(f['vs_heuristic'])} | {_rate(f['teacher_vs_heuristic'])} | {kept} | {_rate(f['vs_teacher'])} |"
        )
    lines += [
        "",
        "Chance is 1/players. A goal is met where the card's interval against the heuristics lies above chance.",
    ]
    for env_id, f in figures.items():
        above = f["vs_heuristic"]["win_low"] > f["vs_heuristic"]["chance"]
        kept = f["edge_kept"]
        lines += [
            "",
            f"## {env_id}",
            "",
            f"    {f['command']}",
            "",
            f"Beats the heuristic above chance: {'yes' if above else 'no'}; "
            f"edge kept: {'n/a' if kept is None else f'{kept:.2f}'} "
            f"({'at least' if kept is not None and kept >= 0.5 else 'below'} half).",
            "",
            "```text",
            f["card_text"],
            "```",
            *_terms(env_id, f["vs_heuristic"]["players"]),
        ]
    return "\n".join(lines) + "\n"


def _terms(env_id: str, players: int) -> list[str]:
    """The card's terms in words, where the game defines some (``agents.<game>.rule_card.terms``)."""
    define = getattr(game_module(env_id, "rule_card"), "terms", None)
    return ["", "Terms the card uses:", "", *define(players)] if define is not None else []
