"""Measure a game's advice on two disjoint seed sets, three arms per rule, and keep only what replicates.

`SEED_SETS` are fixed before any measurement: ``discovery`` (seeds ``seed .. seed + games - 1``) and
``replication`` (the same shifted by `REPLICATION_FIRST_SEED`, disjoint for fewer than a billion games);
``seed`` is 0 for the committed figures. On each set the base agent plays AS IT PLAYS (once, shared by
every rule), and for every rule WITH it and WITHOUT it (its forced opposite:
`agents.analysis.advice.intervention`), all on the same duplicate deals. Per rule and set it records how
often the base agent itself follows the rule where it applies (a game-clustered rate, counted in the WITH
arm's games), in what share of games the rule comes up and the focal seat's win share there in each
forced arm, the paired per-game differences of win share and score WITH minus AS-IT-PLAYS (the rule's
**gain over the agent's own play**, the size a reader should use) and WITH minus WITHOUT (the rule
against its forced opposite), and where the game declares an `Outcome` how often a decision where the
rule applies works in each forced arm.

Publication (`published`) tests the rule against its forced opposite: the discovery set's WITH minus
WITHOUT win shares of all the game's rules are one family, Holm-adjusted at `ALPHA`; a rule that passes
is re-tested on the replication set (the survivors one Holm family again) and is published only if it
passes there too with an effect of the same sign. A published rule's headline is its gain over own play,
which may be below 0 (always following it loses to the agent's judgment). `exploitability` is the largest
gain over own play of any published rule: no rule should lift a shipped network by more than `BAR`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.analysis.advice.intervention import ArmGames, named_base, play_arm
from agents.analysis.advice.outcome import Outcome
from agents.analysis.advice.rules import Rule
from agents.analysis.advice.stats import clustered_rate, holm, paired_difference
from agents.games import game_module

#: The family-wise error rate of each Holm family.
ALPHA = 0.05
#: The first seed of the replication set (the discovery set starts at 0).
REPLICATION_FIRST_SEED = 1_000_000_000
SEED_SETS = ("discovery", "replication")
#: The version of the stats file `measure` writes (2: the AS-IT-PLAYS arm, the gains over own play, `exploitability`).
FORMAT = 2
#: The project's bar: no published rule should lift a shipped network by more than this much win share.
BAR = 0.03


def seeds_of(seed_set: str, games: int, seed: int = 0) -> np.ndarray:
    """The seeds of ``seed_set`` for ``games`` games (`SEED_SETS`), the discovery set starting at ``seed``."""
    if seed_set not in SEED_SETS:
        raise ValueError(f"seed set {seed_set!r} is not valid; choose from {', '.join(SEED_SETS)}")
    if games >= REPLICATION_FIRST_SEED:
        raise ValueError(f"{games} games would make the seed sets overlap")
    if seed < 0:
        raise ValueError(f"seed {seed} is negative")
    first = seed if seed_set == "discovery" else seed + REPLICATION_FIRST_SEED
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


def reading_order(env_id: str) -> list[str]:
    """The game's rule names in the order a player checks them, the first that applies deciding: the
    order of ``ADVICE`` (a rule that narrows another comes before it)."""
    return [rule.name for rule in advice_of(env_id)]


def plan_of(env_id: str) -> AdvicePlan:
    """The game's intervention plan, ``agents.<game>.advice.PLAN``."""
    return _advice_module(env_id).PLAN


def outcome_of(env_id: str) -> Outcome | None:
    """The game's `Outcome` (``agents.<game>.advice.OUTCOME``), or ``None``: the game is the unit."""
    return getattr(_advice_module(env_id), "OUTCOME", None)


def play_own(env_id: str, plan: AdvicePlan, seeds: Sequence[int]) -> ArmGames:
    """The base agent AS IT PLAYS (no rule forced) on ``seeds``: the arm every rule's gain is measured against."""
    return play_arm(env_id, named_base(plan.base, env_id), plan.opponent, None, "own", seeds)


