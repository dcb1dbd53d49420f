"""The published strategy pages: the analyzer's statistics of the shipped agents, one docs page per game.

`PLANS` holds each game's published run (its lineup and number of games); `write_game` plays it
with `agents.analysis.analyze` and writes ``<game>.md``, the plots and the statistics. Nothing on a
page is typed by hand: each finding is a template filled from the statistics (`Finding`): two
agents' figures with their intervals and the word for how they compare ("above" or "below" where
the 95% intervals do not overlap, else "not clearly different from"). The command is
``python -m experiments.strategy_pages``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pirate_envs
from agents.analysis import analyze
from agents.analysis.advice.page import MEASURE_COMMAND, advice_section
from agents.analysis.mistakes.page import mistakes_section
from agents.analysis.report import cell_text, plot_stat, stat_table
from agents.analysis.tallies import ALL
from agents.spec import searches
from pirate_envs.core.files import write_atomic


@dataclass(frozen=True)
class Plan:
    """One game's run: its lineup (one seat per name) and its number of games."""

    lineup: tuple[str, ...]
    games: int
    note: str = ""
    caveat: str = ""


#: The published runs (seed 0): 1,924 s wall on a 2-core machine at load average 9 to 12, the
#: command getting about 40% of one core (some 13 minutes of CPU time); Skull King 6, Kapern 10,
#: Piratenpoker 11, Lucky Pirate 6 minutes of that wall time.
PLANS: dict[str, Plan] = {
    "skull_king_v0": Plan(
        ("random", "heuristic", "ppo:skull_king_v0", "mcts:50"),
        40,
        "The search plays at 50 iterations per move (`mcts:50`, a quarter of its default): at 200 a "
        "4-player game of ten hands costs it over a minute of CPU time.",
    ),
    "piraten_kapern_v0": Plan(
        ("random", "heuristic", "ppo:piraten_kapern_v0", "oracle", "mcts"),
        40,
        caveat="Agreement with the oracle is circular for the network, which is distilled from the oracle: it "
        "measures the distillation, not how well the network plays, so no finding quotes it. Regret (points "
        "lost against the oracle's choice) is measured against the same oracle and favours the network likewise.",
    ),
    "piratenpoker_v0": Plan(("random", "heuristic", "ppo:piratenpoker_v0", "mcts"), 40),
    "lucky_pirate_v0": Plan(("random", "heuristic", "ppo:lucky_pirate_v0", "mcts"), 30),
}
#: The command that writes the published pages (named on each page).
COMMAND = "python -m experiments.strategy_pages --out docs/strategy"


@dataclass(frozen=True)
class Finding:
    """A sentence made from figures: ``figures`` are the ``(statistic, group, agent)`` it quotes, in order."""

    text: str
    figures: tuple[tuple[str, str, str], ...] = ()


def figure_of(stats: Mapping[str, Any], stat: str, agent: str, group: str = ALL) -> dict[str, Any] | None:
    """One agent's figure of a statistic's group (``None`` without observations)."""
    return stats.get(stat, {}).get("groups", {}).get(group, {}).get(agent)


