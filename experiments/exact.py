"""Exact exploitability of the suite's agents on small game variants: writes ``docs/exact.md``.

    python -m experiments.exact --out docs/exact.md
    python -m experiments.exact --out /tmp/exact.md --variants skull_king_1hand --quick

For each small variant (`agents.analysis.exact.small_variants`: a game dealt by OpenSpiel chance nodes) it
measures OpenSpiel's NashConv of: OpenSpiel's uniform random policy, the suite's ``random``
agent, the game's own agents (``heuristic``...), a PPO agent trained on the variant by
``experiments.train`` (its sampled policy, and its argmax), the search ``mcts:<n>`` (estimated
from a few seeded moves per information state), and ``cfr.CFRSolver`` after a few iteration
counts (a curve); and the curve of the PPO agent's NashConv against its training steps. The page
(and one figure per variant beside it, ``<page stem>_<variant>.png``) is written atomically and
states the budgets, seeds, wall and CPU times and library versions. Everything but the times is
fixed by ``--seed``. ``--quick``: the smallest budgets (a smoke run, not figures to quote).
The training runs go to a temporary folder, removed at the end.
"""

from __future__ import annotations

import contextlib
import io
import math
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras

require_extras(
    __name__,
    ("open_spiel", "openspiel"),
    ("torch", "train"),
    ("sb3_contrib", "train"),
    ("matplotlib", "train"),
)

from agents.analysis.exact import (
    FULL,
    QUICK,
    Budget,
    CurvePoint,
    Row,
    VariantResult,
    cfr_row,
    load_variant,
    measure_all,
    plot_curves,
    render_page,
    saved_checkpoints,
    small_variants,
    train_argv,
    variant_measurements,
)
from experiments import train
from experiments.cli import MAX_SEED, check_cpus, check_names, check_output_file, parse_args
from pirate_envs.core.files import write_atomic


@dataclass
class ExactArgs:
    """Write the page of exact exploitability (NashConv) of the suite's agents on small game variants."""

    out: str = field(default="docs/exact.md", metadata={"help": "the page to write (.md); figures go beside it"})
    variants: str = field(default="", metadata={"help": "comma-separated variant names (empty: every variant)"})
    quick: bool = field(default=False, metadata={"help": "the smallest budgets (a smoke run)"})
    seed: int = field(default=1, metadata={"help": "seed of the training and the agents", "min": 0, "max": MAX_SEED})
    jobs: int = field(
        default=1, metadata={"help": "processes measuring side by side (the figures do not change)", "min": 1}
    )


def chosen_variants(text: str) -> list[str]:
    """The variant names of ``--variants`` (empty: all), checked (one-line ``ValueError``)."""
    known = small_variants()
    names = [name.strip() for name in text.split(",")] if text.strip() else list(known)
    check_names(names, "--variants", [text])
    for name in names:
        if name not in known:
            raise ValueError(f"--variants {name!r} is not a variant; available: {', '.join(sorted(known))}")
    return names


def check_args(args: ExactArgs) -> None:
    """``ValueError`` (one line) for an output path or variant list that cannot make a page."""
    out = Path(args.out)
    if out.suffix != ".md":
        raise ValueError(f"--out {args.out!r} must name a Markdown file (.md)")
    check_output_file(out, "--out")
    chosen_variants(args.variants)
    check_cpus(args.jobs, "--jobs")


def command_line(args: ExactArgs) -> str:
    """The command that writes this page."""
    command = "python -m experiments.exact --out " + shlex.quote(args.out)
    if args.variants:
        command += " --variants " + shlex.quote(args.variants)
    if args.quick:
        command += " --quick"
    command += f" --seed {args.seed}" if args.seed != ExactArgs.seed else ""
    return command + (f" --jobs {args.jobs}" if args.jobs != 1 else "")


def measure_variant(name: str, budget: Budget, seed: int, figure: Path, jobs: int) -> VariantResult:
    """Every measurement of the variant ``name``: the PPO agent trained on it (in a temporary folder), then the
    agents, its checkpoints and CFR, measured by ``jobs`` processes; the figure of both curves at ``figure``."""
    env_id, params = small_variants()[name]
    game = load_variant(name)
    with tempfile.TemporaryDirectory(prefix="exact_ppo_") as folder:
        argv = train_argv(game, budget, seed, Path(folder))
        wall = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):  # the trainer's report; the page has what matters
            run_dir = Path(train.main(argv))
        train_wall = time.perf_counter() - wall
        saved = saved_checkpoints(run_dir)
        tasks = variant_measurements(name, budget, seed, saved)
        done = measure_all(tasks, jobs)
    cfr_points = sorted((point for point in done if isinstance(point, CurvePoint)), key=lambda p: p.step)
    rows = [row for row in done if isinstance(row, Row)]
    for row in rows:
        print(f"{name}: {row.agent}: NashConv {row.measured.nash_conv:.4f}", flush=True)
    print(f"{name}: CFR: NashConv {', '.join(f'{p.nash_conv:.4f}' for p in cfr_points)}", flush=True)
    ppo_curve = [
        CurvePoint(step, row.measured.nash_conv, row.measured.wall_s, row.measured.cpu_s)
        for (step, _), row in zip(saved, (row for row in rows if row.agent.endswith("sampled")))
    ]
    shown = ["<temporary folder>" if arg == folder else arg for arg in argv]
    shown_lines = ("uniform (OpenSpiel)", "heuristic")
    references = {
        row.agent: row.measured.nash_conv
        for row in rows
        if row.agent in shown_lines and math.isfinite(row.measured.nash_conv)
    }
    panels = [("CFR iterations", cfr_points), ("PPO learner steps (sampled policy)", ppo_curve)]
    plot_curves(panels, figure, f"NashConv, {name}", references)
    sampled = [row for row in rows if row.agent.endswith("sampled")]
    others = [row for row in rows if not row.agent.endswith("sampled")]
    return VariantResult(
        name=name,
        env_id=env_id,
        params=dict(params),
        rows=(*others[:-1], sampled[-1], others[-1], cfr_row(cfr_points)),
        cfr=tuple(cfr_points),
        ppo=tuple(ppo_curve),
        train_wall_s=train_wall,
        train_command="python -m experiments.train " + shlex.join(shown),
        figure=figure.name,
    )


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(ExactArgs, argv, check=check_args)
    budget = QUICK if args.quick else FULL
    out = Path(args.out)
    start = time.perf_counter()
    results = [
        measure_variant(name, budget, args.seed, out.with_name(f"{out.stem}_{name}.png"), args.jobs)
        for name in chosen_variants(args.variants)
    ]
    wall = time.perf_counter() - start
    page = render_page(command_line(args), budget, results, args.seed, args.quick, wall, args.jobs)
    write_atomic(out, page)
    print(f"wrote {out}")
    return out


if __name__ == "__main__":
    main()
