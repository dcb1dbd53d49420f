"""The web table's uvicorn server, which stops cleanly: `WebServer`.

A page follows its table through an event stream that never ends by itself, so a plain uvicorn
waits its whole graceful timeout for them and then cancels each one (a ``CancelledError``
traceback per open page). `WebServer` first ends every stream (`TableHall.stop_streams`: each
sends nothing more and returns; the pages reconnect to the next server), then shuts down as
uvicorn does.
"""

from __future__ import annotations

import socket

import uvicorn


class WebServer(uvicorn.Server):
    """A uvicorn server that ends the tables' event streams before it waits for its connections."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        hall = getattr(getattr(self.config.app, "state", None), "tables", None)
        if hall is not None:
            hall.stop_streams()
        await super().shutdown(sockets)


__all__ = ["WebServer"]
