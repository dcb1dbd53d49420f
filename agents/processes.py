"""Jobs played in forked worker processes, stopping cleanly when one of them dies: `in_processes`.

A `multiprocessing.Pool` gives the job of a worker that was killed (by the kernel's out-of-memory
killer, say) to nobody, and its caller waits for that job forever. Here a dead worker stops the
caller with `WorkerDied`, one line that says what was playing and what was kept; and a caller that
stops early (an error where it puts the results, Ctrl-C) starts no further job: only the jobs already
running finish. The tournaments (`agents.evaluation.games.play_jobs`) and the benchmark's batches
(`agents.benchmark.run`) are played through it.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

J = TypeVar("J")
R = TypeVar("R")


class WorkerDied(RuntimeError):
    """A worker process died while playing a job: the caller stops (what it kept, it says)."""


def in_processes(
    function: Callable[[J], R],
    jobs: Sequence[J],
    workers: int,
    *,
    ordered: bool,
    playing: str,
    kept: str = "",
) -> Iterator[R]:
    """``function(job)`` of every job in ``workers`` forked processes: in job order where ``ordered``,
    else as each finishes.

    Raises `WorkerDied` ("a worker process died while playing <playing> (killed: out of memory?)", then
    "; <kept>" where given) where a worker dies. Closing the iterator early (``contextlib.closing`` around
    the caller's loop, so that an error in it closes it at once) drops the jobs not yet started and waits
    for the running ones.
    """
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(function, job) for job in jobs]
        try:
            for future in futures if ordered else as_completed(futures):
                yield future.result()
        except BrokenProcessPool:
            died = f"a worker process died while playing {playing} (killed: out of memory?)"
            raise WorkerDied(f"{died}; {kept}" if kept else died) from None
        finally:  # leaving the block would otherwise wait for every queued job to be played
            pool.shutdown(cancel_futures=True)


__all__ = ["WorkerDied", "in_processes"]
