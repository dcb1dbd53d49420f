"""Label each committed results file with the protocol revision it was made under, from its opponents' play.

    python benchmarks/migrate_protocol_labels.py                  # docs/results/data, in place
    python benchmarks/migrate_protocol_labels.py --dry-run        # say what it would do

For every results file still labelled ``pirate-bench v3`` (no revision), the fingerprints of its game's
opponents at the table sizes it played are computed *at the commit it was made at*
(``provenance.git.commit``): in one temporary ``git worktree`` (checked out at each commit in turn, removed
at the end) this checkout's ``agents/benchmark/fingerprint.py`` runs against that commit's code (it reads
only interfaces every v3 commit has). Commits whose ``agents`` and ``pirate_envs`` trees are the same play
the same and are computed once. A file whose opponents played every position as the package's fingerprints
(`agents.benchmark.fingerprint.FOLDER`, the current code's) and whose line-ups follow the package's deal
plan gets the current label (`agents.benchmark.protocol.TITLE`), the fingerprints and the plan; any other
gets ``pirate-bench v3.0`` and a ``migration`` record of the first difference. A file from a modified
checkout cannot be placed: v3.0. Files already labelled are left alone, so a stopped run goes on where it
stopped. A v3.0 file of a clean commit then gets the fingerprints of its opponents as they played at that
commit (`pinned`: stored as a v3.1 file stores them, with the deals it played as its deal plan), and the
package the v3.0 set of its game (`earlier_set`, at `agents.benchmark.fingerprint.package_path`), which
``benchmark --verify`` checks those files against. No game is replayed; files are written whole, then renamed.

Then the provenance of every file is completed where its commit can tell: a missing ``code_sha256`` is
computed from the commit's tree (`tree_code_sha256`, the same hash `agents.benchmark.provenance.code_sha256`
takes of a clean checkout: it reproduces the recorded hash of the files that have one), and what no commit
can tell (the command line, the CPU model) is ``null`` with the reason in ``provenance.missing``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.benchmark import fingerprint as fingerprint_module
from agents.benchmark.board import line_up_opponent
from agents.benchmark.fingerprint import compare, package_data, package_path
from agents.benchmark.protocol import TITLE, label
from agents.benchmark.provenance import PLAYING_PACKAGES, PLAYING_SUFFIXES
from agents.policy.checkpoint import write_atomic

ROOT = Path(__file__).resolve().parent.parent
#: The label of the files this migrates, and of those whose opponents played otherwise.
UNREVISED = "pirate-bench v3"
EARLIER = label(3, 0)
#: Run inside the worktree: the fingerprints of ``[[opponent, registry name, players], ...]`` of one game.
PROBE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("fingerprint_probe", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
wanted = json.loads(sys.argv[3])
found = {f"{o} {n}": module.fingerprint(name, sys.argv[2], n) for o, name, n in wanted}
print(json.dumps(found))
"""


def git(*words: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *words], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def played(document: dict[str, Any]) -> set[tuple[str, int]]:
    """``(opponent, players)`` of every line-up of a results document."""
    return {(line_up_opponent(r), r["players"]) for r in document["lineups"]}


def plan_difference(document: dict[str, Any], plan: dict[str, int]) -> str | None:
    """Where a document's line-ups leave the package's deal plan (a full run: every line-up and its deals)."""
    keys = {r["lineup"]: r["deals"] for r in document["lineups"]}
    if not set(keys) <= set(plan):
        return f"line-ups not in the deal plan: {sorted(set(keys) - set(plan))}"
    if document["full_protocol"]:  # every line-up of the table sizes it plays, at the plan's deals
        sizes = {f"{r['players']}p vs " for r in document["lineups"]}
        moved = sorted(key for key in plan if key.startswith(tuple(sizes)) and keys.get(key) != plan[key])
        if moved:
            return f"deals differ from the deal plan at {', '.join(moved)}"
    return None


