"""``python -m experiments.web``: serve the web table (see `experiments.web`).

The table has no authentication: by default it listens on ``127.0.0.1`` (this machine only).
Any other address prints a warning; ``--host ""`` (every interface, unsaid) is refused: name
``0.0.0.0`` to mean it. ``--allow-host NAME`` adds a host name the page may be opened under
(the ``Host`` header is checked against DNS rebinding; see `experiments.web.server.RequestGuard`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from agents.extras import require_extras
from agents.policy.blas import one_blas_thread
from experiments.cli import parse_args


@dataclass
class WebArgs:
    """Serve the web table: play the agents in the browser."""

    host: str = field(
        default="127.0.0.1",
        metadata={"help": "address to listen on (0.0.0.0: every interface; the table has no authentication)"},
    )
    port: int = field(default=8000, metadata={"help": "port to listen on", "min": 1})
    agents_dir: str | None = field(
        default=None, metadata={"help": "folder of extra agent files (.npz), offered as file:<name>"}
    )
    allow_host: list[str] = field(
        default_factory=list,
        metadata={"help": "host names the page may be opened under besides localhost and --host (e.g. a DNS name)"},
    )


def check_args(args: WebArgs) -> None:
    """``ValueError`` (one line) for an empty host, a bad port or agents folder."""
    if not args.host.strip():
        raise ValueError("--host '': name the address: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)")
    if args.port > 65535:
        raise ValueError(f"--port {args.port}: must be in 1..65535")
    if args.agents_dir is not None and not Path(args.agents_dir).is_dir():
        raise ValueError(f"--agents-dir {args.agents_dir!r} is not a folder")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(WebArgs, argv, check=check_args)
    require_extras("__main__", ("starlette", "web"), ("uvicorn", "web"))
    import uvicorn

    from experiments.web.server import create_app, is_loopback

    if not is_loopback(args.host):
        print(
            f"warning: the web table has no authentication; anyone who can reach {args.host}:{args.port} "
            "can play at it and read its finished games (use 127.0.0.1 for this machine only)",
            file=sys.stderr,
        )
    print(f"the web table: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    app = create_app(args.agents_dir, bind_host=args.host, extra_hosts=args.allow_host)
    with one_blas_thread():  # the agents' small products (see agents.policy.blas); uvicorn's threads share the limit
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
