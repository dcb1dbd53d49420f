"""Per-deal variance and CPU cost of benchmark line-ups: the measurements behind pirate-bench v3's deal counts.

    python benchmarks/bench_protocol_variance.py --env-ids skull_king_v0 --opponents random heuristic halving:50 \
        --deals 64 --out runs/variance.json

For each game, table size and opponent, the reference network (the protocol's ``ppo`` opponent) plays
the first ``--deals`` published deals in duplicate rotation (`agents.benchmark.run.play_chunk`) against
``n - 1`` copies of the opponent. Printed and written per line-up: the variance over deals of the
candidate's win share averaged over a deal's rotations, the deals a normal 95% interval of half-width
``--width`` needs at that variance, and the CPU seconds per game (this process only; one worker;
one deal is played first, untimed, so that numba's compilation is not counted).

    python benchmarks/bench_protocol_variance.py --tables

prints, from the measurements committed in `agents.benchmark.design`, the markdown table of v3's
deals per line-up (`agents.benchmark.protocol.full_deals`), each one's planned 95% half-width and
CPU cost for one network candidate (CPU seconds a game times the games a full run plays), per game.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

import pirate_envs
from agents.benchmark.protocol import Lineup, deal_states, opponent_agent, table_sizes
from agents.benchmark.run import play_chunk
from agents.evaluation.stats import Z95
from agents.policy.blas import one_blas_thread


def measure(env_id: str, players: int, opponent: str, deals: int, width: float) -> dict:
    """One line-up's per-deal variance, the deals it needs for ``width`` and its CPU seconds per game."""
    candidate = opponent_agent("ppo", env_id)
    play_chunk(Lineup(env_id, players, opponent, 1), candidate, deal_states(1), 0)  # compile first, untimed
    tick = time.process_time()
    played = play_chunk(Lineup(env_id, players, opponent, deals), candidate, deal_states(deals), 0)
    seconds = time.process_time() - tick
    games = len(played.truncated)
    share = played.shares[np.arange(games), played.candidate_seat].reshape(deals, players).mean(axis=1)
    variance = float(share.var(ddof=1)) if deals > 1 else None  # one deal: its cost only
    return {
        "env_id": env_id,
        "players": players,
        "opponent": opponent,
        "pilot_deals": deals,
        "win_rate": float(share.mean()),
        "deal_variance": variance,
        "deals_needed": None if variance is None else math.ceil((Z95 / width) ** 2 * variance),
        "cpu_seconds_per_game": seconds / games,
    }


def tables() -> str:
    """v3's plan for one network candidate, from the committed measurements (`agents.benchmark.design`):
    per line-up its deals, planned 95% half-width and CPU cost; per game its cost against the budget."""
    from agents.benchmark import design
    from agents.benchmark.protocol import SEARCH_OPPONENTS, lineups, search_left_out

    lines = [
        "| game | players | line-up | measured variance | deals | planned ± | CPU-s a game | CPU-s of the line-up |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals = []
    for env_id in SEARCH_OPPONENTS:
        plan = lineups(env_id, pirate_envs.player_counts(env_id))
        for lineup in plan:
            key = (env_id, lineup.players, lineup.opponent)
            variance = design.MEASURED_VARIANCE.get(key)
            seconds = design.MEASURED_SECONDS.get(key)
            width = design.planned_half_width(*key, lineup.deals)
            games = lineup.deals * lineup.players
            cost = "not measured | —" if seconds is None else f"{seconds:.4f} | {games * seconds:.0f}"
            lines.append(
                f"| {env_id} | {lineup.players} | {lineup.opponent} | {'—' if variance is None else f'{variance:.4f}'} "
                f"| {lineup.deals} | {width:.3f} | {cost} |"
            )
        left_out = ", ".join(f"{n}p" for n in search_left_out(env_id)) or "none"
        try:
            total = design.planned_seconds(env_id, [(x.players, x.opponent, x.deals) for x in plan])
            totals.append(f"| {env_id} | {total:.0f} | {total / 3600:.2f} | {left_out} |")
        except KeyError:
            totals.append(f"| {env_id} | not measured | — | {left_out} |")
    header = ["| game | planned CPU-s of a full run | CPU-hours | search line-up left out |", "|---|---|---|---|"]
    return "\n".join([*lines, "", *header, *totals])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-ids", nargs="+", default=list(pirate_envs.ENV_IDS))
    parser.add_argument("--opponents", nargs="+", default=["random", "heuristic", "ppo"])
    parser.add_argument("--players", nargs="+", type=int, default=None, help="some table sizes (default: all)")
    parser.add_argument("--deals", type=int, default=64)
    parser.add_argument("--width", type=float, default=0.03)
    parser.add_argument("--out", default=None)
    parser.add_argument("--tables", action="store_true", help="print v3's plan from the committed measurements")
    args = parser.parse_args()
    if args.tables:
        print(tables())
        return
    rows = []
    with one_blas_thread():
        for env_id in args.env_ids:
            for players in table_sizes(env_id, opponent_agent("ppo", env_id)):
                if args.players and players not in args.players:
                    continue
                for opponent in args.opponents:
                    try:
                        row = measure(env_id, players, opponent, args.deals, args.width)
                    except ValueError as error:  # an opponent that does not play this game or size
                        print(f"{env_id} {players}p {opponent}: skipped ({error})", flush=True)
                        continue
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if args.out:
                        with open(args.out, "w") as handle:
                            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