def fingerprints_at(worktree: Path, commit: str, env_id: str, wanted: set[tuple[str, int]]) -> dict[str, Any]:
    """The fingerprints of ``wanted`` of ``env_id`` at ``commit`` (checked out in ``worktree``)."""
    git("checkout", "--quiet", "--detach", commit, cwd=worktree)
    probe = Path(worktree) / ".fingerprint_probe.py"
    shutil.copyfile(fingerprint_module.__file__, probe)
    from agents.benchmark.protocol import opponent_agent

    names = [[o, opponent_agent(o, env_id), n] for o, n in sorted(wanted)]
    env = {**os.environ, "PYTHONPATH": str(worktree)}
    try:
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(probe), env_id, json.dumps(names)],
            cwd=worktree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        probe.unlink()
    return json.loads(out.strip().splitlines()[-1])


def decide(document: dict[str, Any], found: dict[str, Any] | None, package: dict[str, Any]) -> dict[str, Any]:
    """``document`` labelled by what its opponents played (``found``: at its commit; ``None``: not knowable)."""
    env_id, differences = document["env_id"], []
    if found is None:
        differences.append("made from a modified checkout: its commit does not fix the code")
    else:
        for opponent, players in sorted(played(document)):
            recorded = package["fingerprints"].get(opponent, {}).get(str(players))
            now = found[f"{opponent} {players}"]
            difference = "not in the package" if recorded is None else compare(recorded, now, env_id)
            differences += [] if difference is None else [difference.replace(" now ", " at its commit ")]
    plan = plan_difference(document, package["deal_plan"])
    differences += [] if plan is None else [plan]
    result = {**document}
    if differences:
        result["protocol"] = EARLIER
        result["migration"] = {"fingerprints_of": TITLE, "differences": differences}
        return result
    tables: dict[str, dict[str, Any]] = defaultdict(dict)
    for opponent, players in sorted(played(document)):
        tables[opponent][str(players)] = package["fingerprints"][opponent][str(players)]
    result["protocol"] = TITLE
    result["deal_plan"] = package["deal_plan"]
    result["fingerprints"] = dict(tables)
    result["fingerprint_differences"] = []
    result["migration"] = {"fingerprints_of": TITLE, "computed_at": document["provenance"]["git"]["commit"]}
    return result


def tree_code_sha256(commit: str) -> str:
    """`agents.benchmark.provenance.code_sha256` of a clean checkout of ``commit``, read from its tree."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", commit, *PLAYING_PACKAGES], cwd=ROOT, capture_output=True, check=True
    ).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(PLAYING_SUFFIXES) and "__pycache__" not in member.name:
                files[member.name] = tar.extractfile(member).read()  # type: ignore[union-attr]
    digest = hashlib.sha256()
    for package in PLAYING_PACKAGES:
        for name in sorted(name for name in files if name.startswith(f"{package}/")):
            digest.update(f"{name}\0{len(files[name])}\0".encode())
            digest.update(files[name])
    return digest.hexdigest()


def completed_provenance(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the provenance its commit can tell filled in, and what it cannot named (see above)."""
    origin = {**document["provenance"]}
    git_record, missing = origin.get("git"), dict(origin.get("missing") or {})
    if not origin.get("code_sha256") and git_record and not git_record["dirty"]:
        origin["code_sha256"] = tree_code_sha256(git_record["commit"])
        missing.pop("code_sha256", None)
        origin["code_sha256_from"] = "its commit's tree (benchmarks/migrate_protocol_labels.py)"
    for key, why in (("command", "made before results files recorded it"), ("processor", "not recorded by its run")):
        if origin.get(key) is None:
            origin[key] = None
            missing[key] = why
    if missing:
        origin["missing"] = missing
    return {**document, "provenance": origin}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "docs" / "results" / "data"))
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--worktree", default="", help="the worktree's path, -1, -2 ... after it for more at once")
    parser.add_argument("--keep-worktree", action="store_true", help="leave it for a later run (kernels compiled)")
    parser.add_argument("--provenance-only", action="store_true", help="only complete the provenance; label nothing")
    args = parser.parse_args(argv)
    documents = {p: json.loads(p.read_text()) for p in sorted(Path(args.data).rglob("*.json"))}
    if not args.provenance_only:
        unlabelled = [p for p, d in documents.items() if d["protocol"] == UNREVISED]
        if unlabelled:
            label_files(unlabelled, args)
        documents = {p: json.loads(p.read_text()) for p in documents}
        unpinned = [p for p, d in documents.items() if d["protocol"] == EARLIER and not d.get("fingerprints")]
        if unpinned:
            pin_earlier_files(unpinned, args)
        write_earlier_sets(Path(args.data), args.dry_run)
    complete_files(args)


