"""`RunPlan`: what a training run needs, derived once from its checked arguments and passed on.

The game (its `GameSpec`, resolved once by the command), one raw env per table size (built once:
the checks, the policy's action features and the agent file's facts all read these), the table
sizes and their weights, the env options, the self-play env's keyword arguments, the opponent
pool, the policy class and its keyword arguments, and the command line of the run: each is worked
out in one place, when the command line (or a resumed run's ``config.json``) is checked; every
later step reads the plan instead of deriving them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from agents.policy.checkpoint import layout_pieces
from pirate_envs.core.spec import GameSpec


def table_sizes(game: GameSpec, num_players: int | Sequence[int] | None) -> list[int]:
    """The player counts of a run (``--num-players``; none: the game's default; a saved config may hold one integer)."""
    if num_players is None or num_players == []:
        return [game.default_players]
    return [num_players] if isinstance(num_players, int) else list(num_players)


def table_weights(sizes: Sequence[int], weights: Sequence[float]) -> dict[int, float]:
    """``{player count: weight}`` of the table-size draw (no weights: uniform)."""
    return dict(zip(sizes, list(weights) or [1.0] * len(sizes)))


def env_options(env_kwargs: Mapping[str, Any], sizes: Sequence[int]) -> dict[str, Any]:
    """The env options of a run but the player count: ``--env-kwargs``, and ``table_layout="max"``
    when it plays several table sizes (unless ``--env-kwargs`` names a table layout)."""
    options = dict(env_kwargs)
    if len(sizes) > 1:
        options.setdefault("table_layout", "max")
    return options


#: ``--activation`` values and the torch module each names (as agent files name it; not `mlp.ACTIVATIONS`).
ACTIVATION_FLAGS = {"tanh": "Tanh", "relu": "ReLU"}


def policy_spec(
    env: Any, net_arch: Sequence[int], action_features: bool, activation: str = "tanh"
) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of a new model for the raw ``env`` of the run's first table
    (the feature action head where the game has features; hidden layers with ``activation``, a key of
    `ACTIVATION_FLAGS`)."""
    kwargs: dict[str, Any] = {"net_arch": list(net_arch)}
    if activation != "tanh":  # SB3's default is Tanh: the default runs' keyword arguments stay as they were
        import torch

        kwargs["activation_fn"] = getattr(torch.nn, ACTIVATION_FLAGS[activation])
    features = env.action_features
    if not action_features or features is None:
        return "MlpPolicy", kwargs
    from agents.ppo.action_head import FeatureHeadPolicy

    return FeatureHeadPolicy, {**kwargs, "action_features": features.matrix}


@dataclass(frozen=True)
class RunPlan:
    """One training run, planned: its arguments and everything derived from them (see `make_plan`).

    ``args`` is the run's argument record as ``config.json`` stores it (the command line's
    ``experiments.train.TrainArgs``, or the saved one when resuming); it is read, never changed.
    ``game`` is its game; ``tables`` its raw env at each table size (for facts: never stepped).
    """

    args: Any
    game: GameSpec
    tables: Mapping[int, Any]
    run_dir: Path
    command: str
    table_sizes: tuple[int, ...]
    table_weights: Mapping[int, float]
    env_options: Mapping[str, Any]
    selfplay_kwargs: Mapping[str, Any]
    opponents: Mapping[str, float]
    policy: Any
    policy_kwargs: Mapping[str, Any]
    observation_pieces: Any
    num_actions: int
    num_action_features: int | None
    #: The arguments of the run that follows this one in its folder (a recipe's second phase), as
    #: ``config.json`` stores them; ``None`` when none does.
    next_phase: Mapping[str, Any] | None = None

    @property
    def several_tables(self) -> bool:
        return len(self.table_sizes) > 1

    @property
    def resuming(self) -> bool:
        return bool(self.args.resume)

    def env_config(self, players: int | None = None) -> dict[str, Any]:
        """The env arguments of one table (``players``, default the first size; not the reward mode)."""
        return {"num_players": players if players is not None else self.table_sizes[0], **self.env_options}

    @property
    def first_table(self) -> Any:
        """The raw env of the first table size."""
        return self.tables[self.table_sizes[0]]

    def agent_env_kwargs(self) -> dict[str, Any]:
        """The ``env_kwargs`` of the agent's header: with the player count for one table size; without it
        (``table_layout="max"`` among them) for several."""
        return dict(self.env_options) if self.several_tables else self.env_config()


def make_plan(
    args: Any,
    game: GameSpec,
    tables: Mapping[int, Any],
    options: Mapping[str, Any],
    opponents: Mapping[str, float],
    run_dir: Path,
    command: str,
) -> RunPlan:
    """The plan of a run from its checked parts: ``args`` (a ``TrainArgs`` in stored form), its game,
    its raw env per table size (in ``--num-players`` order), its env options (`env_options`), its parsed
    opponent weights, its folder and its command line."""
    sizes = list(tables)
    weights = table_weights(sizes, args.player_weights)
    first = {"num_players": sizes[0], **options}
    selfplay = first if len(sizes) == 1 else {**options, "player_counts": weights}
    env = tables[sizes[0]]
    policy, policy_kwargs = policy_spec(env, args.net_arch, args.action_features, args.activation)
    features = env.action_features if policy != "MlpPolicy" else None
    return RunPlan(
        args=args,
        game=game,
        tables=MappingProxyType(dict(tables)),
        run_dir=run_dir,
        command=command,
        table_sizes=tuple(sizes),
        table_weights=MappingProxyType(weights),
        env_options=MappingProxyType(dict(options)),
        selfplay_kwargs=MappingProxyType(selfplay),
        opponents=MappingProxyType(dict(opponents)),
        policy=policy,
        policy_kwargs=MappingProxyType(policy_kwargs),
        observation_pieces=layout_pieces(env.observation_layout),
        num_actions=int(env.num_actions),
        num_action_features=None if features is None else int(features.matrix.shape[1]),
    )
