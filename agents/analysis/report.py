"""Write an analysis: ``stats.json`` (every figure), ``report.md`` (tables, agents side by side) and
one PNG per drawn statistic (matplotlib, Agg backend), every file written atomically.

A rate's cell reads ``0.42 [0.30, 0.55] n=40``: the rate, its 95% Wilson interval and the
observations behind it; a mean's the same with its Student t interval (``[-]`` from one value).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.analysis.tallies import ALL, RATE
from pirate_envs.core.files import write_atomic

STATS_FILE, REPORT_FILE = "stats.json", "report.md"


def cell_text(figure: Mapping[str, Any] | None, kind: str) -> str:
    """One table cell: value, 95% interval and count (``-`` without observations)."""
    if figure is None:
        return "-"
    value = figure["rate" if kind == RATE else "mean"]
    digits = ".2f" if kind == RATE else ".3g"
    low, high = figure["low"], figure["high"]
    interval = "[-]" if low is None else f"[{low:{digits}}, {high:{digits}}]"
    return f"{value:{digits}} {interval} n={figure['n']}"


def stat_table(stat: Mapping[str, Any], agents: Sequence[str], labels: Sequence[str]) -> str:
    """The markdown table of one statistic: a row per group, a column per agent."""
    by = "" if stat["by"] == ALL else stat["by"]
    rows = [f"| {by} | " + " | ".join(labels) + " |", "|---" * (len(agents) + 1) + "|"]
    for group, figures in stat["groups"].items():
        cells = [cell_text(figures.get(agent), stat["kind"]) for agent in agents]
        rows.append(f"| {group} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def markdown_report(meta: Mapping[str, Any], stats: Mapping[str, Any], labels: Sequence[str]) -> str:
    """The whole report: the run, then one section per statistic."""
    agents = list(meta["agents"])
    lines = [
        f"# Strategy analysis: {meta['env_id']}",
        "",
        f"{meta['games']} games, {meta['players']} players, seats rotated, seeds {meta['seed']}.."
        f"{meta['seed'] + meta['games'] - 1}; lineup: {' '.join(meta['lineup'])}.",
        "",
        "Cells: value [95% interval] n=observations (Wilson for rates, Student t for means; observations",
        "of one game are treated as independent).",
    ]
    for name, stat in stats.items():
        if not stat["groups"]:
            continue
        lines += ["", f"## {stat['title']}" + ("" if stat["by"] == "all" else f" by {stat['by']}"), ""]
        if stat["note"]:
            lines += [stat["note"][0].upper() + stat["note"][1:] + ".", ""]
        lines.append(stat_table(stat, agents, labels))
        if stat["plot"]:
            lines += ["", f"![{stat['title']}]({name}.png)"]
    return "\n".join(lines) + "\n"


def plot_stat(stat: Mapping[str, Any], agents: Sequence[str], labels: Sequence[str], path: Path) -> None:
    """Points with 95% interval bars, one series per agent, a position per group."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(stat["groups"])
    key = "rate" if stat["kind"] == RATE else "mean"
    fig, ax = plt.subplots(figsize=(max(5.0, 0.6 * len(groups) + 3), 4))
    width = 0.6 / max(1, len(agents))
    for i, (agent, label) in enumerate(zip(agents, labels)):
        xs, ys, below, above = [], [], [], []
        for x, group in enumerate(groups):
            figure = stat["groups"][group].get(agent)
            if figure is None:
                continue
            value = figure[key]
            xs.append(x - 0.3 + (i + 0.5) * width)
            ys.append(value)
            below.append(0.0 if figure["low"] is None else max(0.0, value - figure["low"]))
            above.append(0.0 if figure["high"] is None else max(0.0, figure["high"] - value))
        ax.errorbar(xs, ys, yerr=[below, above], fmt="o", capsize=3, label=label)
    ax.set_xticks(range(len(groups)), groups, rotation=30 if len(groups) > 6 else 0)
    ax.set_xlabel(stat["by"])
    ax.set_ylabel(f"{stat['title']} (95% CI)")
    if stat["kind"] == RATE:
        ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    plt.close(fig)
    write_atomic(path, buffer.getvalue())


def write_report(
    out: str | Path, meta: Mapping[str, Any], stats: Mapping[str, Any], labels: Sequence[str] | None = None
) -> list[Path]:
    """Write ``stats.json``, ``report.md`` and the plots into ``out``; the paths written.

    ``meta``: ``env_id``, ``players``, ``games``, ``seed``, ``lineup`` and ``agents`` (distinct
    names, the column order); ``labels``: a short label per agent (default: the names).
    """
    out = Path(out)
    agents = list(meta["agents"])
    labels = list(labels) if labels is not None else agents
    written = [write_atomic(out / STATS_FILE, json.dumps({**meta, "stats": stats}, indent=1, allow_nan=False))]
    written.append(write_atomic(out / REPORT_FILE, markdown_report(meta, stats, labels)))
    for name, stat in stats.items():
        if stat["plot"] and stat["groups"]:
            plot_stat(stat, agents, labels, out / f"{name}.png")
            written.append(out / f"{name}.png")
    return written
