"""Distil each game's rule card from its teacher and measure it (agreement, strength).

    python -m experiments.rule_cards --env-ids skull_king_v0 --out docs/strategy

For each game: collects the teacher's positions (`agents.analysis.rule_cards.report` fixes the seeds), distils
a card of at most 19 rules, writes it (``--cards``: a folder for ``<env_id>.json``; by default the
shipped ``agents/<game>/rule_card.json``), measures it, and merges the figures into
``<out>/rule_cards.json`` and the page ``<out>/rule_cards.md``. Budgets: `agents.analysis.rule_cards.report.BUDGETS`
unless ``--train-games``, ``--holdout-games`` or ``--deals`` are given. Files are written atomically.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.analysis.rule_cards.report import BUDGETS, TEACHERS, Budget, distil_card, markdown, measure
from agents.rules.card import save_card
from agents.rules.vocabulary import shipped_card_path, vocabulary_of
from experiments.cli import check_folder, check_names, parse_args
from pirate_envs.core.files import write_atomic


@dataclass
class RuleCardsArgs:
    """Distil and measure the rule cards."""

    out: str = field(default="docs/strategy", metadata={"help": "folder for rule_cards.json and rule_cards.md"})
    cards: str = field(default="", metadata={"help": "folder for the cards (empty: the shipped card files)"})
    train_games: int = field(default=0, metadata={"help": "games to distil from (0: the game's budget)", "min": 0})
    holdout_games: int = field(default=0, metadata={"help": "held-out games (0: the game's budget)", "min": 0})
    deals: int = field(default=0, metadata={"help": "duplicate deals per strength figure (0: budget)", "min": 0})
    env_ids: list[str] = field(default_factory=lambda: list(TEACHERS), metadata={"help": "the games"})


def check_args(args: RuleCardsArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot run."""
    for env_id in args.env_ids:
        if env_id not in TEACHERS:
            raise ValueError(f"--env-ids {env_id!r} has no rule card; valid ids: {', '.join(TEACHERS)}")
    check_names(args.env_ids, "--env-ids")
    check_folder(args.out, "--out")
    if args.cards:
        check_folder(args.cards, "--cards")


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run the command; the figures by env id."""
    args = parse_args(RuleCardsArgs, argv, check=check_args)
    command = " ".join(["python -m experiments.rule_cards", *(sys.argv[1:] if argv is None else argv)])
    out = Path(args.out)
    figures_path = out / "rule_cards.json"
    figures: dict[str, dict[str, Any]] = {}
    for env_id in args.env_ids:
        planned = BUDGETS[env_id]
        budget = Budget(
            args.train_games or planned.train_games,
            args.holdout_games or planned.holdout_games,
            args.deals or planned.deals,
            args.deals or planned.teacher_deals,
        )
        vocabulary = vocabulary_of(env_id)
        card, train, held = distil_card(vocabulary, TEACHERS[env_id], budget)
        path = Path(args.cards) / f"{env_id}.json" if args.cards else Path(shipped_card_path(env_id))
        save_card(card, path)
        name = f"rules:{path}" if args.cards else f"rules:{env_id}"
        figures[env_id] = {
            **measure(env_id, name, card, vocabulary, train, held, budget.deals, budget.teacher_deals),
            "command": command,
        }
        # merged into the file as it is now (another run may have written other games meanwhile)
        written = json.loads(figures_path.read_text()) if figures_path.is_file() else {}
        written = {**written, env_id: figures[env_id]}
        write_atomic(figures_path, json.dumps(written, indent=1) + "\n")
        write_atomic(out / "rule_cards.md", markdown({key: written[key] for key in sorted(written, key=_order)}))
        print(
            f"{env_id}: {len(card.rules)} rules, held-out agreement {figures[env_id]['heldout_agreement']:.3f}: {path}"
        )
    return figures


def _order(env_id: str) -> int:
    return list(TEACHERS).index(env_id) if env_id in TEACHERS else len(TEACHERS)


if __name__ == "__main__":
    main()
