"""Exact exploitability (NashConv) of the suite's agents on small game variants.

A game loaded with explicit chance (`pirate_envs.openspiel`, ``chance="explicit"``) can be walked
whole by OpenSpiel's exact algorithms; this module makes any suite agent an OpenSpiel policy over
it and measures it:

`AgentPolicy` makes any suite agent an OpenSpiel policy (exact for a network, ``random`` and the game
agents; an estimate from ``samples`` seeded moves for a search), `nash_conv` measures it with its
times (`Measured`), `cfr_curve` gives CFR's NashConv over iterations. Needs the ``openspiel``
extra; the variants are ``pirate_envs.openspiel``'s ``SMALL_VARIANTS``; ``python -m experiments.exact``
writes ``docs/exact.md`` from these. How each kind of agent becomes a policy:
``docs/guides/openspiel.md`` ("Exact exploitability of the suite's agents").
"""

from __future__ import annotations

import dataclasses
import math
import platform
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.base import Agent, RandomAgent
from agents.game_agents import game_agent_kinds
from agents.policy.agent import PolicyAgent
from agents.registry import make_agent
from pirate_envs.openspiel import MISSING_EXTRA, SMALL_VARIANTS, load_variant

try:
    from open_spiel.python import policy as openspiel_policy
    from open_spiel.python.algorithms import cfr, exploitability
except ImportError:
    raise ImportError(MISSING_EXTRA) from None

#: Moves drawn per information state to estimate a stochastic agent without probabilities (a search).
DEFAULT_SAMPLES = 8

#: How `AgentPolicy` gets an agent's probabilities (`agent_method`).
EXACT, ONE_HOT, SAMPLED = "exact", "one-hot", "sampled"
#: A table row of a game agent that does not play the variant (`measure_agent`).
NOT_OFFERED = "not offered"


def small_variants() -> dict[str, tuple[str, dict[str, Any]]]:
    """The small explicit-chance variants (`pirate_envs.openspiel.SMALL_VARIANTS`): name -> (env id, parameters)."""
    return dict(SMALL_VARIANTS)


def env_config(game: Any) -> dict[str, Any]:
    """The env keyword arguments of the game's config (``pirate_envs.make(env_id, **them)`` plays the same rules)."""
    return dataclasses.asdict(game.kit.settings.config)


# ----------------------------------------------------------------------------- one agent's probabilities
def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> dict[int, float]:
    """The softmax of ``logits`` over the ``legal`` actions, as `agents.policy.mlp.MlpPolicy.act` samples it."""
    z = np.asarray(logits, dtype=np.float64)[legal]
    p = np.exp(z - z.max())
    p /= p.sum()
    return {int(a): float(q) for a, q in zip(legal, p)}


def network_probabilities(agent: PolicyAgent, observation: dict[str, np.ndarray]) -> dict[int, float]:
    """A trained agent's probabilities: its masked softmax (``#sample``) or its argmax, one-hot."""
    obs, legal = observation["observation"], np.flatnonzero(observation["action_mask"])
    logits = agent.policy_for(obs).logits(obs)
    if agent.deterministic:
        return {int(legal[int(np.argmax(logits[legal]))]): 1.0}
    return masked_softmax(logits, legal)


def block_uniform_probabilities(mask: np.ndarray, blocks: Sequence[tuple[int, int]]) -> dict[int, float]:
    """The probabilities of `pirate_envs.core.actions.sample_legal`: uniform over the ``blocks`` with a legal
    action, then uniform within the block drawn (no blocks: uniform over the legal actions)."""
    legal = np.flatnonzero(mask)
    groups = [legal[(legal >= start) & (legal < stop)] for start, stop in blocks]
    groups = [group for group in groups if group.size] or [legal]
    return {int(a): 1.0 / (len(groups) * group.size) for group in groups for a in group}


def agent_method(agent: Agent, name: str, env_id: str) -> str:
    """How `AgentPolicy` reads ``agent`` (called ``name``): `EXACT`, `ONE_HOT` or `SAMPLED` (see the module)."""
    if isinstance(agent, PolicyAgent):
        return ONE_HOT if agent.deterministic else EXACT
    if isinstance(agent, RandomAgent):
        return EXACT
    return ONE_HOT if name in game_agent_kinds(env_id) else SAMPLED


