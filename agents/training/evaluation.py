"""How a training run evaluates its learner: seat-rotated tournaments against each evaluation
opponent at each table size (`agents.evaluation`), their tables under ``eval/``, the history and
the learning curves (`agents.evaluation.plots`)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.evaluation import markdown_table, run_tournament
from agents.evaluation.plots import learning_curve
from agents.policy.agent import SAMPLE_SUFFIX
from agents.training.plan import RunPlan
from agents.training.run import Evaluator, write_json
from pirate_envs.core.files import write_atomic


def evaluate_checkpoint(plan: RunPlan, agent_file: Path, timesteps: int) -> list[dict[str, Any]]:
    """Tournaments of the agent file against each evaluation opponent at each table size; rows of the history."""
    args = plan.args
    learner = f"ppo:{agent_file}" + (SAMPLE_SUFFIX if args.eval_sample else "")
    rows, tables = [], []
    for players in plan.table_sizes:
        for opponent in args.eval_opponents:
            lineup = [learner] + [opponent] * (players - 1)
            results, _ = run_tournament(
                args.env_id, lineup, args.eval_games, seed=10_000 + args.seed, **plan.env_options
            )
            for r in results:
                r.agent = "learner" if r.agent == learner else r.agent
            mine = results[0]
            rows.append({"timesteps": timesteps, "opponent": opponent, "num_players": players, **asdict(mine)})
            tables.append(f"### vs {opponent}, {players} players\n\n{markdown_table(results)}")
    policy = "sampled policy" if args.eval_sample else "argmax policy"
    games = f"{args.eval_games} games per opponent, seats rotated"
    header = f"{args.env_id}, {policy} after {timesteps} learner steps: {games}"
    eval_dir = plan.run_dir / "eval"
    write_atomic(eval_dir / f"step_{timesteps}.md", header + "\n\n" + "\n\n".join(tables) + "\n")
    write_json(eval_dir / f"step_{timesteps}.json", rows)
    return rows


def write_history(plan: RunPlan, history: list[dict[str, Any]]) -> None:
    """``eval/history.json`` and the learning curves (one per table size) from the evaluations so far."""
    write_json(plan.run_dir / "eval" / "history.json", history)
    sizes = plan.table_sizes
    for players in sizes:
        rows = [row for row in history if row.get("num_players", sizes[0]) == players]
        if rows:
            name = "learning_curve.png" if len(sizes) == 1 else f"learning_curve_{players}p.png"
            title = f"{plan.args.env_id}, {players} players: learner vs baselines"
            learning_curve(rows, plan.run_dir / name, title, 1 / players)


#: The evaluation of a run: tournaments (`agents.evaluation`), tables, learning curves.
EVALUATOR = Evaluator(evaluate=evaluate_checkpoint, write_history=write_history)
