"""OpenSpiel's information-set MCTS as an agent: ``make_agent("openspiel:ismcts", env_id, env=env)``.

An outside baseline, implemented by others: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``
(IS-MCTS after Cowling, Powley and Whitehouse, as OpenSpiel writes it) with OpenSpiel's
``RandomRolloutEvaluator`` (one random rollout to the end of the game a leaf), searching the
game as `pirate_envs.openspiel` offers it to OpenSpiel (the same rules engine, ``returns="win"``).
Nothing of the project's own search is used but the redraw that starts each move.

Honest as ``mcts`` (the worlds redrawn from the seat by `agents.search.ismcts.determinize`), seeded,
``uct_c=2.0`` and OpenSpiel's defaults; Kapern with ``allow_inconsistent_action_sets``
(`INCONSISTENT_ACTION_SETS`). Needs the ``open-spiel`` wheel (the extra ``openspiel``): without it,
building the agent raises one ``ImportError`` line naming the extra, before any game. The names,
the redraws, the seeds and the settings: ``docs/guides/openspiel.md`` ("How the bot plays").
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from agents.search.ismcts import determinize
from agents.spec import MAX_SIMULATIONS, OPENSPIEL_ISMCTS, parse_agent_name
from pirate_envs.core.errors import check_range, shown
from pirate_envs.openspiel import game_parameters, load_game, pyspiel_module, state_from_engine

#: The one OpenSpiel bot offered: ``openspiel:ismcts[:<simulations>]`` (its syntax: `agents.spec`).
ISMCTS = OPENSPIEL_ISMCTS
#: Simulations a move of ``openspiel:ismcts``: a round budget, each simulation one random rollout to the
#: game's end (what a move costs per game: the reduced runs' results pages, docs/guides/openspiel.md).
DEFAULT_SIMULATIONS = 100
#: The UCT exploration constant of ``ISMCTSBot`` (OpenSpiel's examples' value).
UCT_C = 2.0
#: Games whose seat screen, the bot's tree key, does not fix the legal moves, so that the bot runs with
#: OpenSpiel's ``allow_inconsistent_action_sets``: Kapern's screen does not say whether the Sorceress is spent.
INCONSISTENT_ACTION_SETS = frozenset({"piraten_kapern_v0"})


@functools.cache
def _game(env_id: str, params: tuple[tuple[str, Any], ...]) -> Any:
    """The pyspiel game of ``env_id`` with ``params`` (one per process: its states share nothing that changes)."""
    return load_game(env_id, **dict(params))


class ISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` playing one seat of the raw env ``env`` (see the module docstring)."""

    uses_view = False

    def __init__(self, env: Any, env_id: str, simulations: int = DEFAULT_SIMULATIONS, seed: int | None = None):
        from open_spiel.python.algorithms import ismcts, mcts

        self.env = env.unwrapped
        self.simulations = check_range("simulations", simulations, 1, MAX_SIMULATIONS)
        self.name = f"{ISMCTS}:{self.simulations}"
        self.game = _game(env_id, tuple(sorted(game_parameters(env_id, self.env.game.config).items())))
        self.inconsistent = env_id in INCONSISTENT_ACTION_SETS
        self._ismcts, self._mcts = ismcts, mcts
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """A fresh bot whose generators all come from ``seed`` (``None``: fresh entropy)."""
        streams = np.random.SeedSequence(seed).generate_state(3)
        self.rng = np.random.default_rng(int(streams[0]))  # the redraws
        evaluator = self._mcts.RandomRolloutEvaluator(1, np.random.RandomState(int(streams[1])))
        self.bot = self._ismcts.ISMCTSBot(
            self.game,
            evaluator,
            UCT_C,
            self.simulations,
            random_state=np.random.RandomState(int(streams[2])),
            allow_inconsistent_action_sets=self.inconsistent,
        )
        self.bot.set_resampler(self._redraw)

    def _redraw(self, state: Any, player: int) -> Any:
        """A world ``player`` cannot tell from ``state``, drawn from the agent's own generator."""
        return state.resample_from_infostate(player, self.rng.random)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 1:
            return int(legal[0])
        game = self.env.game
        world = determinize(game, game.current_player, self.rng)
        return int(self.bot.step(state_from_engine(self.game, world)))


def make_openspiel_agent(name: str, env_id: str, seed: int | None = None, env: Any = None) -> ISMCTSAgent:
    """The OpenSpiel agent ``name`` for ``env_id``, playing the raw env ``env``; one-line errors for a bad
    name, a missing ``env`` or a missing ``open-spiel`` wheel."""
    spec = parse_agent_name(name)
    if spec.kind != "openspiel":
        raise ValueError(f"no OpenSpiel agent {shown(name)}; available: {ISMCTS!r}, '{ISMCTS}:<simulations>'")
    simulations = DEFAULT_SIMULATIONS if spec.simulations is None else spec.simulations
    pyspiel_module()  # ImportError naming the extra, before anything else
    if env is None:
        raise ValueError(f"agent {name!r} searches the game it plays: pass the env it plays in (env=...)")
    return ISMCTSAgent(env, env_id, simulations, seed=seed)


__all__ = ["DEFAULT_SIMULATIONS", "ISMCTS", "MAX_SIMULATIONS", "ISMCTSAgent", "make_openspiel_agent"]