def measure_rule(
    env_id: str, plan: AdvicePlan, rule: Rule, seeds: Sequence[int], own: ArmGames | None = None
) -> dict[str, Any]:
    """One rule on one seed set: the base's own adherence, WITH minus AS-IT-PLAYS (``own``, played here when
    not given) and WITH minus WITHOUT win share and score, and (with the game's `Outcome`) how often a
    decision where it applies works in each forced arm."""
    base = named_base(plan.base, env_id)
    outcome = outcome_of(env_id)
    own = play_own(env_id, plan, seeds) if own is None else own
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
        "win_own_when_up": float(own.win[came_up].mean()) if came_up.any() else None,
        "follows": clustered_rate(with_rule.follows, with_rule.hits),
        "games_with_choice": int((with_rule.hits > 0).sum()),
        "win_with": float(with_rule.win.mean()),
        "win_without": float(without.win.mean()),
        "win_own": float(own.win.mean()),
        "score_with": float(with_rule.score.mean()),
        "score_without": float(without.score.mean()),
        "score_own": float(own.score.mean()),
        "win_gain": paired_difference(with_rule.win, own.win),
        "score_gain": paired_difference(with_rule.score, own.score),
        "win_effect": paired_difference(with_rule.win, without.win),
        "score_effect": paired_difference(with_rule.score, without.score),
        **works,
    }


def measure(
    env_id: str, plan: AdvicePlan, games: int = 0, rules: Sequence[Rule] | None = None, seed: int = 0
) -> dict[str, Any]:
    """Every rule of the game on both seed sets (``games`` per arm and set; 0: the plan's; the discovery set
    starting at ``seed``): the stats file's content (`FORMAT`), its `exploitability` included."""
    games = games or plan.games
    rules = advice_of(env_id) if rules is None else rules
    start = time.process_time()
    seeds = {s: seeds_of(s, games, seed) for s in SEED_SETS}
    out: dict[str, Any] = {
        "format": FORMAT,
        "env_id": env_id,
        "base": plan.base,
        "opponent": plan.opponent,
        "games_per_arm": games,
        "first_seed": seed,
        "seed_sets": {s: [int(seeds[s][0]), int(seeds[s][-1])] for s in SEED_SETS},
        "alpha": ALPHA,
        "correction": "holm",
        "bar": BAR,
        "rules": [],
    }
    outcome = outcome_of(env_id)
    if outcome is not None:
        out["outcome"] = {"unit": outcome.unit, "works": outcome.works}
    own = {s: play_own(env_id, plan, seeds[s]) for s in SEED_SETS}
    out["own_play"] = {s: {"win": float(own[s].win.mean()), "score": float(own[s].score.mean())} for s in SEED_SETS}
    for rule in rules:
        entry = {"name": rule.name, "words": rule.words}
        for seed_set in SEED_SETS:
            entry[seed_set] = measure_rule(env_id, plan, rule, seeds[seed_set], own[seed_set])
        out["rules"].append(entry)
    out["exploitability"] = exploitability(out)
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


def exploitability(stats: Mapping[str, Any]) -> dict[str, Any] | None:
    """The published rule with the largest discovery gain over own play (`published`), or ``None`` when none is
    published: its ``rule`` name, its gains (``discovery``, ``replication``: win share, paired 95% intervals;
    the replication set's is the unbiased size, the rule having been picked on discovery) and the `BAR`."""
    found = published(stats)
    if not found:
        return None
    top = max(found, key=lambda r: r["discovery"]["win_gain"]["mean"])
    return {"rule": top["name"], **{s: top[s]["win_gain"] for s in SEED_SETS}, "bar": stats.get("bar", BAR)}


def bar_verdict(gain: Mapping[str, float], bar: float) -> str:
    """Where a gain's 95% interval lies against ``bar``: ``above``, ``within`` or ``not clearly above or within``."""
    return "above" if gain["low"] > bar else "within" if gain["high"] <= bar else "not clearly above or within"


def exploitability_line(stats: Mapping[str, Any]) -> str:
    """One line: the game's single-rule exploitability against the bar (replication set's figure)."""
    top = stats.get("exploitability")
    env_id = stats["env_id"]
    if top is None:
        return f"{env_id}: no published rule, nothing to exploit"
    gain, bar = top["replication"], top["bar"]
    verdict = bar_verdict(gain, bar)
    return (
        f"{env_id}: the best published rule, {top['rule']}, lifts {stats['base']} by {100 * gain['mean']:+.1f} "
        f"[{100 * gain['low']:+.1f}, {100 * gain['high']:+.1f}] points of win share over its own play "
        f"(replication): {verdict} the {100 * bar:.0f}-point bar"
    )


__all__ = [
    "ALPHA",
    "BAR",
    "FORMAT",
    "REPLICATION_FIRST_SEED",
    "SEED_SETS",
    "AdvicePlan",
    "advice_of",
    "bar_verdict",
    "exploitability",
    "exploitability_line",
    "measure",
    "measure_rule",
    "outcome_of",
    "plan_of",
    "play_own",
    "published",
    "reading_order",
    "seeds_of",
]
