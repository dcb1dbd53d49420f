"""``experiments.results_pages``: a game's page rendered from tiny results files of real runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")

from agents.benchmark import pages
from agents.benchmark.board import board_markdown, candidate_label
from agents.benchmark.learning import games_of, load_summaries
from agents.benchmark.pages import (
    GAMES,
    README_BEGIN,
    README_END,
    command,
    headline,
    load_documents,
    readme_table,
    render,
)
from agents.benchmark.run import ProtocolRun, run_protocol
from experiments import results_pages
from tests.helpers import refused

KAPERN = "piraten_kapern_v0"


@pytest.fixture(scope="module")
def documents():
    return [
        json.loads(json.dumps(run_protocol(ProtocolRun(KAPERN, agent, (2,), 2, 1, ("random", "heuristic")))))
        for agent in ("heuristic", "random")
    ]


def test_a_page_from_tiny_results_files(tmp_path, documents):
    data = tmp_path / "data" / KAPERN
    data.mkdir(parents=True)
    for document in documents:
        (data / f"{document['candidate']}.json").write_text(json.dumps(document))
    out = tmp_path / "pages"
    [page] = results_pages.main(["--data", str(tmp_path / "data"), "--out", str(out), "--learning", str(tmp_path)])
    assert page == out / f"{KAPERN}.md"
    text = page.read_text()
    assert text.startswith(f"# Results: {KAPERN}") and "pirate-bench v3" in text
    assert "| line-up | `heuristic` | `random` |" in text
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| 2p vs")}
    assert set(rows) == {"| 2p vs random", "| 2p vs heuristic"}
    heuristic = documents[1]["lineups"][1]["estimates"]["win"]["corrected"][0]  # random against the heuristic
    assert f"{heuristic:.3f}" in rows["| 2p vs heuristic"] and "(2)" in rows["| 2p vs heuristic"]
    assert documents[0]["provenance"]["git"]["commit"][:12] in text
    limits = text.split('!!! note "Known limits"')[1]
    missing = "`random`, `heuristic`, `oracle`, `race`, `best_response:oracle`, `best_response:heuristic`, `ppo:"
    assert f"without a full run committed here: {missing}" in limits  # reduced
    assert f"`ppo:{KAPERN}` comes from one training seed" in limits
    assert (
        "python -m experiments.benchmark --env-id piraten_kapern_v0 --agent heuristic --protocol v3 --deals 2 "
        "--players 2 --opponents random heuristic --out runs/bench" in text
    )


def test_the_known_limits_name_the_widest_intervals(documents):
    wide = json.loads(json.dumps(documents[0]))
    wide["lineups"][1]["estimates"]["win"]["corrected"] = [0.5, 0.38, 0.62]
    wide["lineups"][0]["estimates"]["win"]["corrected"] = [0.99, 0.95, 1.03]  # clipped to 1: ±0.025
    limits = render([wide]).split('!!! note "Known limits"')[1]
    assert "have wider intervals: `heuristic` up to ±0.120." in limits and "`random`" not in limits.split("wider")[1]


def test_the_command_of_a_page_reproduces_the_run(documents):
    """The command a page prints, run again, gives the same figures."""
    from experiments import benchmark

    words = command(documents[0]).split()[3:-2] + ["--out", "unused", "--no-progress"]
    assert words[:4] == ["--env-id", KAPERN, "--agent", "heuristic"]
    args = benchmark.parse_args(benchmark.BenchmarkArgs, words)
    again = run_protocol(
        ProtocolRun(args.env_id, args.agent, tuple(args.players), args.deals, 1, tuple(args.opponents))
    )
    assert again["lineups"][0]["estimates"] == documents[0]["lineups"][0]["estimates"]


def test_one_protocol_label_per_table_the_others_listed_apart(documents):
    mixed = [documents[0], {**documents[1], "protocol": "pirate-bench v3.0"}]
    page = render(mixed)
    assert f"from the results files of {documents[0]['protocol']}" in page
    tables, older = page.split("## Runs of earlier protocol revisions")
    assert f"`{documents[1]['candidate']}`" not in tables.split("## Runs")[0]
    assert f"- `{documents[1]['candidate']}`: pirate-bench v3.0" in older


def test_the_leaderboard_never_sorts_a_reduced_run_beside_full_ones_nor_mixes_revisions(documents):
    strong_reduced = {**documents[0], "candidate": "strong_reduced"}  # reduced, its strength above the full run's
    full = {**documents[1], "candidate": "weak_full", "full_protocol": True, "reduced": None}
    older = {**documents[0], "candidate": "older", "full_protocol": True, "reduced": None}
    older["protocol"] = "pirate-bench v3.0"
    page = board_markdown({KAPERN: [strong_reduced, full, older]})
    current, earlier = page.split("Made under pirate-bench v3.0")
    full_table, reduced_table = current.split("Reduced runs (fewer deals or line-ups: not ranked with the full runs):")
    assert "`weak_full`" in full_table and "`strong_reduced`" not in full_table
    assert "`strong_reduced`" in reduced_table
    assert "`older`" in earlier and "`older`" not in current


def test_a_run_of_a_shipped_file_replaced_since_is_marked_as_the_earlier_network(tmp_path, documents):
    """A results file records the hash of the shipped agent file its candidate ran; once that file is replaced
    (a new network shipped under the same name), the leaderboard marks the row as the earlier network's."""
    shipped = tmp_path / "pretrained"
    shipped.mkdir()
    (shipped / f"{KAPERN}.npz").write_bytes(b"the network now")
    document = json.loads(json.dumps(documents[0]))  # the fixture's documents are shared by the module's tests
    name = f"ppo:{KAPERN}"
    document["candidate"] = name
    record = {"name": name, "file": f"{KAPERN}.npz", "kind": "registry"}
    for content, marked in ((b"the network now", False), (b"an earlier network", True)):
        document["agents"]["candidate"] = {**record, "sha256": hashlib.sha256(content).hexdigest()}
        label = candidate_label(document, shipped)
        assert label.startswith(f"`{name}`") and ("shipped earlier" in label) is marked
    document["agents"]["candidate"] = {"name": "heuristic", "file": None, "sha256": None}
    assert candidate_label(document, shipped) == f"`{name}`"  # no file: nothing to compare


