"""An evaluation's figures: win rates, mean scores and ratings per agent, with 95% intervals.

The intervals treat games, never seats, as independent (`summarise`): an agent's figure in a
game is the mean over its seats there (its copies' win shares / copies: the copies of one agent
at a table share a game, so their results are correlated). An agent with one seat a game gets
Wilson's interval over its games; copies get a Student t interval over their per-game shares
(and per-game mean scores); with ``duplicate`` deals, a normal interval over the per-deal means.
OpenSkill ratings (`agents.evaluation.ratings`) are fitted on every game. `head_to_head` gives each
agent's win rate in the games it played with each other agent; `markdown_table` and
`markdown_matrix` write both as markdown.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from agents.evaluation.games import GameRecord, deal_key
from agents.evaluation.ratings import rate_games
from agents.evaluation.stats import mean_interval, t_interval, wilson_interval


@dataclass
class AgentResult:
    """One agent's tournament figures (a name that sits several seats is pooled)."""

    agent: str
    seats_played: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    score_low: float
    score_high: float
    rating: float | None = None
    rating_sigma: float | None = None
    #: The independent units the intervals are over: games, or deals with ``--duplicate``.
    games: int = 0
    #: How the intervals are taken: :data:`ONE_SEAT_A_GAME`, :data:`COPIES_PER_GAME` or :data:`OVER_DEALS`.
    interval: str = ""


#: How an agent's intervals are taken (``AgentResult.interval``), by the independent units they are over.
ONE_SEAT_A_GAME = "games, Wilson"
COPIES_PER_GAME = "games, t over per-game shares"
OVER_DEALS = "deals, normal"
#: The note under a results table with copies of an agent at one table.
COPIES_NOTE = (
    "Copies of one agent at a table: their results in one game are correlated, so their intervals are "
    "over games (the mean of the copies' win shares and scores in each game, a Student t interval), not seats."
)


def summarise(games: list[tuple[list[str], GameRecord]], duplicate: bool = False) -> list[AgentResult]:
    """Win rate, mean score (95% intervals) and OpenSkill rating per agent name, pooled over games.

    The intervals treat the games (or, with ``duplicate``, the deals: the games of one lineup
    with one seed) as independent, never the seats: an agent's figure in a game is the mean over
    its seats there (its copies' win shares / copies), since copies' results in one game are
    correlated. An agent with one seat in each game it played gets Wilson's interval over those
    games; one with copies at a table gets a Student t interval over its per-game shares (and
    scores); with ``duplicate``, a normal interval over the per-deal means.
    """
    units: dict[str, dict[Any, list[tuple[float, float]]]] = {}
    for g, (names, record) in enumerate(games):
        unit = deal_key(names, record) if duplicate else g
        for seat, name in enumerate(names):
            units.setdefault(name, {}).setdefault(unit, []).append((record.win_shares[seat], record.scores[seat]))
    ratings = rate_games(games)
    results = []
    for name, by_unit in units.items():
        seats = sum(len(held) for held in by_unit.values())
        shares = [sum(w for w, _ in held) / len(held) for held in by_unit.values()]
        scores = [sum(s for _, s in held) / len(held) for held in by_unit.values()]
        if duplicate:
            interval, (p, lo, hi), score = OVER_DEALS, mean_interval(shares), mean_interval(scores)
        elif seats == len(by_unit):
            interval, score = ONE_SEAT_A_GAME, mean_interval(scores)
            p, lo, hi = wilson_interval(sum(shares), len(shares))
        else:
            interval, (p, lo, hi), score = COPIES_PER_GAME, t_interval(shares), t_interval(scores)
        mu, sigma = ratings.get(name, (None, None))
        results.append(
            AgentResult(name, seats, p, max(0.0, lo), min(1.0, hi), *score, mu, sigma, len(by_unit), interval)
        )
    return results


def head_to_head(games: list[tuple[list[str], GameRecord]]) -> dict[str, dict[str, dict[str, float]]]:
    """``matrix[a][b]``: agent ``a``'s win rate (and the number of games) in the games it played with ``b``.

    A name seated several times in one game counts the mean of its seats' win shares.
    """
    totals: dict[str, dict[str, list[float]]] = {}
    for names, record in games:
        share: dict[str, list[float]] = {}
        for seat, name in enumerate(names):
            share.setdefault(name, []).append(record.win_shares[seat])
        for a, shares_a in share.items():
            for b in share:
                if a != b:
                    cell = totals.setdefault(a, {}).setdefault(b, [0.0, 0])
                    cell[0] += sum(shares_a) / len(shares_a)
                    cell[1] += 1
    return {a: {b: {"win_rate": won / n, "games": n} for b, (won, n) in row.items()} for a, row in totals.items()}


def markdown_cell(text: object) -> str:
    """``text`` (an agent name, perhaps from a record file) safe in a markdown table cell and in the
    page rendered from it: on one line, backslashes and ``|`` escaped, ``<``, ``>`` and ``&`` as entities."""
    flat = html.escape(" ".join(str(text).split()), quote=False)
    return flat.replace("\\", "\\\\").replace("|", "\\|")


def markdown_matrix(matrix: dict[str, dict[str, dict[str, float]]], names: list[str]) -> str:
    """The head-to-head matrix as a markdown table: row agent's win rate against each column agent."""
    lines = ["| win rate of ↓ with → | " + " | ".join(map(markdown_cell, names)) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            cell = matrix.get(a, {}).get(b)
            cells.append("" if cell is None else f"{cell['win_rate']:.3f} ({cell['games']})")
        lines.append(f"| {markdown_cell(a)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_table(results: list[AgentResult]) -> str:
    """The results as a markdown table (with a rating column when rated).

    ``seats (games)``: the seats an agent played and the games (or deals) its intervals are
    over; ``CI over``: how they are taken (see `summarise`).
    """
    rated = all(r.rating is not None for r in results)
    lines = [
        "| agent | seats (games) | win rate [95% CI] | mean score [95% CI] | CI over |"
        + (" rating μ ± σ |" if rated else ""),
        "|---|---|---|---|---|" + ("---|" if rated else ""),
    ]
    for r in results:
        rating = f" {r.rating:.1f} ± {r.rating_sigma:.1f} |" if rated else ""
        lines.append(
            f"| {markdown_cell(r.agent)} | {r.seats_played} ({r.games}) "
            f"| {r.win_rate:.3f} [{r.win_low:.3f}, {r.win_high:.3f}] "
            f"| {r.mean_score:.1f} [{r.score_low:.1f}, {r.score_high:.1f}] | {r.interval} |" + rating
        )
    return "\n".join(lines)