def by_code(paths: list[Path]) -> tuple[dict[tuple[str, str, str], list[Path]], dict[tuple[str, str, str], str]]:
    """``paths`` grouped by the ``agents`` and ``pirate_envs`` trees of their commits and their game (files of a
    modified checkout under empty trees), and one commit of each group that has one."""
    groups: dict[tuple[str, str, str], list[Path]] = defaultdict(list)  # (agents tree, pirate_envs tree, game)
    commits: dict[tuple[str, str, str], str] = {}
    for path in paths:
        document = json.loads(path.read_text())
        git_record = document["provenance"].get("git")
        if git_record is None or git_record["dirty"]:
            groups[("", "", document["env_id"])].append(path)
            continue
        commit = git_record["commit"]
        key = (git("rev-parse", f"{commit}:agents"), git("rev-parse", f"{commit}:pirate_envs"), document["env_id"])
        groups[key].append(path)
        commits.setdefault(key, commit)
    return groups, commits


#: ``git worktree add`` and ``remove`` one at a time (they write the repository's worktree list).
_WORKTREE_LIST = threading.Lock()


@contextmanager
def commit_worktree(args: argparse.Namespace, index: int = 0) -> Iterator[Path]:
    """A ``git worktree`` to check commits out in (``--worktree``: that one, with ``-<index>`` after it for
    ``index`` > 0, kept with numba's cache in it, else a temporary one), removed at the end unless
    ``--keep-worktree``."""
    if args.worktree:
        worktree = Path(f"{args.worktree}-{index}" if index else args.worktree)
    else:
        worktree = Path(tempfile.mkdtemp(prefix="pirate-bench-migrate-")) / "tree"
    if not (worktree / ".git").exists():  # a worktree kept by --keep-worktree is used again (numba's cache in it)
        with _WORKTREE_LIST:
            git("worktree", "add", "--quiet", "--detach", str(worktree), "HEAD")
    try:
        yield worktree
    finally:
        if not args.keep_worktree:
            with _WORKTREE_LIST:
                git("worktree", "remove", "--force", str(worktree))
            if not args.worktree:  # the temporary folder made above, now empty
                worktree.parent.rmdir()


def label_files(paths: list[Path], args: argparse.Namespace) -> None:
    """Label ``paths`` by their opponents' fingerprints at their commits (see the module docstring)."""
    groups, commits = by_code(paths)
    with commit_worktree(args) as worktree:
        for key, members in sorted(groups.items(), key=lambda item: -len(item[1])):
            env_id, package = key[2], package_data(key[2])
            wanted = set().union(*(played(json.loads(p.read_text())) for p in members))
            found = None if key not in commits else fingerprints_at(worktree, commits[key], env_id, wanted)
            for path in members:
                result = decide(json.loads(path.read_text()), found, package)
                why = "; ".join(result.get("migration", {}).get("differences", [])) or "opponents as the package's"
                print(f"{path}: {result['protocol']} ({why})", flush=True)
                if not args.dry_run:
                    write_atomic(path, json.dumps(result, indent=2) + "\n")


