"""Rates and means of play statistics, each kept per agent and per group, with 95% intervals.

A collector declares its statistics once (`StatDef`: title, ``rate`` or ``mean``, what the
groups are) and feeds `Tallies` one observation at a time; `Tallies.summary` gives every
figure with its interval and the number of observations behind it: a rate (Wilson) as
``{"rate", "low", "high", "n", "successes"}``, a mean (Student t) as
``{"mean", "low", "high", "n"}``. A mean of one value has no interval (``low``/``high``: ``None``).

The intervals treat observations as independent; decisions of one game are not quite, so read
them as a guide to the noise, not as exact coverage.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.evaluation.stats import t_interval, wilson_interval

RATE, MEAN = "rate", "mean"
#: The group of a statistic that has no grouping.
ALL = "all"


@dataclass(frozen=True)
class StatDef:
    """One statistic: its ``title`` (short, for tables and plots), ``kind`` (`RATE` or `MEAN`),
    what its groups are (``by``, e.g. ``"hand number"``) and whether the report draws it."""

    title: str
    kind: str
    by: str = ALL
    plot: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (RATE, MEAN):
            raise ValueError(f"kind {self.kind!r} is not a statistic kind; use {RATE!r} or {MEAN!r}")


@dataclass
class _Cell:
    """Observations of one statistic, agent and group: a count of successes, or the values."""

    successes: int = 0
    values: list[float] = field(default_factory=list)


def rate_figure(successes: int, n: int) -> dict[str, Any]:
    """A rate with its Wilson interval and counts."""
    p, low, high = wilson_interval(successes, n)
    return {"rate": p, "low": low, "high": high, "n": n, "successes": successes}


def mean_figure(values: list[float]) -> dict[str, Any]:
    """A mean with its Student t 95% interval (``None`` bounds from one value) and count."""
    mean, low, high = t_interval(values)
    finite = math.isfinite(low) and math.isfinite(high)
    return {"mean": mean, "low": low if finite else None, "high": high if finite else None, "n": len(values)}


#: A group name that is a range or bound of numbers (``"<=0"``, ``"1-100"``, ``">1200"``): its first number.
_NUMERIC_NAME = re.compile(r"[<>=]*\s*(-?\d+(?:\.\d+)?)")


def _group_order(key: Any) -> tuple[int, Any]:
    """Numbers, and names of number ranges or bounds by their first number, first in numeric order;
    then other names in the order of their first observation."""
    if isinstance(key, int | float) and not isinstance(key, bool):
        return (0, key)
    match = _NUMERIC_NAME.match(key) if isinstance(key, str) else None
    return (0, float(match.group(1))) if match else (1, 0)


class Tallies:
    """Observations of the statistics ``definitions`` (name -> `StatDef`), per agent and group."""

    def __init__(self, definitions: Mapping[str, StatDef]):
        self.definitions = dict(definitions)
        self._cells: dict[str, dict[Any, dict[str, _Cell]]] = {name: {} for name in self.definitions}

    def _cell(self, stat: str, agent: str, group: Any) -> _Cell:
        if stat not in self._cells:
            raise KeyError(f"statistic {stat!r} is not declared; declared: {list(self.definitions)}")
        return self._cells[stat].setdefault(group, {}).setdefault(agent, _Cell())

    def rate(self, stat: str, agent: str, success: bool, group: Any = ALL) -> None:
        """One observation of the rate ``stat``: a success or not."""
        cell = self._cell(stat, agent, group)
        cell.successes += bool(success)
        cell.values.append(float(bool(success)))

    def mean(self, stat: str, agent: str, value: float, group: Any = ALL) -> None:
        """One value of the mean ``stat``."""
        self._cell(stat, agent, group).values.append(float(value))

    def summary(self) -> dict[str, Any]:
        """Every statistic: its definition and, per group (written as text), per agent its figure."""
        out: dict[str, Any] = {}
        for name, definition in self.definitions.items():
            groups = self._cells[name]
            figures = {}
            for group in sorted(groups, key=_group_order):
                cells = groups[group]
                figures[str(group)] = {
                    agent: rate_figure(cell.successes, len(cell.values))
                    if definition.kind == RATE
                    else mean_figure(cell.values)
                    for agent, cell in cells.items()
                }
            out[name] = {
                "title": definition.title,
                "kind": definition.kind,
                "by": definition.by,
                "plot": definition.plot,
                "note": definition.note,
                "groups": figures,
            }
        return out
