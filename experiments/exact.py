"""Exact exploitability of the suite's agents on small game variants: writes ``docs/exact.md``.

    python -m experiments.exact --out docs/exact.md
    python -m experiments.exact --out /tmp/exact.md --variants skull_king_1hand --quick

For each small variant (`agents.exact.small_variants`: a game dealt by OpenSpiel chance nodes) it
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
import platform
import re
import shlex
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from agents.extras import require_extras

require_extras(
    __name__,
    ("open_spiel", "openspiel"),
    ("torch", "train"),
    ("sb3_contrib", "train"),
    ("matplotlib", "train"),
)

from open_spiel.python import policy as openspiel_policy

import pirate_envs
from agents.checkpoint import write_atomic
from agents.exact import (
    EXACT,
    AgentPolicy,
    CurvePoint,
    Measured,
    cfr_curve,
    env_config,
    load_variant,
    nash_conv,
    plot_curves,
    small_variants,
)
from agents.game_agents import game_agent_kinds
from experiments import train
from experiments.cli import MAX_SEED, parse_args


@dataclass(frozen=True)
class Budget:
    """What one page spends per variant."""

    #: CFR iteration counts of the curve (one solver, run on).
    cfr_iterations: tuple[int, ...]
    #: PPO learner steps in all, and the checkpoints of its curve (evenly spaced).
    ppo_steps: int
    ppo_points: int
    #: The search agent, and the moves drawn per information state to estimate it.
    search: str
    samples: int


FULL = Budget(cfr_iterations=(1, 2, 4, 8), ppo_steps=32_768, ppo_points=4, search="mcts:16", samples=8)
QUICK = Budget(cfr_iterations=(1,), ppo_steps=1_024, ppo_points=1, search="mcts:2", samples=2)

#: The PPO trainer's flags beside the variant, budget and seed: a small rollout (8 envs x 64 steps), games
#: played one by one in this process; the opponent pool is the trainer's default.
TRAIN_FLAGS = (
    "--num-envs", "8", "--n-steps", "64", "--batch-size", "256",
    "--engine", "single", "--num-workers", "0",
    "--eval-every", "0", "--eval-games", "1", "--eval-opponents", "random",
    "--no-progress",
)  # fmt: skip


@dataclass
class ExactArgs:
    """Write the page of exact exploitability (NashConv) of the suite's agents on small game variants."""

    out: str = field(default="docs/exact.md", metadata={"help": "the page to write (.md); figures go beside it"})
    variants: str = field(default="", metadata={"help": "comma-separated variant names (empty: every variant)"})
    quick: bool = field(default=False, metadata={"help": "the smallest budgets (a smoke run)"})
    seed: int = field(default=1, metadata={"help": "seed of the training and the agents", "min": 0, "max": MAX_SEED})


def chosen_variants(text: str) -> list[str]:
    """The variant names of ``--variants`` (empty: all), checked (one-line ``ValueError``)."""
    known = small_variants()
    names = [name.strip() for name in text.split(",")] if text.strip() else list(known)
    for name in names:
        if name not in known:
            raise ValueError(f"--variants {name!r} is not a variant; available: {', '.join(sorted(known))}")
    return list(dict.fromkeys(names))


def check_args(args: ExactArgs) -> None:
    """``ValueError`` (one line) for an output path or variant list that cannot make a page."""
    out = Path(args.out)
    if out.suffix != ".md":
        raise ValueError(f"--out {args.out!r} must name a Markdown file (.md)")
    if out.is_dir():
        raise ValueError(f"--out {args.out!r} is a folder; give the page's file name")
    if out.parent.exists() and not out.parent.is_dir():
        raise ValueError(f"--out {args.out!r}: {out.parent} is not a folder")
    chosen_variants(args.variants)


# ----------------------------------------------------------------------------- measuring one variant
@dataclass
class Row:
    """One agent's line of a variant's table."""

    agent: str
    method: str
    measured: Measured
    note: str = ""


@dataclass
class VariantResult:
    """What the page shows of one variant."""

    name: str
    env_id: str
    params: dict[str, Any]
    rows: list[Row]
    cfr: list[CurvePoint]
    ppo: list[CurvePoint]
    train_wall_s: float
    train_command: str
    figure: str | None = None


