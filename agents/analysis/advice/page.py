"""The advice section of a strategy page, from a game's advice statistics (`findings.measure`'s content)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.analysis.advice.findings import plan_of, published

#: The command that measures the advice (named on the page, beside each finding's own).
MEASURE_COMMAND = "python -m experiments.strategy_advice"
#: A WITH arm winning below this share of its fair ``1/n`` is flagged: the forced rule costs the agent.
TOLERANCE = 0.9


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _signed(effect: Mapping[str, Any], scale: float = 1.0) -> str:
    """``+mean [+low, +high]``: one decimal from 1 up, three significant digits below."""
    values = [scale * effect[k] for k in ("mean", "low", "high")]
    form = "+.1f" if max(abs(v) for v in values) >= 1 else "+.3g"
    return f"{values[0]:{form}} [{values[1]:{form}}, {values[2]:{form}}]"


def _players(env_id: str) -> int:
    """The players at the table the interventions play (the env's default)."""
    import pirate_envs

    return pirate_envs.make(env_id, raw=True).unwrapped.game.num_players


def _p(value: float) -> str:
    return f"{value:.2g}" if value > 0 else "below 1e-15"


def _rate(rate: Mapping[str, Any]) -> str:
    return f"{_pct(rate['rate'])} [{_pct(rate['low'])}, {_pct(rate['high'])}]"


def works_lines(d: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    """How often a decision where the rule applies works, in each arm (games with an `Outcome` only)."""
    outcome = stats.get("outcome")
    if not outcome or "works_with" not in d:
        return []
    with_rule, without = d["works_with"], d["works_without"]
    return [
        f"    * How often it works ({outcome['works']}, over the {outcome['unit']} the decision belongs to): "
        f"{_rate(with_rule)} of {with_rule['trials']:,} decisions following it, against {_rate(without)} of "
        f"{without['trials']:,} playing another move (game-clustered intervals).",
    ]


def finding_lines(rule: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    """One published finding: the words, then what the base agent does and what the rule is worth, on both seed sets."""
    env_id, base = stats["env_id"], stats["base"]
    d, r = rule["discovery"], rule["replication"]
    follows = d["follows"]
    command = f"{MEASURE_COMMAND} --env-ids {env_id} --rules {rule['name']} --games {stats['games_per_arm']}"
    fair = 1 / _players(env_id)
    caution = (
        [
            f"    * Always doing it wins less than the agent's own play ({_pct(d['win_with'])} against the "
            f"{_pct(fair)} it wins as it is, by symmetry): it beats never doing it, not the agent's judgment."
        ]
        if d["win_with"] < TOLERANCE * fair and d["win_effect"]["mean"] >= 0
        else []
    )
    return [
        f"* {'' if d['win_effect']['mean'] >= 0 else 'Not advised: '}**{rule['words']}** (`{rule['name']}`)",
        f"    * `{base}` does it in {_pct(follows['rate'])} [{_pct(follows['low'])}, {_pct(follows['high'])}] of the "
        f"{follows['trials']:,} decisions where it applies ({follows['games']:,} games).",
        f"    * It comes up in {_pct(d['came_up'])} of games; in those, the agent wins {_pct(d['win_with_when_up'])} "
        f"of them following it and {_pct(d['win_without_when_up'])} not following it.",
        *works_lines(d, stats),
        f"    * Doing it {'wins' if d['win_effect']['mean'] >= 0 else 'loses'}: {_signed(d['win_effect'], 100)} "
        "percentage points of win share "
        f"({_pct(d['win_with'])} with, {_pct(d['win_without'])} without) and scores "
        f"{_signed(d['score_effect'])} more per game; replication: {_signed(r['win_effect'], 100)} pp "
        f"win, {_signed(r['score_effect'])} score.",
        f"    * Holm-adjusted p: {_p(rule['holm_discovery'])} (discovery), {_p(rule['holm_replication'])} "
        f"(replication). Reproduce: `{command}`.",
        *caution,
    ]


def advice_section(stats: Mapping[str, Any]) -> list[str]:
    """The page's opening section: the published findings and how they were measured."""
    found = published(stats)
    seeds = stats["seed_sets"]
    lines = [
        "## Advice",
        "",
        f"Each rule below was measured by intervention: `{stats['base']}` played WITH the rule (where it applies, "
        "it picks among the moves the rule prescribes) and WITHOUT it (there it picks among the other legal moves, "
        f"its next choice) against `{stats['opponent']}` at every other seat, on the same duplicate deals "
        f"(same seeds, its seat rotating), {stats['games_per_arm']:,} games per arm on each of two seed sets "
        f"fixed in advance: discovery seeds {seeds['discovery'][0]}..{seeds['discovery'][1]} and replication "
        f"seeds {seeds['replication'][0]}..{seeds['replication'][1]} (batched engine; "
        f"{4 * stats['games_per_arm'] * len(stats['rules']):,} games for the {len(stats['rules'])} rules tested).",
        "Effects are WITH minus WITHOUT per game (win share in percentage points, final score) with 95% intervals "
        "that treat games as independent (one paired difference per game); how often the agent does it is a "
        "rate pooled over decisions with a game-clustered interval. A rule is published only if its win effect "
        f"passes Holm's correction (family-wise {stats['alpha']}) over all the rules tested on the discovery set "
        "AND again over the survivors on the replication set, with the same sign. Both arms are forced where "
        "the rule applies; playing as it is, the agent wins one game in "
        f"{_players(stats['env_id'])} against copies of itself; the arms' figures beside that say what the rule "
        "and its opposite cost or gain.",
        "",
    ]
    note = plan_of(stats["env_id"]).note
    if note:
        lines += [note, ""]
    for rule in found:
        lines += finding_lines(rule, stats)
    if not found:
        lines.append("* (no rule tested both passed and replicated)")
    dropped = len(stats["rules"]) - len(found)
    lines += [
        "",
        f"{len(found)} of {len(stats['rules'])} rules tested are published; {dropped} did not pass or "
        f"did not replicate (all are in `stats/{stats['env_id'].removesuffix('_v0')}_advice.json`). "
        f"Measured in {stats['cpu_seconds']:,.0f} CPU seconds.",
        "",
    ]
    return lines


__all__ = ["MEASURE_COMMAND", "TOLERANCE", "advice_section", "finding_lines", "works_lines"]
