"""The training recipes (`agents.training.recipes`): data that `experiments.train` reads by default."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import pirate_envs
from agents.training.recipes import Recipe, recipe_for
from experiments import train
from experiments.cli import given_flags, parse_args

RECIPE_IDS = [env_id for env_id in pirate_envs.ENV_IDS if recipe_for(env_id) is not None]


def parsed(argv: list[str]) -> tuple[train.TrainArgs, set[str]]:
    """The arguments of ``argv`` as the command parses them, the recipe applied, and the fields it set."""
    given = given_flags(train.TrainArgs, argv)
    return train.with_recipe(parse_args(train.TrainArgs, argv), given), given


def test_the_four_games_have_a_recipe():
    assert {"skull_king_v0", "piratenpoker_v0", "piraten_kapern_v0", "lucky_pirate_v1"} <= set(RECIPE_IDS)


@pytest.mark.parametrize("env_id", RECIPE_IDS)
def test_each_recipe_makes_a_checked_plan(env_id, tmp_path):
    """Every setting of a recipe is a field of the command and passes its checks (a plan builds)."""
    recipe = recipe_for(env_id)
    args = train.with_recipe(train.TrainArgs(env_id=env_id, out_dir=str(tmp_path), run_name="r"), set())
    plan = train.plan_of(args)
    for name, value in recipe.train.items():
        stored = getattr(plan.args, name)
        assert stored == value or [stored] == value, name
    assert set(recipe.evaluation) == {"num_players", "games", "seed", "validation_seed"}
    # game g of a duplicate evaluation plays the deal of seed + g: the validation deals share none of them
    assert abs(recipe.evaluation["seed"] - recipe.evaluation["validation_seed"]) >= recipe.evaluation["games"]
    assert plan.args.total_timesteps == recipe.train["total_timesteps"]  # the budget is the recipe's


def test_the_guides_first_command_takes_the_recipe():
    """The training guide's first command (no reward or pool given) learns with the recipe's score reward,
    pool and entropy bonus; before the recipes it trained on the win alone and learned nothing."""
    args, _ = parsed(["--env-id", "skull_king_v0", "--num-players", "4", "--total-timesteps", "1000000"])
    recipe = recipe_for("skull_king_v0").train
    assert (args.reward_mode, args.opponents, args.ent_coef) == (
        recipe["reward_mode"],
        recipe["opponents"],
        recipe["ent_coef"],
    )
    assert args.total_timesteps == 1_000_000  # a flag given wins over the recipe


def test_recipe_none_keeps_the_plain_defaults():
    args, _ = parsed(["--env-id", "skull_king_v0", "--recipe", "none"])
    assert args == train.TrainArgs(env_id="skull_king_v0", recipe="none")


def test_the_note_names_only_what_the_recipe_set():
    args, given = parsed(["--env-id", "piratenpoker_v0", "--reward-mode", "win", "--total-timesteps", "64"])
    note = train.recipe_note(args, given)
    opponents = recipe_for("piratenpoker_v0").train["opponents"]
    assert f"--opponents {' '.join(opponents)}" in note
    assert "--reward-mode" not in note and "--total-timesteps" not in note


def test_a_run_records_each_checkpoints_learning_cpu(tmp_path):
    train.main(["--env-id", "skull_king_v0", "--recipe", "none", "--eval-every", "0", "--num-players", "2",
                "--env-kwargs", "num_hands=1", "--num-envs", "2", "--n-steps", "32", "--batch-size", "32",
                "--n-epochs", "1", "--opponents", "random",
                "--eval-opponents", "random", "--eval-games", "2", "--no-progress", "--out-dir", str(tmp_path),
                "--run-name", "r", "--total-timesteps", "128", "--checkpoint-every", "64"])  # fmt: skip
    seconds = json.loads((tmp_path / "r" / "checkpoints" / "learn_cpu_s.json").read_text())
    assert sorted(map(int, seconds)) == [64, 128]
    assert 0 < seconds["64"] <= seconds["128"]
    # a resumed run goes on from the figure of its checkpoint (set large here), as if it had run straight on
    (tmp_path / "r" / "checkpoints" / "learn_cpu_s.json").write_text(json.dumps({**seconds, "128": 1000.0}))
    train.main(["--resume", str(tmp_path / "r"), "--total-timesteps", "192", "--no-progress"])
    resumed = json.loads((tmp_path / "r" / "checkpoints" / "learn_cpu_s.json").read_text())
    assert sorted(map(int, resumed)) == [64, 128, 192]
    assert 1000.0 < resumed["192"] < 1000.0 + 600


def test_the_training_guide_states_each_recipe_as_its_data():
    """The guide's recipe table holds each recipe's pool and budget (the data is the one source)."""
    guide = (Path(__file__).parents[2] / "docs" / "guides" / "training.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in guide.splitlines() if line.startswith("| `")}
    for env_id in RECIPE_IDS:
        recipe = recipe_for(env_id).train
        row = rows[env_id]
        assert f"pool `{' '.join(recipe['opponents'])}`" in row, env_id
        assert f"{recipe['total_timesteps'] / 1e6:g}M" in row, env_id
        assert "x".join(map(str, recipe["net_arch"])) in row, env_id


def test_init_given_replaces_the_recipes_warm_start():
    """A network given by ``--init`` takes no warm start from the recipe (two starting networks are refused)."""
    recipe = recipe_for("skull_king_v0").train
    assert recipe.get("warm_start") is not None
    args, given = parsed(["--env-id", "skull_king_v0", "--init", "some.npz"])
    assert args.warm_start is None and args.init == "some.npz"
    assert args.n_epochs == recipe["n_epochs"]  # the other fields still come from the recipe
    assert "--warm-start" not in train.recipe_note(args, given)
    assert parsed(["--env-id", "skull_king_v0"])[0].warm_start == recipe["warm_start"]


@pytest.mark.parametrize("env_id", [env_id for env_id in RECIPE_IDS if recipe_for(env_id).train.get("player_weights")])
def test_table_sizes_given_take_none_of_the_recipes_table_weights(env_id, tmp_path):
    """A recipe of mixed tables weighs its own sizes; ``--num-players`` given (the README's main job: one size)
    plays those sizes unweighted instead of being refused for weights that do not fit them."""
    args, given = parsed(["--env-id", env_id, "--num-players", "4", "--out-dir", str(tmp_path), "--run-name", "r"])
    assert args.num_players == [4] and args.player_weights == []
    assert "--player-weights" not in (train.recipe_note(args, given) or "")
    train.check_args(args, given)
    train.plan_of(args)  # no refusal
    assert parsed(["--env-id", env_id])[0].player_weights == recipe_for(env_id).train["player_weights"]


@pytest.mark.parametrize("flags", [["--pipeline", "--pipeline-in", "process"], ["--engine", "single"]])
def test_work_in_other_processes_replaces_the_recipes_cpu_cap(flags):
    """``--max-cpu-s`` counts this process only: a run that may put work in other processes takes no CPU cap from
    the recipe (it would be refused), and keeps the recipe's learner steps as its budget."""
    recipe = recipe_for("skull_king_v0").train
    assert recipe.get("max_cpu_s", 0) > 0
    args, given = parsed(["--env-id", "skull_king_v0", *flags])
    assert args.max_cpu_s == 0 and args.total_timesteps == recipe["total_timesteps"]
    train.check_args(args, given)  # no refusal


#: A second phase (`Recipe.then`) for Skull King's recipe, whether or not it has one.
THEN = {"opponents": ["heuristic:0.3", "self:0.7"], "max_cpu_s": 1500, "finish": "average", "finish_from": 0.667}
#: A tiny Skull King run of its recipe (both phases): every budget flag small, held in both phases.
TINY = ["--env-id", "skull_king_v0", "--total-timesteps", "256", "--warm-start-games", "8", "--num-envs", "16",
        "--batch-size", "256", "--eval-games", "4", "--no-progress"]  # fmt: skip


@pytest.fixture
def two_phases(monkeypatch) -> Recipe:
    """Skull King's recipe with the second phase `THEN`, as the command reads it."""
    recipe = dataclasses.replace(recipe_for("skull_king_v0"), then=THEN)
    monkeypatch.setattr(train, "recipe_for", lambda env_id: recipe if env_id == recipe.env_id else recipe_for(env_id))
    return recipe


def test_a_second_phase_makes_a_checked_plan_of_its_own_settings(two_phases, tmp_path):
    """The second phase starts from the first run's last checkpoint, inside its folder, without a warm start,
    and with each of its settings over the first phase's."""
    args = train.with_recipe(train.TrainArgs(env_id="skull_king_v0", out_dir=str(tmp_path), run_name="r"), set())
    then = train.second_phase(args, set(), tmp_path / "r")
    assert then.init == str(tmp_path / "r" / "checkpoints" / "latest.npz") and then.warm_start is None
    assert Path(then.out_dir) / then.run_name == tmp_path / "r" / "phase_2"
    plan = train.plan_of(dataclasses.replace(then, init=None))
    for name, value in THEN.items():
        assert getattr(plan.args, name) == value, name
    assert plan.args.seed == args.seed and plan.args.net_arch == args.net_arch  # the rest: the first phase's


@pytest.mark.parametrize("env_id", [env_id for env_id in RECIPE_IDS if recipe_for(env_id).then])
def test_each_second_phase_in_the_recipes_makes_a_checked_plan(env_id, tmp_path):
    args = train.with_recipe(train.TrainArgs(env_id=env_id, out_dir=str(tmp_path), run_name="r"), set())
    plan = train.plan_of(dataclasses.replace(train.second_phase(args, set(), tmp_path / "r"), init=None))
    assert all(getattr(plan.args, name) == value for name, value in recipe_for(env_id).then.items())


def test_flags_given_hold_in_both_phases(two_phases, tmp_path):
    args, given = parsed(["--env-id", "skull_king_v0", "--max-cpu-s", "60", "--opponents", "heuristic"])
    then = train.second_phase(args, given, tmp_path)
    assert (then.max_cpu_s, then.opponents) == (60, ["heuristic"])
    assert then.finish == THEN["finish"]  # not given: the phase's own
    note = train.recipe_note(args, given)
    assert "then its second phase" in note and "--max-cpu-s" not in note


@pytest.mark.parametrize("argv", [["--recipe", "none"], ["--resume", "somewhere"]])
def test_no_recipe_and_a_resumed_run_have_no_second_phase(two_phases, argv, tmp_path):
    args = parse_args(train.TrainArgs, ["--env-id", "skull_king_v0", *argv])
    assert train.second_phase(args, given_flags(train.TrainArgs, argv), tmp_path) is None


@pytest.mark.parametrize("field", ["init", "warm_start", "run_name", "out_dir"])
def test_a_second_phase_cannot_set_its_start_or_folder(field):
    with pytest.raises(ValueError, match="second phase sets"):
        Recipe(env_id="skull_king_v0", about="", train={}, then={field: "x"})


def test_the_command_runs_both_phases_of_a_recipe(two_phases, tmp_path, capsys):
    """``experiments.train --env-id <id>`` trains the first phase, then the second from its last checkpoint,
    which hands over the recipe's agent (here the mean of its late checkpoints)."""
    folder = train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r"])
    first = tmp_path / "r"
    assert folder == first / "phase_2"
    config = json.loads((folder / "config.json").read_text())
    assert config["init"] == str(first / "checkpoints" / "latest.npz") and config["warm_start"] is None
    assert {name: config[name] for name in THEN} == THEN
    assert json.loads((first / "config.json").read_text())["opponents"] == two_phases.train["opponents"]
    assert (folder / "checkpoints" / "final.npz").is_file() and (first / "checkpoints" / "warm_start.npz").is_file()
    assert "then its second phase" in capsys.readouterr().err
    # a new run over it (--overwrite) keeps nothing of the old second phase, which started from the old checkpoint
    train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r", "--overwrite", "--recipe", "none"])
    assert not folder.exists() and not (first / "phase_2.json").exists()


def stopped_after_the_first_phase(monkeypatch, steps: int, interrupted: bool) -> None:
    """The command's first phase runs (to ``steps`` learner steps), then the command stops as at a Ctrl-C: inside
    the run (``interrupted``: its summary says so) or between the phases (the first run had finished)."""
    real = train.run_training

    def stopped(plan, evaluator):
        plan = dataclasses.replace(plan, args=dataclasses.replace(plan.args, total_timesteps=steps))
        run_dir = real(plan, evaluator)
        summary = json.loads((run_dir / "summary.json").read_text())
        (run_dir / "summary.json").write_text(json.dumps({**summary, "interrupted": interrupted}))
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "run_training", stopped)


