"""A game's training recipe from scratch over seeds: strength against CPU-minutes of learning, per seed.

    python benchmarks/recipe_curves.py --env-id skull_king_v0 --seeds 1 2 3 --out runs/recipes/skull_king_v0

Runs the recipe (`agents.training.recipes`, the settings ``experiments.train --env-id <id>`` uses by default,
both phases of a recipe of two) once per seed, then plays some of each run's checkpoints on the recipe's
duplicate deals, fixed before any run (``evaluation`` in the recipe): against ``n - 1`` heuristics, and the last
checkpoint also against ``n - 1`` copies of the shipped network (``ppo:<env_id>``), and against both on the
validation deals (the deals that choose among seeds and recipes; the evaluation deals never do). Run again on
the same ``--out``, it trains no seed whose run is there and plays no evaluation already played (its folder
holds the results).
Each checkpoint's CPU seconds are the run's own count of its learning (``checkpoints/learn_cpu_s.json``: this
process, evaluations during learning included). Each invocation writes ``summary_<seeds>.json`` in ``--out``;
``--report`` merges those of a game into the committed learning summary
(``docs/results/learning/recipe_curve_<env_id>.json``, shown on the game's results page) and draws its curve
(``docs/results/<env_id>_recipe_curve.png``).

    python benchmarks/recipe_curves.py --env-id skull_king_v0 --out runs/recipes/skull_king_v0 --report docs/results

``--dmc <folders>`` with ``--report`` adds Deep Monte-Carlo runs given the recipe's CPU (outputs of
``benchmarks/learners_equal_budget.py --methods dmc --budget-s <the recipe's CPU seconds>``) beside the curve.
Without it the committed summary's DMC rows are kept (the page then says where their CPU differs from the
recipe's), and so are its rows of the shipped network when ``--out`` has none (``--shipped`` plays them).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from learners_equal_budget import agent_figures, play_against, timed

from agents.benchmark.candidate import file_sha256
from agents.benchmark.learning import SHIPPED_AGENT_WORDS
from agents.policy.agent import resolve_checkpoint
from agents.spec import SAMPLE_SUFFIX, parse_agent_name
from agents.training.finish import FINAL_FILE, FINISH_REPORT
from agents.training.recipes import PHASE_2_FOLDER, Recipe, recipe_for
from agents.training.run import LATEST_FILE, LEARN_CPU_FILE, SUMMARY_FILE
from agents.training.warm_start import WARM_START_FILE
from pirate_envs.core.files import write_atomic

#: Fractions of the budget whose checkpoints are played (the nearest checkpoint at or after each).
CURVE_POINTS = (1 / 12, 1 / 6, 1 / 3, 1 / 2, 3 / 4, 1.0)


def play(recipe: Recipe, agent: str, opponent: str, seed: int, folder: Path) -> dict:
    """``agent`` against ``n - 1`` copies of ``opponent`` on the recipe's duplicate deals from ``seed`` (read
    from ``folder`` where that evaluation was played already, with the same line-up, games and deals)."""
    evaluation = recipe.evaluation
    lineup = [agent, *[opponent] * (evaluation["num_players"] - 1)]
    played = played_before(folder, lineup, evaluation["games"], seed)
    if played is not None:
        return played
    figures = play_against(agent, opponent, recipe.env_id, evaluation["num_players"], evaluation["games"], seed, folder)
    if "win_rate" in figures:
        write_atomic(folder / AGENT_FILES, (json.dumps(agent_files(lineup), indent=1) + "\n").encode())
    return figures


#: Beside an evaluation's ``results.json``: the SHA-256 of each network file its line-up played.
AGENT_FILES = "agent_files.json"


def agent_files(lineup: list[str]) -> dict[str, str]:
    """The SHA-256 of the file of each trained network in ``lineup`` (a path, or a shipped name whose file a later
    ship replaces)."""
    hashes = {}
    for name in dict.fromkeys(lineup):
        network = parse_agent_name(name).network
        if network is None:
            continue
        try:
            path = resolve_checkpoint(network.removesuffix(SAMPLE_SUFFIX))
        except ValueError:  # no such file: nothing to record
            continue
        hashes[name] = file_sha256(path)
    return hashes


def played_before(folder: Path, lineup: list[str], games: int, seed: int) -> dict | None:
    """The agent's figures of an evaluation already in ``folder`` with this line-up, games and seed, and the same
    network files where their hashes were recorded (`AGENT_FILES`; else ``None``): a run re-reported, or given one
    more row, does not play its other games again, and one whose shipped network was replaced since does."""
    path = folder / "results.json"
    if not path.is_file():
        return None
    document = json.loads(path.read_text())
    asked = document.get("args", {})
    same = (document.get("lineup"), asked.get("games"), asked.get("seed"), asked.get("duplicate"))
    if same != (lineup, games, seed, True):
        return None
    recorded = folder / AGENT_FILES
    if recorded.is_file() and json.loads(recorded.read_text()) != agent_files(lineup):
        return None
    return agent_figures(document, lineup[0])


def curve_steps(steps: list[int], budget: int) -> list[int]:
    """The checkpoints played: the first at or after each of `CURVE_POINTS` of ``budget``, and the last (a run
    its ``--max-cpu-s`` stopped ends short of the budget)."""
    chosen = []
    for fraction in CURVE_POINTS:
        later = [s for s in steps if s >= fraction * budget]
        if later and later[0] not in chosen:
            chosen.append(later[0])
    if steps and steps[-1] not in chosen:
        chosen.append(steps[-1])
    return chosen


def one_seed(recipe: Recipe, seed: int, out: Path) -> list[dict]:
    """Train one seed (unless its run is there) and play its curve's checkpoints; the rows. A recipe of two
    phases draws one curve: the second phase's checkpoints follow the first's, their steps and CPU seconds
    counted on from the first phase's last checkpoint."""
    run = out / f"seed{seed}"
    (out / "eval").mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    if not (run / SUMMARY_FILE).is_file():  # the command takes the recipe (both phases) by default
        command = [sys.executable, "-m", "experiments.train", "--env-id", recipe.env_id, "--seed", str(seed),
                   "--out-dir", str(out), "--run-name", f"seed{seed}", "--overwrite", "--no-progress"]  # fmt: skip
        ran = timed(command, out / f"seed{seed}.log")
        (out / f"seed{seed}_process.json").write_text(json.dumps(ran))
    phases = phase_runs(recipe, run)
    step_offset, cpu_offset = 0, 0.0
    for number, (folder, settings) in enumerate(phases, start=1):
        cpu = json.loads((folder / "checkpoints" / LEARN_CPU_FILE).read_text())
        steps = sorted(int(s) for s in cpu if int(s) > 0)
        chosen = curve_steps(steps, settings["total_timesteps"])
        if (folder / "checkpoints" / WARM_START_FILE).is_file():
            chosen.insert(0, 0)  # the warm start's network, at its CPU seconds (agents.training.warm_start)
        last_phase = number == len(phases)
        phase = {"phase": number} if len(phases) > 1 else {}
        for step in chosen:
            name = WARM_START_FILE if step == 0 else f"step_{step}.npz"
            agent = f"ppo:{folder / 'checkpoints' / name}"
            base = {"env_id": recipe.env_id, "seed": seed, "steps": step_offset + step,
                    "learn_cpu_s": round(cpu_offset + cpu[str(step)], 2), **phase}  # fmt: skip
            played = LAST_ROWS if step == chosen[-1] and last_phase else LAST_ROWS[:1]
            rows += play_rows(recipe, agent, base, played, out / "eval" / f"s{seed}_{name_of(number, step)}")
            print(json.dumps(rows[-1]), flush=True)
        step_offset, cpu_offset = step_offset + steps[-1], cpu_offset + cpu[str(steps[-1])]
    last = handing_over_phase(recipe, run)
    final = last / "checkpoints" / FINAL_FILE
    if final.is_file():  # the agent the run handed over (--finish): beside its last checkpoint
        report = json.loads((last / FINISH_REPORT).read_text())
        spent = json.loads((last / SUMMARY_FILE).read_text()).get("finish_cpu_s", 0.0)
        phase = {"phase": len(phases)} if len(phases) > 1 else {}
        base = {"method": "finish", "finish": report["finish"]["method"], "env_id": recipe.env_id, "seed": seed,
                "steps": step_offset, "learn_cpu_s": round(cpu_offset + spent, 2), **phase}  # fmt: skip
        if "chosen" in report:
            base["chosen"] = report["chosen"]
        rows += play_rows(recipe, f"ppo:{final}", base, LAST_ROWS, out / "eval" / f"s{seed}_final")
        print(json.dumps(rows[-1]), flush=True)
    return rows


