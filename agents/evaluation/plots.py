"""Figures of training and evaluation runs (matplotlib, Agg backend: no display needed).

Agent names are drawn as short labels (`short_labels`: a checkpoint path becomes
``ppo:<file stem>``), and the chance level (one over the players) as a dashed line.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from agents.spec import SAMPLE_SUFFIX, parse_agent_name
from pirate_envs.core.files import write_atomic

#: The longest label drawn under a bar.
MAX_LABEL = 22


def _short_name(name: str) -> str:
    """``name`` with its file path cut to the file's stem (a Python agent's to its file name), kind and
    budget kept: ``halving:64:ppo:runs/x/latest.npz#sample`` -> ``halving:64:ppo:latest#sample``."""
    try:
        spec = parse_agent_name(name)
    except (TypeError, ValueError):
        return name
    source = spec.source
    if source is None or not any(mark in source for mark in "/\\."):
        return name
    if spec.kind == "python":
        return str(replace(spec, source=PurePath(source).name))
    path = source.removesuffix(SAMPLE_SUFFIX)
    return str(replace(spec, source=PurePath(path).stem + source[len(path) :]))


def short_labels(names: Sequence[str]) -> list[str]:
    """Short, distinct labels: ``ppo:runs/x/checkpoints/latest.npz#sample`` -> ``ppo:latest#sample``.

    Names are read by the agent-name grammar (`agents.spec`); a label longer than `MAX_LABEL` is cut
    with an ellipsis; labels that come out equal get their position appended.
    """
    labels = [_short_name(name) for name in names]
    labels = [label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…" for label in labels]
    counts = {label: labels.count(label) for label in labels}
    return [f"{label} ({i + 1})" if counts[label] > 1 else label for i, label in enumerate(labels)]


def _save(fig: Any, path: str | Path) -> None:
    """Save ``fig`` as a PNG atomically (a reader never sees half an image) and close it."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=110, format="png")
    write_atomic(path, buffer.getvalue())
    plt.close(fig)


def _chance_line(ax: Any, chance: float | None) -> None:
    if chance is not None:
        ax.axhline(chance, color="gray", linestyle="--", linewidth=1, label=f"chance ({chance:.2f})")


def learning_curve(
    history: Sequence[dict[str, Any]], path: str | Path, title: str = "", chance: float | None = None
) -> None:
    """Win rate against each evaluation opponent over training steps, with 95% intervals.

    ``history`` rows: ``{"timesteps": int, "opponent": str, "win_rate": float, "win_low": float,
    "win_high": float}``; ``chance``: the win rate of a seat by luck alone, drawn dashed.
    """
    fig, ax = plt.subplots(figsize=(7, 4.5))
    opponents = list(dict.fromkeys(row["opponent"] for row in history))
    for opponent, label in zip(opponents, short_labels(opponents)):
        rows = [r for r in history if r["opponent"] == opponent]
        steps = [r["timesteps"] for r in rows]
        ax.plot(steps, [r["win_rate"] for r in rows], marker="o", label=f"vs {label}")
        ax.fill_between(steps, [r["win_low"] for r in rows], [r["win_high"] for r in rows], alpha=0.2)
    _chance_line(ax, chance)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    _save(fig, path)


def tournament_chart(
    rows: Sequence[dict[str, Any]], path: str | Path, title: str = "", chance: float | None = None
) -> None:
    """Bars of win rate with 95% intervals per agent, the chance level, and the ratings when present.

    ``rows``: ``AgentResult``-like dicts (``agent``, ``win_rate``, ``win_low``, ``win_high`` and
    optionally ``rating`` and ``rating_sigma``).
    """
    rated = all(r.get("rating") is not None for r in rows)
    fig, axes = plt.subplots(1, 2 if rated else 1, figsize=(11 if rated else 6, 4.5), squeeze=False)
    names = short_labels([r["agent"] for r in rows])
    ax = axes[0][0]
    rates = [r["win_rate"] for r in rows]
    errors = [[p - r["win_low"] for p, r in zip(rates, rows)], [r["win_high"] - p for p, r in zip(rates, rows)]]
    ax.bar(names, rates, yerr=errors, capsize=4, color="tab:blue")
    _chance_line(ax, chance)
    if chance is not None:
        ax.legend(loc="upper right")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.tick_params(axis="x", rotation=20)
    if rated:
        ax = axes[0][1]
        sigmas = [2 * r["rating_sigma"] for r in rows]
        ax.bar(names, [r["rating"] for r in rows], yerr=sigmas, capsize=4, color="tab:green")
        ax.set_ylabel("OpenSkill mu (± 2 sigma)")
        ax.tick_params(axis="x", rotation=20)
    fig.suptitle(title)
    fig.tight_layout()
    _save(fig, path)