def test_a_resumed_first_phase_goes_on_into_the_second(two_phases, tmp_path, monkeypatch):
    """A run of a recipe stopped in its first phase: ``--resume`` of its folder finishes the first phase, then runs
    the second as the command would have (its settings saved when the first started: the resume's budget flags
    are the first phase's); once the second has started, a resume of the first is refused and names the second's
    folder."""
    stopped_after_the_first_phase(monkeypatch, 512, interrupted=True)  # one rollout of 16 games x 32 steps
    with pytest.raises(SystemExit) as stop:
        train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r"])
    assert stop.value.code == train.INTERRUPTED
    first = tmp_path / "r"
    assert (first / "phase_2.json").is_file() and not (first / "phase_2").exists()
    monkeypatch.undo()
    monkeypatch.setattr(train, "recipe_for", lambda env_id: two_phases)  # the resume never reads the recipe
    folder = train.main(["--resume", str(first), "--total-timesteps", "1024", "--no-progress"])
    assert folder == first / "phase_2"
    assert "1024" in json.loads((first / "checkpoints" / "learn_cpu_s.json").read_text())  # the first phase went on
    config = json.loads((folder / "config.json").read_text())
    assert config["init"] == str(first / "checkpoints" / "latest.npz") and config["total_timesteps"] == 256
    assert {name: config[name] for name in THEN} == THEN and (folder / "checkpoints" / "final.npz").is_file()
    with pytest.raises(SystemExit) as refused:
        train.main(["--resume", str(first), "--no-progress"])
    assert refused.value.code == 2


