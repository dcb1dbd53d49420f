"""The house keeps its three floors: ``pirate_envs`` (envs, core, vector, testing), ``agents``
(agents and self-play) and ``experiments`` (commands). Imports run one way only, downwards:
``pirate_envs`` imports nothing from ``agents`` or ``experiments``, ``agents`` nothing from
``experiments``.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from pirate_envs.registry import GYMNASIUM_ENTRY_POINT

ROOT = Path(__file__).resolve().parent.parent

#: The floor of each top-level package of the project (a higher floor may import a lower one).
FLOORS = {"pirate_envs": 1, "agents": 2, "experiments": 3}


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every absolute import in ``tree``, those inside functions included,
    and of every ``importlib.import_module``/``__import__`` call with a literal module name."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def upward_imports(root: Path) -> list[str]:
    """``path:line: package imports module`` for every import of a higher floor under ``root``."""
    faults = []
    for package, floor in FLOORS.items():
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, module in imported_modules(tree):
                top = module.split(".")[0]
                if FLOORS.get(top, 0) > floor:
                    faults.append(f"{path.relative_to(root)}:{line}: {package} imports {module}")
    return faults


def test_no_module_imports_a_higher_floor():
    assert upward_imports(ROOT) == []


#: The one string of the games floor that may name a module above it: Gymnasium's lazy entry point, a
#: registration resolved only by ``gymnasium.make`` (the ids work after ``import pirate_envs``).
REGISTRATIONS = {GYMNASIUM_ENTRY_POINT}


def upward_strings(root: Path) -> list[str]:
    """``path:line: 'text'`` of every string constant under ``root/pirate_envs`` that names a module of a
    higher floor (``"agents.x:Y"``, ``"experiments.x"``): a lazy import is still an arrow up."""
    faults = []
    for path in sorted((root / "pirate_envs").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            named = isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            if named and re.match(r"(agents|experiments)[.:]\w", node.value) and node.value not in REGISTRATIONS:
                faults.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
    return faults


def test_the_games_floor_names_no_module_above_it_in_a_string():
    assert upward_strings(ROOT) == []


def test_the_string_check_sees_a_module_path(tmp_path):
    (tmp_path / "pirate_envs").mkdir()
    (tmp_path / "pirate_envs" / "spec.py").write_text(
        '"""Names agents.base in prose: fine."""\nHEURISTIC = "agents.skull_king.heuristic:SkullKingHeuristic"\n'
    )
    assert upward_strings(tmp_path) == ["pirate_envs/spec.py:2: 'agents.skull_king.heuristic:SkullKingHeuristic'"]


def game_room_imports(root: Path) -> list[str]:
    """``path:line: module`` for every import of a game's room (``agents.<game>``, named as the game's package
    under ``pirate_envs``) by a module of ``agents`` outside that room: the shared rooms find a game's parts
    from its env id (``agents.games``), so they sit below every game's room."""
    games = {path.name for path in (root / "pirate_envs").iterdir() if (path / "__init__.py").exists()}
    faults = []
    for path in sorted((root / "agents").rglob("*.py")):
        parts = path.relative_to(root / "agents").parts
        own = parts[0] if len(parts) > 1 else None
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in imported_modules(tree):
            names = module.split(".")
            if names[0] == "agents" and len(names) > 1 and names[1] in games and names[1] != own:
                faults.append(f"{path.relative_to(root)}:{line}: {module}")
    return faults


def test_no_shared_room_of_the_agents_imports_a_game_room():
    assert game_room_imports(ROOT) == []


def test_the_game_room_check_sees_an_import(tmp_path):
    (tmp_path / "pirate_envs" / "skull_king").mkdir(parents=True)
    (tmp_path / "pirate_envs" / "skull_king" / "__init__.py").write_text("")
    (tmp_path / "agents" / "skull_king").mkdir(parents=True)
    (tmp_path / "agents" / "analysis").mkdir()
    (tmp_path / "agents" / "skull_king" / "mistakes.py").write_text("from agents.skull_king.rule_card import x\n")
    (tmp_path / "agents" / "analysis" / "pages.py").write_text(
        "def f():\n    from agents.skull_king.rule_card import strong_cards\n"
    )
    assert game_room_imports(tmp_path) == ["agents/analysis/pages.py:2: agents.skull_king.rule_card"]


#: Above the games, no code decides by a game's id: a game's facts live in its own room. A
#: comparison with a literal env id (``env_id == "skull_king_v0"``, ``in ("lucky_pirate_v0", ...)``)
#: is such a decision; comparing two ids (an agent file's game with the run's) is not.
ENV_ID_COMPARISON = re.compile(r"([=!]=|\bin)\s*[\(\[\{]?\s*[\"'][a-z_]+_v\d+[\"']|[\"'][a-z_]+_v\d+[\"']\s*[=!]=")


def env_id_comparisons(root: Path, packages: tuple[str, ...] = ("agents", "experiments")) -> list[str]:
    """``path:line`` of every comparison with an env id in the code of ``packages`` (comments left out)."""
    faults = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if ENV_ID_COMPARISON.search(line.split("#")[0]):
                    faults.append(f"{path.relative_to(root)}:{number}")
    return faults


def test_no_floor_above_the_games_compares_env_ids():
    """Neither the floors above nor the games' shared modules (the adapters, OpenSpiel, the vector API)."""
    assert env_id_comparisons(ROOT, ("agents", "experiments", "pirate_envs")) == []