def phase_runs(recipe: Recipe, run: Path) -> list[tuple[Path, dict]]:
    """Each phase of seed run ``run``: its folder and its settings (a second phase's over the first's)."""
    first = [(run, recipe.train)]
    return first + [(run / PHASE_2_FOLDER, {**recipe.train, **recipe.then})] if recipe.then else first


def handing_over_phase(recipe: Recipe, run: Path) -> Path:
    """The folder of seed run ``run``'s phase that hands over the recipe's agent: its last."""
    folder, _ = phase_runs(recipe, run)[-1]
    return folder


#: The agents of a seed that ``--shipped-seed`` can name (``--shipped-agent``): the agent its run handed over
#: (``final.npz`` beside the last checkpoint, or the last checkpoint where the run handed that over), or the last
#: checkpoint of the phase that hands over.
SHIPPED_AGENTS = tuple(SHIPPED_AGENT_WORDS)


def seed_agent_file(recipe: Recipe, run: Path, agent: str) -> Path:
    """The file of seed run ``run``'s ``agent`` (one of `SHIPPED_AGENTS`)."""
    checkpoints = handing_over_phase(recipe, run) / "checkpoints"
    if agent == "handed-over" and (checkpoints / FINAL_FILE).is_file():
        return checkpoints / FINAL_FILE
    return checkpoints / LATEST_FILE


