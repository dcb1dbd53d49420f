"""The results pages' learning sections: learning methods and the shipped recipe over training seeds.

Two kinds of committed summaries (``docs/results/learning/*.json``) are read by `load_summaries`:

* an **equal-budget** summary (``budget_s``; ``benchmarks/learners_equal_budget.py``): every run learns
  from scratch at the game's default table against heuristics for one CPU budget, one run per method
  (``ppo``, ``dmc``), game and training seed;
* a **recipe** summary (``recipe``; ``benchmarks/recipe_seeds.py``): the shipped agent's own training
  command run again per training seed, each run stopped at a stage of the recipe (``stage``: ``round
  1``, ...; a PPO recipe's stages are its checkpoints, ``order`` their learner steps) so the stages
  make a learning curve, and the shipped file evaluated the same way (method ``shipped``);
* a **curve** summary (``curve``; ``benchmarks/recipe_curves.py``): the game's training recipe from scratch
  per seed, some checkpoints of each run played against the heuristics, the last also against copies of the
  shipped network and on the validation deals, each at its CPU seconds of learning (``learn_cpu_s``).

Each agent then played ``eval_games`` duplicate games (seed ``eval_seed``) against the heuristics.
`learning_section` renders one game's rows of both: per budget or stage and method, each seed's win
rate with its 95% interval, the mean over seeds with the lowest and highest, and the CPU seconds each
run used.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pirate_envs
from pirate_envs.core.text import counted

#: The learning methods in the order a page lists them, with their names in words.
METHODS = {
    "ppo": "PPO",
    "dmc": "Deep Monte-Carlo",
    "imitation": "the shipped recipe, run again",
    "shipped": "the shipped agent file",
}
#: A recipe run's handed-over agent (``--finish``; rows of method ``finish``), in the curve table's words.
FINISH_WORDS = {"average": "the mean of its late checkpoints", "choose": "its late checkpoint chosen on validation"}
#: The command a PPO recipe starts with: its stages are a run's checkpoints (``order``: learner steps),
#: not separate runs stopped after each stage (``benchmarks/recipe_seeds.py`` runs both kinds).
PPO_RECIPE = "python -m experiments.train"
#: The keys every summary (and each kind's own key) and every run must have.
SUMMARY_KEYS = ("eval_games", "eval_seed", "runs")
KIND_KEYS = ("budget_s", "recipe", "curve")
RUN_KEYS = ("method", "env_id", "seed")


def load_summaries(folder: str | Path) -> list[dict[str, Any]]:
    """The summaries under ``folder`` (``*.json``, file-name order; ``[]`` when the folder does not exist);
    ``ValueError`` naming a file that is no summary."""
    found = []
    for path in sorted(Path(folder).glob("*.json")) if Path(folder).is_dir() else []:
        summary = json.loads(path.read_text())
        runs = summary.get("runs") if isinstance(summary, dict) else None
        keys = [*SUMMARY_KEYS, " or ".join(KIND_KEYS)]
        if not isinstance(runs, list) or any(key not in summary for key in SUMMARY_KEYS):
            raise ValueError(f"{path}: not a learning summary (needs {', '.join(keys)})")
        if sum(key in summary for key in KIND_KEYS) != 1:
            raise ValueError(f"{path}: not a learning summary (needs exactly one of {', '.join(KIND_KEYS)})")
        if any(not isinstance(run, dict) or any(key not in run for key in RUN_KEYS) for run in runs):
            raise ValueError(f"{path}: a run lacks one of {', '.join(RUN_KEYS)}")
        if "recipe" in summary and any("stage" not in run for run in runs):
            raise ValueError(f"{path}: a run of a recipe summary lacks its stage")
        found.append(summary)
    return found


def games_of(summaries: Sequence[dict[str, Any]]) -> list[str]:
    """The env ids with at least one run in ``summaries``, in first-seen order."""
    return list(dict.fromkeys(run["env_id"] for summary in summaries for run in summary["runs"]))


def shipped_seed(env_id: str, summaries: Sequence[dict[str, Any]], shipped_sha256: str | None) -> dict[str, Any] | None:
    """The record of the seed of ``env_id``'s recipe curve whose agent is the shipped network: a curve summary's
    ``shipped_seed`` record (`benchmarks/recipe_curves.py --shipped-seed`: ``seed``, ``agent``, ``sha256``) whose
    file hash is ``shipped_sha256``, the shipped file's now (``None`` when none is, or the file changed since)."""
    if shipped_sha256 is None:
        return None
    for summary in summaries:
        record = summary.get("shipped_seed")
        of_game = "curve" in summary and any(run["env_id"] == env_id for run in summary["runs"])
        if of_game and record and record["sha256"] == shipped_sha256:
            return record
    return None


