"""numpy's BLAS on one thread while agents play: `one_blas_thread`.

The networks' products are small (one row to a few hundred); OpenBLAS spreads them over every
core and its threads spin while they wait, so on a busy machine Kapern's guided search ran twelve
times slower on two threads than on one. Games are played under this limit wherever the suite
plays them: tournaments, the benchmark, distillation, expert iteration and the web table's server.
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


__all__ = ["one_blas_thread"]