def relation(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """How figure ``a`` compares with ``b`` by their 95% intervals: ``above``, ``below`` or not clearly different."""
    if None in (a["low"], a["high"], b["low"], b["high"]):
        return "not clearly different from"
    if a["low"] > b["high"]:
        return "above"
    if a["high"] < b["low"]:
        return "below"
    return "not clearly different from"


def compare(stats: Mapping[str, Any], stat: str, a: str, b: str, group: str = ALL) -> Finding | None:
    """``<title>: `a` <figure> is above/below/not clearly different from `b`'s <figure>`` (``None``: no data)."""
    fa, fb = figure_of(stats, stat, a, group), figure_of(stats, stat, b, group)
    if fa is None or fb is None:
        return None
    definition = stats[stat]
    title = definition["title"] + ("" if group == ALL else f" ({definition['by']} {group})")
    kind = definition["kind"]
    text = (
        f"{title[0].upper()}{title[1:]}: `{a}` {cell_text(fa, kind)} is {relation(fa, fb)} "
        f"`{b}`'s {cell_text(fb, kind)}."
    )
    return Finding(text, ((stat, group, a), (stat, group, b)))


def group_tally(stats: Mapping[str, Any], stat: str, a: str, b: str) -> Finding | None:
    """Group by group (a hand, a card): in how many ``a``'s figure is clearly above ``b``'s, clearly below, neither."""
    definition = stats.get(stat)
    if not definition:
        return None
    counts = {"above": 0, "below": 0, "not clearly different from": 0}
    quoted = []
    for group, figures in definition["groups"].items():
        if a in figures and b in figures:
            counts[relation(figures[a], figures[b])] += 1
            quoted += [(stat, str(group), a), (stat, str(group), b)]
    total = sum(counts.values())
    if not total:
        return None
    text = (
        f"{definition['title'][0].upper()}{definition['title'][1:]}, compared per {definition['by']}: "
        f"`{a}` is clearly above `{b}` in {counts['above']} of {total}, clearly below in {counts['below']}, "
        f"and the 95% intervals overlap in {counts['not clearly different from']}."
    )
    return Finding(text, tuple(quoted))


def extreme_group(stats: Mapping[str, Any], stat: str, agent: str, largest: bool = True) -> Finding | None:
    """The group where ``agent``'s figure of ``stat`` is largest (or smallest), with that figure."""
    definition = stats.get(stat)
    groups = {g: f[agent] for g, f in (definition or {}).get("groups", {}).items() if agent in f}
    if not groups:
        return None
    key = "rate" if definition["kind"] == "rate" else "mean"  # type: ignore[index]
    group = (max if largest else min)(groups, key=lambda g: groups[g][key])
    word = "highest" if largest else "lowest"
    text = (
        f"`{agent}`'s {definition['title']} is {word} for {definition['by']} {group}: "  # type: ignore[index]
        f"{cell_text(groups[group], definition['kind'])}."  # type: ignore[index]
    )
    return Finding(text, ((stat, str(group), agent),))


def _network(env_id: str) -> str:
    return f"ppo:{env_id}"


def _search(meta: Mapping[str, Any]) -> str | None:
    return next((a for a in meta["agents"] if searches(a)), None)


def skull_king_findings(meta: Mapping[str, Any], stats: Mapping[str, Any]) -> list[Finding | None]:
    net, search = _network(meta["env_id"]), _search(meta)
    return [
        compare(stats, "exact", net, "heuristic"),
        group_tally(stats, "exact_by_hand", net, "heuristic"),
        compare(stats, "exact", search, "heuristic") if search else None,
        compare(stats, "zero_bid_made", net, "heuristic"),
        compare(stats, "bonus_scored", net, "heuristic"),
        compare(stats, "exact", "heuristic", "random"),
    ]


def kapern_findings(meta: Mapping[str, Any], stats: Mapping[str, Any]) -> list[Finding | None]:
    net = _network(meta["env_id"])
    return [
        compare(stats, "regret", net, "heuristic"),
        extreme_group(stats, "regret_by_card", net),
        compare(stats, "turn_points", net, "oracle"),
        compare(stats, "turn_points", "heuristic", "oracle"),
    ]


def piratenpoker_findings(meta: Mapping[str, Any], stats: Mapping[str, Any]) -> list[Finding | None]:
    net, search = _network(meta["env_id"]), _search(meta)
    return [
        compare(stats, "final_score", net, "heuristic"),
        compare(stats, "final_score", search, "heuristic") if search else None,
        compare(stats, "has_set", net, "heuristic"),
        compare(stats, "overboard_highest", net, "heuristic"),
        group_tally(stats, "pass_by_round", net, "heuristic"),
    ]


def lucky_pirate_findings(meta: Mapping[str, Any], stats: Mapping[str, Any]) -> list[Finding | None]:
    net, search = _network(meta["env_id"]), _search(meta)
    return [
        compare(stats, "pick_ups_per_game", net, "heuristic"),
        compare(stats, "pick_ups_per_game", search, "heuristic") if search else None,
        compare(stats, "turns_to_go_out", net, "heuristic"),
        compare(stats, "first_mate_stranded", net, "heuristic"),
        compare(stats, "blind_playable", net, "random"),
    ]


#: Each game's findings, from its run's description and statistics.
FINDINGS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], list[Finding | None]]] = {
    "skull_king_v0": skull_king_findings,
    "piraten_kapern_v0": kapern_findings,
    "piratenpoker_v0": piratenpoker_findings,
    "lucky_pirate_v0": lucky_pirate_findings,
}


def findings(meta: Mapping[str, Any], stats: Mapping[str, Any]) -> list[Finding]:
    """The findings of one run (those whose figures exist)."""
    return [f for f in FINDINGS[meta["env_id"]](meta, stats) if f is not None]