def test_the_env_id_check_sees_a_comparison(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "x.py").write_text(
        'if env_id == "skull_king_v0":\n    pass\nok = spec.env_id  # env_id == x\n'
    )
    assert env_id_comparisons(tmp_path, ("agents",)) == ["agents/x.py:1"]


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    for package in FLOORS:
        (tmp_path / package).mkdir()
    (tmp_path / "pirate_envs" / "env.py").write_text("def build():\n    from agents.registry import make_agent\n")
    (tmp_path / "agents" / "pool.py").write_text("import importlib\nimportlib.import_module('experiments.train')\n")
    (tmp_path / "experiments" / "train.py").write_text("import agents\nimport pirate_envs\n")
    assert upward_imports(tmp_path) == [
        "pirate_envs/env.py:2: pirate_envs imports agents.registry",
        "agents/pool.py:2: agents imports experiments.train",
    ]


#: Run with ``agents`` and ``experiments`` unimportable: the envs and the vector envs must work
#: from ``pirate_envs`` alone, which registers no Gymnasium id (their env lives on the agents floor).
FIRST_FLOOR_ALONE = """
import sys

sys.modules["agents"] = None
sys.modules["experiments"] = None

import gymnasium
import numpy as np

import pirate_envs
import pirate_envs.vector

rng = np.random.default_rng(0)
for env_id in pirate_envs.ENV_IDS:
    env = pirate_envs.make(env_id)
    env.reset(seed=0)
    for _, agent in zip(range(20), env.agent_iter()):
        observation, _, terminated, truncated, _ = env.last()
        legal = np.flatnonzero(observation["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    venv = pirate_envs.vector.make(env_id, num_envs=4, seed=0)
    venv.reset()
    for _ in range(5):
        venv.step(pirate_envs.vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated))
    assert venv.observation.shape[0] == 4
assert sorted(pirate_envs.GYMNASIUM_IDS) == sorted(spec.gym_id for spec in pirate_envs.GAME_SPECS)
for gym_id in pirate_envs.GYMNASIUM_IDS:  # registered by a string, a registration, not an import
    assert gymnasium.registry[gym_id].entry_point == pirate_envs.registry.GYMNASIUM_ENTRY_POINT, gym_id
print("first floor alone: ok")
"""


def test_the_first_floor_works_without_the_floors_above():
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FLOOR_ALONE],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "first floor alone: ok" in done.stdout


#: The modules of ``experiments`` that are no command: the argument parsing every command shares.
ARGUMENT_PARSING = {"cli.py"}


def library_classes(root: Path) -> list[str]:
    """``path:line: Class`` for every class in a command module of ``root/experiments`` that is not an
    argument dataclass (a ``@dataclass`` named ``...Args`` or ``Args``).

    A command parses its arguments, builds its run plan and calls the library (``agents``): the
    classes that do the work live there, and so do the plans (frozen dataclasses of the library).
    """
    faults = []
    for path in sorted((root / "experiments").glob("*.py")):
        if path.name in ARGUMENT_PARSING:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, ast.ClassDef):
                continue
            decorators = {ast.unparse(d).split("(")[0] for d in node.decorator_list}
            if not (node.name.endswith("Args") and decorators & {"dataclass", "dataclasses.dataclass"}):
                faults.append(f"{path.relative_to(root)}:{node.lineno}: {node.name}")
    return faults


def test_commands_hold_no_library_classes():
    assert library_classes(ROOT) == []


#: Library modules that may end the process: the one-line stop of a command whose extra is missing.
MAY_EXIT = {"agents/extras.py"}


def library_exits(root: Path) -> list[str]:
    """``path:line`` of every ``sys.exit``, ``exit``/``quit`` call or ``raise SystemExit`` under ``root/agents``:
    a library raises an error and leaves the exit (and its status) to the command."""
    faults = []
    for path in sorted((root / "agents").rglob("*.py")):
        if path.relative_to(root).as_posix() in MAY_EXIT:
            continue
        lines = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            call = node.exc if isinstance(node, ast.Raise) else node
            if isinstance(call, ast.Call):
                call = call.func
            name = ast.unparse(call) if isinstance(call, (ast.Name, ast.Attribute)) else ""
            if (isinstance(node, ast.Raise) and name == "SystemExit") or (
                isinstance(node, ast.Call) and name in ("sys.exit", "exit", "quit", "os._exit")
            ):
                lines.append(node.lineno)
        faults += [f"{path.relative_to(root)}:{line}" for line in sorted(lines)]
    return faults


def test_the_library_never_ends_the_process():
    assert library_exits(ROOT) == []


def test_the_thin_command_checks_see_what_they_look_for(tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "agents" / "core").mkdir(parents=True)
    (tmp_path / "experiments" / "run.py").write_text(
        "from dataclasses import dataclass\n\n@dataclass\nclass RunArgs:\n    seed: int = 0\n\n"
        "class Table:\n    pass\n\n@dataclass(frozen=True)\nclass RunPlan:\n    seed: int\n"
    )
    (tmp_path / "agents" / "core" / "play.py").write_text(
        "import sys\n\ndef play():\n    sys.exit(2)\n\ndef stop():\n    raise SystemExit(1)\n\n"
        "def fine():\n    raise ValueError\n"
    )
    assert library_classes(tmp_path) == ["experiments/run.py:7: Table", "experiments/run.py:11: RunPlan"]
    assert library_exits(tmp_path) == ["agents/core/play.py:4", "agents/core/play.py:7"]
