"""Play seat-rotated games on the AEC env and feed every decision to a game's collector.

Game ``g`` seats lineup entry ``k`` at seat ``(k + g) mod n`` (as ``experiments.evaluate`` does)
and is dealt with seed ``seed + g``. For each decision the collector gets a `Decision`: who
decided (seat and agent name), the action, the deciding seat's View just before it, and the
public events the action caused. The collector sees the events of the deal through
`Collector.start_game` and every seat's final View through `Collector.end_game`. `start_game`,
`step` and `end_game` drive a game one chosen action at a time (a scripted game).

`run_games` plays on the AEC env; `agents.analysis.batched` plays a lineup whose agents all have
batched forms on the batched engine and replays each game through `start_game`, `step` and
`end_game`, so its collector gets the same kind of `Decision`s. ``deal`` hands `run_games` each
game's reference engine and reset options (the batched engine's deals, say) in place of the seed's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.evaluation.games import win_shares
from pirate_envs.core.engine import Engine
from pirate_envs.core.events import Event, events_since, record_events

#: ``deal(g)``: game ``g``'s reference engine and its reset options (`run_games`).
Deal = Callable[[int], tuple[Engine, dict[str, Any]]]


@dataclass(frozen=True)
class Decision:
    """One decision: ``seat`` (played by ``agent``) chose ``action`` seeing ``view``; ``events``
    are the public events the action caused, in order."""

    game: int
    seat: int
    agent: str
    action: int
    view: Any
    events: tuple[Event, ...]


class Collector:
    """Per-decision statistics of one game; subclasses override `observe` and `summary`."""

    def start_game(self, game: int, seat_agents: Sequence[str], events: Sequence[Event]) -> None:
        """A game starts: the agent name of each seat and the public events of the deal."""
        self.seat_agents = list(seat_agents)

    def observe(self, decision: Decision) -> None:
        """One decision and the events it caused."""

    def end_game(self, final_views: Sequence[Any], win_shares: Sequence[float]) -> None:
        """The game is over: each seat's final View and share of the win (``1/w`` per winner)."""

    def summary(self) -> dict[str, Any]:
        """The statistics so far (JSON-friendly)."""
        return {}


def seating(num_seats: int, game: int) -> list[int]:
    """The seat of each lineup entry in game ``game``: entry ``k`` sits at ``(k + game) % n``."""
    return [(k + game) % num_seats for k in range(num_seats)]


def start_game(
    env: Any, seat_names: Sequence[str], collector: Collector, game_index: int, seed: int, options: dict | None = None
) -> int:
    """Reset ``env`` (events recorded) and tell ``collector`` the game starts; the events seen so far."""
    record_events(env.game)
    env.reset(seed=seed, options=options)
    deal = events_since(env)
    collector.start_game(game_index, seat_names, deal)
    return len(deal)


def step(env: Any, action: int, seat_names: Sequence[str], collector: Collector, game_index: int, seen: int) -> int:
    """Play ``action`` for the seat on turn and feed the `Decision` to ``collector``; the events seen so far."""
    game = env.game
    seat = game.current_player
    view = game.view(seat)
    env.step(action)
    events = events_since(env, seen)
    collector.observe(Decision(game_index, seat, seat_names[seat], action, view, tuple(events)))
    return seen + len(events)


def end_game(env: Any, collector: Collector) -> None:
    """Tell ``collector`` the game is over: every seat's final View and share of the win."""
    game = env.game
    collector.end_game([game.view(s) for s in range(game.num_players)], win_shares(game))


def play_game(
    env: Any,
    seat_agents: Sequence[Agent],
    seat_names: Sequence[str],
    collector: Collector,
    game_index: int,
    seed: int,
    options: dict[str, Any] | None = None,
    engine: Engine | None = None,
) -> None:
    """Play one game on the raw env ``env``; ``seat_agents[s]`` (named ``seat_names[s]``) plays seat ``s``.

    ``engine``: the game's engine, put into ``env`` before its reset (default: the env's own).
    """
    if engine is not None:
        env.unwrapped.game = engine
    seen = start_game(env, seat_names, collector, game_index, seed, options)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed * 101 + s)
    game = env.game
    while not game.done:
        seat = game.current_player
        action = int(seat_agents[seat].act(env.observe(env.possible_agents[seat]), game.view(seat)))
        seen = step(env, action, seat_names, collector, game_index, seen)
    end_game(env, collector)


def run_games(
    env_id: str,
    lineup: Sequence[str],
    games: int,
    seed: int,
    collector: Collector,
    env_kwargs: dict[str, Any] | None = None,
    deal: Deal | None = None,
) -> Collector:
    """Play ``games`` seat-rotated games of ``lineup`` (one agent name per seat) into ``collector``.

    ``deal``: game ``g`` starts from ``deal(g)`` (an engine and its reset options) instead of the
    env's engine dealt with seed ``seed + g``; the agents are reset with ``seed + g`` as ever.
    """
    from agents.registry import make_agent  # the registry loads the search and policy agents

    n = len(lineup)
    env = pirate_envs.make(env_id, raw=True, num_players=n, **(env_kwargs or {}))
    agents = [make_agent(name, env_id, seed=seed + k, env=env) for k, name in enumerate(lineup)]
    for g in range(games):
        seats = seating(n, g)
        seat_agents: list[Agent] = [agents[0]] * n
        seat_names = [""] * n
        for k, seat in enumerate(seats):
            seat_agents[seat], seat_names[seat] = agents[k], lineup[k]
        engine, options = deal(g) if deal is not None else (None, None)
        play_game(env, seat_agents, seat_names, collector, g, seed + g, options, engine)
    return collector
