"""``python -m experiments.web``: serve the web table (see :mod:`experiments.web`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from experiments.cli import parse_args


@dataclass
class WebArgs:
    """Serve the web table: play the agents in the browser."""

    host: str = field(default="127.0.0.1", metadata={"help": "address to listen on"})
    port: int = field(default=8000, metadata={"help": "port to listen on", "min": 1})
    agents_dir: str | None = field(
        default=None, metadata={"help": "folder of extra agent files (.npz), offered as file:<name>"}
    )


def check_args(args: WebArgs) -> None:
    """``ValueError`` (one line) for a bad port or agents folder."""
    if args.port > 65535:
        raise ValueError(f"--port {args.port}: must be in 1..65535")
    if args.agents_dir is not None and not Path(args.agents_dir).is_dir():
        raise ValueError(f"--agents-dir {args.agents_dir!r} is not a folder")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(WebArgs, argv, check=check_args)
    import uvicorn

    from experiments.web.server import create_app

    print(f"the web table: http://{args.host}:{args.port}/  (Ctrl-C stops it)")
    uvicorn.run(create_app(args.agents_dir), host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
