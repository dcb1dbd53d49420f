"""numpy's BLAS on one thread while agents play: `one_blas_thread`.

The networks' products are small (one row to a few hundred); OpenBLAS spreads them over every
core and its threads spin while they wait, so on a busy machine a search with a network ran four
times slower on two threads than on one (and used four times the CPU). Games are played under
this limit wherever the suite plays them: tournaments, the benchmark, distillation, expert
iteration; the web table's server keeps the limit for its whole process (`limit_blas_threads`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS limited to one thread inside the block (threadpoolctl, when installed; else unchanged).

    Worker processes forked inside the block keep the limit.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def limit_blas_threads() -> None:
    """numpy's BLAS on one thread for the rest of the process (a server whose requests play agents)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=1, user_api="blas")


__all__ = ["limit_blas_threads", "one_blas_thread"]