def test_no_results_files_is_refused(tmp_path, capsys):
    assert "no results files" in refused(capsys, results_pages.main, ["--data", str(tmp_path), "--out", str(tmp_path)])


ROOT = Path(__file__).resolve().parents[2]


def shipped_full(document: dict) -> dict:
    """``document`` as if it were the shipped network's full run (the README's table reads only those)."""
    return {**json.loads(json.dumps(document)), "candidate": f"ppo:{KAPERN}", "full_protocol": True, "reduced": None}


def test_the_readme_games_table_is_the_one_the_committed_results_files_give():
    """The README's figures cannot go stale: its table is the one `python -m experiments.results_pages
    --readme README.md` writes from the committed files."""
    games = load_documents(ROOT / "docs" / "results" / "data")
    assert readme_table(games) in (ROOT / "README.md").read_text()


def test_the_leaderboard_page_is_the_one_the_committed_results_files_give():
    games = load_documents(ROOT / "docs" / "results" / "data")
    assert (ROOT / "docs" / "leaderboard.md").read_text() == board_markdown(games)


def test_the_readme_headline_is_the_shipped_networks_full_run(documents):
    assert headline(documents, KAPERN) == "—"  # reduced runs of other candidates: nothing to quote
    shipped = shipped_full(documents[0])
    heuristic = next(r for r in shipped["lineups"] if r["lineup"] == "2p vs heuristic")
    mean = heuristic["estimates"]["win"]["corrected"][0]
    cell = headline([documents[1], shipped], KAPERN)
    assert cell.startswith(f"2p, vs heuristic {mean:.2f} [") and f"docs/results/{KAPERN}.md" in cell
    table = readme_table({KAPERN: [shipped]})
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [env_id for env_id, _, _ in GAMES]
    assert cell in rows[0] and all(row.endswith("| — |") for row in rows[1:])