def test_a_resumed_first_phase_that_had_finished_goes_straight_on_to_the_second(two_phases, tmp_path, monkeypatch):
    stopped_after_the_first_phase(monkeypatch, 512, interrupted=False)
    with pytest.raises(SystemExit):
        train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r"])
    first = tmp_path / "r"
    trained = json.loads((first / "checkpoints" / "learn_cpu_s.json").read_text())
    monkeypatch.undo()
    assert train.main(["--resume", str(first), "--no-progress"]) == first / "phase_2"
    assert json.loads((first / "checkpoints" / "learn_cpu_s.json").read_text()) == trained  # not trained again
    assert (first / "phase_2" / "checkpoints" / "final.npz").is_file()


def test_a_second_phase_that_cannot_run_is_refused_before_the_first_starts(two_phases, tmp_path):
    (tmp_path / "r" / "phase_2").mkdir(parents=True)
    (tmp_path / "r" / "phase_2" / "config.json").write_text("{}")
    with pytest.raises(SystemExit) as stop:
        train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r"])
    assert stop.value.code == 2
    assert not (tmp_path / "r" / "config.json").exists()  # the first phase never started


def test_a_first_phase_observing_otherwise_than_the_second_is_refused_before_it_starts(tmp_path):
    """Skull King's recipe learns at 4 players first, in the layout of the mixed tables its second phase plays:
    env options given that drop that layout are refused before the first phase's 29 minutes, with the fix."""
    folder = ["--out-dir", str(tmp_path), "--run-name", "r"]
    with pytest.raises(SystemExit) as stop:
        train.main([*TINY, *folder, "--env-kwargs", "num_hands=3"])
    assert stop.value.code == 2 and not (tmp_path / "r" / "config.json").exists()
    args, given = parsed(["--env-id", "skull_king_v0", *folder, "--env-kwargs", "num_hands=3"])
    with pytest.raises(ValueError, match="pass --env-kwargs num_hands=3 table_layout=max"):
        train.plan_phases(args, given)
    argv = ["--env-id", "skull_king_v0", *folder, "--env-kwargs", "num_hands=3", "table_layout=max"]
    plan, then = train.plan_phases(*parsed(argv))
    assert dict(plan.env_options) == {"num_hands": 3, "table_layout": "max"} and then.num_players == [2, 3, 4, 5, 6]