def pinned(document: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """An earlier revision's ``document`` with the fingerprints of its opponents as they played at its commit
    (``found``), stored as a current file stores them, and the deals it played as its deal plan."""
    tables: dict[str, dict[str, Any]] = defaultdict(dict)
    for opponent, players in sorted(played(document)):
        tables[opponent][str(players)] = found[f"{opponent} {players}"]
    migration = {**document["migration"], "computed_at": document["provenance"]["git"]["commit"]}
    return {
        **document,
        "deal_plan": {r["lineup"]: r["deals"] for r in document["lineups"]},
        "fingerprints": dict(tables),
        "fingerprint_differences": migration["differences"],  # from the current revision's
        "migration": migration,
    }


def pin_earlier_files(paths: list[Path], args: argparse.Namespace) -> None:
    """Give every file of ``paths`` (an earlier revision's, without fingerprints) the fingerprints of its
    opponents as they played at its commit (`pinned`); a file of a modified checkout is left as it is.
    The commits are computed at once, each in its own worktree (numba compiles each commit's kernels)."""
    groups, commits = by_code(paths)
    for key in sorted(set(groups) - set(commits)):
        print(f"left without fingerprints (a modified checkout): {', '.join(map(str, groups[key]))}")
    keys = sorted(commits, key=lambda key: -len(groups[key]))

    def at_commit(index: int) -> dict[str, Any]:
        key = keys[index]
        wanted = set().union(*(played(json.loads(p.read_text())) for p in groups[key]))
        with commit_worktree(args, index) as worktree:
            return fingerprints_at(worktree, commits[key], key[2], wanted)

    with ThreadPoolExecutor(max(1, len(keys))) as pool:
        for key, found in zip(keys, pool.map(at_commit, range(len(keys)))):
            for path in groups[key]:
                print(f"{path}: {EARLIER}, its opponents' fingerprints at {commits[key][:12]}", flush=True)
                if not args.dry_run:
                    write_atomic(path, json.dumps(pinned(json.loads(path.read_text()), found), indent=2) + "\n")


def earlier_set(env_id: str, documents: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The package's fingerprint set of ``env_id`` under `EARLIER`, from the pinned ``documents`` (by source):
    every opponent and table size they played, and their deal plan; ``ValueError`` naming two files whose
    opponents played otherwise (the revision would not be one set)."""
    fingerprints: dict[str, dict[str, Any]] = defaultdict(dict)
    plan: dict[str, int] = {}
    seen: dict[tuple[str, str], str] = {}
    for source, document in sorted(documents.items()):
        for opponent, tables in document["fingerprints"].items():
            for players, entry in tables.items():
                before = fingerprints[opponent].setdefault(players, entry)
                difference = compare(before, entry, env_id)
                if difference is not None:
                    raise ValueError(f"{source} and {seen[opponent, players]} differ under {EARLIER}: {difference}")
                seen.setdefault((opponent, players), source)
        for lineup, deals in document["deal_plan"].items():
            if plan.setdefault(lineup, deals) != deals:
                raise ValueError(f"{source}: {lineup} played {deals} deals, another {EARLIER} file {plan[lineup]}")
    return {
        "protocol": EARLIER,
        "env_id": env_id,
        "positions": package_data(env_id)["positions"],
        "deal_plan": plan,
        "fingerprints": dict(fingerprints),
        "computed_at": sorted({d["migration"]["computed_at"] for d in documents.values()}),
    }


def write_earlier_sets(data: Path, dry_run: bool) -> None:
    """The package's `EARLIER` set (`earlier_set`) of every game with pinned files of that revision in ``data``."""
    games: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for path in sorted(data.rglob("*.json")):
        document = json.loads(path.read_text())
        if document["protocol"] == EARLIER and document.get("fingerprints"):
            games[document["env_id"]][str(path.relative_to(data))] = document
    for env_id, documents in sorted(games.items()):
        target = package_path(env_id, EARLIER)
        print(f"{target}: {EARLIER} set of {env_id} from {len(documents)} files")
        if not dry_run:
            target.parent.mkdir(exist_ok=True)
            write_atomic(target, json.dumps(earlier_set(env_id, documents), indent=1) + "\n")


def complete_files(args: argparse.Namespace) -> None:
    """`completed_provenance` of every results file of ``args.data``."""
    for path in sorted(Path(args.data).rglob("*.json")):
        document = json.loads(path.read_text())
        completed = completed_provenance(document)
        if completed != document:
            print(f"{path}: provenance completed ({', '.join(completed['provenance'].get('missing', {}))} missing)")
            if not args.dry_run:
                write_atomic(path, json.dumps(completed, indent=2) + "\n")


if __name__ == "__main__":
    main()
