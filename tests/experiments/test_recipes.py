"""The training recipes (`agents.training.recipes`): data that `experiments.train` reads by default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import pirate_envs
from agents.training.recipes import recipe_for
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