@pytest.mark.parametrize("env_id", RECIPE_IDS)
def test_each_committed_curve_is_of_the_recipe_in_force(env_id):
    """The results page says the command runs the recipe its curve drew: a recipe changed since must be run again
    over its seeds (`benchmarks/recipe_curves.py`)."""
    path = Path(__file__).parents[2] / "docs" / "results" / "learning" / f"recipe_curve_{env_id}.json"
    if not path.is_file():
        pytest.skip(f"{env_id} has no committed curve")
    assert json.loads(path.read_text())["curve"] == recipe_for(env_id).describe()


def test_only_the_second_phases_own_start_is_reported_as_the_second_phase(two_phases, tmp_path, monkeypatch):
    """After the first phase, the second is checked again with its start: a first phase that wrote no last
    checkpoint ends the command naming the second phase; an error inside the first phase's training stays its own."""
    monkeypatch.setattr(train, "run_training", lambda plan, evaluator: plan.run_dir)  # trains nothing, writes nothing
    with pytest.raises(SystemExit, match=r"the recipe's second phase: .*latest\.npz"):
        train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "r"])

    def broken(plan, evaluator):
        raise ValueError("inside the first phase")

    monkeypatch.setattr(train, "run_training", broken)
    with pytest.raises(ValueError, match="inside the first phase"):
        train.main([*TINY, "--out-dir", str(tmp_path), "--run-name", "s"])