#: How the results page names a seed's shipped agent (a record without ``agent`` predates the choice: the last
#: checkpoint).
SHIPPED_AGENT_WORDS = {
    "handed-over": "the agent seed {seed}'s run handed over",
    "last-checkpoint": "seed {seed}'s last checkpoint",
}


def recipe_summaries(env_id: str, summaries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recipe summaries (the shipped recipe over seeds) with a run of ``env_id``."""
    return [s for s in summaries if "recipe" in s and any(run["env_id"] == env_id for run in s["runs"])]


def _seed_cell(run: dict[str, Any]) -> str:
    if "win_rate" not in run:
        return f"failed (exit {run.get('exit', run.get('eval_exit', '?'))})"
    return f"{run['win_rate']:.3f} [{max(run['win_low'], 0.0):.3f}, {min(run['win_high'], 1.0):.3f}]"


def _cells(env_id: str, summaries: Sequence[dict[str, Any]]) -> dict[tuple[Any, str], list[dict[str, Any]]]:
    """``{(budget or stage, method): runs}`` of ``env_id``."""
    cells: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    for summary in summaries:
        for run in summary["runs"]:
            if run["env_id"] == env_id and run["method"] in METHODS:
                key = float(summary["budget_s"]) if "budget_s" in summary else (run.get("order", 0), run["stage"])
                cells.setdefault((key, run["method"]), []).append(run)
    return cells


def _table(cells: dict[tuple[Any, str], list[dict[str, Any]]], first_column: str, label: Any) -> list[str]:
    seeds = sorted({run["seed"] for runs in cells.values() for run in runs})
    lines = [
        f"| {first_column} | method | "
        + " | ".join(f"seed {seed}" for seed in seeds)
        + " | mean over seeds (lowest, highest) | CPU-s used per run |",
        "|---|---|" + "---|" * len(seeds) + "---|---|",
    ]
    for key, method in sorted(cells, key=lambda key: (key[0], list(METHODS).index(key[1]))):
        runs = {run["seed"]: run for run in cells[key, method]}
        rates = [run["win_rate"] for run in runs.values() if "win_rate" in run]
        spread = f"{statistics.fmean(rates):.3f} ({min(rates):.3f}, {max(rates):.3f})" if rates else "—"
        used = [runs[seed].get("cpu_s") for seed in seeds if seed in runs]
        used_text = ", ".join(f"{cpu:.0f}" for cpu in used if cpu is not None) or "—"
        if method == "shipped":
            spread = "(one file)"
        row = [label(key), METHODS[method], *(_seed_cell(runs[s]) if s in runs else "—" for s in seeds)]
        lines.append("| " + " | ".join([*row, spread, used_text]) + " |")
    return [*lines, ""]


def _evaluation(summaries: Sequence[dict[str, Any]], players: int) -> str:
    settings = sorted({(summary["eval_games"], summary["eval_seed"]) for summary in summaries})
    games = "; ".join(f"{games} duplicate games, seed {seed}" for games, seed in settings)
    return f"{counted(players - 1, 'heuristic')} ({games}; chance {1 / players:.2f})"


def _rerun_words(summary: dict[str, Any]) -> str:
    network = summary.get("rerun_is_shipped_network")
    if network is not None:
        return (
            " The seed-1 run of the whole recipe ended with the shipped network, weight for weight."
            if network
            else " The seed-1 run of the whole recipe did not end with the shipped network weight for weight: "
            "the recipe reproduces in distribution, as the seeds show, not bit for bit."
        )
    same = summary.get("rerun_is_shipped_file")
    if same is None:
        return ""
    if same:
        return " The seed-1 run of the whole recipe wrote the shipped file byte for byte."
    return (
        " The seed-1 run of the whole recipe did not write the shipped file byte for byte (the code or its "
        "libraries have changed since it was trained): the recipe reproduces in distribution, as the seeds "
        "show, not bit for bit."
    )


def _curve_table(runs: list[dict[str, Any]]) -> list[str]:
    lines = ["| seed | learner steps | CPU-minutes | against | deals | win rate [95%] |", "|---|---|---|---|---|---|"]
    for run in sorted(runs, key=lambda r: (r["seed"] is None, r["seed"] or 0, r["steps"] or 0, r["deals"])):
        if run["method"] == "shipped":
            lines.append(f"| the shipped network | — | — | {run['against']} | {run['deals']} | {_seed_cell(run)} |")
            continue
        against = "n - 1 heuristics" if run["against"] == "heuristic" else f"n - 1 × `{run['against']}`"
        seed, steps = (f"{run['seed']} (DMC)", "—") if run["method"] == "dmc" else (run["seed"], f"{run['steps']:,}")
        if run.get("phase", 1) > 1:  # a recipe of two phases: steps and CPU count on from the first phase's
            steps += f" (phase {run['phase']})"
        if run["method"] == "finish":
            how = FINISH_WORDS.get(run["finish"], run["finish"])
            if run.get("chosen") is not None:
                how = f"its checkpoint at {run['chosen']:,} steps, chosen on validation"
            seed = f"{run['seed']} ({how})"
        lines.append(
            f"| {seed} | {steps} | {run['learn_cpu_s'] / 60:.1f} | {against} | {run['deals']} | {_seed_cell(run)} |"
        )
    return [*lines, ""]


def _last_rows(
    runs: list[dict[str, Any]], method: str, heuristics: bool, up_to_cpu_s: float = math.inf
) -> dict[int, dict[str, Any]]:
    """Each seed's last played checkpoint of ``method`` on the evaluation deals (at ``up_to_cpu_s`` CPU seconds or
    fewer), against the heuristics (``heuristics``) or against the other opponent."""
    finals: dict[int, dict[str, Any]] = {}
    for run in runs:
        matches = (run["against"] == "heuristic") == heuristics
        counted = run["method"] == method and run["deals"] == "evaluation" and matches and "win_rate" in run
        counted = counted and run["learn_cpu_s"] <= up_to_cpu_s
        if counted and (run["seed"] not in finals or run["steps"] > finals[run["seed"]]["steps"]):
            finals[run["seed"]] = run
    return finals


def _final_medians(runs: list[dict[str, Any]], method: str = "ppo") -> str:
    """The median over seeds of each last checkpoint's (``method``'s) evaluation-deal win rates, in words."""
    parts = []
    for heuristics, words in ((True, "the heuristics"), (False, "copies of the shipped network")):
        finals = _last_rows(runs, method, heuristics)
        if finals:
            rates = [run["win_rate"] for run in finals.values()]
            minutes = statistics.median(run["learn_cpu_s"] / 60 for run in finals.values())
            parts.append(
                f"against {words} {statistics.median(rates):.3f} (seeds {', '.join(f'{r:.3f}' for r in rates)}; "
                f"median {minutes:.1f} CPU-minutes)"
            )
    return "; ".join(parts)


def _dmc_words(runs: list[dict[str, Any]]) -> str:
    """The sentence on Deep Monte-Carlo given the recipe's CPU budget (``""`` without DMC rows)."""
    if not any(run["method"] == "dmc" for run in runs):
        return ""
    recipe_cpu, dmc_cpu = _median_final_cpu(runs, "ppo"), _median_final_cpu(runs, "dmc")
    budget = dmc_cpu / recipe_cpu if recipe_cpu else 1.0
    unequal = (
        f" DMC's CPU is {budget:.2f} times the recipe's last checkpoints': the two are not compared at equal CPU."
        + _curve_at_words(runs, dmc_cpu)
        if not 0.8 <= budget <= 1.25
        else ""
    )
    return (
        " Beside it, Deep Monte-Carlo (`experiments.train_dmc` with its own settings: 256x256, heuristics in the "
        "other seats; `benchmarks/learners_equal_budget.py --methods dmc`) from scratch, its whole process counted "
        f"(start-up included), on the same deals (rows marked DMC): against "
        f"{_final_medians(runs, 'dmc').removeprefix('against ')}.{unequal}"
    )


