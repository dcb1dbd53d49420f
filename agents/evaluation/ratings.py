"""OpenSkill (Plackett-Luce) ratings of agents from finished games.

Each seat is one team. Ranks: the winners share rank 0, the others follow by score (equal
scores share a rank). Truncated games are skipped. An agent seated several times in one game
gets the mean of its seats' updates. Needs ``openskill`` (the ``train`` extra): without it,
`rate_games` raises ``agents.extras.MissingExtra`` (one line naming the extra).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agents.extras import require


def game_ranks(scores: Sequence[float], win_shares: Sequence[float]) -> list[int]:
    """Rank per seat (0 best): winners 0, then the other seats by descending score."""
    losers = sorted({s for s, w in zip(scores, win_shares) if w <= 0}, reverse=True)
    return [0 if w > 0 else 1 + losers.index(s) for s, w in zip(scores, win_shares)]


def rate_games(games: Iterable[tuple[Sequence[str], Any]]) -> dict[str, tuple[float, float]]:
    """``{agent: (mu, sigma)}`` from ``(seat_names, GameRecord)`` pairs, in order."""
    model = require("openskill.models", "train").PlackettLuce()
    ratings: dict[str, Any] = {}
    for names, record in games:
        if record.truncated:
            continue
        teams = [[ratings.setdefault(name, model.rating(name=name))] for name in names]
        updated = model.rate(teams, ranks=game_ranks(record.scores, record.win_shares))
        new: dict[str, list[Any]] = {}
        for name, team in zip(names, updated):
            new.setdefault(name, []).append(team[0])
        for name, seats in new.items():
            mu = sum(r.mu for r in seats) / len(seats)
            sigma = sum(r.sigma for r in seats) / len(seats)
            ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)
    return {name: (r.mu, r.sigma) for name, r in ratings.items()}
