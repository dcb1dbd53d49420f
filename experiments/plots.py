"""Figures of training and evaluation runs (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def learning_curve(history: Sequence[dict[str, Any]], path: str | Path, title: str = "") -> None:
    """Win rate against each evaluation opponent over training steps, with 95% intervals.

    ``history`` rows: ``{"timesteps": int, "opponent": str, "win_rate": float, "win_low": float,
    "win_high": float}``.
    """
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for opponent in dict.fromkeys(row["opponent"] for row in history):
        rows = [r for r in history if r["opponent"] == opponent]
        steps = [r["timesteps"] for r in rows]
        ax.plot(steps, [r["win_rate"] for r in rows], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [r["win_low"] for r in rows], [r["win_high"] for r in rows], alpha=0.2)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def tournament_chart(rows: Sequence[dict[str, Any]], path: str | Path, title: str = "") -> None:
    """Bars of win rate with 95% intervals per agent, and the ratings when present.

    ``rows``: ``AgentResult``-like dicts (``agent``, ``win_rate``, ``win_low``, ``win_high`` and
    optionally ``rating`` and ``rating_sigma``).
    """
    rated = all(r.get("rating") is not None for r in rows)
    fig, axes = plt.subplots(1, 2 if rated else 1, figsize=(11 if rated else 6, 4.5), squeeze=False)
    names = [r["agent"] for r in rows]
    ax = axes[0][0]
    rates = [r["win_rate"] for r in rows]
    errors = [[p - r["win_low"] for p, r in zip(rates, rows)], [r["win_high"] - p for p, r in zip(rates, rows)]]
    ax.bar(names, rates, yerr=errors, capsize=4, color="tab:blue")
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
    fig.savefig(path, dpi=110)
    plt.close(fig)
