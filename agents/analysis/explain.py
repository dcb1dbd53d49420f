"""Why this move: what each agent thinks of the moves of one position, from the deciding seat's view.

`explain` builds an agent by name and asks it about the position of a raw env (the seat on
turn decides); `explain_agent` does the same for an agent already built. The answer is an
`Explanation`: the agent's own choice and its top moves, each a `MoveStat` with what that
kind of agent knows about it:

* a trained network (`agents.policy.agent.PolicyAgent`): the masked policy's probability of
  every legal move (they sum to 1; the distribution ``ppo:<...>#sample`` draws from);
* the tree search (``mcts``, `agents.search.ismcts.SearchAgent`): root visit counts (they sum to the
  search's iterations) and mean values (the searcher's return, see `agents.search.ismcts`);
* Piraten Kapern's ``oracle``: the expected points of the turn after each move, played on
  optimally (`agents.piraten_kapern.oracle`; stopping is worth the points showing);
* any other agent (``heuristic``, ``random``): its choice only.

Honest: everything is computed from the deciding seat's observation and View (the search's
worlds are redrawn from that seat's view with the agent's own seeded generator), so two
positions that look the same to the seat give the same answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

import pirate_envs
from agents.base import Agent
from agents.policy.agent import shipped_checkpoints
from agents.registry import make_agent
from pirate_envs.core.errors import shown

#: Moves listed per agent unless asked otherwise.
DEFAULT_TOP = 5


@dataclass(frozen=True)
class MoveStat:
    """One move and what an agent knows of it (``None``: the agent has no such figure)."""

    action: int
    label: str
    probability: float | None = None
    visits: int | None = None
    value: float | None = None
    expected_points: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Explanation:
    """An agent's answer about one position: its ``choice`` and its ``moves``, best first."""

    agent: str
    choice: int
    choice_label: str
    moves: list[MoveStat] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "moves": [move.to_dict() for move in self.moves]}


