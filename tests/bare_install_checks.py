"""What the core install (the wheel without extras) promises, checked in one run.

``python tests/bare_install_checks.py`` in an environment holding the wheel alone (no pillow, numba,
torch...): every env id passes PettingZoo's ``api_test`` and ``render_test`` and advertises only the
render modes that work, every Gymnasium id passes Gymnasium's ``check_env``, every agent
``agent_names`` offers builds and moves, the shipped PPO agent and a rule card play whole games,
and each agent that needs an extra refuses at construction in one line naming it.
``--block-extras`` first makes every installed module outside the core requirements unimportable:
the in-process stand-in for a bare install. Prints a line per check; exits 1 at the first failure.
Run by ``tests/test_packaging.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import pkgutil
import sys
import warnings

#: The top-level modules of the core install: the project's packages, its requirements and theirs, pip's own.
CORE_MODULES = frozenset(
    {
        "pirate_envs",
        "agents",
        "experiments",
        "numpy",
        "gymnasium",
        "pettingzoo",
        "cloudpickle",
        "typing_extensions",
        "farama_notifications",
        "pip",
        "setuptools",
        "pkg_resources",
        "_distutils_hack",
    }
)
#: Agents that need an extra, and the extra each must name when it refuses.
NEEDS_EXTRA = {
    "piraten_kapern_v0": {"race": "fast", "best_response:oracle": "fast", "best_response:heuristic": "fast"},
    "skull_king_v0": {"halving": "fast"},
}
#: Moves each offered agent plays in the check that it builds and moves (searches are slow in pure Python).
MOVES_PER_AGENT = 3


def block_extras() -> list[str]:
    """Make every importable top-level module outside the standard library and `CORE_MODULES` unimportable."""
    blocked = sorted(
        {m.name for m in pkgutil.iter_modules()} - set(sys.stdlib_module_names) - CORE_MODULES - set(sys.modules)
    )
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ModuleNotFoundError
    return blocked


def check_envs() -> None:
    """``api_test`` and ``render_test`` on every env id, no ``rgb_array`` advertised without pillow."""
    import importlib.util

    from pettingzoo.test import api_test, render_test

    import pirate_envs

    pillow = importlib.util.find_spec("PIL") is not None
    for env_id in pirate_envs.ENV_IDS:
        modes = pirate_envs.make(env_id).metadata["render_modes"]
        assert ("rgb_array" in modes) == pillow, f"{env_id} advertises {modes} with pillow installed: {pillow}"
        with contextlib.redirect_stdout(io.StringIO()):  # both tests print; "human" prints the table
            api_test(pirate_envs.make(env_id), num_cycles=200)
            render_test(lambda render_mode=None, env_id=env_id: pirate_envs.make(env_id, render_mode=render_mode))
        print(f"ok  {env_id}: api_test, render_test ({', '.join(modes)})")


def check_gymnasium_ids() -> None:
    """Gymnasium's ``check_env`` on every single-agent id (every render mode it advertises)."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import agents  # noqa: F401  (registers the ids)
    import pirate_envs

    for gym_id in pirate_envs.GYMNASIUM_IDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check_env(gymnasium.make(gym_id, disable_env_checker=True).unwrapped)
        print(f"ok  {gym_id}: check_env")


def play(env_id: str, name: str, moves: int | None) -> int:
    """Seat the agent ``name`` at seat 0 against random agents for ``moves`` of its moves (``None``: the game)."""
    import pirate_envs
    from agents.registry import make_agent

    env = pirate_envs.make(env_id, raw=True)
    seats = [make_agent(name, env_id, seed=0, env=env)]
    seats += [make_agent("random", env_id, seed=s, env=env) for s in range(1, len(env.possible_agents))]
    env.reset(seed=0)
    for s, agent in enumerate(seats):
        agent.reset(s)
    played = 0
    while not env.game.done and (moves is None or played < moves):
        seat = env.game.current_player
        env.step(int(seats[seat].act(env.observe(env.possible_agents[seat]), env.game.view(seat))))
        played += seat == 0
    return played


def check_agents() -> None:
    """Every offered agent builds and moves; the shipped PPO agents and rule cards play whole games."""
    import pirate_envs
    from agents.registry import agent_names

    for env_id in pirate_envs.ENV_IDS:
        names = agent_names(env_id)
        for name in names:
            play(env_id, name, MOVES_PER_AGENT)
        for name in names:
            if name.startswith(("ppo:", "rules:")):
                assert play(env_id, name, None) > 0, f"{name} made no move in {env_id}"
        print(f"ok  {env_id}: {', '.join(names)} build and move; ppo and rules play a game")


def check_refusals() -> None:
    """Each agent that needs a missing extra refuses at construction, in one line naming the extra."""
    import importlib.util

    import pirate_envs
    from agents.registry import agent_names, make_agent

    if importlib.util.find_spec("numba") is not None:
        print("skip refusals: numba is installed")
        return
    for env_id, needs in NEEDS_EXTRA.items():
        env = pirate_envs.make(env_id, num_players=2, raw=True)
        for name, extra in needs.items():
            assert name not in agent_names(env_id), f"{name} is offered for {env_id} without its extra"
            try:
                make_agent(name, env_id, seed=0, env=env)
            except ImportError as error:
                message = str(error)
                assert "\n" not in message and extra in message and "pip install" in message, message
            else:
                raise AssertionError(f"{name} built without the {extra!r} extra")
            print(f"ok  {name}: refuses ({message})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--block-extras", action="store_true", help="make every module outside the core unimportable")
    if parser.parse_args(argv).block_extras:
        print(f"blocked {len(block_extras())} modules outside the core install")
    for check in (check_envs, check_gymnasium_ids, check_agents, check_refusals):
        check()


if __name__ == "__main__":
    main()
