"""Where a results file came from: versions, commit, machine, date, CPU time and the agents' hashes.

`provenance` is written into every results document (``"provenance"``). Files are named by their
file name and SHA-256, never by a local path: a results file says which agent played, not where it
was kept.
"""

from __future__ import annotations

import datetime
import functools
import importlib
import importlib.metadata
import os
import platform
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pirate_envs
from agents.benchmark.candidate import Candidate, file_sha256
from pirate_envs.core.kernel_cache import packages_sha256

#: The checkout the package runs from (when it is one).
ROOT = Path(pirate_envs.__file__).resolve().parent.parent
#: The libraries whose versions move figures or timings.
LIBRARIES = ("numpy", "numba", "torch")
#: The packages whose files play a run's games, and the kinds of their files that do (code, agent files, tables).
PLAYING_PACKAGES = ("pirate_envs", "agents")
PLAYING_SUFFIXES = (".py", ".json", ".npz")


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (worker processes), user and system."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def git_commit(root: Path = ROOT) -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` of the checkout at ``root``; ``None`` outside one (or without git)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit, "dirty": bool(status.strip())} if commit else None


def code_sha256(packages: tuple[str, ...] = PLAYING_PACKAGES) -> str:
    """SHA-256 of the files that play the games: every `PLAYING_SUFFIXES` file of ``packages``, by its
    path within the package and its bytes, in path order.

    Unlike the commit, it is there outside a checkout (an installed package) and it sees uncommitted
    changes; it stays the same across commits that change no such file (the docs, the tests, the commands).
    """
    return packages_sha256(packages, PLAYING_SUFFIXES)


def _version(library: str) -> str | None:
    try:
        return importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return None


def _network(name: str) -> str | None:
    """The agent file (shipped name or path) a registry name plays with; ``None`` for one without a file
    (or a name that is not a registry name: an agent object's own name may be anything)."""
    from agents.spec import parse_agent_name

    try:
        return parse_agent_name(name).network
    except ValueError:
        return None


def public_name(name: str) -> str:
    """``name`` with a local path of its agent file cut to the file's name (``ppo:/x/y/a.npz``: ``ppo:a.npz``)."""
    from agents.policy.agent import looks_like_path
    from agents.spec import SAMPLE_SUFFIX

    network = _network(name)
    if network is None:
        return name
    path = network.removesuffix(SAMPLE_SUFFIX)
    return name.replace(path, Path(path).name) if looks_like_path(path) else name


def agent_record(name: str, source: Path | None = None) -> dict[str, Any]:
    """An agent's name and the SHA-256 of the file it comes from (a network's file, a Python agent's source).

    Registry names that are not files (``heuristic``, ``halving:50``) have no hash of their own: the
    package version and commit fix them. A ``ppo:`` name is recorded by the file name of its path.
    """
    network = _network(name) if source is None else None
    if network is not None:
        from agents.policy.agent import resolve_checkpoint
        from agents.spec import SAMPLE_SUFFIX

        source = Path(resolve_checkpoint(network.removesuffix(SAMPLE_SUFFIX)))
    name = public_name(name)
    if source is None:
        return {"name": name, "file": None, "sha256": None}
    return {"name": name, "file": source.name, "sha256": file_sha256(source)}


def candidate_record(candidate: Candidate) -> dict[str, Any]:
    """The candidate's `agent_record` and its kind (``registry`` or ``python``)."""
    record = agent_record(candidate.name, None if candidate.registry else candidate.source)
    return {**record, "kind": "registry" if candidate.registry else "python"}


def _processor() -> str:
    """The CPU's model name (Linux's ``/proc/cpuinfo``), else what `platform.processor` says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


#: How each field of a `machine_record` is read, in its order.
_MACHINE_READERS: dict[str, Callable[[], Any]] = {
    "python": platform.python_version,
    **{library: functools.partial(_version, library) for library in LIBRARIES},
    "platform": platform.platform,
    "machine": platform.machine,
    "processor": _processor,
    "cpus": os.cpu_count,
}
#: The fields of a `machine_record`, in its order.
MACHINE_FIELDS = tuple(_MACHINE_READERS)


def machine_record() -> dict[str, Any]:
    """What plays here and moves its timings: python and library versions, platform, CPU and its count."""
    return {field: read() for field, read in _MACHINE_READERS.items()}


def provenance(cpu: float, git: dict[str, Any] | None, code: str) -> dict[str, Any]:
    """Package version, commit ``git`` (`git_commit` when the run started), the playing code's `code_sha256`
    ``code``, the `machine_record`, date and the run's CPU seconds ``cpu``."""
    return {
        "package_version": pirate_envs.__version__,
        "git": git,
        "code_sha256": code,
        **machine_record(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_seconds": round(cpu, 1),
    }


__all__ = [
    "MACHINE_FIELDS",
    "agent_record",
    "candidate_record",
    "code_sha256",
    "cpu_seconds",
    "git_commit",
    "machine_record",
    "provenance",
    "public_name",
]