def train_argv(env_id: str, game: Any, budget: Budget, seed: int, out_dir: Path) -> list[str]:
    """The ``experiments.train`` command line of the variant's PPO agent."""
    settings = game.kit.settings
    config = env_config(game)
    options = [option.name for option in pirate_envs.game_spec(env_id).options]
    kwargs = [f"{name}={config[name]!r}".replace(" ", "") for name in options if name in config]
    every = max(1, budget.ppo_steps // budget.ppo_points)
    argv = [
        "--env-id", env_id,
        "--num-players", str(settings.config.num_players),
        "--reward-mode", settings.returns,
        "--total-timesteps", str(budget.ppo_steps),
        "--checkpoint-every", str(every),
        "--snapshot-every", str(every),
        "--seed", str(seed),
        "--out-dir", str(out_dir),
        "--run-name", "ppo",
        *TRAIN_FLAGS,
    ]  # fmt: skip
    return argv + (["--env-kwargs", *kwargs] if kwargs else [])


def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """The ``step_<n>.npz`` agents of a training run, by step."""
    found = []
    for path in (run_dir / "checkpoints").glob("step_*.npz"):
        match = re.fullmatch(r"step_(\d+)\.npz", path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def measure_agent(game: Any, name: str, label: str, seed: int, samples: int) -> Row:
    """The row of the agent ``name`` (shown as ``label``)."""
    policy = AgentPolicy(game, name, seed=seed, samples=samples)
    measured = nash_conv(game, policy)
    note = f"{samples} moves per information state" if policy.method == "sampled" else ""
    return Row(label, policy.method, measured, note)


def measure_variant(name: str, budget: Budget, seed: int, figure: Path | None, log: Any) -> VariantResult:
    """Every measurement of the variant ``name`` (see the module docstring)."""
    env_id, params = small_variants()[name]
    game = load_variant(name)
    rows = [Row("uniform (OpenSpiel)", EXACT, nash_conv(game, openspiel_policy.UniformRandomPolicy(game)))]
    log(f"{name}: uniform {rows[-1].measured.nash_conv:.4f}")
    for agent in ["random", *game_agent_kinds(env_id)]:
        rows.append(measure_agent(game, agent, agent, seed, budget.samples))
        log(f"{name}: {agent} {rows[-1].measured.nash_conv:.4f}")
    with tempfile.TemporaryDirectory(prefix="exact_ppo_") as folder:
        argv = train_argv(env_id, game, budget, seed, Path(folder))
        wall = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            run_dir = Path(train.main(argv))
        train_wall = time.perf_counter() - wall
        ppo_curve = []
        saved = checkpoints(run_dir)
        for step, path in saved:
            measured = nash_conv(game, AgentPolicy(game, f"ppo:{path}#sample", seed=seed))
            ppo_curve.append(CurvePoint(step, measured.nash_conv, measured.wall_s, measured.cpu_s))
            log(f"{name}: ppo after {step} steps {measured.nash_conv:.4f}")
        final_step, final = saved[-1]
        rows.append(Row(f"ppo, {final_step} steps, sampled", EXACT, _measured(ppo_curve[-1]), "the masked softmax"))
        rows.append(measure_agent(game, f"ppo:{final}", f"ppo, {final_step} steps, argmax", seed, budget.samples))
        log(f"{name}: ppo argmax {rows[-1].measured.nash_conv:.4f}")
    rows.append(measure_agent(game, budget.search, budget.search, seed, budget.samples))
    log(f"{name}: {budget.search} {rows[-1].measured.nash_conv:.4f}")
    cfr_points = cfr_curve(game, budget.cfr_iterations)
    last = cfr_points[-1]
    cfr_total = Measured(last.nash_conv, sum(p.wall_s for p in cfr_points), sum(p.cpu_s for p in cfr_points))
    rows.append(Row(f"CFR, {last.step} iterations", EXACT, cfr_total, "average policy; times: the whole curve"))
    log(f"{name}: CFR {[round(p.nash_conv, 4) for p in cfr_points]}")
    shown = [arg if not arg.startswith(tempfile.gettempdir()) else "<temporary folder>" for arg in argv]
    command = "python -m experiments.train " + shlex.join(shown)
    result = VariantResult(name, env_id, dict(params), rows, cfr_points, ppo_curve, train_wall, command)
    if figure is not None:
        plot_curves([("CFR iterations", cfr_points), ("PPO learner steps", ppo_curve)], figure, f"NashConv, {name}")
        result.figure = figure.name
    return result


def _measured(point: CurvePoint) -> Measured:
    return Measured(point.nash_conv, point.wall_s, point.cpu_s)


# ----------------------------------------------------------------------------- the page
def versions() -> dict[str, str]:
    """The versions of Python and the libraries the figures depend on."""
    found = {"python": platform.python_version(), "pirate_envs": pirate_envs.__version__}
    for package in ("open-spiel", "numpy", "torch", "sb3-contrib"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "absent"
    return found


def _curve_table(points: Sequence[CurvePoint], step_name: str) -> list[str]:
    lines = [f"| {step_name} | NashConv | wall s | CPU s |", "|---:|---:|---:|---:|"]
    lines += [f"| {p.step} | {p.nash_conv:.4f} | {p.wall_s:.1f} | {p.cpu_s:.1f} |" for p in points]
    return lines


def variant_section(result: VariantResult) -> list[str]:
    """The Markdown section of one variant."""
    params = ", ".join(f"{key}={value!r}" for key, value in result.params.items())
    lines = [
        f"## {result.name}",
        "",
        f"`load_game({result.env_id!r}, {params})`",
        "",
        "| agent | probabilities | NashConv | wall s | CPU s | note |",
        "|---|---|---:|---:|---:|---|",
    ]
    for row in result.rows:
        m = row.measured
        cells = [row.agent, row.method, f"{m.nash_conv:.4f}", f"{m.wall_s:.1f}", f"{m.cpu_s:.1f}", row.note]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "CFR (`cfr.CFRSolver`, its average policy); times: the iterations since the previous row and the "
              "NashConv:", ""]  # fmt: skip
    lines += _curve_table(result.cfr, "iterations")
    lines += [
        "",
        f"The PPO agent's sampled policy along its training ({result.train_wall_s:.1f} s wall in all, evaluation "
        "included; times: the NashConv only):",
        "",
        f"`{result.train_command}`",
        "",
    ]
    lines += _curve_table(result.ppo, "learner steps")
    if result.figure:
        lines += ["", f"![NashConv of CFR and of PPO, {result.name}]({result.figure})"]
    return lines + [""]


INTRO = """\
# Exact exploitability on small variants

*Generated by `{command}`; do not edit by hand.*

NashConv is the sum over the seats of what a best response to the other seats' policy gains
over the policy itself: 0 at a Nash equilibrium, larger the more a policy can be exploited.
Here it is exact: OpenSpiel's `exploitability.nash_conv` walks the whole game tree of a small
variant whose deals are chance nodes (`pirate_envs.openspiel`, `chance="explicit"`), so it
needs no sampling and no trained opponent. The rewards are the envs' `"win"` returns
(+1 to the winner, -1 to the loser), so a NashConv of 2 means a best response always wins.

Each suite agent becomes an OpenSpiel policy (`agents.exact.AgentPolicy`): at every state it is
shown what it would see at that seat (the env's observation of the seat's View, the mask, the
View) and its probabilities are read, per information state:

* **exact**: a trained network's masked softmax (the PPO agent's sampled policy,
  `ppo:<agent>#sample`), the suite's `random` (uniform over the action blocks with a legal
  action, then within the block), OpenSpiel's uniform policy, CFR's average policy;
* **one-hot**: a deterministic agent's move (a game agent such as `heuristic`, a network's
  argmax, `ppo:<agent>`);
* **sampled**: an *estimate* for an agent that only samples (the search `mcts:<n>`): the
  frequencies of a few moves drawn with seeds fixed by the information state. Its NashConv is
  that of the estimated policy, not exactly the agent's.

Every move is asked of an agent reset afresh (an agent that remembers positions starts empty
each time), and a state with one legal action needs no agent. The PPO agent is trained on the
variant itself by `experiments.train` (the suite's self-play PPO, its default opponent pool:
snapshots of itself, the heuristic and random), with the budget below.
"""


def render_page(args: ExactArgs, budget: Budget, results: Sequence[VariantResult], total_wall_s: float) -> str:
    """The whole page."""
    command = "python -m experiments.exact --out " + shlex.quote(args.out)
    if args.variants:
        command += " --variants " + shlex.quote(args.variants)
    if args.quick:
        command += " --quick"
    if args.seed != ExactArgs.seed:
        command += f" --seed {args.seed}"
    lines = [INTRO.format(command=command)]
    for result in results:
        lines += variant_section(result)
    run = [
        "## The run",
        "",
        f"* Budget{' (`--quick`: a smoke run)' if args.quick else ''}: CFR iterations "
        f"{', '.join(map(str, budget.cfr_iterations))}; PPO {budget.ppo_steps} learner steps, "
        f"{budget.ppo_points} checkpoint(s) on its curve; search `{budget.search}` with {budget.samples} "
        f"moves per information state.",
        f"* Seed {args.seed} (the training run, every agent and the search's draws); everything but the times "
        "is fixed by it.",
        f"* Total wall time {total_wall_s:.0f} s. Wall times depend on the machine's load; CPU times are this "
        "process's.",
        "* Versions: " + ", ".join(f"{name} {version}" for name, version in versions().items()) + ".",
        "",
    ]
    return "\n".join(lines + run)


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(ExactArgs, argv, check=check_args)
    budget = QUICK if args.quick else FULL
    out = Path(args.out)
    start = time.perf_counter()
    results = []
    for name in chosen_variants(args.variants):
        figure = out.with_name(f"{out.stem}_{name}.png")
        results.append(measure_variant(name, budget, args.seed, figure, log=lambda text: print(text, flush=True)))
    write_atomic(out, render_page(args, budget, results, time.perf_counter() - start))
    print(f"wrote {out}")
    return out


__all__ = ["FULL", "QUICK", "Budget", "ExactArgs", "check_args", "chosen_variants", "main", "render_page"]


if __name__ == "__main__":
    main()
