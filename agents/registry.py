"""Build agents by name for any env id: ``make_agent("heuristic", "skull_king_v0", seed=1)``.

A name is parsed once by `agents.spec.parse_agent_name`, and its kind (`agents.spec.KINDS`: random,
the game's own agents, ``mcts``, ``halving``, the guided searches, ``rules:``, ``ppo:``, ``dmc:``,
a Python agent ``file.py:factory``,
the outside baseline ``openspiel:ismcts``) says what builds it (`agents.builders`). ``omniscient`` is a
reference bound, NOT an honest player: ``agent_names`` does not list it; ``make_agent`` builds it
for evaluation. A Python agent's code runs when it is built: only the commands a user runs on
their own machine take one (the web table offers `agent_names` and data-only agent files).

Every agent plays every player count of its game except a trained one (and a search with a
network), which plays the counts in its file's header: ``agent_player_counts("ppo:skull_king_v0",
"skull_king_v0")``. At a table it does not play, ``make_agent`` raises one line naming the counts
it plays. Built without ``env=``, a trained agent plays every table of its header, telling them
apart by the observation it is shown; with ``env=`` it is checked against that table up front.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.game_agents import available_game_agent_kinds, game_agent_player_counts
from agents.policy.agent import load_checkpoint, shipped_checkpoints
from agents.rules.agent import shipped_cards
from agents.spec import HALVING, KINDS, SAMPLE_SUFFIX, AgentSpec, parse_agent_name
from pirate_envs.core.errors import check_seed
from pirate_envs.core.spec import resolve


def agent_names(env_id: str) -> list[str]:
    """The agent names available for ``env_id`` (``halving:ppo:<shipped>``: the halving search guided by it);
    an agent whose extra is not installed is left out (built, it refuses in one line naming the extra)."""
    from agents.search.halving import halving_searches

    networks = [name for name in shipped_checkpoints() if name.startswith(env_id)]
    shipped = [str(AgentSpec("ppo", source=network)) for network in networks]
    batched = importlib.util.find_spec("numba") is not None  # the halving search runs on the batched engine
    guided = [str(AgentSpec(HALVING, source=network)) for network in networks]
    halving = [HALVING, *guided] if batched and halving_searches(env_id) else []
    return ["random"] + available_game_agent_kinds(env_id) + ["mcts"] + halving + shipped + shipped_cards(env_id)


def agent_player_counts(name: str, env_id: str) -> tuple[int, ...]:
    """The player counts the agent ``name`` plays in ``env_id``: an agent with a trained file's from its
    header (loaded without running code), any other agent's: every count the game allows."""
    spec = parse_agent_name(name)
    game = pirate_envs.player_counts(env_id)
    if spec.network is not None:
        header = load_checkpoint(spec.network.removesuffix(SAMPLE_SUFFIX))[1]
        return tuple(n for n in header["player_counts"] if n in game)
    if spec.option is not None and spec.kind == "game":
        return tuple(n for n in game if n in game_agent_player_counts(spec.option, env_id))
    return tuple(game)


def make_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> Agent:
    """A fresh agent called ``name`` for ``env_id``.

    ``env``, if given, is the table it will play (its action table; a trained agent is checked
    against it). Without it, a search refuses (it searches the env it plays) and every other
    agent plays any table of ``env_id`` it can play.
    """
    if env_id not in pirate_envs.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(pirate_envs.ENV_IDS)}")
    spec = parse_agent_name(name)
    seed = check_seed(seed)  # every agent's seed: None or a non-negative integer
    return resolve(KINDS[spec.kind].build)(spec, env_id, seed, env)
