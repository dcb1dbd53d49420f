"""The results pages: ``docs/results/<env_id>.md`` rendered from committed results files.

    python -m experiments.results_pages --leaderboard docs/leaderboard.md --readme README.md \
        --benchmark-page docs/benchmark.md

Reads every ``*.json`` results file under ``--data`` (default ``docs/results/data``; written by
``python -m experiments.benchmark``, any depth) and every learning summary in ``--learning`` (default
``docs/results/learning``; ``summary.json`` files of ``benchmarks/learners_equal_budget.py``, renamed),
and writes one page per game of either into ``--out``
(default ``docs/results``; `agents.benchmark.pages`), the leaderboard page to ``--leaderboard``
(`agents.benchmark.board`), the games table of the README given by ``--readme`` (between its
two marker lines) and the compute statement of ``--benchmark-page`` (`agents.benchmark.compute`); nothing
is played. Bad arguments end the command with one line and exit status 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agents.benchmark.board import board_markdown
from agents.benchmark.compute import BEGIN as COMPUTE_BEGIN
from agents.benchmark.compute import compute_statement, with_compute_statement
from agents.benchmark.learning import games_of, load_summaries
from agents.benchmark.pages import README_BEGIN, load_documents, readme_table, render, with_readme_table
from experiments.cli import check_folder, check_output_file, parse_args
from pirate_envs.core.files import write_atomic

#: The learning summaries' folder read by default (it may be absent: then the pages have no learning sections).
DEFAULT_LEARNING = "docs/results/learning"


@dataclass
class ResultsPagesArgs:
    """Render one results page per game from the benchmark's results files."""

    data: str = field(default="docs/results/data", metadata={"help": "folder of results files (*.json)"})
    out: str = field(default="docs/results", metadata={"help": "folder for <env_id>.md"})
    leaderboard: str = field(default="", metadata={"help": "write the leaderboard page here (docs/leaderboard.md)"})
    readme: str = field(default="", metadata={"help": "rewrite the games table of this README (README.md)"})
    benchmark_page: str = field(
        default="", metadata={"help": "rewrite the compute statement of this page (docs/benchmark.md)"}
    )
    learning: str = field(
        default=DEFAULT_LEARNING, metadata={"help": "folder of learning summaries (*.json; the default may be absent)"}
    )


def check(args: ResultsPagesArgs) -> None:
    """``ValueError`` (one line) for a data folder without results files, a learning folder that is empty, missing
    or not a folder, a learning file that is no summary, or an output that is not a folder."""
    if not args.data or not Path(args.data).is_dir() or not any(Path(args.data).rglob("*.json")):
        raise ValueError(f"--data {args.data}: no results files (*.json) there")
    check_folder(args.out, "--out")
    check_learning(args.learning)
    load_summaries(args.learning)  # a file there that is no learning summary is refused before anything is written
    if args.leaderboard:
        check_output_file(args.leaderboard, "--leaderboard")
    if args.readme and (not Path(args.readme).is_file() or README_BEGIN not in Path(args.readme).read_text()):
        raise ValueError(f"--readme {args.readme}: no games table marker ({README_BEGIN}) there")
    page = Path(args.benchmark_page) if args.benchmark_page else None
    if page is not None and (not page.is_file() or COMPUTE_BEGIN not in page.read_text()):
        raise ValueError(f"--benchmark-page {args.benchmark_page}: no compute statement marker ({COMPUTE_BEGIN}) there")


def check_learning(folder: str) -> None:
    """``ValueError`` (one line) for a ``--learning`` that is empty, not a folder, or missing (but the default):
    the learning sections are never dropped without a word."""
    if not folder:
        raise ValueError(f"--learning is empty; give the folder of learning summaries (default {DEFAULT_LEARNING})")
    if Path(folder).exists() and not Path(folder).is_dir():
        raise ValueError(f"--learning {folder}: not a folder; give the folder of learning summaries")
    if not Path(folder).exists() and folder != DEFAULT_LEARNING:
        raise ValueError(f"--learning {folder}: no such folder; give the folder of learning summaries")


def main(argv: list[str] | None = None) -> list[Path]:
    args = parse_args(ResultsPagesArgs, argv, check=check)
    games = load_documents(args.data)
    summaries = load_summaries(args.learning)
    pages = {env_id: render(games.get(env_id, []), summaries, env_id) for env_id in [*games, *games_of(summaries)]}
    written = [write_atomic(Path(args.out) / f"{env_id}.md", page) for env_id, page in pages.items()]
    if args.leaderboard:
        written.append(write_atomic(args.leaderboard, board_markdown(games)))
    if args.readme:
        readme = Path(args.readme).read_text()
        written.append(write_atomic(args.readme, with_readme_table(readme, readme_table(games))))
    if args.benchmark_page:
        page = Path(args.benchmark_page).read_text()
        written.append(write_atomic(args.benchmark_page, with_compute_statement(page, compute_statement(games))))
    for path in written:
        print(f"wrote {path}")
    return written


if __name__ == "__main__":
    main()