def test_the_command_rewrites_the_readme_table_and_the_leaderboard(tmp_path, documents):
    data = tmp_path / "data" / KAPERN
    data.mkdir(parents=True)
    for name, document in (("shipped", shipped_full(documents[0])), ("random", documents[1])):
        (data / f"{name}.json").write_text(json.dumps(document))
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\n{README_BEGIN}\nstale\n{README_END}\n\nthe rest\n")
    board = tmp_path / "leaderboard.md"
    (tmp_path / "no learning").mkdir()  # a folder without summaries: no learning sections
    argv = ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--readme", str(readme)]
    argv += ["--leaderboard", str(board), "--learning", str(tmp_path / "no learning")]
    results_pages.main(argv)
    text = readme.read_text()
    assert "stale" not in text and text.startswith("# title\n\n") and text.endswith("\n\nthe rest\n")
    assert headline([shipped_full(documents[0])], KAPERN) in text
    page = board.read_text()
    assert "### 2 players" in page and f"| `ppo:{KAPERN}` |" in page and "| `random` |" in page
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert rows[0].startswith(f"| `ppo:{KAPERN}` |")  # the heuristic (as the shipped network here) ranks first
    assert rows[0].endswith("| full |") and rows[1].endswith("| reduced |")


def test_a_readme_without_the_table_markers_is_refused(tmp_path, documents, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "README.md").write_text("# no table\n")
    argv = ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--readme", str(tmp_path / "README.md")]
    assert "no games table marker" in refused(capsys, results_pages.main, argv)


def learning_run(method: str, env_id: str, seed: int, rate: float | None, cpu_s: float) -> dict:
    """A run as ``benchmarks/learners_equal_budget.py`` records it (``rate`` None: the training failed)."""
    run = {"method": method, "env_id": env_id, "seed": seed, "exit": 0 if rate is not None else 1, "cpu_s": cpu_s}
    if rate is not None:
        run.update(win_rate=rate, win_low=rate - 0.04, win_high=rate + 0.04, mean_score=0.0, games=200)
    return run


def learning_summary(budget: float, runs: list[dict]) -> dict:
    return {"budget_s": budget, "eval_games": 400, "eval_seed": 7, "cpus": 2, "runs": runs, "by_game": {}}


def test_the_learning_methods_over_seeds_are_on_each_games_page(tmp_path, documents):
    data = tmp_path / "data" / KAPERN
    data.mkdir(parents=True)
    (data / "heuristic.json").write_text(json.dumps(documents[0]))
    learning = tmp_path / "learning"
    learning.mkdir()
    runs = [learning_run("ppo", KAPERN, seed, rate, 100 + seed) for seed, rate in ((1, 0.30), (2, 0.42), (3, 0.36))]
    runs += [learning_run("dmc", KAPERN, 1, 0.20, 90), learning_run("dmc", KAPERN, 2, None, 5)]
    runs += [learning_run("dmc", "lucky_pirate_v1", seed, 0.26, 95) for seed in (1, 2, 3)]
    (learning / "a.json").write_text(json.dumps(learning_summary(90, runs)))
    (learning / "b.json").write_text(json.dumps(learning_summary(180, [learning_run("ppo", KAPERN, 1, 0.47, 190)])))
    out = tmp_path / "pages"
    argv = ["--data", str(tmp_path / "data"), "--out", str(out), "--learning", str(learning)]
    assert sorted(path.name for path in results_pages.main(argv)) == ["lucky_pirate_v1.md", f"{KAPERN}.md"]
    text = (out / f"{KAPERN}.md").read_text()
    assert "| line-up | `heuristic` |" in text and "## Learning methods over training seeds" in text
    rows = [line for line in text.split("## Learning")[1].splitlines() if line.startswith("| ") and " s |" in line]
    assert rows == [
        "| 90 s | PPO | 0.300 [0.260, 0.340] | 0.420 [0.380, 0.460] | 0.360 [0.320, 0.400] | 0.360 (0.300, 0.420) "
        "| 101, 102, 103 |",
        "| 90 s | Deep Monte-Carlo | 0.200 [0.160, 0.240] | failed (exit 1) | — | 0.200 (0.200, 0.200) | 90, 5 |",
        "| 180 s | PPO | 0.470 [0.430, 0.510] | — | — | 0.470 (0.470, 0.470) | 190 |",
    ]
    assert "against 1 heuristic (400 duplicate games, seed 7; chance 0.50)" in text
    alone = (out / "lucky_pirate_v1.md").read_text()
    assert "No benchmark results file of this game is committed yet." in alone and "0.260 (0.260, 0.260)" in alone
    assert "Deep Monte-Carlo" in alone and "| PPO |" not in alone
    # a game version the protocol does not cover: its agents cannot have a run, and the box says why
    assert "pirate-bench v3 does not cover this game version (it has no reference network)" in alone
    assert "Built-in agents without a full run" not in alone and "Built-in agents without a full run" in text