def replay_position(env_id: str, seed: int, actions: Sequence[int], **env_kwargs: Any) -> Any:
    """A raw env of ``env_id`` dealt with ``seed`` after ``actions``; ``ValueError`` (one line) if one is not legal
    or the game is over after them (no seat decides)."""
    if env_id not in pirate_envs.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(pirate_envs.ENV_IDS)}")
    try:
        env = pirate_envs.make(env_id, raw=True, **env_kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{env_id} options {env_kwargs}: {error}") from None
    env.reset(seed=seed)
    for step, action in enumerate(actions):
        if env.game.done:
            raise ValueError(f"the game is over after {step} actions; no move {step} to play")
        if type(action) is not int or not 0 <= action < env.num_actions or not env.game.legal_mask()[action]:
            raise ValueError(f"action {step} ({action!r}) is not a legal move there")
        env.step(action)
    if env.game.done:
        raise ValueError(f"the game is over after its {len(actions)} actions: no seat decides there")
    return env


def position_text(env: Any) -> str:
    """The deciding seat's screen (``pirate_envs.<game>.text.seat_text``)."""
    from pirate_envs.core.text import env_seat_text

    return env_seat_text(env, env.unwrapped.agent_selection)


def explain(env: Any, name: str, seed: int = 0, top: int = DEFAULT_TOP) -> Explanation:
    """What the agent ``name`` (a registry name) makes of the position of the raw env ``env``.

    ``TypeError`` naming the bad value when ``env`` is not a pirate env or ``name`` is not a string."""
    if not isinstance(name, str):
        raise TypeError(f"name={shown(name)} is not an agent name; expected a string such as 'heuristic'")
    raw = getattr(env, "unwrapped", None)
    if not hasattr(raw, "game") or not isinstance(getattr(raw, "metadata", None), dict):
        raise TypeError(f"env={shown(env)} is not a pirate env; expected pirate_envs.make(env_id) after its moves")
    agent = make_agent(name, raw.metadata["name"], seed=seed, env=raw)
    return explain_agent(env, agent, name, seed=seed, top=top)


def explain_agent(env: Any, agent: Agent, name: str, seed: int = 0, top: int = DEFAULT_TOP) -> Explanation:
    """What ``agent`` (called ``name``) makes of the position of ``env``: its choice and its ``top`` moves.

    Reads the deciding seat's observation and View only; a search agent searches from the env's
    game, redrawing everything the seat cannot see (`agents.search.ismcts.determinize`) after a reset
    with ``seed``. ``ValueError`` when ``top`` is not a whole number of at least 1.
    """
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top={top!r}: list at least 1 move")
    from agents.policy.agent import PolicyAgent
    from agents.search.ismcts import SearchAgent

    raw = env.unwrapped
    game = raw.game
    if game.done:
        raise ValueError("the game is over: no seat decides")
    seat = game.current_player
    observation = raw.observe(raw.possible_agents[seat])
    view = game.view(seat)
    mask = np.asarray(observation["action_mask"], dtype=bool)
    agent.reset(seed)
    if isinstance(agent, PolicyAgent):
        moves = _policy_moves(raw, agent, observation, mask)
        choice = int(agent.act(observation, view)) if agent.deterministic else moves[0].action
    elif isinstance(agent, SearchAgent):
        moves = _search_moves(raw, agent)
        choice = moves[0].action
    elif callable(getattr(agent, "move_values", None)):  # an exact agent's values (Kapern's oracle)
        moves = _valued_moves(raw, agent, view, mask)
        choice = int(agent.act(observation, view))
    else:
        choice = int(agent.act(observation, view))
        moves = [MoveStat(choice, raw.action_to_string(choice))]
    return Explanation(name, choice, raw.action_to_string(choice), moves[:top])


def default_agents(env: Any) -> list[str]:
    """``heuristic``, then the shipped network where it plays the table of ``env`` (a hint's default: the last)."""
    raw = env.unwrapped
    env_id = raw.metadata["name"]
    names = ["heuristic"]
    if env_id in shipped_checkpoints():
        try:
            make_agent(f"ppo:{env_id}", env_id, seed=0, env=raw)
            names.append(f"ppo:{env_id}")
        except ValueError:  # the network does not play this table (another player count)
            pass
    return names


def explanation_text(answer: Explanation) -> str:
    """One agent's answer: its choice, then a row per move with the figures it has."""
    columns = [
        (key, title)
        for key, title in (
            ("probability", "probability"),
            ("visits", "visits"),
            ("value", "value"),
            ("expected_points", "expected points"),
        )
        if any(getattr(move, key) is not None for move in answer.moves)
    ]
    lines = [f"{answer.agent}: plays {answer.choice_label}"]
    if not columns:
        return lines[0]
    width = max(len(move.label) for move in answer.moves) + 2
    lines.append("    " + "move".ljust(width) + "".join(title.rjust(16) for _, title in columns))
    for move in answer.moves:
        cells = "".join(_cell(getattr(move, key)).rjust(16) for key, _ in columns)
        lines.append("    " + move.label.ljust(width) + cells)
    return "\n".join(lines)


def _cell(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.4g}"


def masked_probabilities(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the legal moves of ``mask`` (0 elsewhere)."""
    legal = np.flatnonzero(mask)
    z = np.asarray(logits, dtype=np.float64)[legal]
    p = np.exp(z - z.max())
    out = np.zeros(len(mask))
    out[legal] = p / p.sum()
    return out


def _policy_moves(raw: Any, agent: Any, observation: dict[str, np.ndarray], mask: np.ndarray) -> list[MoveStat]:
    """Every legal move with the masked policy's probability, likeliest first."""
    obs = observation["observation"]
    policy = agent.policy if agent.tables is None else agent.tables.policy_for(obs)
    probabilities = masked_probabilities(policy.logits(obs), mask)
    legal = sorted(np.flatnonzero(mask).tolist(), key=lambda a: (-probabilities[a], a))
    return [MoveStat(a, raw.action_to_string(a), probability=float(probabilities[a])) for a in legal]


def _search_moves(raw: Any, agent: Any) -> list[MoveStat]:
    """The root's moves with their visits and mean values, most visited first (the search's own order)."""
    return [
        MoveStat(action, raw.action_to_string(action), visits=visits, value=value)
        for action, visits, value in agent.search_root_moves()
    ]


def _valued_moves(raw: Any, agent: Any, view: Any, mask: np.ndarray) -> list[MoveStat]:
    """Every legal move with the agent's expected points after it (its ``move_values``), best first."""
    legal = np.flatnonzero(mask).tolist()
    points = agent.move_values(view, legal)
    order = sorted(range(len(legal)), key=lambda i: (-points[i], legal[i]))
    return [MoveStat(legal[i], raw.action_to_string(legal[i]), expected_points=float(points[i])) for i in order]


__all__ = [
    "DEFAULT_TOP",
    "Explanation",
    "MoveStat",
    "default_agents",
    "explain",
    "explain_agent",
    "explanation_text",
    "masked_probabilities",
    "position_text",
    "replay_position",
]
