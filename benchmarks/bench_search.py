"""Speed of the search agent: its moves per second and the CPU time of one game per env id.

Each env id plays ``--games`` whole games with each ``--agent`` (default ``mcts``, the default
budget; several names are timed in the same run, on the same deals) in one seat, rotated over
the seats, and the heuristic in the others (Piraten Kapern at two players, the others at four).
The search seat's decisions are timed with this process's CPU clock (``time.process_time``: one
core, less sensitive to other processes than the wall clock); forced moves (one legal action)
are played without search and counted apart. Each agent makes one untimed move first, so the
timings leave out numba's compilation (or its cache's load) on first use.

    python benchmarks/bench_search.py [--agent mcts [mcts:200:batched ...]] [--games 2] [--env-ids ID ...]

Prints, per env id and agent: the search seat's decisions per game, searched moves per CPU-second,
and the CPU seconds the search seat spent per game (median, mean and largest).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pirate_envs
from agents.policy.blas import one_blas_thread
from agents.registry import make_agent

#: The table size of each game's strength figures: its default table.
PLAYERS = {spec.env_id: spec.default_players for spec in pirate_envs.GAME_SPECS}


def time_games(env_id: str, agent_name: str, games: int, seed: int = 0) -> dict[str, float]:
    """Play ``games`` games with ``agent_name`` in one rotating seat; its timings."""
    n = PLAYERS[env_id]
    env = pirate_envs.make(env_id, raw=True, num_players=n)
    search = make_agent(agent_name, env_id, seed=seed, env=env)
    others = [make_agent("heuristic", env_id, seed=seed + s, env=env) for s in range(1, n)]
    env.reset(seed=seed + 10**6)  # one untimed move first: numba compiles (or loads) its kernels on first use
    search.act(env.observe(env.possible_agents[env.game.current_player]), env.game.view(env.game.current_player))
    per_game, searched, forced, search_seconds = [], 0, 0, 0.0
    for g in range(games):
        seat = g % n
        lineup = others[:seat] + [search] + others[seat:]
        env.reset(seed=seed + g)
        for s, agent in enumerate(lineup):
            agent.reset(seed * 101 + g * 7 + s)
        game, spent = env.game, 0.0
        while not game.done:
            player = game.current_player
            obs = env.observe(env.possible_agents[player])
            if player == seat:
                start = time.process_time()
                action = search.act(obs, game.view(player))
                elapsed = time.process_time() - start
                spent += elapsed
                if int(np.count_nonzero(obs["action_mask"])) > 1:
                    searched += 1
                    search_seconds += elapsed
                else:
                    forced += 1
            else:
                action = lineup[player].act(obs, game.view(player))
            env.step(action)
        per_game.append(spent)
    return {
        "decisions_per_game": (searched + forced) / games,
        "searched_moves_per_s": searched / search_seconds if search_seconds else float("nan"),
        "cpu_s_per_game": float(np.mean(per_game)),
        "cpu_s_median_game": float(np.median(per_game)),
        "cpu_s_max_game": float(np.max(per_game)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--agent", nargs="+", default=["mcts"], help="search agent names, timed in turn (default: %(default)s)"
    )
    parser.add_argument("--games", type=int, default=2, help="games per env id (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default: %(default)s)")
    parser.add_argument("--env-ids", nargs="+", default=list(PLAYERS), choices=list(PLAYERS), help="env ids")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    print("| env id | players | agent | decisions / game | searched moves / CPU-s | CPU-s / game: median, mean (max) |")
    print("|---|---|---|---|---|---|")
    for env_id in args.env_ids:
        for agent in args.agent:
            with one_blas_thread():  # as the suite plays games (see agents.policy.blas)
                r = time_games(env_id, agent, args.games, args.seed)
            print(
                f"| {env_id} | {PLAYERS[env_id]} | {agent} | {r['decisions_per_game']:.1f} "
                f"| {r['searched_moves_per_s']:.2f} | {r['cpu_s_median_game']:.2f}, {r['cpu_s_per_game']:.2f} "
                f"({r['cpu_s_max_game']:.2f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