def test_a_learning_file_that_is_no_summary_is_refused(tmp_path, documents, capsys):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    (tmp_path / "learning" / "x.json").write_text(json.dumps({"runs": []}))
    argv = ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    assert "not a learning summary" in refused(capsys, results_pages.main, argv)
    (tmp_path / "learning" / "x.json").write_text(json.dumps(learning_summary(90, [{"method": "ppo"}])))
    assert "a run lacks one of method, env_id, seed" in refused(capsys, results_pages.main, argv)
    (tmp_path / "learning" / "x.json").write_text(json.dumps({**learning_summary(90, []), "recipe": "python -m x"}))
    assert "exactly one of budget_s, recipe" in refused(capsys, results_pages.main, argv)
    recipe = {
        "recipe": "python -m x",
        "eval_games": 4,
        "eval_seed": 1,
        "runs": [learning_run("ppo", KAPERN, 1, 0.3, 9)],
    }
    (tmp_path / "learning" / "x.json").write_text(json.dumps(recipe))
    assert "lacks its stage" in refused(capsys, results_pages.main, argv)
    assert not (tmp_path / f"{KAPERN}.md").exists()


def test_the_shipped_recipe_over_seeds_is_a_curve_by_stage(tmp_path, documents):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    runs = [
        {
            **learning_run("imitation", KAPERN, seed, 0.5 + seed / 100 + rounds / 10, 100 * rounds),
            "stage": f"round {rounds}",
        }
        for seed in (1, 2, 3)
        for rounds in (1, 2)
    ]
    runs.append({**learning_run("shipped", KAPERN, 1, 0.71, 0), "cpu_s": None, "stage": "round 2"})
    recipe = {"recipe": "python -m experiments.imitate --rounds 2", "eval_games": 1000, "eval_seed": 11, "runs": runs}
    recipe["rerun_is_shipped_file"] = False
    (tmp_path / "learning" / "r.json").write_text(json.dumps(recipe))
    argv = ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    results_pages.main(argv)
    text = (tmp_path / f"{KAPERN}.md").read_text()
    assert "## The shipped recipe over training seeds" in text and "## Learning methods" not in text
    assert "comes from one training seed" not in text  # the recipe over seeds is on the page
    assert "did not write the shipped file byte for byte" in text and "reproduces in distribution" in text
    assert "`python -m experiments.imitate --rounds 2`" in text and "(1000 duplicate games, seed 11" in text
    rows = [line for line in text.split("## The shipped recipe")[1].splitlines() if line.startswith("| round")]
    assert rows == [
        "| round 1 | the shipped recipe, run again | 0.610 [0.570, 0.650] | 0.620 [0.580, 0.660] "
        "| 0.630 [0.590, 0.670] | 0.620 (0.610, 0.630) | 100, 100, 100 |",
        "| round 2 | the shipped recipe, run again | 0.710 [0.670, 0.750] | 0.720 [0.680, 0.760] "
        "| 0.730 [0.690, 0.770] | 0.720 (0.710, 0.730) | 200, 200, 200 |",
        "| round 2 | the shipped agent file | 0.710 [0.670, 0.750] | — | — | (one file) | — |",
    ]


def test_the_committed_results_pages_are_the_ones_the_committed_files_give():
    games = load_documents(ROOT / "docs" / "results" / "data")
    summaries = load_summaries(ROOT / "docs" / "results" / "learning")
    for env_id in [*games, *games_of(summaries)]:
        page = render(games.get(env_id, []), summaries, env_id)
        assert (ROOT / "docs" / "results" / f"{env_id}.md").read_text() == page, env_id


