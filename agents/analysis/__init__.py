"""Strategy analysis: play games between agents and turn every decision into statistics.

`collector_for` gives a game's collector (declared in its agents package, ``agents.<game>.analysis``:
``observe(decision)`` and ``summary()``); `analyze` plays seat-rotated games of a lineup into it, on the AEC env
(`agents.analysis.driver`) or the batched engine (`agents.analysis.batched`), and returns the
run's description and its statistics, which `agents.analysis.report.write_report` writes as
``report.md``, ``stats.json`` and plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.analysis.driver import Collector, Decision, run_games
from agents.games import game_agents_of

__all__ = ["Collector", "Decision", "analyze", "collector_for"]


def collector_for(env_id: str) -> Collector:
    """A fresh collector for ``env_id``, declared by the game's agents package (``ValueError`` when it has none)."""
    collector = game_agents_of(env_id).target("collector")
    if collector is None:
        raise ValueError(f"no analysis for env id {env_id!r}: its game declares no collector")
    return collector()


def analyze(
    env_id: str,
    lineup: Sequence[str],
    games: int,
    seed: int,
    env_kwargs: dict[str, Any] | None = None,
    engine: str = "aec",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Play ``games`` seat-rotated games of ``lineup`` (one agent name per seat): ``(meta, stats)``.

    ``engine``: ``aec`` (the AEC env), ``batched`` (the batched engine; ``ValueError`` when an agent
    has no batched form) or ``auto`` (batched where it can); `agents.analysis.batched.ENGINES`.
    ``meta`` describes the run (``env_id``, ``players``, ``games``, ``seed``, ``lineup``, the
    distinct ``agents``, the ``engine`` that played); ``stats`` is the collector's summary.
    """
    from agents.analysis.batched import choose_engine, run_games_batched

    played_on = choose_engine(engine, env_id, lineup, env_kwargs)
    play = run_games_batched if played_on == "batched" else run_games
    collector = play(env_id, lineup, games, seed, collector_for(env_id), env_kwargs)
    meta = {
        "env_id": env_id,
        "players": len(lineup),
        "games": games,
        "seed": seed,
        "lineup": list(lineup),
        "agents": list(dict.fromkeys(lineup)),
        "env_kwargs": dict(env_kwargs or {}),
        "engine": played_on,
    }
    return meta, collector.summary()
