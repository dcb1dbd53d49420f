"""Kept for ``experiments.train``, which draws its learning curve from here: the figures live in `agents.plots`."""

from __future__ import annotations

from agents.plots import MAX_LABEL, learning_curve, short_labels, tournament_chart

__all__ = ["MAX_LABEL", "learning_curve", "short_labels", "tournament_chart"]