def test_a_ppo_recipe_over_seeds_is_a_curve_by_checkpoint_in_step_order(tmp_path, documents):
    """Stages sort by their learner steps (2M before 10M), the run's CPU is on its last checkpoint."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    runs = []
    for seed in (1, 2):
        for steps in (10_000_000, 2_000_000):  # written last first: the page orders them
            run = {**learning_run("ppo", KAPERN, seed, 0.3 + steps / 1e8, 0), "stage": f"{steps / 1e6:.1f}M steps"}
            run["order"] = steps
            if steps != 10_000_000:
                del run["cpu_s"]
            runs.append(run)
    runs.append({**learning_run("shipped", KAPERN, 1, 0.4, 0), "cpu_s": None, "stage": "10.0M steps", "order": 10**7})
    recipe = {"recipe": "python -m experiments.train --total-timesteps 10000000", "eval_games": 400, "eval_seed": 5}
    (tmp_path / "learning" / "r.json").write_text(
        json.dumps({**recipe, "runs": runs, "rerun_is_shipped_network": False})
    )
    results_pages.main(
        ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    )
    text = (tmp_path / f"{KAPERN}.md").read_text()
    assert "each checkpoint of a run a point of its learning curve" in text
    assert "did not end with the shipped network weight for weight" in text
    rows = [line for line in text.split("## The shipped recipe")[1].splitlines() if "M steps |" in line]
    assert [row.split(" | ")[:2] for row in rows] == [
        ["| 2.0M steps", "PPO"], ["| 10.0M steps", "PPO"], ["| 10.0M steps", "the shipped agent file"]
    ]  # fmt: skip
    assert rows[0].endswith("| — |") and rows[1].endswith("| 0, 0 |")


def test_the_known_limits_name_a_search_below_the_heuristic_against_random_players(documents):
    heuristic, random_agent = (json.loads(json.dumps(d)) for d in documents)
    heuristic["lineups"][0]["estimates"]["win"]["corrected"] = [0.97, 0.95, 0.99]
    search = json.loads(json.dumps(random_agent))
    search["candidate"] = "halving"
    search["lineups"][0]["estimates"]["win"]["corrected"] = [0.90, 0.88, 0.92]
    limits = render([search, heuristic, random_agent]).split('!!! note "Known limits"')[1]
    assert (
        "Against random players a search wins less often than the heuristic does (`halving` at 2p: "
        "0.900 [0.880, 0.920] against the heuristic's 0.970 [0.950, 0.990])" in limits
    )
    assert "(../benchmark.md#a-search-against-random-players)" in limits  # what was measured
    assert "`random` at" not in limits  # not a search
    search["lineups"][0]["estimates"]["win"]["corrected"] = [0.93, 0.90, 0.96]  # the intervals overlap
    assert "a search wins less often" not in render([search, heuristic])


def rendered_curve_section(tmp_path: Path, summary: dict) -> str:
    """``summary`` written as the learning summary in ``tmp_path/learning``, the pages rendered from it and
    ``tmp_path/data``: Kapern's section of the recipe's curve."""
    (tmp_path / "learning" / "c.json").write_text(json.dumps(summary))
    results_pages.main(
        ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    )
    return (tmp_path / f"{KAPERN}.md").read_text().split("## The training recipe from scratch over seeds")[1]


def test_a_recipe_curve_from_scratch_is_on_the_page_with_the_median_of_its_last_checkpoints(tmp_path, documents):
    """A curve summary (`benchmarks/recipe_curves.py --report`): each checkpoint's row at its CPU-minutes, the
    shipped network on the same deals, and the median over seeds of the last checkpoints."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    runs = []
    for seed, final in ((1, 0.6), (2, 0.7), (3, 0.5)):
        for steps, rate in ((1_000_000, 0.3), (2_000_000, final)):
            base = {"method": "ppo", "env_id": KAPERN, "seed": seed, "steps": steps, "learn_cpu_s": steps / 10_000}
            interval = {"win_rate": rate, "win_low": rate - 0.05, "win_high": rate + 0.05, "games": 400}
            runs.append({**base, "against": "heuristic", "deals": "evaluation", **interval})
        runs.append({**base, "against": f"ppo:{KAPERN}", "deals": "evaluation", **interval, "win_rate": 0.4})
    shipped = {"method": "shipped", "env_id": KAPERN, "seed": None, "steps": None, "learn_cpu_s": None}
    runs.append({**shipped, "against": "heuristic", "deals": "evaluation", "win_rate": 0.67, "win_low": 0.6,
                 "win_high": 0.7})  # fmt: skip
    curve = {"curve": "python -m experiments.train --env-id x", "eval_games": 400, "eval_seed": 9,
             "validation_seed": 10, "num_players": 2, "runs": runs}  # fmt: skip
    (tmp_path / "learning" / "c.json").write_text(json.dumps(curve))
    results_pages.main(
        ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    )
    text = (tmp_path / f"{KAPERN}.md").read_text()
    section = text.split("## The training recipe from scratch over seeds")[1]
    assert "against the heuristics 0.600 (seeds 0.600, 0.700, 0.500; median 3.3 CPU-minutes)" in section
    assert "against copies of the shipped network 0.400" in section
    assert "| 2 | 1,000,000 | 1.7 | n - 1 heuristics | evaluation | 0.300 [0.250, 0.350] |" in section
    assert "| the shipped network | — | — | heuristic | evaluation | 0.670 [0.600, 0.700] |" in section
    assert f"]({KAPERN}_recipe_curve.png)" in section
    assert "Deep Monte-Carlo" not in section  # no DMC rows, no DMC sentence
    assert "warm start" not in section  # no point at 0 learner steps
    # a recipe with a warm start: each seed's first point is its network at 0 learner steps, its CPU counted
    warm = {**runs[0], "steps": 0, "learn_cpu_s": 30, "win_rate": 0.45}
    section = rendered_curve_section(tmp_path, {**curve, "runs": [warm, *runs]})
    assert "The recipe starts with a warm start (`--warm-start`)" in section
    assert "| 1 | 0 | 0.5 | n - 1 heuristics | evaluation | 0.450 [0.250, 0.350] |" in section
    assert "against the heuristics 0.600 (seeds 0.600, 0.700, 0.500" in section  # the medians: last checkpoints
    assert "hands over" not in section  # no --finish rows, no sentence on them
    # runs that hand over another agent (--finish): its rows in the table and its medians beside the last ones
    finish = {"method": "finish", "finish": "choose", "env_id": KAPERN, "steps": 2_000_000, "learn_cpu_s": 210.0}
    interval = {"win_low": 0.6, "win_high": 0.8, "games": 400, "deals": "evaluation"}
    handed = [{**finish, "seed": s, "against": "heuristic", "win_rate": r, **interval} for s, r in ((1, 0.7), (2, 0.8))]
    handed[0]["chosen"] = 1_500_000
    section = rendered_curve_section(tmp_path, {**curve, "runs": [*runs, *handed]})
    assert "`--finish choose`, its late checkpoint chosen on validation" in section
    assert "median over seeds: against the heuristics 0.750 (seeds 0.700, 0.800; median 3.5 CPU-minutes)" in section
    row = "| 2 (its late checkpoint chosen on validation) | 2,000,000 | 3.5 | n - 1 heuristics | evaluation | 0.800 "
    assert row in section
    assert "| 1 (its checkpoint at 1,500,000 steps, chosen on validation) | 2,000,000 | 3.5 |" in section
    assert "against the heuristics 0.600 (seeds 0.600, 0.700, 0.500" in section  # the last checkpoints' unchanged


