"""Build agents by name for any env id: ``make_agent("heuristic", "skull_king_v0", seed=1)``.

Names: ``random``; ``heuristic`` (the game's honest heuristic); ``oracle`` (Piraten Kapern's
exact one-turn dynamic programme); ``race``, ``best_response:oracle`` and ``best_response:heuristic``
(Piraten Kapern at two players: the game solved for the win against optimal play, and against each
of those opponents; see ``agents.piraten_kapern.race`` and ``.best_response``);
``ppo:<shipped name or path>`` (a trained policy from a data-only agent file, loaded without running
code; masked argmax; ``ppo:<...>#sample`` samples it; see ``agents.policy.agent`` and ``agents.policy.checkpoint``);
``dmc:<path>`` (a Deep Monte-Carlo agent file: the legal move of highest Q; see ``agents.policy.dmc_file``);
``mcts`` / ``mcts:<simulations>`` / ``mcts:<simulations>:random`` (information-set tree search over the
env's game, heuristic or random rollouts; see ``agents.search.ismcts``); ``mcts[:<simulations>]:batched`` (the
same search, its rollouts played many at once on the batched engine; see ``agents.search.batched``);
``halving`` / ``halving:<simulations>`` (sequential halving over the root moves, its worlds redrawn and
its rollouts played on the batched engine; ``halving[:<simulations>]:ppo:<agent>``: guided by a trained
network's prior; see ``agents.search.halving``);
``mcts:<simulations>:ppo:<agent>`` and ``gumbel:<simulations>:ppo:<agent>`` (the search guided by a
trained network's priors: PUCT, or Gumbel top-k with sequential halving at the root; see
``agents.search.guided``); ``rules:<env_id>`` (the game's shipped rule card, a short decision list
distilled from its strongest honest agent; ``rules:<card.json>`` plays another card file; see
``agents.rules``); ``openspiel:ismcts`` / ``openspiel:ismcts:<simulations>`` (an outside baseline:
OpenSpiel's ``ISMCTSBot`` on the game's OpenSpiel form, the extra ``openspiel``; see ``agents.openspiel_bots``).

``omniscient`` / ``omniscient:<simulations>`` / ``omniscient:<simulations>:ppo:<agent>`` is a
reference bound, NOT an honest player: the search seeing every hidden card (only the future is
sampled). ``agent_names`` does not list it (no table offers it as an opponent); ``make_agent``
builds it for evaluation.

Every agent plays every player count of its game except a trained one, which plays the counts
in its header: ``agent_player_counts("ppo:skull_king_v0", "skull_king_v0")``. At a table it
does not play, ``make_agent`` raises one line naming the counts it plays. Built without
``env=``, a trained agent plays every table of its header, seated or ``"max"`` layout, telling
them apart by the observation it is shown (``make_agent("ppo:skull_king_v0", "skull_king_v0")``
then ``pirate_envs.make("skull_king_v0", num_players=4)`` works as written); with ``env=`` it is
checked against that table up front.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pirate_envs
from agents.base import Agent, RandomAgent, action_blocks
from agents.game_agents import game_agent_kinds, game_agent_player_counts, make_game_agent
from agents.policy.agent import SAMPLE_SUFFIX, load_checkpoint, make_policy_agent, shipped_checkpoints
from agents.policy.dmc_file import dmc_source, load_dmc, make_dmc_agent
from agents.rules.agent import PREFIX as RULES
from agents.rules.agent import make_rules_agent, shipped_cards
from agents.search.guided import guided_source, is_guided_name, make_guided_agent
from agents.search.ismcts import make_search_agent
from pirate_envs.core.errors import check_seed


def agent_names(env_id: str) -> list[str]:
    """The agent names available for ``env_id`` (``halving:ppo:<shipped>``: the halving search guided by it)."""
    from agents.search.halving import HALVING, halving_searches

    shipped = [f"ppo:{name}" for name in shipped_checkpoints() if name.startswith(env_id)]
    batched = importlib.util.find_spec("numba") is not None  # the halving search runs on the batched engine
    halving = [HALVING, *(f"{HALVING}:{name}" for name in shipped)] if batched and halving_searches(env_id) else []
    return ["random"] + game_agent_kinds(env_id) + ["mcts"] + halving + shipped + shipped_cards(env_id)


def agent_player_counts(name: str, env_id: str) -> tuple[int, ...]:
    """The player counts the agent ``name`` plays in ``env_id``: a trained agent's from its header
    (loaded without running code), any other agent's: every count the game allows."""
    network = _searched_network(name)
    if network is not None:  # a search with a network plays the counts of its network
        return agent_player_counts(f"ppo:{network}", env_id)
    if dmc_source(name) is not None:
        header = load_dmc(dmc_source(name) or "")[1]
        return tuple(n for n in header["player_counts"] if n in pirate_envs.player_counts(env_id))
    if name.startswith("ppo:"):
        header = load_checkpoint(name[len("ppo:") :].removesuffix(SAMPLE_SUFFIX))[1]
        return tuple(n for n in header["player_counts"] if n in pirate_envs.player_counts(env_id))
    return tuple(n for n in pirate_envs.player_counts(env_id) if n in game_agent_player_counts(name, env_id))


