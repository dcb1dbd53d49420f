"""The advice section of a strategy page, from a game's advice statistics (`findings.measure`'s content)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.analysis.advice.findings import BAR, bar_verdict, plan_of, published, reading_order

#: The command that measures the advice (named on the page, beside each finding's own).
MEASURE_COMMAND = "python -m experiments.strategy_advice"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _signed(effect: Mapping[str, Any], scale: float = 1.0) -> str:
    """``+mean [+low, +high]``: one decimal from 1 up, three significant digits below."""
    values = [scale * effect[k] for k in ("mean", "low", "high")]
    form = "+.1f" if max(abs(v) for v in values) >= 1 else "+.3g"
    return f"{values[0]:{form}} [{values[1]:{form}}, {values[2]:{form}}]"


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


def _points(effect: Mapping[str, Any]) -> str:
    """A win-share effect in points: ``+mean [+low, +high]``."""
    return _signed(effect, 100)


def gain_line(d: Mapping[str, Any], r: Mapping[str, Any]) -> str:
    """The headline: the gain of always following the rule over the agent's own play, on both seed sets."""
    gain = d["win_gain"]
    size = f"{100 * abs(gain['mean']):.1f} points of win share"
    if gain["high"] < 0:
        verdict = f"following it always loses {size} against the agent's judgment"
    elif gain["low"] > 0:
        verdict = f"following it always gains {size} over the agent's own play"
    else:
        verdict = "following it always is not clearly better or worse than the agent's own play"
    return (
        f"    * **Over the agent's own play**: {verdict}: {_points(gain)} points ({_pct(d['win_with'])} with it, "
        f"{_pct(d['win_own'])} as it plays), {_signed(d['score_gain'])} score per game; replication: "
        f"{_points(r['win_gain'])} points, {_signed(r['score_gain'])} score."
    )


def finding_lines(rule: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    """One published finding: the words, its gain over own play, what the base agent does, and the rule
    against its forced opposite, on both seed sets."""
    env_id, base = stats["env_id"], stats["base"]
    d, r = rule["discovery"], rule["replication"]
    follows = d["follows"]
    seed = f" --seed {stats['first_seed']}" if stats.get("first_seed") else ""
    command = f"{MEASURE_COMMAND} --env-ids {env_id} --rules {rule['name']} --games {stats['games_per_arm']}{seed}"
    own = "win_gain" in d
    headline = [gain_line(d, r)] if own else ["    * Over the agent's own play: not measured in this statistics file."]
    return [
        f"* {'' if d['win_effect']['mean'] >= 0 else 'Not advised: '}**{rule['words']}** (`{rule['name']}`)",
        *headline,
        f"    * `{base}` does it in {_pct(follows['rate'])} [{_pct(follows['low'])}, {_pct(follows['high'])}] of the "
        f"{follows['trials']:,} decisions where it applies ({follows['games']:,} games).",
        f"    * It comes up in {_pct(d['came_up'])} of games; in those, the agent wins {_pct(d['win_with_when_up'])} "
        f"of them following it"
        + (f", {_pct(d['win_own_when_up'])} as it plays" if own else "")
        + f" and {_pct(d['win_without_when_up'])} never following it.",
        *works_lines(d, stats),
        f"    * Against its forced opposite: doing it {'wins' if d['win_effect']['mean'] >= 0 else 'loses'} "
        f"{_points(d['win_effect'])} points of win share ({_pct(d['win_with'])} with, {_pct(d['win_without'])} "
        f"never doing it) and scores {_signed(d['score_effect'])} more per game; replication: "
        f"{_points(r['win_effect'])} pp win, {_signed(r['score_effect'])} score.",
        f"    * Holm-adjusted p (against the forced opposite): {_p(rule['holm_discovery'])} (discovery), "
        f"{_p(rule['holm_replication'])} (replication). Reproduce: `{command}`.",
    ]


def exploitability_lines(stats: Mapping[str, Any]) -> list[str]:
    """The game's single-rule exploitability against the project's bar, in words."""
    if "win_gain" not in (stats["rules"][0]["discovery"] if stats["rules"] else {}):
        return ["**Single-rule exploitability**: not measured in this statistics file (no as-it-plays arm).", ""]
    top = stats.get("exploitability")
    bar = 100 * stats.get("bar", BAR)
    if top is None:
        return [
            f"**Single-rule exploitability**: no rule is published, none to measure against the {bar:.0f}-point bar.",
            "",
        ]
    d, r = top["discovery"], top["replication"]
    verdict = bar_verdict(r, top["bar"])
    return [
        f"**Single-rule exploitability**: the published rule with the largest gain over `{stats['base']}`'s own "
        f"play is `{top['rule']}`: {_points(r)} points of win share on the replication set ({_points(d)} on the "
        f"discovery set, where it was picked): {verdict} the project's bar (no rule should lift a shipped network "
        f"by more than {bar:.0f} points).",
        "",
    ]


def advice_section(stats: Mapping[str, Any]) -> list[str]:
    """The page's opening section: the published findings and how they were measured."""
    order = reading_order(stats["env_id"])
    found = sorted(published(stats), key=lambda r: order.index(r["name"]) if r["name"] in order else len(order))
    seeds = stats["seed_sets"]
    lines = [
        "## Advice",
        "",
        f"Each rule below was measured by intervention, in three arms on the same duplicate deals (same seeds, "
        f"`{stats['base']}`'s seat rotating, `{stats['opponent']}` at every other seat): the agent AS IT PLAYS, "
        "WITH the rule forced (where it applies, it picks among the moves the rule prescribes) and WITHOUT it "
        "(its forced opposite: there it picks among the other legal moves, its next choice); "
        f"{stats['games_per_arm']:,} games per arm on each of two seed sets fixed in advance: discovery seeds "
        f"{seeds['discovery'][0]}..{seeds['discovery'][1]} and replication seeds "
        f"{seeds['replication'][0]}..{seeds['replication'][1]} (batched engine).",
        "**The headline of each rule is its gain over the agent's own play** (WITH minus AS-IT-PLAYS): what "
        "a reader who always follows it gains or loses against the agent's judgment, in points of win share "
        "(and final score) with paired 95% intervals over games; it is the size to use, and it may be below 0. "
        "Publication tests the rule against its forced opposite (WITH minus WITHOUT, the secondary line): a rule "
        f"is published only if that win effect passes Holm's correction (family-wise {stats['alpha']}) over all "
        "the rules tested on the discovery set AND again over the survivors on the replication set, with the "
        "same sign. How often the agent does it is a rate pooled over decisions with a game-clustered interval. "
        "A game's win share is 1 for a win, 1/w for a tie among w winners, 0 otherwise, and 0 for every seat of a "
        "game the engine truncates (its guard against endless play, such as Piratenpoker's limit on deals played "
        "without a loot stack running out): where copies of one agent often reach it, the agent's own-play share "
        "at n seats is below 1/n. A point of win share is one percentage point.",
        "**Precedence**: rules can speak in the same position with opposite moves; check them in the order "
        "listed, and the first that applies decides (as on the rule card).",
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
        *exploitability_lines(stats),
        f"{len(found)} of {len(stats['rules'])} rules tested are published; {dropped} did not pass or "
        f"did not replicate (all are in `stats/{stats['env_id'].removesuffix('_v0')}_advice.json`). "
        f"Measured in {stats['cpu_seconds']:,.0f} CPU seconds.",
        "",
    ]
    return lines


__all__ = ["MEASURE_COMMAND", "advice_section", "exploitability_lines", "finding_lines", "gain_line", "works_lines"]
