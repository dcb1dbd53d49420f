"""No per-game table inside a generic test: adding a game never means editing a test outside the game's folders.

A test outside the games' own folders (``tests/<game>/``, ``tests/agents/<game>/``) reads what differs
by game from the game's declaration (`GameSpec`) or its data beside its own tests (`tests.game_data`),
never from a table keyed by game id. The scan finds, by the registered env ids (and module constants
holding one): a dict keyed by game, a dict of cases led by a game, a list of rows led by games, and a
branch on a game id (``env_id == "..."``, ``env_id.startswith("<game>")``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.games import GAME_IDS, GAME_SPECS

ROOT = Path(__file__).resolve().parents[1]
#: The games' own folders, where tables of one game's cases belong.
GAME_FOLDERS = tuple(f"tests/{floor}{spec.package}/" for spec in GAME_SPECS for floor in ("", "agents/"))
#: What a literal naming a game may be: an env id, or a game's package (``env_id.startswith("lucky_pirate")``).
GAME_NAMES = frozenset(GAME_IDS) | {spec.package for spec in GAME_SPECS}
BRANCH_METHODS = ("startswith", "endswith")

#: Modules whose tables keyed by game are the input or the expected output of what they test (a document
#: keyed by env id, one game as the example of bad input), not settings of a generic test.
KEYED_BY_GAME_ON_PURPOSE: dict[str, str] = {
    "tests/agents/test_benchmark_compute.py": "results documents keyed by env id, the input of compute_statement",
    "tests/experiments/test_results_pages.py": "results keyed by env id, the input of the pages' tables",
    "tests/experiments/test_rule_cards.py": "a report's figures keyed by env id, the input of its markdown",
    "tests/vector/test_vector_api.py": "rows of bad input to vector.make, one game the example",
}
#: Test modules that still hold per-game tables, with what each holds: to move to the games' declarations or
#: data (`tests.game_data`). The list may only shrink (an entry whose module holds none fails too).
NOT_YET_MOVED: dict[str, str] = {
    "tests/bare_install_checks.py": "NEEDS_EXTRA: the agents of each game that need an extra",
}


def _is_game(node: ast.AST | None, aliases: set[str]) -> bool:
    """Whether ``node`` names a game: an env id literal, a constant holding one, or a tuple led by either."""
    if isinstance(node, ast.Constant):
        return node.value in GAME_IDS
    if isinstance(node, ast.Name):
        return node.id in aliases
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        return _is_game(node.elts[0], aliases)
    return False


def _names_a_game(node: ast.AST, aliases: set[str]) -> bool:
    """Whether ``node`` is a game's env id or package, or a container of them."""
    if isinstance(node, ast.Constant):
        return node.value in GAME_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_game(item, aliases) for item in node.elts)
    return isinstance(node, ast.Name) and node.id in aliases


def _holds_env_id(node: ast.AST) -> bool:
    """Whether ``node`` is a variable or attribute named ``env_id``."""
    return (isinstance(node, ast.Name) and node.id == "env_id") or (
        isinstance(node, ast.Attribute) and node.attr == "env_id"
    )


def game_tables(source: str) -> list[tuple[int, str]]:
    """``[(line, what)]`` of every per-game table and branch on a game id in ``source``."""
    tree = ast.parse(source)
    aliases = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value in GAME_IDS
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    asserted = {id(part) for node in ast.walk(tree) if isinstance(node, ast.Assert) for part in ast.walk(node.test)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and id(node) in asserted:
            continue  # a check of a value, not a branch
        if isinstance(node, ast.Dict):
            if any(_is_game(key, aliases) for key in node.keys):
                found.append((node.lineno, "a dict keyed by game"))
            elif sum(isinstance(v, (ast.Tuple, ast.List)) and _is_game(v, aliases) for v in node.values) >= 2:
                found.append((node.lineno, "a dict of cases led by games"))
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            if sum(isinstance(item, (ast.Tuple, ast.List)) and _is_game(item, aliases) for item in node.elts) >= 2:
                found.append((node.lineno, "rows led by games"))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(_holds_env_id, sides)) and any(_names_a_game(side, aliases) for side in sides):
                found.append((node.lineno, "a branch on a game id"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            method = node.func
            if method.attr in BRANCH_METHODS and _holds_env_id(method.value) and _names_a_game(node.args[0], aliases):
                found.append((node.lineno, "a branch on a game id"))
    return sorted(found)


def generic_test_modules() -> list[str]:
    """Every test module outside the games' own folders, from the repository root."""
    modules = (path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "tests").rglob("*.py")))
    return [module for module in modules if not module.startswith(GAME_FOLDERS)]


def test_no_generic_test_holds_a_per_game_table():
    found = {}
    for module in generic_test_modules():
        tables = game_tables((ROOT / module).read_text(encoding="utf-8"))
        if tables:
            found[module] = tables
    listed = {**KEYED_BY_GAME_ON_PURPOSE, **NOT_YET_MOVED}
    new = [
        f"{module}:{line} {what}" for module, tables in found.items() if module not in listed for line, what in tables
    ]
    assert new == [], "read per-game values from the declaration or tests/<game>/ (tests.game_data)"
    assert sorted(set(listed) - set(found)) == [], "these hold no per-game table now: drop them from the lists"


def test_the_scan_finds_per_game_tables():
    source = """
SK = "skull_king_v0"
SHORT = {"skull_king_v0": {"num_hands": 2}, "pig_v0": {}}
HASHES = {("piratenpoker_v0", 3): "73bd"}
CASES = {"sk": (SK, {"num_hands": 4}), "kapern": ("piraten_kapern_v0", {})}
ROWS = [("skull_king_v0", {}), (SK, {"num_players": 3})]
if env_id == "piratenpoker_v0" or spec.env_id in ("pig_v0",):
    seeds = (3,) if env_id.startswith("lucky_pirate") else (3, 11)
"""
    assert [line for line, _ in game_tables(source)] == [3, 4, 5, 6, 7, 7, 8]


def test_the_scan_leaves_one_named_game_alone():
    source = """
SK = "skull_king_v0"
env = pirate_envs.make("skull_king_v0", num_hands=2)
venv = vector.make(SK, 3, num_players=2)
cases = [(env_id, n) for env_id in GAME_IDS for n in (2, 3)]
body = {"env_id": "skull_king_v0", "options": {"num_hands": 2}}
same = name == "skull_king"
assert records.env_id == "skull_king_v0" and agent.card.env_id == SK
"""
    assert game_tables(source) == []
