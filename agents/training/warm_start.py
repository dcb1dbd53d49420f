"""A training run's warm start: the network first learns a teacher's moves by imitation, then PPO goes on.

``experiments.train --warm-start <teacher>`` (or a recipe's ``warm_start``) runs `agents.training.imitation`
at the run's table sizes and env options with the run's own network (hidden sizes, activation, action
head) and seed, writes the student to ``checkpoints/warm_start.npz`` and starts PPO from its actor (a fresh
critic), as ``--init`` would. The CPU seconds of the imitation count as learning: they are the run's first
record in ``checkpoints/learn_cpu_s.json`` (at 0 learner steps), and every later checkpoint's figure
includes them, so a learning curve's CPU-minutes are those of the whole recipe.
"""

from __future__ import annotations

import time
from pathlib import Path

from agents.training.imitation import ImitationPlan, imitate
from agents.training.plan import ACTIVATION_FLAGS, RunPlan

#: The warm start's agent file, in the run's checkpoints folder (cleared with it by ``--overwrite``).
WARM_START_FILE = "warm_start.npz"


def imitation_plan(plan: RunPlan) -> ImitationPlan:
    """The imitation of ``plan``'s warm start: its teacher, games, DAgger rounds and epochs, on the run's
    tables with the run's network and seed (the student moves in half the moves of each later round)."""
    args = plan.args
    return ImitationPlan(
        env_id=args.env_id,
        teacher=args.warm_start,
        table_sizes=plan.table_sizes,
        env_options=dict(plan.env_options),
        out=plan.run_dir / "checkpoints" / WARM_START_FILE,
        games=args.warm_start_games,
        rounds=args.warm_start_rounds,
        epochs=args.warm_start_epochs,
        net_arch=tuple(args.net_arch),
        activation=ACTIVATION_FLAGS[args.activation],
        action_features=plan.policy != "MlpPolicy",
        seed=args.seed,
        torch_threads=args.torch_threads,
        command=plan.command,
    )


def warm_start(plan: RunPlan) -> tuple[Path, float]:
    """Imitate the teacher of ``plan`` (``args.warm_start``); the student's agent file and the CPU seconds it
    took (this process)."""
    start = time.process_time()
    path = imitate(
        imitation_plan(plan),
        log=lambda line: print(f"warm start by imitation of {plan.args.warm_start}: {line}", flush=True),
    )
    return path, time.process_time() - start


__all__ = ["WARM_START_FILE", "imitation_plan", "warm_start"]
