"""The "Where play goes wrong" section of a strategy page, from a game's mistakes statistics (`run.measure`'s)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.analysis.hint_text import move_words
from agents.analysis.mistakes.situations import note

#: The command that measures the mistakes (named on the page).
MEASURE_COMMAND = "python -m experiments.strategy_mistakes"
#: Situations shown per agent (costliest first; all are in the statistics file).
TOP = 6
#: The section's title.
TITLE = "Where play goes wrong"


def number(x: float | None) -> str:
    """A figure as a reader wants it: ``1,234``, ``12.3``, ``0.042``; ``-`` for none."""
    if x is None:
        return "-"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.1f}"
    return f"{x:.2g}" if x else "0"


def interval(figure: Mapping[str, Any] | None, scale: float = 1.0, suffix: str = "") -> str:
    """``mean [low, high]`` of a figure (``-`` for none)."""
    if figure is None or figure["mean"] is None:
        return "-"
    mean, low, high = (number(scale * figure[k]) + suffix for k in ("mean", "low", "high"))
    return f"{mean} [{low}, {high}]"


def method_lines(stats: Mapping[str, Any]) -> list[str]:
    """How the regret was measured: the measure, its unit and budget, the games, the intervals."""
    measure, games, seed = stats["measure"], stats["games"], stats["seed"]
    names = [f"`{name}`" for name in stats["agents"]]
    agents = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    lines = [
        f"Each decision of {agents} with two or more legal moves was valued by {measure['name']}: the "
        "**regret** of a decision is the value of the best move less the value of the move chosen, in "
        f"{measure['unit']}. `rules:{stats['env_id']}` is the game's rule card, a short decision list a person can "
        "follow ([rule cards](rule_cards.md)). " + note(stats["env_id"]),
    ]
    lines.append("")
    if measure["kind"] == "oracle":
        lines.append(
            "A move's value is the turn's expected points played on perfectly from there; the oracle looks at one "
            "turn, not at the race to the target, so near a game's end its best move is not always the game's best. "
            "Stop and re-roll decisions count (chest moves only arrange the dice; the Island of Skulls is worth 0 "
            "whatever is played); the regret is exact and never below 0."
        )
    else:
        horizon = measure["horizon"]
        stops = "the next score change" if horizon == 1 else f"the next {horizon} score changes"
        lines.append(
            f"The search (`halving:{measure['budget']}`, {measure['budget']} rollouts per move, the rollouts "
            f"played by `heuristic` to {stops}) picks its move; where the agent chose another, both moves were "
            f"played on {measure['worlds']} fresh worlds shared by the two, and the regret is the mean difference "
            "of their returns. So it is the regret against the search's pick: 0 where the agent plays that pick, "
            "and below 0 where the agent's move did better on those worlds (the search's pick is not always best)."
        )
    lines += [
        "",
        f"**Budget: {games:,} games per agent** of {stats['players']} players, the agent at one seat (rotating) "
        f"and `{stats['opponent']}` at the others, seeds {seed}..{seed + games - 1}; {stats['cpu_seconds']:,.0f} "
        f"CPU seconds in all. Reproduce: `{command(stats)}`. Intervals are 95% percentile bootstraps over "
        f"games ({stats['bootstrap']:,} resamples): a game is the independent unit. **Cost per game** is the "
        "regret a game's decisions in that situation add up to; the share is its part of the agent's whole cost "
        "(the bootstrap's interval of it is in the statistics file). Situations that cost nothing are not shown.",
        "",
    ]
    return lines


def command(stats: Mapping[str, Any]) -> str:
    """The command that measures this game's statistics."""
    budget = stats["measure"].get("budget")
    tail = f" --budget {budget}" if budget else ""
    return f"{MEASURE_COMMAND} --env-ids {stats['env_id']} --games {stats['games']}{tail} --seed {stats['seed']}"


def example(row: Mapping[str, Any]) -> str:
    """The costliest decision seen in a situation, the moves in words."""
    seen = row["example"]
    if seen["chosen"] == seen["best"]:
        return "(played the best move)"
    return f"{move_words(seen['chosen'])} instead of {move_words(seen['best'])} ({number(seen['regret'])})"


def agent_lines(name: str, result: Mapping[str, Any], unit: str) -> list[str]:
    """One agent: its whole cost per game, then its costliest situations as a table."""
    lines = [
        f"### `{name}`",
        "",
        f"`{name}`'s decisions cost {interval(result['cost'])} {unit} per game over {interval(result['per_game'])} "
        f"decisions per game ({result['decisions']:,} decisions in {result['games']:,} games; "
        f"{result['cpu_seconds']:,.0f} CPU seconds). Its costliest situations:",
        "",
        "| Situation | Decisions per game | Regret per decision | Cost per game | Share of the cost "
        "| Costliest decision seen |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    shown = [row for row in result["situations"] if row["cost"]["mean"] > 0][:TOP]
    for row in shown:
        share = "-" if row["share"] is None else f"{100 * row['share']['mean']:.0f}%"
        lines.append(
            f"| {row['situation']} | {interval(row['per_game'])} | {interval(row['regret'])} | "
            f"{interval(row['cost'])} | {share} | {example(row)} |"
        )
    if not shown:
        lines.append("| (no situation cost anything) | - | - | - | - | - |")
    return [*lines, ""]


def mistakes_section(stats: Mapping[str, Any]) -> list[str]:
    """The page's section: how the regret was measured, then each agent's costliest situations."""
    game = stats["env_id"].removesuffix("_v0")
    lines = [f"## {TITLE}", "", *method_lines(stats)]
    for name, result in stats["agents"].items():
        lines += agent_lines(name, result, stats["measure"]["short_unit"])
    lines += [
        f"At most the {TOP} costliest situations per agent are shown; all are in `stats/{game}_mistakes.json`.",
        "",
    ]
    return lines


__all__ = ["MEASURE_COMMAND", "TITLE", "TOP", "command", "mistakes_section"]
