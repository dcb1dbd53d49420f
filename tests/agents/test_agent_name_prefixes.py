"""Agent names are read by one grammar (`agents.spec`): no code outside it tests a name by a literal prefix
or splits a name on ':' itself."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from agents.selfplay.opponents import SELF
from agents.spec import KINDS

ROOT = Path(__file__).resolve().parents[2]
#: The folders scanned (every module but the grammar's own).
FOLDERS = ("agents", "experiments", "benchmarks", "examples", "pirate_envs")
GRAMMAR = "agents/spec.py"
#: The words an agent name starts with, read from the syntax of every kind (``mcts[:<n>]`` -> ``mcts``),
#: and the opponent pool's word for the learner's snapshots.
WORDS = frozenset(
    {
        match.group(1)
        for kind in KINDS.values()
        for written in kind.syntax.split("|")
        if (match := re.match(r"\s*([a-z]+)\s*(?:[:\[]|$)", written))
    }
    | {SELF}
)
PREFIX_TESTS = ("startswith", "removeprefix")
SPLITS = ("split", "rsplit", "partition", "rpartition")
#: Variables that hold an agent name, by their name's words.
NAME_HOLDERS = re.compile(r"(^|_)(name|names|agent|agents|spec|specs|opponent|opponents)($|_)")
#: Uses that are no agent name, ``(module, literal)``: why each is allowed.
NOT_NAMES = {
    ("experiments/web/sessions.py", "rules"): "the heading of a game module's rules section, not an agent name",
    ("agents/selfplay/opponents.py", ":"): "splits a pool entry's weight off (``name:weight``), the name kept whole",
}


def _strings(node: ast.expr) -> list[str]:
    """The string literals of ``node``: a literal, or a tuple of them."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]


def _is_name_prefix(literal: str) -> bool:
    return literal.split(":", 1)[0] in WORDS


def _holder(node: ast.expr) -> str:
    """The variable or attribute name a method is called on (``spec.rpartition`` -> ``spec``), else ''."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def hand_parsing(source: str) -> list[tuple[int, str]]:
    """``[(line, literal)]`` of every literal prefix test of an agent name (``name.startswith("ppo:")``,
    ``x[:4] == "ppo:"``), every constant naming a prefix (``PREFIX = "openspiel:"``) and every split of
    a name-holding variable on ':' in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            method, literals = node.func.attr, _strings(node.args[0])
            if method in PREFIX_TESTS:
                found += [(node.lineno, s) for s in literals if _is_name_prefix(s)]
            elif method in SPLITS and ":" in literals and NAME_HOLDERS.search(_holder(node.func.value)):
                found.append((node.lineno, ":"))
        elif isinstance(node, (ast.Compare, ast.Assign)):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
            else:  # a constant, not a tuple of names
                sides = [node.value] if isinstance(node.value, ast.Constant) else []
            found += [(node.lineno, s) for side in sides for s in _strings(side) if s[:-1] in WORDS and s[-1:] == ":"]
    return sorted(found)


def test_no_agent_name_is_parsed_outside_the_grammar():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            module = path.relative_to(ROOT).as_posix()
            if module != GRAMMAR:
                found += [
                    f"{module}:{line} {literal!r}"
                    for line, literal in hand_parsing(path.read_text(encoding="utf-8"))
                    if (module, literal) not in NOT_NAMES
                ]
    assert found == [], "parse agent names with agents.spec.parse_agent_name, not by hand"


def test_the_scan_finds_hand_parsing():
    source = """
ok = name.startswith("ppo:") or spec.startswith(("halving", "x")) or name.removeprefix("rules:")
kind, _, rest = name.partition(":")
head = agent_name.split(":")[0]
same = name[:4] == "ppo:"
pool = spec.startswith("self")
PREFIX = "openspiel:"
"""
    assert [line for line, _ in hand_parsing(source)] == [2, 2, 2, 3, 4, 5, 6, 7]


def test_the_scan_leaves_other_text_alone():
    source = """
cpu = line.startswith("model name") and line.split(":", 1)[1]
key, _, value = item.partition("=")
label = f"ppo:{path}"
name = "mcts"
names = ("mcts:0", "ppo:/no/such.npz")
whole = name == "mcts:200"
rank = text.startswith("randomly")
"""
    assert hand_parsing(source) == []
    assert {"ppo", "dmc", "rules", "halving", "mcts", "gumbel", "omniscient", "openspiel", "random"} <= WORDS
