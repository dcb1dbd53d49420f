"""The benchmark's batches as tasks on a Ray cluster: ``--ray auto``, ``--ray local`` or ``--ray <address>``.

A protocol run is a list of independent batches (`agents.benchmark.run`: each seeded by its line-up
and index), so a cluster plays them as well as ``--workers`` processes do, with the same figures:
`in_ray` sends each batch as one Ray task (one CPU) and hands the results back as they finish, in
the form `agents.processes.in_processes` gives them.

* **Addresses** (``ray.init``'s): ``auto``, the cluster this machine has joined (``ray start``);
  ``local``, a Ray instance started for this run alone on the loopback address, of ``cpus`` CPUs
  (``--workers``), shut down after it; or a cluster's ``host:port`` / ``ray://host:port``. A Ray
  connection already open in the process is used as it is (and left open).
* **The same code everywhere.** Each task returns the SHA-256 of the code that played it
  (`agents.benchmark.provenance.code_sha256`); a batch played by other code stops the run with one
  line (`CodeMismatch`), so a node with another version installed never mixes its games in.
* **Provenance.** Each batch comes back with the machine that played it and its CPU seconds
  (``LineupGames.remote_on``): a kept batch file names that machine, and the results file counts
  the tasks' CPU seconds (which the driver's own clock does not see) and lists the machines
  (``provenance.ray``).
* **Stopping.** A task that raises stops the run with its error; a worker or node that dies, with
  `agents.processes.WorkerDied`; closing the iterator early cancels the tasks not yet finished.

Needs ``ray`` (the extra ``rllib``): without it, `check_ray` raises one line naming the extra.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

from agents.benchmark.candidate import Candidate
from agents.benchmark.protocol import Lineup
from agents.processes import WorkerDied

#: What a batch job is: ``(number, (line-up, candidate index, deal states, batch index))``.
Job = tuple[int, tuple[Lineup, int, Any, int]]
#: The one line without ``ray``.
MISSING_RAY = '--ray needs ray (the rllib extra): pip install -c constraints.txt -e ".[rllib]"'
#: The address that starts a Ray instance for the run alone, on the loopback address.
LOCAL = "local"


class CodeMismatch(RuntimeError):
    """A Ray task played a batch with other code than the run's (another version on a node)."""


def check_ray() -> None:
    """``ImportError`` naming the extra (one line) where ``ray`` is not installed."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ImportError(MISSING_RAY)


def _play_task(job: Job, candidates: list[Candidate]) -> tuple[int, Any, str]:
    """One batch on a Ray worker: ``(number, its LineupGames with remote_on set, the worker's code_sha256)``."""
    from agents.benchmark.provenance import code_sha256, machine_record
    from agents.benchmark.run import play_chunk
    from agents.policy.blas import one_blas_thread

    number, (lineup, candidate, deals, chunk) = job
    with one_blas_thread():
        part = play_chunk(lineup, candidates[candidate], deals, chunk)
    part.remote_on = ((machine_record(), part.cpu_seconds),)
    return number, part, code_sha256()


def _by_value(candidates: Sequence[Candidate]) -> None:
    """Let Ray's pickler send the code of agents loaded from a file (their module exists on this machine only)."""
    import cloudpickle

    for candidate in candidates:
        module = sys.modules.get(getattr(candidate.factory, "__module__", "") or "")
        if module is not None and module.__name__.startswith("_pirate_bench_agent_"):
            cloudpickle.register_pickle_by_value(module)


def _connect(address: str, cpus: int) -> bool:
    """Connect to ``address`` (`LOCAL`: start an instance of ``cpus`` CPUs on 127.0.0.1); whether we did."""
    import ray

    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address == LOCAL:
        options.update(num_cpus=cpus, _node_ip_address="127.0.0.1")
    try:
        ray.init(address=address, **options)
    except (ConnectionError, ValueError, RuntimeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ConnectionError(f"--ray {address!r}: cannot connect to a Ray cluster there ({first})") from None
    return True


def in_ray(
    jobs: Sequence[Job], candidates: Sequence[Candidate], address: str, code: str, cpus: int = 1, kept: str = ""
) -> Iterator[tuple[int, Any]]:
    """``(number, LineupGames)`` of every batch job, played as Ray tasks at ``address``, as each finishes.

    ``code``: the run's `code_sha256`, which every task must report (else `CodeMismatch`); ``cpus``: the
    CPUs of a `LOCAL` instance; ``kept``: what a run stopped by a dead worker keeps (as `in_processes`).
    """
    check_ray()
    import ray

    started = _connect(address, cpus)
    pending: list[Any] = []
    try:
        _by_value(candidates)
        task = ray.remote(num_cpus=1, max_retries=0)(_play_task)
        shared = ray.put(list(candidates))
        pending = [task.remote(job, shared) for job in jobs]
        while pending:
            [done], pending = ray.wait(pending, num_returns=1)
            try:
                number, part, played_by = ray.get(done)
            except ray.exceptions.RayTaskError as error:  # the task's own error, as if played here
                cause = getattr(error, "cause", None)
                raise (cause if isinstance(cause, Exception) else RuntimeError(str(error).splitlines()[0])) from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as error:
                died = f"a Ray worker died while playing a batch ({type(error).__name__})"
                raise WorkerDied(f"{died}; {kept}" if kept else died) from None
            if played_by != code:
                raise CodeMismatch(
                    f"a Ray worker played a batch with other code (code_sha256 {played_by[:12]}, the run's "
                    f"{code[:12]}): install this code on every node of the cluster"
                )
            yield number, part
    finally:
        for ref in pending:  # stopped early: the batches not yet finished are not played
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


__all__ = ["LOCAL", "MISSING_RAY", "CodeMismatch", "check_ray", "in_ray"]