def name_of(phase: int, step: int) -> str:
    """The evaluation folder's name of a checkpoint: its steps, after ``p2_`` in a second phase."""
    return str(step) if phase == 1 else f"p{phase}_{step}"


#: What a curve's last checkpoint plays (every other checkpoint: the first only): ``(opponent, deals, folder
#: suffix)``, the opponent ``heuristic`` or ``shipped`` (``ppo:<env_id>``), the deals the recipe's ``evaluation``
#: seed or ``validation`` seed.
LAST_ROWS = (
    ("heuristic", "evaluation", "_h"),
    ("shipped", "evaluation", "_shipped"),
    ("heuristic", "validation", "_hv"),
    ("shipped", "validation", "_shipped_v"),
)


def play_rows(recipe: Recipe, agent: str, base: dict, played: tuple, prefix: Path) -> list[dict]:
    """``agent``'s rows of ``played`` (`LAST_ROWS`) on top of ``base``, evaluate's output in ``<prefix><suffix>``."""
    rows = []
    for opponent, deals, suffix in played:
        against = "heuristic" if opponent == "heuristic" else f"ppo:{recipe.env_id}"
        seed = recipe.evaluation["seed" if deals == "evaluation" else "validation_seed"]
        figures = play(recipe, agent, against, seed, prefix.with_name(prefix.name + suffix))
        rows.append({**base, "against": against, "deals": deals, **figures})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--out", required=True)
    parser.add_argument("--shipped", action="store_true", help="also play the shipped network on the same deals")
    parser.add_argument("--report", help="merge the summaries in --out into this results folder (trains nothing)")
    dmc_help = "with --report: folders of `learners_equal_budget.py --methods dmc` runs to show beside the curve"
    parser.add_argument("--dmc", nargs="*", default=[], help=dmc_help)
    parser.add_argument("--note", default="", help="with --report: how the runs differ from one run of the recipe")
    shipped_help = "with --report: the seed whose agent was shipped (its file's hash is recorded)"
    parser.add_argument("--shipped-seed", type=int, default=None, help=shipped_help)
    agent_help = "with --shipped-seed: which of the seed's agents was shipped"
    parser.add_argument("--shipped-agent", choices=SHIPPED_AGENTS, default=SHIPPED_AGENTS[0], help=agent_help)
    args = parser.parse_args()
    recipe = recipe_for(args.env_id)
    if recipe is None:
        raise SystemExit(f"{args.env_id} has no training recipe")
    if args.report:
        dmc = [Path(folder) for folder in args.dmc]
        report(recipe, Path(args.out), Path(args.report), dmc, args.note, args.shipped_seed, args.shipped_agent)
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [row for seed in args.seeds for row in one_seed(recipe, seed, out)]
    if args.shipped:
        shipped = {"env_id": recipe.env_id, "seed": None, "steps": None, "learn_cpu_s": None, "deals": "evaluation"}
        played = play(recipe, f"ppo:{recipe.env_id}", "heuristic", recipe.evaluation["seed"], out / "eval" / "shipped")
        rows.append({**shipped, "agent": f"ppo:{recipe.env_id}", "against": "heuristic", **played})
    summary = {"env_id": recipe.env_id, "recipe": recipe.describe(), "evaluation": recipe.evaluation, "rows": rows}
    (out / f"summary_{'_'.join(map(str, args.seeds))}.json").write_text(json.dumps(summary, indent=1))


def dmc_rows(recipe: Recipe, folders: list[Path]) -> list[dict]:
    """The DMC runs of the recipe's game in ``folders`` (each a ``learners_equal_budget.py`` output) as curve
    rows: against the heuristics (played there), and against copies of the shipped network on the same deals
    (played here)."""
    rows = []
    for folder in folders:
        for run in json.loads((folder / "summary.json").read_text())["runs"]:
            if run["method"] != "dmc" or run["env_id"] != recipe.env_id or "win_rate" not in run:
                continue
            interval = {key: run[key] for key in ("win_rate", "win_low", "win_high", "mean_score", "games")}
            base = {"method": "dmc", "env_id": recipe.env_id, "seed": run["seed"], "steps": None,
                    "learn_cpu_s": run["cpu_s"], "deals": "evaluation"}  # fmt: skip
            rows.append({**base, "against": "heuristic", **interval})
            agent = "dmc:" + str(folder / f"dmc_{recipe.env_id}_{run['seed']}.npz")
            shipped = f"ppo:{recipe.env_id}"
            played = play(recipe, agent, shipped, recipe.evaluation["seed"], folder / f"eval_shipped_{run['seed']}")
            rows.append({**base, "against": shipped, **played})
    return rows


