"""The figures of an exploitability probe: a fresh learner's win rate against one frozen agent, above chance.

``experiments.best_response`` trains the learner (``experiments.train`` with the agent in every
other seat) and builds a `ProbePlan`; `probe_report` reads the run's evaluation history
(``eval/history.json``) and ``config.json``: the win rate against the agent after the budget,
with its 95% interval, that rate above chance (``1 / players``), and the curve on the way.
`markdown_report` writes it as a short markdown block. A probe near zero says the budget found
no weakness, not that the agent has none; compare agents at the same budget.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pirate_envs


@dataclass(frozen=True)
class ProbePlan:
    """One probe: the game, the frozen agent, the table size (``None``: the game's default), the
    evaluation games and the training command it runs."""

    env_id: str
    agent: str
    num_players: int | None
    eval_games: int
    #: The ``experiments.train`` command line (without ``python -m experiments.train``).
    train_argv: tuple[str, ...]


def probe_report(plan: ProbePlan, run_dir: Path) -> dict[str, Any]:
    """The probe's figures from the run's evaluation history (``eval/history.json``).

    The game and table size are the run's (``config.json``), the plan's where it names none.
    ``ValueError`` when the history has no evaluation against the agent at that table size.
    """
    history = json.loads((run_dir / "eval" / "history.json").read_text())
    config = json.loads((run_dir / "config.json").read_text())
    env_id = config.get("env_id", plan.env_id)  # the game the run trained
    configured = config.get("num_players")
    if isinstance(configured, list):  # the trainer may name several table sizes; the probe trains one
        configured = configured[0] if configured else None
    players = configured or plan.num_players or pirate_envs.game_spec(env_id).default_players
    rows = sorted(
        (r for r in history if r["opponent"] == plan.agent and r.get("num_players", players) == players),
        key=lambda r: r["timesteps"],
    )
    if not rows:
        raise ValueError(f"{run_dir}: no evaluation against {plan.agent!r} in eval/history.json")
    chance = 1 / players
    last = rows[-1]
    return {
        "env_id": env_id,
        "agent": plan.agent,
        "players": players,
        "budget_learner_steps": last["timesteps"],
        "eval_games": plan.eval_games,
        "chance": chance,
        "win_rate": last["win_rate"],
        "win_interval": [last["win_low"], last["win_high"]],
        "above_chance": last["win_rate"] - chance,
        "above_chance_interval": [last["win_low"] - chance, last["win_high"] - chance],
        "curve": [[r["timesteps"], r["win_rate"], r["win_low"], r["win_high"]] for r in rows],
        "run_dir": str(run_dir),
        "command": "python -m experiments.train " + " ".join(plan.train_argv),
    }


def markdown_report(report: dict[str, Any]) -> str:
    """The probe as a short markdown block with its curve."""
    lo, hi = report["above_chance_interval"]
    lines = [
        f"{report['env_id']}, {report['players']} players: a fresh learner against {report['agent']} in every other "
        f"seat, {report['budget_learner_steps']} learner steps, {report['eval_games']} evaluation games",
        "",
        f"win rate {report['win_rate']:.3f} [{report['win_interval'][0]:.3f}, {report['win_interval'][1]:.3f}]; "
        f"above chance ({report['chance']:.3f}): {report['above_chance']:+.3f} [{lo:+.3f}, {hi:+.3f}]",
        "",
        "| learner steps | win rate [95% CI] |",
        "|---|---|",
    ]
    lines += [f"| {t} | {w:.3f} [{a:.3f}, {b:.3f}] |" for t, w, a, b in report["curve"]]
    return "\n".join(lines)