def draw_seed(seed: int, key: Iterable[Any], draw: int) -> int:
    """The seed of draw ``draw`` at an information state ``key``: fixed by them alone (not by the order of queries)."""
    digest = zlib.crc32(repr(tuple(key)).encode())
    return int(np.random.SeedSequence([seed, digest, draw]).generate_state(1)[0])


class AgentPolicy(openspiel_policy.Policy):
    """The suite agent ``name`` as an OpenSpiel policy over the states of ``game`` (see the module docstring).

    ``samples``: moves drawn per information state for an agent without probabilities (`SAMPLED`);
    ``seed``: the agent's seed (and of those draws). ``method`` says how the probabilities come.
    """

    def __init__(self, game: Any, name: str, seed: int = 0, samples: int = DEFAULT_SAMPLES):
        if samples < 1:
            raise ValueError(f"samples={samples} must be at least 1")
        super().__init__(game, list(range(game.num_players())))
        self.name, self.seed, self.samples = name, seed, samples
        self.env_id: str = game.kit.settings.env_id
        self.raw = pirate_envs.make(self.env_id, raw=True, **env_config(game))
        self.agent = make_agent(name, self.env_id, seed=seed, env=self.raw)
        self.method = agent_method(self.agent, name, self.env_id)
        self.cache: dict[tuple[Any, ...], dict[int, float]] = {}
        self.queries = 0  # agent moves asked (cache misses times draws)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        engine = state.table.engine
        legal = engine.legal_actions()
        if len(legal) == 1:
            return {int(legal[0]): 1.0}
        mask = engine.legal_mask()
        view = engine.view(player)
        obs = self.raw.encode(view)
        key = (player, state.information_state_string(player), obs.tobytes(), mask.tobytes())
        cached = self.cache.get(key)
        if cached is None:
            cached = self.cache[key] = self._probabilities(engine, key, {"observation": obs, "action_mask": mask}, view)
        return dict(cached)

    def _probabilities(
        self, engine: Any, key: tuple[Any, ...], observation: dict[str, np.ndarray], view: Any
    ) -> dict[int, float]:
        agent = self.agent
        if isinstance(agent, PolicyAgent):
            return network_probabilities(agent, observation)
        if isinstance(agent, RandomAgent):
            return block_uniform_probabilities(observation["action_mask"], agent.blocks)
        draws = 1 if self.method == ONE_HOT else self.samples
        counts: Counter[int] = Counter()
        table_game = self.raw.game
        try:
            self.raw.game = engine  # what a search reads (it searches copies)
            for draw in range(draws):
                agent.reset(draw_seed(self.seed, key[:2], draw))
                counts[int(agent.act(observation, view))] += 1
        finally:
            self.raw.game = table_game
        self.queries += draws
        return {action: count / draws for action, count in sorted(counts.items())}


# ----------------------------------------------------------------------------- measurements
@dataclass(frozen=True)
class Measured:
    """A NashConv with the wall and CPU seconds it took (CPU: this process's, ``time.process_time``)."""

    nash_conv: float
    wall_s: float
    cpu_s: float


def timed(work: Callable[[], float]) -> Measured:
    """``work()`` as a `Measured` (its value, wall and CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = float(work())
    return Measured(value, time.perf_counter() - wall, time.process_time() - cpu)


def nash_conv(game: Any, policy: Any) -> Measured:
    """OpenSpiel's NashConv of ``policy`` in ``game`` (the sum over seats of what a best response gains), timed."""
    return timed(lambda: exploitability.nash_conv(game, policy))


@dataclass(frozen=True)
class CurvePoint:
    """One point of a curve: NashConv after ``step`` (CFR iterations or PPO learner steps).

    ``wall_s`` and ``cpu_s``: the seconds to reach this point from the previous one and measure it.
    """

    step: int
    nash_conv: float
    wall_s: float
    cpu_s: float


def cfr_curve(game: Any, iterations: Sequence[int]) -> list[CurvePoint]:
    """NashConv of ``cfr.CFRSolver``'s average policy after each count of ``iterations`` (one solver, run on)."""
    counts = sorted(set(iterations))
    if not counts or counts[0] < 1:
        raise ValueError(f"CFR iteration counts must be positive integers, got {list(iterations)}")
    solver = cfr.CFRSolver(game)
    done, points = 0, []
    for count in counts:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count - done):
            solver.evaluate_and_update_policy()
        done = count
        value = float(exploitability.nash_conv(game, solver.average_policy()))
        points.append(CurvePoint(count, value, time.perf_counter() - wall, time.process_time() - cpu))
    return points


