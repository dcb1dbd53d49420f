"""Complete committed results files from what each file records itself: its command line, its ratios.

    python benchmarks/complete_provenance.py              # docs/results/data, in place
    python benchmarks/complete_provenance.py --dry-run    # say what it would do

What a commit can tell (a code hash, the protocol revision) `benchmarks/migrate_protocol_labels.py` fills
in; this fills what only the file can:

* **The command line** of a run made before results files recorded it: reconstructed from the file's game,
  candidate, protocol version and reduction (`agents.benchmark.pages.command`, the command its results page
  gives) and marked ``"command_reconstructed": true``. The flags that move no figure (``--workers``,
  ``--out``, ``--resume``) are not known: the reconstructed command plays the same line-ups and deals.
* **Ratios over no variance** (``variance_ratio``, ``vs_single_games``) that float rounding left at 1e28-1e31:
  the corrected variance over deals is read back from the file (``per_game_variance / (players x
  vs_single_games)``); at or below `agents.benchmark.control_variates.NO_VARIANCE` both ratios are ``null``,
  and every estimate gets ``ratio_undefined`` (why a ratio is ``null``, else ``null``), as a run writes them now.

A file with nothing to complete is left alone; others are written whole, then renamed. No game is played.
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path
from typing import Any

from agents.benchmark.control_variates import why_undefined
from agents.benchmark.pages import command
from pirate_envs.core.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent
#: Where a reconstructed command comes from (``provenance.command_reconstructed_from``).
RECONSTRUCTED_FROM = (
    "the file's game, candidate, protocol version and reduction (benchmarks/complete_provenance.py): "
    "the run was made before results files recorded their command line"
)


def corrected_variance(estimate: dict[str, Any], players: int) -> float | None:
    """The corrected variance over deals an estimate's ratio was computed from (``None``: no ratio stored)."""
    ratio, per_game = estimate.get("vs_single_games"), estimate.get("per_game_variance")
    if ratio is None or per_game is None:
        return None
    return per_game / (players * ratio)


def completed_ratios(lineup: dict[str, Any]) -> dict[str, Any]:
    """``lineup`` with its ratios over no variance ``null`` and each estimate's ``ratio_undefined`` set."""
    lineup = copy.deepcopy(lineup)
    for estimate in lineup["estimates"].values():
        if "ratio_undefined" in estimate:
            continue
        why = why_undefined(lineup["deals"], corrected_variance(estimate, lineup["players"]))
        if why is not None:
            estimate["variance_ratio"] = estimate["vs_single_games"] = None
        estimate["ratio_undefined"] = why
    return lineup


def completed_command(document: dict[str, Any]) -> dict[str, Any]:
    """``document``'s provenance with a reconstructed command where it recorded none (see the module docstring)."""
    origin = {**document["provenance"]}
    if origin.get("command"):
        return origin
    origin["command"] = command(document)
    origin["command_reconstructed"] = True
    origin["command_reconstructed_from"] = RECONSTRUCTED_FROM
    missing = {key: why for key, why in (origin.get("missing") or {}).items() if key != "command"}
    if missing:
        origin["missing"] = missing
    else:
        origin.pop("missing", None)
    return origin


def completed(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its command line and ratios completed (the same document when nothing is missing)."""
    return {
        **document,
        "provenance": completed_command(document),
        "lineups": [completed_ratios(lineup) for lineup in document["lineups"]],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "docs" / "results" / "data"))
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    for path in sorted(Path(args.data).rglob("*.json")):
        document = json.loads(path.read_text())
        result = completed(document)
        if result == document:
            continue
        nulled = sum(
            estimate["variance_ratio"] is None and old["variance_ratio"] is not None
            for line, before in zip(result["lineups"], document["lineups"])
            for estimate, old in zip(line["estimates"].values(), before["estimates"].values())
        )
        reconstructed = " command reconstructed;" if not document["provenance"].get("command") else ""
        print(f"{path}:{reconstructed} {nulled} ratios over no variance made null", flush=True)
        if not args.dry_run:
            write_atomic(path, json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