def _searched_network(name: str) -> str | None:
    """The agent file a search agent ``name`` plays with (its priors or rollouts); ``None`` for any other name."""
    from agents.search.halving import HALVING, parse_halving_name

    if is_guided_name(name):
        return guided_source(name)
    return parse_halving_name(name)[1] if name.startswith(f"{HALVING}:") else None


def make_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> Agent:
    """A fresh agent called ``name`` for ``env_id``.

    ``env``, if given, is the table it will play (its action table; a trained agent is checked
    against it). Without it, ``mcts`` refuses (it searches the env it plays) and every other
    agent plays any table of ``env_id`` it can play.
    """
    if env_id not in pirate_envs.ENV_IDS:
        raise ValueError(f"unknown env id {env_id!r}; valid ids: {list(pirate_envs.ENV_IDS)}")
    seed = check_seed(seed)  # every agent's seed: None or a non-negative integer
    if name == "random":
        env = env if env is not None else pirate_envs.make(env_id, raw=True)
        return RandomAgent(seed=seed, blocks=action_blocks(env))
    if is_guided_name(name):
        return make_guided_agent(name, env_id, seed=seed, env=env)
    if name == "halving" or name.startswith("halving:"):  # flat, every world and rollout on the batched engine
        from agents.search.halving import make_halving_agent

        return make_halving_agent(name, env_id, seed=seed, env=env)
    if name.startswith("mcts") and name.endswith(":batched"):  # rollouts many at once on the batched engine
        from agents.search.batched import make_batched_search_agent

        return make_batched_search_agent(name, env_id, seed=seed, env=env)
    if name == "mcts" or name.startswith("mcts:"):
        return make_search_agent(name, env_id, seed=seed, env=env)
    if name.startswith(RULES):
        return make_rules_agent(name, env_id)
    if name.startswith("openspiel:"):  # an outside baseline: OpenSpiel's own bot (the openspiel extra)
        from agents.openspiel_bots import make_openspiel_agent

        return make_openspiel_agent(name, env_id, seed=seed, env=env)
    if dmc_source(name) is not None:
        return make_dmc_agent(dmc_source(name) or "", env_id, seed=seed, env=env)
    if name.startswith("ppo:"):
        return make_policy_agent(name[len("ppo:") :], env_id, seed=seed, env=env)
    if name not in game_agent_kinds(env_id):
        raise ValueError(f"no agent {name!r} for {env_id}; available: {agent_names(env_id)}")
    counts = game_agent_player_counts(name, env_id)
    players = len(env.possible_agents) if env is not None else None
    if players is not None and players not in counts:
        raise ValueError(f"agent {name!r} plays {env_id} at {', '.join(map(str, counts))} players, not {players}")
    return make_game_agent(name, env_id, seed=seed)
