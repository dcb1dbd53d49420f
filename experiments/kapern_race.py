"""Solve two-player Piraten Kapern for the win and write the race table (`agents.piraten_kapern.race`).

    python -m experiments.kapern_race                       # rebuild the package's table
    python -m experiments.kapern_race --out race.npz        # elsewhere
    python -m experiments.kapern_race --check               # the shipped table's Bellman residual
    python -m experiments.kapern_race --check --play 2000   # and its prediction against play

Prints each sweep's largest change, then the first player's win probability under optimal play
(from 0 : 0, a shared win counted one half), the sweeps and the wall time. ``--check`` solves
``--samples`` states of the table again from the table itself and prints the largest difference;
``--play N`` then plays N games of the race agent against itself (seeds ``--seed`` on) and prints
the first seat's win share with its 95% interval beside the table's prediction.
Needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from agents.evaluation.stats import mean_interval
from agents.extras import require_extras
from agents.piraten_kapern.race import (
    TABLE_PATH,
    bellman_residual,
    build_race_table,
    first_seat_shares,
    load_race_table,
    save_race_table,
)
from experiments.cli import (
    MAX_SEED,
    check_cpus,
    check_input_file,
    check_output_file,
    flag_of,
    given_flags,
    parse_args,
)
from pirate_envs.core.errors import one_line

require_extras(__name__, ("numba", "fast"))  # the solver's kernels (imported when it runs)


@dataclass
class RaceArgs:
    """Solve two-player Piraten Kapern for the win: the race table."""

    out: str = field(default=str(TABLE_PATH), metadata={"help": "the .npz to write"})
    threads: int = field(default=2, metadata={"help": "solver threads (the result does not depend on them)", "min": 1})
    check: bool = field(default=False, metadata={"help": "only check the table in --out: solve states again"})
    samples: int = field(default=200, metadata={"help": "with --check: states solved again", "min": 1})
    play: int = field(default=0, metadata={"help": "with --check: games of the race agent against itself", "min": 0})
    seed: int = field(default=0, metadata={"help": "seed of the first --play game", "min": 0, "max": MAX_SEED})


#: The flags only ``--check`` uses.
CHECK_ONLY = ("samples", "play")


def check_args(args: RaceArgs, given: set[str] | frozenset[str] = frozenset()) -> None:
    """``ValueError`` (one line) for a bad value."""
    if not args.out.endswith(".npz"):
        raise ValueError(f"--out {args.out!r}: the table is an .npz file")
    if not args.check:  # the table is written after an hour of solving: its place is checked first
        check_output_file(args.out, "--out")
    unused = [flag_of(name) for name in (CHECK_ONLY if not args.check else ("threads",)) if name in given]
    if unused:
        mode = "only --check uses it" if not args.check else "--check solves nothing in threads"
        raise ValueError(f"{' and '.join(unused)}: {mode}; leave it out")
    if "seed" in given and not args.play:
        raise ValueError("--seed: the seed of the --play games; give --check --play N")
    if "threads" in given:  # the default fits any machine
        check_cpus(args.threads, "--threads")
    if args.check:
        check_input_file(args.out, "--out")


def main(argv: list[str] | None = None) -> None:
    given = given_flags(RaceArgs, argv)
    args = parse_args(RaceArgs, argv, check=lambda parsed: check_args(parsed, given))
    start = time.perf_counter()
    if args.check:
        try:
            table = load_race_table(args.out)
        except ValueError as error:  # a damaged or crafted file: one line, status 2
            sys.stderr.write(f"kapern_race: error: --out {args.out}: {one_line(error)}\n")
            raise SystemExit(2) from None
        residual = bellman_residual(table, args.samples)
        print(f"{args.out}: {args.samples} states solved again, largest difference {residual:.3g}")
        if args.play:
            mean, low, high = mean_interval(first_seat_shares(args.play, args.seed, table))
            print(f"first seat's win share in {args.play} games: {mean:.4f} [{low:.4f}, {high:.4f}]")
    else:
        table = build_race_table(args.threads, progress=lambda s, c, _: print(f"sweep {s}: largest change {c:.3g}"))
        save_race_table(table, args.out)
        print(f"wrote {args.out}")
    print(
        f"first player's win probability {table.first_player_win:.6f} ({table.sweeps} sweeps, last change "
        f"{table.residual:.3g}); {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