def plot_curves(
    panels: Sequence[tuple[str, Sequence[CurvePoint]]],
    path: str | Path,
    title: str,
    references: dict[str, float] | None = None,
) -> None:
    """NashConv against the step, one panel per ``(x label, points)`` (log axes where the values allow), each
    with the ``references`` (label: NashConv, e.g. the uniform policy's) as dashed lines; a PNG written atomically."""
    from agents.evaluation import plots

    references = references or {}
    fig, axes = plots.plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
    for ax, (xlabel, points) in zip(axes[0], panels):
        ax.plot([p.step for p in points], [p.nash_conv for p in points], marker="o", label="NashConv")
        for (label, value), style in zip(references.items(), ("--", ":", "-.")):
            ax.axhline(value, color="gray", linestyle=style, linewidth=1, label=f"{label} ({value:.3f})")
        ax.set_xscale("log")
        if all(p.nash_conv > 0 for p in points) and all(v > 0 for v in references.values()):
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("NashConv")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    plots._save(fig, path)


# ----------------------------------------------------------------------------- one variant's page section
@dataclass(frozen=True)
class Budget:
    """What the page spends per variant."""

    #: CFR iteration counts of the curve (one solver, run on).
    cfr_iterations: tuple[int, ...]
    #: PPO learner steps in all, and the checkpoints of its curve (evenly spaced).
    ppo_steps: int
    ppo_points: int
    #: The search agent, and the moves drawn per information state to estimate it.
    search: str
    samples: int
    #: More CFR iteration counts for the variants whose iterations cost about a second or less (variant, counts).
    cfr_more: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def cfr_schedule(self, variant: str) -> tuple[int, ...]:
        """The CFR iteration counts of ``variant``'s curve, in increasing order."""
        return tuple(sorted(set(self.cfr_iterations) | set(dict(self.cfr_more).get(variant, ()))))


FULL = Budget(
    cfr_iterations=(1, 2, 4),
    ppo_steps=32_768,
    ppo_points=4,
    search="mcts:16",
    samples=8,
    cfr_more=(("skull_king_small", (8, 16, 32, 64)), ("skull_king_two_hands", (8, 16))),
)
QUICK = Budget(cfr_iterations=(1,), ppo_steps=1_024, ppo_points=1, search="mcts:2", samples=2)

#: The PPO trainer's flags beside the variant, budget and seed: a small rollout (8 envs x 64 steps), games
#: played one by one in the trainer's process; the opponent pool is the trainer's default.
TRAIN_FLAGS = (
    "--num-envs", "8", "--n-steps", "64", "--batch-size", "256",
    "--engine", "single", "--num-workers", "0",
    "--eval-every", "0", "--eval-games", "1", "--eval-opponents", "random",
    "--no-progress",
)  # fmt: skip


@dataclass(frozen=True)
class Row:
    """One line of a variant's table: the agent, how its probabilities come (`agent_method`), its NashConv."""

    agent: str
    method: str
    measured: Measured
    note: str = ""


@dataclass(frozen=True)
class VariantResult:
    """What the page shows of one variant."""

    name: str
    env_id: str
    params: dict[str, Any]
    rows: tuple[Row, ...]
    cfr: tuple[CurvePoint, ...]
    ppo: tuple[CurvePoint, ...]
    train_wall_s: float
    train_command: str
    figure: str | None = None


def train_argv(game: Any, budget: Budget, seed: int, out_dir: Path, run_name: str = "ppo") -> list[str]:
    """The ``experiments.train`` command line of the PPO agent of ``game``'s variant (its rules as env options)."""
    settings = game.kit.settings
    env_id, config = settings.env_id, env_config(game)
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
        "--run-name", run_name,
        *TRAIN_FLAGS,
    ]  # fmt: skip
    return argv + (["--env-kwargs", *kwargs] if kwargs else [])


