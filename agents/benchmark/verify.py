"""Whether a folder of results files still holds at the current code: ``benchmark --verify <folder>``.

Every results file made under the current protocol revision (`agents.benchmark.protocol.label`) stores
the fingerprints of the opponents it played and the deal plan (`agents.benchmark.fingerprint`).
`verify_folder` recomputes each fingerprint once at the current code and compares: a file whose
opponents now play otherwise, a missing fingerprint, or a deal plan that moved is a difference, named
by the file, agent, game, table size and first differing position. A file of an earlier revision
(``v3.0``) whose set the package keeps (`agents.benchmark.fingerprint.package_path`) is checked against
that set instead (any difference fails), and said to be made under it: its opponents no longer play so
at the current code, which `check_earlier` names. Files of a label without a set (``v2``) are counted,
not failed. The package's own fingerprints (`agents.benchmark.fingerprint.FOLDER`) are checked too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.benchmark.fingerprint import FOLDER, compare, deal_plan, fingerprint, package_data, package_path
from agents.benchmark.protocol import TITLE


@dataclass
class Verification:
    """What `verify_folder` found: the differences (one line each), the files checked and those left aside."""

    differences: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    other_versions: dict[str, str] = field(default_factory=dict)  # file: the protocol it was made under
    earlier: dict[str, str] = field(default_factory=dict)  # file of an earlier revision, checked: what moved since

    @property
    def ok(self) -> bool:
        """No difference."""
        return not self.differences


class _Recomputed:
    """Fingerprints and deal plans at the current code, each computed once."""

    def __init__(self, progress: Callable[[str], None] | None):
        self.fingerprints: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.plans: dict[str, dict[str, int]] = {}
        self.progress = progress

    def fingerprint(self, name: str, env_id: str, players: int) -> dict[str, Any]:
        key = (name, env_id, players)
        if key not in self.fingerprints:
            if self.progress:
                self.progress(f"fingerprint of {name} in {env_id} at {players} players")
            self.fingerprints[key] = fingerprint(name, env_id, players)
        return self.fingerprints[key]

    def plan(self, env_id: str) -> dict[str, int]:
        if env_id not in self.plans:
            self.plans[env_id] = deal_plan(env_id)
        return self.plans[env_id]


def _registry_name(opponent: str, env_id: str) -> str:
    from agents.benchmark.protocol import opponent_agent

    return opponent_agent(opponent, env_id)


def _compared(document: dict[str, Any], expected: Callable[[str, int], dict[str, Any]]) -> list[str]:
    """The differences between the fingerprints ``document`` stores and ``expected(opponent, players)``."""
    found = []
    for opponent, tables in sorted(document["fingerprints"].items()):
        for players, recorded in sorted(tables.items()):
            difference = compare(recorded, expected(opponent, int(players)), document["env_id"])
            if difference is not None:
                found.append(difference)
    return found


def _at_current_code(now: _Recomputed, env_id: str) -> Callable[[str, int], dict[str, Any]]:
    """The fingerprint an opponent of ``env_id`` plays at the current code (for `_compared`)."""
    return lambda opponent, players: now.fingerprint(_registry_name(opponent, env_id), env_id, players)


def _plan_moved(source: str, env_id: str, plan: dict[str, int], expected: dict[str, int]) -> list[str]:
    """One line where the line-ups of ``plan`` play other deals than ``expected``'s (none: ``[]``)."""
    moved = sorted(key for key in {*plan, *expected} if plan.get(key) != expected.get(key))
    return [f"{source}: the deal plan of {env_id} moved at {', '.join(moved)}"] if moved else []


def check_document(document: dict[str, Any], source: str, now: _Recomputed) -> list[str]:
    """The differences between what ``document`` (from ``source``) stores and the current code."""
    env_id = document["env_id"]
    if not document.get("fingerprints"):
        return [f"{source}: no fingerprints of its opponents (made under {document['protocol']})"]
    found = [f"{source}: {difference}" for difference in _compared(document, _at_current_code(now, env_id))]
    plan = document.get("deal_plan")
    return found + ([] if plan is None else _plan_moved(source, env_id, plan, now.plan(env_id)))


def check_earlier(document: dict[str, Any], source: str, now: _Recomputed) -> tuple[list[str], str]:
    """An earlier revision's ``document`` against the package's set of that revision: the differences, and
    what of its opponents plays otherwise at the current code (why it cannot be reproduced now)."""
    env_id, protocol = document["env_id"], document["protocol"]
    if not document.get("fingerprints"):
        return [f"{source}: no fingerprints of its opponents (made under {protocol})"], ""
    recorded = package_data(env_id, protocol)
    tables, plan = recorded["fingerprints"], recorded["deal_plan"]
    missing = sorted(
        f"{o} at {n} players" for o, t in document["fingerprints"].items() for n in t if n not in tables.get(o, {})
    )
    if missing:
        return [f"{source}: fingerprints not in the package's {protocol} set: {', '.join(missing)}"], ""
    found = [
        f"{source}: against the package's {protocol} set: {difference}"
        for difference in _compared(document, lambda opponent, players: tables[opponent][str(players)])
    ]
    played = document.get("deal_plan") or {}
    found += _plan_moved(source, env_id, played, {key: plan[key] for key in played if key in plan})
    return found, "; ".join(_compared(document, _at_current_code(now, env_id)))


def verify_folder(
    folder: str | Path, package: bool = True, progress: Callable[[str], None] | None = None
) -> Verification:
    """Check every results file (``*.json``, any depth) of ``folder`` and, with ``package``, the package's
    fingerprints; ``ValueError`` naming the folder when it holds no results file."""
    paths = sorted(Path(folder).rglob("*.json"))
    if not paths:
        raise ValueError(f"{folder}: no results files (*.json) there")
    now, result = _Recomputed(progress), Verification()
    for path in [*(sorted(FOLDER.glob("*.json")) if package else []), *paths]:
        document = json.loads(path.read_text())
        source = path.name if path.parent == FOLDER else str(path)
        protocol = str(document.get("protocol"))
        if protocol == TITLE:
            result.differences += check_document(document, source, now)
        elif "env_id" in document and package_path(document["env_id"], protocol).is_file():
            differences, moved = check_earlier(document, source, now)
            result.differences += differences
            result.earlier[source] = f"made under {protocol}" + (
                f", cannot be reproduced at the current code: {moved}" if moved else "; its opponents play so now too"
            )
        else:
            result.other_versions[source] = protocol
            continue
        result.checked.append(source)
    return result


__all__ = ["Verification", "check_document", "check_earlier", "verify_folder"]
