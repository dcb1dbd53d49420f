"""Deep Monte-Carlo agent files and the ``dmc:<file>`` agents (the agent file format's DMC mark).

A DMC agent is saved in the data-only format of `agents.policy.checkpoint` (``.npz`` arrays and a
JSON header; loading runs no code): the Q network exported as a plain MLP whose outputs are the Q
values of every action (`agents.dmc.features.QNetwork.to_policy`), ``action_head``
``{"kind": "features", "num_features": k}`` and, among ``training.figures``, ``"algorithm": "dmc"``
(`ALGORITHM`), which tells it apart from a PPO file. It plays greedily: the legal action of highest
Q, exactly the masked argmax of `agents.policy.agent.PolicyAgent`, so ``ppo:<file>`` plays it too,
and every place an agent name goes (the registry, evaluate, benchmark, play, the web pages) takes
``dmc:<file>``, which also checks that the file is a DMC agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.policy.agent import SAMPLE_SUFFIX, PolicyAgent, load_checkpoint, make_policy_agent
from agents.policy.checkpoint import layout_pieces, make_header, save_agent
from agents.spec import AgentSpec

#: The figure of the header's ``training.figures`` that names the method, and its value.
ALGORITHM = ("algorithm", "dmc")


def save_dmc_agent(
    path: str | Path,
    network: Any,
    env: Any,
    env_id: str,
    env_options: dict[str, Any],
    command: str | None,
    decisions: int,
    figures: dict[str, str],
) -> Path:
    """Write ``network`` (an `agents.dmc.features.QNetwork`) trained on ``env`` (a raw env of
    ``env_options``) as a data-only agent file (atomically); returns the path."""
    key, value = ALGORITHM
    header = make_header(
        env_id,
        env_options,
        layout_pieces(env.observation_layout),
        env.num_actions,
        network.to_policy(),
        action_head={"kind": "features", "num_features": network.num_features},
        player_counts=[len(env.possible_agents)],
        reward_mode=env_options.get("reward_mode", "win"),
        training={"command": command, "timesteps": decisions, "figures": {key: value, **figures}},
    )
    return save_agent(path, network.to_policy(), header)


def is_dmc_header(header: dict[str, Any]) -> bool:
    """Whether an agent file's header says it holds a DMC agent."""
    key, value = ALGORITHM
    return header["training"]["figures"].get(key) == value


def _name(source: str) -> str:
    """The agent name ``dmc:<source>`` (written by the grammar, `agents.spec`)."""
    return str(AgentSpec("dmc", source=source))


def load_dmc(source: str) -> tuple[Any, dict[str, Any]]:
    """The network and header of the DMC agent file ``source``; ``ValueError`` (one line) for a file
    that is not one, or a ``#sample`` suffix (a Q network has no distribution to sample)."""
    if source.endswith(SAMPLE_SUFFIX):
        raise ValueError(f"{_name(source)}: a DMC agent plays greedily; {SAMPLE_SUFFIX} is for ppo: agents")
    policy, header = load_checkpoint(source)
    if not is_dmc_header(header):
        key, value = ALGORITHM
        raise ValueError(f"{_name(source)}: not a DMC agent file (its training figures lack {key}: {value}); use ppo:")
    return policy, header


def make_dmc_agent(source: str, env_id: str, seed: int | None = None, env: Any = None) -> PolicyAgent:
    """The greedy agent of the DMC file ``source`` (see `agents.policy.agent.make_policy_agent`)."""
    load_dmc(source)
    agent = make_policy_agent(source, env_id, seed=seed, env=env)
    agent.name = _name(source)
    return agent
