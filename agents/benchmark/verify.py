"""Whether a folder of results files still holds at the current code: ``benchmark --verify <folder>``.

Every results file made under the current protocol revision (`agents.benchmark.protocol.label`) stores
the fingerprints of the opponents it played and the deal plan (`agents.benchmark.fingerprint`).
`verify_folder` recomputes each fingerprint once at the current code and compares: a file whose
opponents now play otherwise, a missing fingerprint, or a deal plan that moved is a difference, named
by the file, agent, game, table size and first differing position. Files of an earlier revision
(``v3.0``) or version (``v2``) claim nothing about the current code: they are counted, not failed.
The package's own fingerprints (`agents.benchmark.fingerprint.FOLDER`) are checked the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.benchmark.fingerprint import FOLDER, compare, deal_plan, fingerprint
from agents.benchmark.protocol import TITLE


@dataclass
class Verification:
    """What `verify_folder` found: the differences (one line each), the files checked and those left aside."""

    differences: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    other_versions: dict[str, str] = field(default_factory=dict)  # file: the protocol it was made under

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


def check_document(document: dict[str, Any], source: str, now: _Recomputed) -> list[str]:
    """The differences between what ``document`` (from ``source``) stores and the current code."""
    env_id = document["env_id"]
    stored = document.get("fingerprints")
    if not stored:
        return [f"{source}: no fingerprints of its opponents (made under {document['protocol']})"]
    found = []
    for opponent, tables in sorted(stored.items()):
        for players, recorded in sorted(tables.items()):
            current = now.fingerprint(_registry_name(opponent, env_id), env_id, int(players))
            difference = compare(recorded, current, env_id)
            if difference is not None:
                found.append(f"{source}: {difference}")
    plan = document.get("deal_plan")
    if plan is not None and plan != now.plan(env_id):
        moved = sorted(key for key in {*plan, *now.plan(env_id)} if plan.get(key) != now.plan(env_id).get(key))
        found.append(f"{source}: the deal plan of {env_id} moved at {', '.join(moved)}")
    return found


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
        if document.get("protocol") != TITLE:
            result.other_versions[source] = str(document.get("protocol"))
            continue
        result.differences += check_document(document, source, now)
        result.checked.append(source)
    return result


__all__ = ["Verification", "check_document", "verify_folder"]