def _curve_at_words(runs: list[dict[str, Any]], cpu_s: float) -> str:
    """The sentence on the recipe's curve at ``cpu_s`` (DMC's median CPU): each seed's last checkpoint played
    against the heuristics at or before it, their median (``""`` when a seed has none there)."""
    before = _last_rows(runs, "ppo", heuristics=True, up_to_cpu_s=cpu_s)
    if len(before) < len({run["seed"] for run in runs if run["method"] == "ppo"}):
        return ""
    rates = [before[seed]["win_rate"] for seed in sorted(before)]
    return (
        f" At DMC's CPU ({cpu_s / 60:.1f} CPU-minutes) the recipe's curve stood at {statistics.median(rates):.3f} "
        f"against the heuristics (each seed's last checkpoint played at or before it: "
        f"{', '.join(f'{r:.3f}' for r in rates)})."
    )


def _median_final_cpu(runs: list[dict[str, Any]], method: str) -> float:
    """The median over seeds of the CPU seconds of each seed's last ``method`` row against the heuristics (0.0
    without such rows)."""
    finals = _last_rows(runs, method, heuristics=True)
    return statistics.median(run["learn_cpu_s"] for run in finals.values()) if finals else 0.0


def _warm_start_words(runs: list[dict[str, Any]]) -> str:
    """The sentence on a recipe's warm start (``""`` when no run's curve starts with one: a point at 0 steps)."""
    if not any(run["method"] == "ppo" and run["steps"] == 0 for run in runs):
        return ""
    return (
        " The recipe starts with a warm start (`--warm-start`): the network, from random weights, first imitates "
        "the named agent, then PPO goes on; the warm start's network is each seed's point at 0 learner steps, and "
        "its CPU counts in every point's CPU-minutes."
    )


