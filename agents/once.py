"""Results computed once per process: `once` is ``functools.cache`` that also holds back the
threads asking for a result while another thread computes it (a server's worker threads warming
the same tables or kernels at once wait for the one computation instead of each making its own)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def once(function: F) -> F:
    """``function`` cached by its arguments (hashable), each result computed by one thread only.

    The wrapper has ``cache_clear()`` as ``functools.cache``'s does. An exception is not cached:
    the next caller computes again.
    """
    results: dict[Any, Any] = {}
    locks: dict[Any, threading.Lock] = {}
    guard = threading.Lock()

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        if key in results:
            return results[key]
        with guard:
            lock = locks.setdefault(key, threading.Lock())
        with lock:
            if key not in results:
                results[key] = function(*args, **kwargs)
            return results[key]

    def cache_clear() -> None:
        with guard:
            results.clear()
            locks.clear()

    wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
    wrapper.computes_once = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
