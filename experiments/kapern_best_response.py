"""The most any player can win against a fixed Kapern opponent at two players (`agents.piraten_kapern.best_response`).

    python -m experiments.kapern_best_response --opponent oracle
    python -m experiments.kapern_best_response --opponent heuristic --out br_heuristic.npz
    python -m experiments.kapern_best_response --tables br_heuristic.npz --play 20000
    python -m experiments.kapern_best_response --opponent oracle --out agents/piraten_kapern/best_response_oracle.npz

(the last rebuilds a table the package ships: the agents ``best_response:oracle`` and ``best_response:heuristic``
play the shipped files).

Prints each sweep's largest change and the win rate so far, then the best response's win probability against the
opponent moving first, second, and with the seats rotated (a shared win counted one half), and
the wall time. ``--play N`` then plays N games (seeds ``--seed`` on, the seats alternating) of the
race agent reading the solved tables against the opponent, and prints its win share with its 95%
interval beside the solution's. ``--out``: also write both tables (a data-only ``.npz``);
``--tables``: read such a file (its opponent) instead of solving.
Needs numba (the ``fast`` extra).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from agents.evaluation.stats import mean_interval
from agents.extras import require_extras
from agents.piraten_kapern.best_response import (
    OPPONENTS,
    best_response_shares,
    load_best_response,
    opponent_plan,
    save_best_response,
    solve_best_response,
    turn_outcomes,
)
from agents.piraten_kapern.race import SWEEP_TOLERANCE
from experiments.cli import (
    MAX_SEED,
    check_input_file,
    check_output_file,
    flag_of,
    given_flags,
    parse_args,
)
from pirate_envs.core.errors import one_line

require_extras(__name__, ("numba", "fast"))  # the solver's kernels (imported when it runs)


@dataclass
class BestResponseArgs:
    """Solve two-player Piraten Kapern for the win against a fixed opponent."""

    opponent: str = field(default="oracle", metadata={"help": f"the fixed opponent: one of {tuple(OPPONENTS)}"})
    out: str = field(default="", metadata={"help": "an .npz to write both tables to (none: not written)"})
    tables: str = field(default="", metadata={"help": "an .npz written by --out: play it instead of solving"})
    play: int = field(default=0, metadata={"help": "games of the best response against the opponent", "min": 0})
    seed: int = field(default=0, metadata={"help": "seed of the first --play game", "min": 0, "max": MAX_SEED})
    tolerance: float = field(
        default=SWEEP_TOLERANCE, metadata={"help": "solved when a sweep moves no value by more than this"}
    )


#: The flags a solve uses and ``--tables`` (the solved tables, their opponent recorded) does not.
SOLVE_ONLY = ("opponent", "tolerance")


def check_args(args: BestResponseArgs, given: set[str] | frozenset[str] = frozenset()) -> None:
    """``ValueError`` (one line) for a bad value, or a flag of ``given`` (the flags the command line set)
    that this run would not use."""
    if args.opponent not in OPPONENTS:
        raise ValueError(f"--opponent {args.opponent!r}: one of {tuple(OPPONENTS)}")
    for flag, path in (("--out", args.out), ("--tables", args.tables)):
        if path and not path.endswith(".npz"):
            raise ValueError(f"{flag} {path!r}: the tables are an .npz file")
    if args.out:  # written after the solve: its place is checked first
        check_output_file(args.out, "--out")
    if args.tables:
        check_input_file(args.tables, "--tables")
        unused = [flag_of(name) for name in SOLVE_ONLY if name in given]
        if unused:
            raise ValueError(f"{' and '.join(unused)}: --tables plays solved tables (their opponent is recorded)")
    if "seed" in given and not args.play:
        raise ValueError("--seed: the seed of the --play games; give --play N")
    if not 0 < args.tolerance < 1:
        raise ValueError(f"--tolerance {args.tolerance}: between 0 and 1")


def main(argv: list[str] | None = None) -> None:
    given = given_flags(BestResponseArgs, argv)
    args = parse_args(BestResponseArgs, argv, check=lambda parsed: check_args(parsed, given))
    start = time.perf_counter()
    if args.tables:
        try:
            result, args.opponent = load_best_response(args.tables)
        except ValueError as error:  # a damaged or crafted file: one line, status 2
            sys.stderr.write(f"kapern_best_response: error: --tables {args.tables}: {one_line(error)}\n")
            raise SystemExit(2) from None
    else:
        result = solve_best_response(
            turn_outcomes(opponent_plan(args.opponent)),
            tolerance=args.tolerance,
            progress=lambda s, c, r: print(f"sweep {s}: largest change {c:.3g}, win rate {r.win_rate:.6f}", flush=True),
        )
    if args.out:
        save_best_response(result, args.opponent, args.out)
        print(f"wrote {args.out}")
    print(
        f"best response to {args.opponent}: {result.first_seat:.6f} moving first, {result.second_seat:.6f} second, "
        f"{result.win_rate:.6f} with the seats rotated ({result.sweeps} sweeps, last change {result.residual:.3g})"
        + ("" if args.tables else f"; {time.perf_counter() - start:.0f} s")
    )
    if args.play:
        mean, low, high = mean_interval(best_response_shares(result, args.opponent, args.play, args.seed))
        print(f"its win share in {args.play} games: {mean:.4f} [{low:.4f}, {high:.4f}] (solved: {result.win_rate:.4f})")


if __name__ == "__main__":
    main()