def page_text(
    meta: Mapping[str, Any],
    stats: Mapping[str, Any],
    found: Sequence[Finding],
    plan: Plan,
    command: str = COMMAND,
    advice: Mapping[str, Any] | None = None,
    mistakes: Mapping[str, Any] | None = None,
) -> str:
    """The Markdown page of one game's run, made by ``command``; it opens with the measured ``advice``
    (`agents.analysis.advice.findings.measure`'s content) where there is some, then where play goes
    wrong (``mistakes``: `agents.analysis.mistakes.run.measure`'s content) where measured."""
    game = meta["env_id"].removesuffix("_v0")
    agents = list(meta["agents"])
    name = pirate_envs.game_spec(meta["env_id"]).name
    last_seed = meta["seed"] + meta["games"] - 1
    lines = [
        f"# Strategy findings: {name}",
        "",
        f"Generated by `{command}` from the statistics in `stats/{game}.json`"
        + ("," if mistakes is not None else " and"),
        f"`stats/{game}_advice.json`"
        + (f" and `stats/{game}_mistakes.json`" if mistakes is not None else "")
        + f" (written by `{MEASURE_COMMAND} --out docs/strategy`"
        + (" and `python -m experiments.strategy_mistakes --out docs/strategy`" if mistakes is not None else "")
        + "): every number and every sentence below comes from those runs (the",
        "sentences are templates filled from the figures);",
        "to change the page, change the generator (`experiments/strategy_pages.py`) and run it again.",
        "",
    ]
    if advice is not None:
        lines += advice_section(advice)
    if mistakes is not None:
        lines += mistakes_section(mistakes)
    lines += [
        "## Agent comparisons",
        "",
        f"**Budget: {meta['games']} games** of {meta['players']} players, seats rotated, seeds "
        f"{meta['seed']}..{last_seed}; lineup (one seat each): {', '.join(f'`{a}`' for a in meta['lineup'])}.",
    ]
    if plan.note and any(searches(a) for a in meta["lineup"]):
        lines += ["", plan.note]
    if plan.caveat:
        lines += ["", plan.caveat]
    lines += [
        "",
        "Cells read `value [95% interval] n=observations` (Wilson for rates, Student t for means). The",
        "intervals treat the decisions of one game as independent, so read them as a guide to the noise;",
        '"above" and "below" below mean the two 95% intervals do not overlap.',
        "",
        "### Findings",
        "",
    ]
    lines += [f"* {finding.text}" for finding in found] or ["* (no statistic had observations for two agents)"]
    for stat_name, stat in stats.items():
        if not stat["groups"]:
            continue
        lines += [
            "",
            f"### {stat['title'][0].upper()}{stat['title'][1:]}" + ("" if stat["by"] == ALL else f" by {stat['by']}"),
        ]
        lines.append("")
        if stat["note"]:
            lines += [stat["note"][0].upper() + stat["note"][1:] + ".", ""]
        lines.append(stat_table(stat, agents, agents))
        if stat["plot"]:
            lines += ["", f"![{stat['title']}](img/{game}_{stat_name}.png)"]
    return "\n".join(lines) + "\n"


def advice_stats(out: Path, env_id: str, kind: str = "advice") -> dict[str, Any] | None:
    """The game's committed statistics of ``kind`` (``advice``, ``mistakes``), ``<out>/stats/<game>_<kind>.json``
    (``None`` when absent)."""
    path = out / "stats" / f"{env_id.removesuffix('_v0')}_{kind}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _extras(out: Path, env_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The game's advice and mistakes statistics (each ``None`` when absent)."""
    return advice_stats(out, env_id), advice_stats(out, env_id, "mistakes")


def rewrite_game(out: Path, env_id: str, command: str = COMMAND) -> dict[str, Any]:
    """Write one game's page from its committed statistics (``<out>/stats``), playing nothing; the run."""
    game = env_id.removesuffix("_v0")
    run = json.loads((out / "stats" / f"{game}.json").read_text())
    stats = run.pop("stats")
    found = findings(run, stats)
    write_atomic(out / f"{game}.md", page_text(run, stats, found, PLANS[env_id], command, *_extras(out, env_id)))
    return {**run, "stats": stats, "findings": found}


def write_game(out: Path, env_id: str, games: int, seed: int, search: bool, command: str = COMMAND) -> dict[str, Any]:
    """Run one game's analysis, write its page, plots and statistics; the run (``meta``, ``stats``, ``findings``)."""
    plan = PLANS[env_id]
    lineup = [a for a in plan.lineup if search or not searches(a)]
    meta, stats = analyze(env_id, lineup, games or plan.games, seed)
    game = env_id.removesuffix("_v0")
    agents = list(meta["agents"])
    found = findings(meta, stats)
    write_atomic(out / "stats" / f"{game}.json", json.dumps({**meta, "stats": stats}, indent=1, allow_nan=False))
    for name, stat in stats.items():
        if stat["plot"] and stat["groups"]:
            plot_stat(stat, agents, agents, out / "img" / f"{game}_{name}.png")
    write_atomic(out / f"{game}.md", page_text(meta, stats, found, plan, command, *_extras(out, env_id)))
    return {**meta, "stats": stats, "findings": found}