def saved_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """The ``checkpoints/step_<n>.npz`` agents of a training run, by step."""
    found = []
    for path in (Path(run_dir) / "checkpoints").glob("step_*.npz"):
        match = re.fullmatch(r"step_(\d+)\.npz", path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def measure_agent(game: Any, name: str, seed: int, samples: int, label: str | None = None) -> Row:
    """The row of the agent ``name`` (shown as ``label``, default the name).

    A game agent that refuses the variant (a one-line ``ValueError`` when it is made or asked: say, an
    oracle solved for other rules) gets a `NOT_OFFERED` row with that line and no NashConv.
    """
    try:
        policy = AgentPolicy(game, name, seed=seed, samples=samples)
        measured = nash_conv(game, policy)
    except ValueError as error:
        if name not in game_agent_kinds(game.kit.settings.env_id):
            raise
        return Row(label or name, NOT_OFFERED, Measured(math.nan, 0.0, 0.0), str(error).splitlines()[0])
    note = f"{samples} moves per information state" if policy.method == SAMPLED else ""
    return Row(label or name, policy.method, measured, note)


@dataclass(frozen=True)
class Measurement:
    """One independent measurement of a variant (`measure`): a policy's NashConv, or CFR after ``iterations``.

    ``kind``: ``"uniform"`` (OpenSpiel's uniform policy), ``"agent"`` (the suite agent ``agent``, shown as
    ``label``) or ``"cfr"`` (a fresh ``cfr.CFRSolver`` run ``iterations`` times). Plain data, so that a
    process pool can run the measurements of a page side by side (`measure_all`).
    """

    variant: str
    kind: str
    agent: str = ""
    label: str = ""
    seed: int = 0
    samples: int = 1
    iterations: int = 0


def measure(task: Measurement) -> Row | CurvePoint:
    """Run one `Measurement`: a `Row` for a policy, a `CurvePoint` for CFR."""
    game = load_variant(task.variant)
    if task.kind == "uniform":
        return Row("uniform (OpenSpiel)", EXACT, nash_conv(game, openspiel_policy.UniformRandomPolicy(game)))
    if task.kind == "agent":
        return measure_agent(game, task.agent, task.seed, task.samples, task.label or None)
    if task.kind == "cfr":
        return cfr_curve(game, [task.iterations])[0]
    raise ValueError(f"unknown measurement kind {task.kind!r}; known: uniform, agent, cfr")


def measure_all(tasks: Sequence[Measurement], jobs: int = 1) -> list[Row | CurvePoint]:
    """`measure` every task, in order; ``jobs`` > 1: in as many fresh processes (``spawn``), side by side."""
    if jobs <= 1:
        return [measure(task) for task in tasks]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(measure, tasks))


def variant_measurements(
    variant: str, budget: Budget, seed: int, saved: Sequence[tuple[int, Path]]
) -> list[Measurement]:
    """The measurements of a variant's page section: CFR (longest first), OpenSpiel's uniform policy, the
    suite's ``random``, the game's agents, the search, and the PPO agent's ``saved`` checkpoints (each
    sampled; the last one's argmax too)."""
    if not saved:
        raise ValueError("the training run saved no step_<n>.npz checkpoint")
    env_id = SMALL_VARIANTS[variant][0]
    tasks = [Measurement(variant, "cfr", iterations=n) for n in reversed(budget.cfr_schedule(variant))]
    tasks.append(Measurement(variant, "uniform"))
    for name in ["random", *game_agent_kinds(env_id), budget.search]:
        tasks.append(Measurement(variant, "agent", name, seed=seed, samples=budget.samples))
    for step, path in saved:
        tasks.append(Measurement(variant, "agent", f"ppo:{path}#sample", f"ppo, {step} steps, sampled", seed))
    step, path = saved[-1]
    tasks.append(Measurement(variant, "agent", f"ppo:{path}", f"ppo, {step} steps, argmax", seed))
    return tasks


def cfr_row(points: Sequence[CurvePoint]) -> Row:
    """The table's row of a CFR curve: its last point."""
    last = points[-1]
    return Row(f"CFR, {last.step} iterations", EXACT, Measured(last.nash_conv, last.wall_s, last.cpu_s),
               "average policy")  # fmt: skip