def test_a_shipped_network_that_is_a_seed_of_the_curve_is_named_there_while_its_file_is_unchanged(
    tmp_path, documents, monkeypatch
):
    """The curve's ``shipped_seed`` record names the seed the shipped network is, and the page's known limits no
    longer say it comes from one unreplicated seed; once the shipped file changes (another hash), neither holds."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    interval = {"deals": "evaluation", "against": "heuristic", "win_rate": 0.6, "win_low": 0.5, "win_high": 0.7}
    runs = [{"method": "ppo", "env_id": KAPERN, "seed": seed, "steps": 10, "learn_cpu_s": 600, **interval}
            for seed in (1, 2)]  # fmt: skip
    curve = {"curve": "python -m experiments.train --env-id x", "eval_games": 400, "eval_seed": 9,
             "validation_seed": 10, "num_players": 2, "runs": runs,
             "shipped_seed": {"seed": 2, "sha256": "ab" * 32}}  # fmt: skip
    (tmp_path / "learning" / "c.json").write_text(json.dumps(curve))
    argv = ["--data", str(tmp_path / "data"), "--out", str(tmp_path), "--learning", str(tmp_path / "learning")]
    for shipped, named in (("ab" * 32, True), ("cd" * 32, False)):
        monkeypatch.setattr(pages, "shipped_file_sha256", lambda env_id, shipped=shipped: shipped)
        results_pages.main(argv)
        text = (tmp_path / f"{KAPERN}.md").read_text()
        said = f"The shipped network `ppo:{KAPERN}` is seed 2's last checkpoint (agent file sha256 `abababab"
        assert (said in text) is named
        assert ("comes from one training seed" in text) is not named
    curve["shipped_seed"]["agent"] = "handed-over"  # the agent the run handed over (a recipe's `--finish`)
    (tmp_path / "learning" / "c.json").write_text(json.dumps(curve))
    monkeypatch.setattr(pages, "shipped_file_sha256", lambda env_id: "ab" * 32)
    results_pages.main(argv)
    text = (tmp_path / f"{KAPERN}.md").read_text()
    assert f"The shipped network `ppo:{KAPERN}` is the agent seed 2's run handed over (agent file sha256" in text


def test_dmc_at_the_recipe_budget_sits_beside_the_curve(tmp_path, documents):
    """DMC runs at the recipe's CPU (`recipe_curves.py --report --dmc`): their rows marked DMC and their median in
    words; they do not count in the recipe's own medians."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.json").write_text(json.dumps(documents[0]))
    (tmp_path / "learning").mkdir()
    interval = {"deals": "evaluation", "against": "heuristic", "win_low": 0.1, "win_high": 0.9, "games": 400}
    runs = [{"method": "ppo", "env_id": KAPERN, "seed": 1, "steps": 10, "learn_cpu_s": 600, "win_rate": 0.6,
             **interval},
            {"method": "dmc", "env_id": KAPERN, "seed": 1, "steps": None, "learn_cpu_s": 630, "win_rate": 0.2,
             **interval},
            {"method": "dmc", "env_id": KAPERN, "seed": 2, "steps": None, "learn_cpu_s": 618, "win_rate": 0.4,
             **interval}]  # fmt: skip
    curve = {"curve": "python -m experiments.train --env-id x", "eval_games": 400, "eval_seed": 9,
             "validation_seed": 10, "num_players": 2, "runs": runs, "note": "Each run was resumed once."}  # fmt: skip
    section = rendered_curve_section(tmp_path, curve)
    assert "Made by `benchmarks/recipe_curves.py`. Each run was resumed once. Beside it, Deep Monte-Carlo" in section
    assert "median over seeds: against the heuristics 0.600 (seeds 0.600; median 10.0 CPU-minutes)" in section
    assert "(rows marked DMC): against the heuristics 0.300 (seeds 0.200, 0.400; median 10.4 CPU-minutes)" in section
    assert "| 2 (DMC) | — | 10.3 | n - 1 heuristics | evaluation | 0.400 [0.100, 0.900] |" in section
    assert "(phase 2)" not in section  # a recipe of one phase
    assert "not compared at equal CPU" not in section  # 624 CPU-s against 600
    for run in runs[1:]:
        run["learn_cpu_s"] = 1_800  # three times the recipe's CPU
    section = rendered_curve_section(tmp_path, curve)
    assert "DMC's CPU is 3.00 times the recipe's last checkpoints': the two are not compared at equal CPU." in section
    # a recipe longer than DMC: its curve where DMC stopped (each seed's last checkpoint at or before DMC's CPU)
    runs += [{**runs[0], "steps": 30, "learn_cpu_s": 3_000, "win_rate": 0.7, "phase": 2}]
    for run in runs[1:3]:
        run["learn_cpu_s"] = 900
    section = rendered_curve_section(tmp_path, curve)
    assert "DMC's CPU is 0.30 times the recipe's last checkpoints'" in section
    assert "| 1 | 30 (phase 2) | 50.0 | n - 1 heuristics | evaluation | 0.700 [0.100, 0.900] |" in section
    said = "At DMC's CPU (15.0 CPU-minutes) the recipe's curve stood at 0.600 against the heuristics (each seed's"
    assert said in section