def _finish_words(runs: list[dict[str, Any]]) -> str:
    """The sentence on the agent each run hands over (``""`` without rows of method ``finish``)."""
    kinds = sorted({run["finish"] for run in runs if run["method"] == "finish"})
    if not kinds:
        return ""
    how = " or ".join(f"`--finish {kind}`, {FINISH_WORDS.get(kind, kind)}" for kind in kinds)
    return (
        f" Each run hands over an agent other than its last checkpoint ({how}; `checkpoints/final.npz`, its CPU "
        f"added to the last checkpoint's); median over seeds: {_final_medians(runs, 'finish')}."
    )


def curve_section(env_id: str, summaries: Sequence[dict[str, Any]], shipped_sha256: str | None = None) -> list[str]:
    """The markdown lines of ``env_id``'s from-scratch recipe curves (``[]`` without one); ``shipped_sha256``: the
    shipped file's hash, which names the seed it is (`shipped_seed`)."""
    lines: list[str] = []
    shipped = shipped_seed(env_id, summaries, shipped_sha256)
    shipped_words = (
        ""
        if shipped is None
        else f" The shipped network `ppo:{env_id}` is "
        f"{SHIPPED_AGENT_WORDS[shipped.get('agent', 'last-checkpoint')].format(seed=shipped['seed'])} (agent file "
        f"sha256 `{shipped_sha256[:16]}`), chosen among the seeds on the validation deals."  # type: ignore[index]
    )
    for summary in summaries:
        runs = [run for run in summary["runs"] if run["env_id"] == env_id]
        if "curve" not in summary or not runs:
            continue
        players = summary["num_players"]
        lines += [
            "## The training recipe from scratch over seeds",
            "",
            f"`python -m experiments.train --env-id {env_id}` with no other flag runs the game's recipe "
            f"(`agents/<game>/recipes.json`): `{summary['curve']}`. Each seed learned from scratch; some of its "
            f"checkpoints then played {summary['eval_games']} duplicate games at {players} players (seed "
            f"{summary['eval_seed']}, fixed before the runs; chance {1 / players:.2f}) against n - 1 heuristics, "
            f"and its last checkpoint also against n - 1 copies of the shipped network and on the validation "
            f"deals (seed {summary['validation_seed']}), which alone would choose among seeds. CPU-minutes: the "
            "run's own count of its learning (one process). Last checkpoints, median over seeds: "
            f"{_final_medians(runs)}. Made by `benchmarks/recipe_curves.py`."
            + shipped_words
            + _warm_start_words(runs)
            + _finish_words(runs)
            + (f" {summary['note']}" if summary.get("note") else "")
            + _dmc_words(runs),
            "",
            f"![{env_id}: the recipe from scratch, win rate against CPU-minutes]({env_id}_recipe_curve.png)",
            "",
            *_curve_table(runs),
        ]
    return lines


