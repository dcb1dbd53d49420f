"""Measure a game's advice on two disjoint seed sets and keep only what replicates.

`SEED_SETS` are fixed here, before any measurement: ``discovery`` (seeds ``0 .. games - 1``) and
``replication`` (seeds ``REPLICATION_FIRST_SEED ..``, disjoint from the first for fewer than a
billion games). For every rule of a game `measure` plays the base agent WITH and WITHOUT the rule
on each set (`agents.analysis.advice.intervention`); per set it records how often the base agent
itself follows the rule where it applies (a game-clustered rate, counted in the WITH arm's games),
in what share of games the rule comes up and the focal seat's win share in those games in each arm,
the paired per-game differences of the focal seat's win share and score over all the games
(one value per game), and where the game declares an `Outcome` (``agents.<game>.advice.OUTCOME``)
how often a decision where the rule applies works in each arm (a game-clustered rate).

`published` decides what is printed: on the discovery set the win-share differences of all the
game's rules are one family, Holm-adjusted at `ALPHA`; a rule that passes is re-tested on the
replication set (the survivors one Holm family again) and is published only if it passes there
too with an effect of the same sign.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.analysis.advice.intervention import named_base, play_arm
from agents.analysis.advice.outcome import Outcome
from agents.analysis.advice.rules import Rule
from agents.analysis.advice.stats import clustered_rate, holm, paired_difference
from agents.games import game_module

#: The family-wise error rate of each Holm family.
ALPHA = 0.05
#: The first seed of the replication set (the discovery set starts at 0).
REPLICATION_FIRST_SEED = 1_000_000_000
SEED_SETS = ("discovery", "replication")


def seeds_of(seed_set: str, games: int) -> np.ndarray:
    """The seeds of ``seed_set`` for ``games`` games (`SEED_SETS`)."""
    if seed_set not in SEED_SETS:
        raise ValueError(f"seed set {seed_set!r} is not valid; choose from {', '.join(SEED_SETS)}")
    if games >= REPLICATION_FIRST_SEED:
        raise ValueError(f"{games} games would make the seed sets overlap")
    first = 0 if seed_set == "discovery" else REPLICATION_FIRST_SEED
    return first + np.arange(games, dtype=np.int64)


@dataclass(frozen=True)
class AdvicePlan:
    """Who plays a game's interventions: the ``base`` agent the rules are applied to, its ``opponent``
    (every other seat) and the games per arm and seed set."""

    base: str
    opponent: str
    games: int
    note: str = ""


def _advice_module(env_id: str) -> Any:
    return game_module(env_id, "advice")


def advice_of(env_id: str) -> tuple[Rule, ...]:
    """The game's advice list, ``agents.<game>.advice.ADVICE``."""
    return _advice_module(env_id).ADVICE


def plan_of(env_id: str) -> AdvicePlan:
    """The game's intervention plan, ``agents.<game>.advice.PLAN``."""
    return _advice_module(env_id).PLAN


def outcome_of(env_id: str) -> Outcome | None:
    """The game's `Outcome` (``agents.<game>.advice.OUTCOME``), or ``None``: the game is the unit."""
    return getattr(_advice_module(env_id), "OUTCOME", None)


def measure_rule(env_id: str, plan: AdvicePlan, rule: Rule, seeds: Sequence[int]) -> dict[str, Any]:
    """One rule on one seed set: the base's own adherence, WITH minus WITHOUT win share and score, and
    (with the game's `Outcome`) how often a decision where it applies works in each arm."""
    base = named_base(plan.base, env_id)
    outcome = outcome_of(env_id)
    arms = {
        arm: play_arm(env_id, base, plan.opponent, rule, arm, seeds, outcome=outcome) for arm in ("with", "without")
    }
    with_rule, without = arms["with"], arms["without"]
    came_up = with_rule.hits > 0  # deterministic agents play both arms alike up to the first choice
    works = (
        {
            "works_with": clustered_rate(with_rule.works, with_rule.tried),
            "works_without": clustered_rate(without.works, without.tried),
        }
        if outcome is not None
        else {}
    )
    return {
        "came_up": float(came_up.mean()),
        "win_with_when_up": float(with_rule.win[came_up].mean()) if came_up.any() else None,
        "win_without_when_up": float(without.win[came_up].mean()) if came_up.any() else None,
        "follows": clustered_rate(with_rule.follows, with_rule.hits),
        "games_with_choice": int((with_rule.hits > 0).sum()),
        "win_with": float(with_rule.win.mean()),
        "win_without": float(without.win.mean()),
        "score_with": float(with_rule.score.mean()),
        "score_without": float(without.score.mean()),
        "win_effect": paired_difference(with_rule.win, without.win),
        "score_effect": paired_difference(with_rule.score, without.score),
        **works,
    }


def measure(env_id: str, plan: AdvicePlan, games: int = 0, rules: Sequence[Rule] | None = None) -> dict[str, Any]:
    """Every rule of the game on both seed sets (``games`` per arm and set; 0: the plan's): the stats file's content."""
    games = games or plan.games
    rules = advice_of(env_id) if rules is None else rules
    start = time.process_time()
    out: dict[str, Any] = {
        "env_id": env_id,
        "base": plan.base,
        "opponent": plan.opponent,
        "games_per_arm": games,
        "seed_sets": {s: [int(seeds_of(s, games)[0]), int(seeds_of(s, games)[-1])] for s in SEED_SETS},
        "alpha": ALPHA,
        "correction": "holm",
        "rules": [],
    }
    outcome = outcome_of(env_id)
    if outcome is not None:
        out["outcome"] = {"unit": outcome.unit, "works": outcome.works}
    for rule in rules:
        entry = {"name": rule.name, "words": rule.words}
        for seed_set in SEED_SETS:
            entry[seed_set] = measure_rule(env_id, plan, rule, seeds_of(seed_set, games))
        out["rules"].append(entry)
    out["cpu_seconds"] = round(time.process_time() - start, 1)
    return out


def published(stats: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rules of ``stats`` (`measure`'s content) that pass Holm on discovery and replicate; each with its
    adjusted p-values (``holm_discovery``, ``holm_replication``), in the order of the advice list."""
    alpha = stats.get("alpha", ALPHA)
    rules = list(stats["rules"])
    first = holm([r["discovery"]["win_effect"]["p"] for r in rules])
    passed = [(r, p) for r, p in zip(rules, first) if p < alpha]
    second = holm([r["replication"]["win_effect"]["p"] for r, _ in passed])
    out = []
    for (rule, p1), p2 in zip(passed, second):
        signs = [np.sign(rule[seed_set]["win_effect"]["mean"]) for seed_set in SEED_SETS]
        same_sign = signs[0] == signs[1]
        if p2 < alpha and same_sign:
            out.append({**rule, "holm_discovery": p1, "holm_replication": p2})
    return out


__all__ = [
    "ALPHA",
    "REPLICATION_FIRST_SEED",
    "SEED_SETS",
    "AdvicePlan",
    "advice_of",
    "measure",
    "measure_rule",
    "outcome_of",
    "plan_of",
    "published",
    "seeds_of",
]