# ----------------------------------------------------------------------------- the page
def cfr_more_text(budget: Budget) -> str:
    """The budget line's note of the variants with more CFR iterations (empty without any)."""
    more = [f"{variant} also {', '.join(map(str, counts))}" for variant, counts in budget.cfr_more]
    return f" ({'; '.join(more)})" if more else ""


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
    return lines + [f"| {p.step} | {p.nash_conv:.4f} | {p.wall_s:.1f} | {p.cpu_s:.1f} |" for p in points]


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
        value = "n/a" if math.isnan(m.nash_conv) else f"{m.nash_conv:.4f}"
        cells = [row.agent, row.method, value, f"{m.wall_s:.1f}", f"{m.cpu_s:.1f}", row.note]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "CFR (`cfr.CFRSolver`, its average policy, which is uniform after one iteration); times: a "
              "fresh solver's iterations and the NashConv:", ""]  # fmt: skip
    lines += _curve_table(result.cfr, "iterations")
    lines += [
        "",
        f"The PPO agent's sampled policy along its training ({result.train_wall_s:.1f} s wall for the training, "
        "its closing evaluation included; times: the NashConv only), trained by",
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
(+1 to the winner, -1 to the loser, 0 to both on a tie), so NashConv is at most 2 per seat.

Each suite agent becomes an OpenSpiel policy (`agents.analysis.exact.AgentPolicy`): at every state it is
shown what it would see at that seat (the env's observation of the seat's View, the mask, the
View) and its probabilities are read, once per information state:

* **exact**: a trained network's masked softmax (the PPO agent's sampled policy,
  `ppo:<agent>#sample`), the suite's `random` (uniform over the action blocks with a legal
  action, then within the block), OpenSpiel's uniform policy, CFR's average policy;
* **one-hot**: a deterministic agent's move (a game agent such as `heuristic`; a network's
  argmax, `ppo:<agent>`, what `make_agent` plays by default);
* **sampled**: an *estimate* for an agent that only samples (the search `mcts:<n>`): the
  frequencies of a few moves drawn with seeds fixed by the seed and the information state. Its
  NashConv is that of the estimated policy, not exactly the agent's.

Every move is asked of an agent reset afresh (an agent that remembers positions starts empty
each time); a state with one legal action needs no agent. The PPO agent is trained on the
variant itself by `experiments.train` (the suite's self-play PPO with its default opponent pool:
snapshots of itself, the heuristic and random), with the budget below.
"""


def render_page(
    command: str,
    budget: Budget,
    results: Sequence[VariantResult],
    seed: int,
    quick: bool,
    total_wall_s: float,
    jobs: int = 1,
) -> str:
    """The whole page: the introduction, a section per variant, the run's budget, seed, times and versions."""
    lines = [INTRO.format(command=command)]
    for result in results:
        lines += variant_section(result)
    lines += [
        "## The run",
        "",
        f"* Budget{' (`--quick`: a smoke run, not figures to quote)' if quick else ''}: CFR iterations "
        f"{', '.join(map(str, budget.cfr_iterations))}{cfr_more_text(budget)}; PPO {budget.ppo_steps} learner steps, "
        f"{budget.ppo_points} checkpoint(s) on its curve; search `{budget.search}` with {budget.samples} "
        "moves per information state.",
        f"* Seed {seed} (the training run, every agent and the search's draws). Bit-reproducible on the same "
        "versions: the CFR, `random`, uniform and heuristic rows and the search's sampled estimates (no training "
        "involved). The PPO rows are reproducible only in distribution: the same seed and versions can train "
        "another network (the learner's floating-point work, torch's multi-threaded CPU kernels among it, need not "
        "repeat exactly), so a PPO NashConv is one draw of the recipe, not a fixed figure; compare PPO rows over "
        "several seeds. Times are never fixed.",
        f"* Total wall time {total_wall_s:.0f} s, the measurements run by {jobs} process(es) side by side. Wall "
        "times depend on the machine's load; CPU times are the measuring process's.",
        "* Versions: " + ", ".join(f"{name} {version}" for name, version in versions().items()) + ".",
        "",
    ]
    return "\n".join(lines)


__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT",
    "FULL",
    "NOT_OFFERED",
    "ONE_HOT",
    "QUICK",
    "SAMPLED",
    "TRAIN_FLAGS",
    "AgentPolicy",
    "Budget",
    "CurvePoint",
    "Measured",
    "Measurement",
    "Row",
    "VariantResult",
    "agent_method",
    "block_uniform_probabilities",
    "cfr_curve",
    "cfr_row",
    "draw_seed",
    "env_config",
    "load_variant",
    "masked_softmax",
    "measure",
    "measure_agent",
    "measure_all",
    "nash_conv",
    "network_probabilities",
    "plot_curves",
    "render_page",
    "saved_checkpoints",
    "small_variants",
    "timed",
    "train_argv",
    "variant_measurements",
    "variant_section",
    "versions",
]