def report(
    recipe: Recipe,
    out: Path,
    results: Path,
    dmc: list[Path] = (),
    note: str = "",
    shipped_seed: int | None = None,
    shipped_agent: str = SHIPPED_AGENTS[0],
) -> None:
    """Merge ``out``'s ``summary_*.json`` (and the DMC runs in ``dmc``) into the committed learning summary and
    draw its curve. ``shipped_seed``: the seed whose ``shipped_agent`` (`seed_agent_file`, in ``out/seed<N>``) was
    shipped, recorded with its file's hash so that the results page can tell whether it still is (without it, a
    committed record stays)."""
    rows = [row for path in sorted(out.glob("summary_*.json")) for row in json.loads(path.read_text())["rows"]]
    runs = [{"method": "shipped" if row["seed"] is None else "ppo", **row} for row in rows]
    target = results / "learning" / f"recipe_curve_{recipe.env_id}.json"
    committed_summary = json.loads(target.read_text()) if target.is_file() else {}
    committed = committed_summary.get("runs", [])
    if not any(run["method"] == "shipped" for run in runs):  # the shipped network, unchanged, on the same deals
        runs += [run for run in committed if run["method"] == "shipped"]
    runs += dmc_rows(recipe, list(dmc)) if dmc else [run for run in committed if run["method"] == "dmc"]
    summary = {"curve": recipe.describe(), "eval_games": recipe.evaluation["games"],
               "eval_seed": recipe.evaluation["seed"], "validation_seed": recipe.evaluation["validation_seed"],
               "num_players": recipe.evaluation["num_players"], "runs": runs}  # fmt: skip
    if note:
        summary["note"] = note
    if shipped_seed is not None:
        shipped = seed_agent_file(recipe, out / f"seed{shipped_seed}", shipped_agent)
        if not shipped.is_file():
            raise SystemExit(f"--shipped-seed {shipped_seed}: no {shipped_agent} agent at {shipped}")
        summary["shipped_seed"] = {"seed": shipped_seed, "agent": shipped_agent, "sha256": file_sha256(shipped)}
    elif "shipped_seed" in committed_summary:
        summary["shipped_seed"] = committed_summary["shipped_seed"]
    write_atomic(target, (json.dumps(summary, indent=1) + "\n").encode())
    draw_curve(summary, recipe.env_id, results / f"{recipe.env_id}_recipe_curve.png")
    print(f"wrote {target}")


def draw_curve(summary: dict, env_id: str, path: Path) -> None:
    """Win rate against CPU-minutes of learning, one line per seed and opponent, 95% bars, chance dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    curve = [run for run in summary["runs"] if run["method"] == "ppo" and run["deals"] == "evaluation"]
    for against, marker in (("heuristic", "o"), (f"ppo:{env_id}", "s")):
        for seed in sorted({run["seed"] for run in curve}):
            points = sorted((run["learn_cpu_s"] / 60, run) for run in curve
                            if run["seed"] == seed and run["against"] == against and "win_rate" in run)  # fmt: skip
            if not points:
                continue
            x = [minutes for minutes, _ in points]
            y = [run["win_rate"] for _, run in points]
            error = [[run["win_rate"] - run["win_low"] for _, run in points],
                     [run["win_high"] - run["win_rate"] for _, run in points]]  # fmt: skip
            label = f"seed {seed}, against {'heuristics' if against == 'heuristic' else 'the shipped network'}"
            axes.errorbar(x, y, yerr=error, marker=marker, capsize=3, label=label)
    dmc = [run for run in summary["runs"] if run["method"] == "dmc" and run["against"] == "heuristic"]
    if dmc:
        axes.errorbar([run["learn_cpu_s"] / 60 for run in dmc], [run["win_rate"] for run in dmc],
                      yerr=[[run["win_rate"] - run["win_low"] for run in dmc],
                            [run["win_high"] - run["win_rate"] for run in dmc]],
                      fmt="x", color="black", capsize=3, label="DMC at its CPU, against heuristics")  # fmt: skip
    axes.axhline(1 / summary["num_players"], linestyle="--", color="grey", label="chance")
    axes.set_xlabel("CPU-minutes of learning (one process)")
    axes.set_ylabel(f"win rate, {summary['num_players']} players")
    axes.set_title(f"{env_id}: the training recipe from scratch")
    axes.legend(fontsize=7)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(figure)
    write_atomic(path, buffer.getvalue())


if __name__ == "__main__":
    main()
