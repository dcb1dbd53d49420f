"""The results pages: ``docs/results/<env_id>.md`` rendered from committed results files.

    python -m experiments.results_pages --data docs/results/data --out docs/results

Reads every ``*.json`` results file under ``--data`` (written by ``python -m experiments.benchmark``,
any depth) and writes one page per game into ``--out`` (`agents.benchmark.pages`); nothing is
played. Bad arguments end the command with one line and exit status 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agents.benchmark.pages import load_documents, render
from agents.policy.checkpoint import write_atomic
from experiments.cli import check_folder, parse_args


@dataclass
class ResultsPagesArgs:
    """Render one results page per game from the benchmark's results files."""

    data: str = field(default="docs/results/data", metadata={"help": "folder of results files (*.json)"})
    out: str = field(default="docs/results", metadata={"help": "folder for <env_id>.md"})


def check(args: ResultsPagesArgs) -> None:
    """``ValueError`` (one line) for a data folder without results files or an output that is not a folder."""
    if not Path(args.data).is_dir() or not any(Path(args.data).rglob("*.json")):
        raise ValueError(f"--data {args.data}: no results files (*.json) there")
    check_folder(args.out, "--out")


def main(argv: list[str] | None = None) -> list[Path]:
    args = parse_args(ResultsPagesArgs, argv, check=check)
    written = [
        write_atomic(Path(args.out) / f"{env_id}.md", render(documents))
        for env_id, documents in load_documents(args.data).items()
    ]
    for path in written:
        print(f"wrote {path}")
    return written


if __name__ == "__main__":
    main()