def learning_section(env_id: str, summaries: Sequence[dict[str, Any]], shipped_sha256: str | None = None) -> list[str]:
    """The markdown lines of ``env_id``'s learning sections (``[]`` when no summary has a run of it);
    ``shipped_sha256``: the shipped file's hash (`curve_section`)."""
    players = pirate_envs.game_spec(env_id).default_players
    lines: list[str] = curve_section(env_id, summaries, shipped_sha256)
    equal = [s for s in summaries if "budget_s" in s and any(run["env_id"] == env_id for run in s["runs"])]
    if equal:
        lines += [
            "## Learning methods over training seeds",
            "",
            f"Each run learned from scratch at {players} players against heuristics in the other seats, for "
            f"the CPU budget given, then played against {_evaluation(equal, players)}. Each cell: the win rate "
            "with its 95% interval over deals; the last column, the CPU seconds each training run really "
            "used (read from the operating system). These are short runs comparing the methods at one "
            "budget, not the shipped agents' recipes. Made by `benchmarks/learners_equal_budget.py`; the "
            "summaries are in `docs/results/learning/`.",
            "",
            *_table(_cells(env_id, equal), "CPU budget per run", lambda budget: f"{budget:.0f} s"),
        ]
    for summary in recipe_summaries(env_id, summaries):
        if summary["recipe"].startswith(PPO_RECIPE):
            stages = "once per training seed (`--seed`), each checkpoint of a run a point of its learning curve"
            cpu = "each training run's, on its last checkpoint's row"
        else:
            stages = (
                "with each training seed (`--seed`) and stopped after each stage (the runs are seeded, so a "
                "shorter run is the first stages of a longer one): a learning curve per seed"
            )
            cpu = "each training run's"
        lines += [
            "## The shipped recipe over training seeds",
            "",
            f"The shipped agent's training command, `{summary['recipe']}`, run again {stages}. Each agent, "
            f"and the shipped file itself (trained with seed 1), then played against "
            f"{_evaluation([summary], players)}. The CPU seconds are {cpu}. Made by "
            "`benchmarks/recipe_seeds.py`." + _rerun_words(summary),
            "",
            *_table(_cells(env_id, [summary]), "stage", lambda key: key[1]),
        ]
    return lines


__all__ = [
    "METHODS",
    "PPO_RECIPE",
    "curve_section",
    "games_of",
    "learning_section",
    "load_summaries",
    "recipe_summaries",
    "shipped_seed",
]
