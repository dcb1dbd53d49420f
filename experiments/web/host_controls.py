"""Who may open a shared table, and how often: a host password and limits on new tables.

A flood of ``POST /api/tables`` must never fill the server. `OpeningGate` counts the tables
opened in the last `OpenLimits.window_s` seconds per client (its address) and in all; past
either limit a new table is answered 429 with ``Retry-After`` (the seconds until the oldest
counted table leaves the window). A refused password counts too, so guessing it is as slow.
A server bound beyond loopback can require a host password (``X-Host-Password``, compared in
constant time); on the default ``127.0.0.1`` none is needed.
"""

from __future__ import annotations

import hmac
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from experiments.web.sessions import RequestError

#: The header a host sends the password in (never in a URL).
PASSWORD_HEADER = "x-host-password"


class Refused(RequestError):
    """A `RequestError` whose answer carries extra headers (``Retry-After``)."""

    def __init__(self, message: str, status: int, headers: dict[str, str]):
        super().__init__(message, status)
        self.headers = headers


@dataclass(frozen=True)
class OpenLimits:
    """At most ``per_client`` new tables per client and ``in_all`` in all, per ``window_s`` seconds; at most
    ``unfinished_per_client`` tables of one client unfinished at once (a player who leaves games midway keeps a
    few more than a window's)."""

    per_client: int = 8
    in_all: int = 60
    window_s: float = 600.0
    unfinished_per_client: int = 32

    def __post_init__(self) -> None:
        for name in ("per_client", "in_all", "window_s", "unfinished_per_client"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} {getattr(self, name)!r}: must be positive")


class OpeningGate:
    """Decides whether a client may open a table now (`admit`), counting each admitted attempt."""

    def __init__(
        self,
        limits: OpenLimits | None = None,
        password: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        if password is not None and not password:
            raise ValueError("the host password is empty")
        self.limits, self.clock = limits or OpenLimits(), clock
        self._password = password.encode() if password else None
        self._all: deque[float] = deque()
        self._clients: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    @property
    def password_required(self) -> bool:
        return self._password is not None

    def admit(self, client: str, password: str | None) -> Callable[[], None]:
        """Count an attempt of ``client`` to open a table (429 past a limit, 401 for a wrong password); a call
        that takes the attempt back (the table was refused for its body, not opened)."""
        with self._lock:
            now = self.clock()
            self._forget(now)
            mine = self._clients.setdefault(client, deque())
            limits = ((mine, self.limits.per_client, "from you"), (self._all, self.limits.in_all, "in all"))
            for times, limit, whose in limits:
                if len(times) >= limit:
                    wait = max(1, math.ceil(times[0] + self.limits.window_s - now))
                    raise Refused(
                        f"too many new tables {whose} ({limit} in {self.limits.window_s:g} s); try again in {wait} s",
                        429,
                        {"Retry-After": str(wait)},
                    )
            mine.append(now)
            self._all.append(now)
        if self._password is not None and not hmac.compare_digest(
            self._password, (password or "").encode("utf-8", "replace")
        ):
            raise RequestError("this server asks its hosts for a password (X-Host-Password): wrong or missing", 401)
        return lambda: self._take_back(client, now)

    def _take_back(self, client: str, when: float) -> None:
        with self._lock:
            for times in (self._clients.get(client), self._all):
                if times is not None and when in times:
                    times.remove(when)

    def _forget(self, now: float) -> None:
        """Drop the attempts older than the window (and the clients left with none)."""
        start = now - self.limits.window_s
        while self._all and self._all[0] <= start:
            self._all.popleft()
        for client in list(self._clients):
            times = self._clients[client]
            while times and times[0] <= start:
                times.popleft()
            if not times:
                del self._clients[client]


__all__ = ["PASSWORD_HEADER", "OpenLimits", "OpeningGate", "Refused"]
