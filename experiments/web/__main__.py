"""``python -m experiments.web``: serve the web table (see `experiments.web`).

By default the table listens on ``127.0.0.1`` (this machine only). A shared table's seats are
guarded by their secret links, but the page and the lobby are open to anyone who can reach the
server: ``--host 0.0.0.0`` (friends on your LAN) prints a warning; ``--host ""`` (every
interface, unsaid) is refused: name ``0.0.0.0`` to mean it. ``--allow-host NAME`` adds a host
name the page may be opened under (the ``Host`` header is checked against DNS rebinding; see
`experiments.web.server.RequestGuard`). ``--data-dir`` is where the tables are kept.
``--password-file FILE`` makes every host type the password in the file's first line to open a
table (meant for a server bound beyond loopback; never on the command line, where ``ps`` shows
it). ``--tables-per-client`` and ``--tables-in-all``: how many new tables one client, and all,
may open per 10 minutes; ``--unfinished-per-client``: how many one client keeps unfinished.
``--waiting-minutes`` and ``--idle-hours``: when tables nobody joined, and idle ones, go.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras
from agents.policy.blas import one_blas_thread
from experiments.cli import check_folder, check_names, parse_args
from experiments.web.host_controls import OpeningGate, OpenLimits
from experiments.web.tables import IDLE_HOURS, WAITING_MINUTES

#: Seconds a stopping server waits for open connections: the pages' event streams never end by themselves
#: (the pages reconnect to the next server).
STREAM_CLOSE_S = 2


@dataclass
class WebArgs:
    """Serve the web table: people and agents at shared tables in the browser."""

    host: str = field(
        default="127.0.0.1",
        metadata={
            "help": "address to listen on (0.0.0.0: every interface, e.g. friends on your LAN; read the warning)"
        },
    )
    port: int = field(default=8000, metadata={"help": "port to listen on", "min": 1})
    agents_dir: str | None = field(
        default=None, metadata={"help": "folder of extra agent files (.npz), offered as file:<name>"}
    )
    data_dir: str = field(
        default_factory=lambda: str(default_data_dir()),
        metadata={"help": "folder of the shared tables' database (tables in play and finished games' records)"},
    )
    password_file: str | None = field(
        default=None,
        metadata={"help": "file whose first line is the password a host types to open a table (none: no password)"},
    )
    tables_per_client: int = field(
        default=OpenLimits.per_client,
        metadata={"help": "new tables one client (address) may open per 10 minutes", "min": 1},
    )
    unfinished_per_client: int = field(
        default=OpenLimits.unfinished_per_client,
        metadata={"help": "tables of one client (address) unfinished at once", "min": 1},
    )
    tables_in_all: int = field(
        default=OpenLimits.in_all,
        metadata={"help": "new tables all clients together may open per 10 minutes", "min": 1},
    )
    waiting_minutes: float = field(
        default=WAITING_MINUTES,
        metadata={"help": "minutes a table nobody joined (no page open) is kept", "above": 0},
    )
    idle_hours: float = field(
        default=IDLE_HOURS, metadata={"help": "hours a table in play with no move is kept", "above": 0}
    )
    allow_host: list[str] = field(
        default_factory=list,
        metadata={"help": "host names the page may be opened under besides localhost and --host (e.g. a DNS name)"},
    )


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/pirate_envs/web``, else ``~/.local/share/pirate_envs/web``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "pirate_envs" / "web"


def check_args(args: WebArgs) -> None:
    """``ValueError`` (one line) for an empty or unknown host, a bad port, agents folder, database folder or
    extra host names."""
    if not args.host.strip():
        raise ValueError("--host '': name the address: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
    if args.port > 65535:
        raise ValueError(f"--port {args.port}: must be in 1..65535")
    try:  # a name that does not resolve would fail only as the server starts, with a traceback
        socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise ValueError(f"--host {args.host!r} is not an address of this machine ({error})") from None
    if args.agents_dir is not None and (not args.agents_dir or not Path(args.agents_dir).is_dir()):
        raise ValueError(f"--agents-dir {args.agents_dir!r} is not a folder")
    check_folder(args.data_dir, "--data-dir")
    for name in args.allow_host:
        if not name.strip() or "/" in name:
            raise ValueError(f"--allow-host {name!r} is not a host name")
    check_names(args.allow_host, "--allow-host")
    if args.password_file is not None:
        read_password(args.password_file)


def read_password(path: str) -> str:
    """The first line of ``path``; ``ValueError`` naming the file when it cannot be read or the line is empty."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError) as error:
        raise ValueError(f"--password-file {path!r} cannot be read ({error})") from None
    if not lines or not lines[0].strip():
        raise ValueError(f"--password-file {path!r}: its first line (the password) is empty")
    return lines[0].strip()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(WebArgs, argv, check=check_args)
    require_extras("__main__", ("starlette", "web"), ("uvicorn", "web"))
    import uvicorn

    from experiments.web.serve import WebServer
    from experiments.web.server import create_app, is_loopback

    password = None if args.password_file is None else read_password(args.password_file)
    if not is_loopback(args.host):
        who = "who knows the host password" if password else "who can reach it (no --password-file)"
        print(
            f"warning: anyone {who} can open tables at {args.host}:{args.port}; anyone who can reach it can watch "
            "every table as a spectator and read finished games; only the seat links are secret, and the "
            "connection is not encrypted (use 127.0.0.1 for this machine only)",
            file=sys.stderr,
        )
    print(f"the web table: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    app = create_app(
        args.agents_dir,
        bind_host=args.host,
        extra_hosts=args.allow_host,
        data_dir=args.data_dir,
        gate=OpeningGate(
            OpenLimits(args.tables_per_client, args.tables_in_all, unfinished_per_client=args.unfinished_per_client),
            password,
        ),
        waiting_minutes=args.waiting_minutes,
        idle_hours=args.idle_hours,
    )
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=STREAM_CLOSE_S,
        # no logging.config.dictConfig: it would shut down every logging handler of the process (other
        # libraries' too); uvicorn's loggers keep their levels and Python's last-resort handler prints warnings
        log_config=None,
    )
    # one_blas_thread: the agents' small products (see agents.policy.blas); uvicorn's threads share the limit.
    # KeyboardInterrupt: uvicorn raises the Ctrl-C it caught once it has stopped: a stop, not an error
    with one_blas_thread(), contextlib.suppress(KeyboardInterrupt):
        WebServer(config).run()


if __name__ == "__main__":
    main()
