"""The benchmark page's compute statement: CPU-hours per committed result and in all, and on which machines.

Read from the committed results files (``provenance``: the run's CPU seconds, the machine of its last
sitting, and per machine the batches a resumed run read back or a Ray cluster played), never typed:
``python -m experiments.results_pages --benchmark-page docs/benchmark.md`` rewrites the text between
`BEGIN` and `END` of the page, and a test checks the committed page against the committed files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The marker lines around the generated statement on the benchmark page.
BEGIN = (
    "<!-- compute statement, from docs/results/data: "
    "python -m experiments.results_pages --benchmark-page docs/benchmark.md -->"
)
END = "<!-- end of the compute statement -->"
#: A machine a results file does not describe (files written before the CPU model was recorded).
UNRECORDED = "not recorded"


def machine_label(record: Mapping[str, Any] | None) -> str:
    """``<CPU model>, <n> CPUs`` of a machine record (`UNRECORDED` for the parts a file lacks; its platform
    where it names no CPU model)."""
    record = record or {}
    platform = f" ({record['platform']})" if record.get("platform") else ""
    model = record.get("processor") or f"CPU model {UNRECORDED}{platform}"
    cpus = record.get("cpus")
    return f"{model}, {cpus} CPUs" if cpus else f"{model}, CPU count {UNRECORDED}"


def cpu_by_machine(document: Mapping[str, Any]) -> dict[str, float]:
    """A result's CPU seconds by machine label: the batches read back or played on a Ray cluster on the
    machines their files name, the rest on the machine of the run's last sitting."""
    origin = document["provenance"]
    elsewhere = [*origin.get("resumed", {}).get("machines", []), *origin.get("ray", {}).get("machines", [])]
    here = machine_label(origin)
    spent = {here: float(origin["cpu_seconds"])}
    for entry in elsewhere:
        label = machine_label(entry["machine"])
        spent[here] -= entry["cpu_seconds"]
        spent[label] = spent.get(label, 0.0) + entry["cpu_seconds"]
    return {label: seconds for label, seconds in spent.items() if seconds > 0.05}


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f}"


def _rough(hours: float) -> str:
    """Hours to two significant figures at most (a rough figure)."""
    return f"{hours:,.1f}" if hours < 10 else f"{round(hours, -1 if hours >= 100 else 0):,.0f}"


def candidate_moves(document: Mapping[str, Any]) -> int:
    """The candidate's moves over every line-up of a result."""
    return sum(int(line["compute"]["candidate_moves"]) for line in document["lineups"])


def full_run_estimate(document: Mapping[str, Any], full: Sequence[Mapping[str, Any]]) -> float | None:
    """A rough CPU-seconds figure for the full run of a reduced result's candidate: its CPU time a move times
    the median candidate moves of the game's full runs ``full`` (the opponents' moves left out); ``None``
    without a full run of the game."""
    moves = sorted(candidate_moves(d) for d in full)
    if not moves or not candidate_moves(document):
        return None
    spent = (
        sum(
            line["compute"]["candidate_cpu_us_per_move"] * line["compute"]["candidate_moves"]
            for line in document["lineups"]
        )
        / 1e6
    )
    return spent / candidate_moves(document) * moves[len(moves) // 2]


def compute_statement(games: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The statement (markdown, between `BEGIN` and `END`): a table of every committed result, its total, and
    the CPU-hours by machine."""
    rows, total, machines = [], 0.0, {}
    for env_id in sorted(games):
        for document in sorted(games[env_id], key=lambda d: d["candidate"]):
            seconds = float(document["provenance"]["cpu_seconds"])
            total += seconds
            spent = cpu_by_machine(document)
            for label, part in spent.items():
                machines[label] = machines.get(label, 0.0) + part
            run = "full" if document["full_protocol"] else "**reduced**"
            full = [d for d in games[env_id] if d["full_protocol"]]
            estimate = None if document["full_protocol"] else full_run_estimate(document, full)
            run += "" if estimate is None else f" (a full run: about {_rough(estimate / 3600)} CPU-hours)"
            where = "; ".join(f"{label}: {_hours(part)}" for label, part in spent.items())
            version = document["protocol"].rsplit(" ", 1)[1]
            rows.append(f"| {env_id} | `{document['candidate']}` | {run}, {version} | {_hours(seconds)} | {where} |")
    lines = [
        BEGIN,
        f"**{len(rows)} committed results, {_hours(total)} CPU-hours in all** (each file's `provenance.cpu_seconds`: "
        "the CPU time of the run's processes, its workers and its Ray tasks, and of the batches a resumed run "
        "read back; numba's compilation included where a run compiled). A reduced run's full-run figure is "
        "rough: its CPU time a candidate move times the median candidate moves of the game's full runs, the "
        "opponents' moves (under an hour a game) left out.",
        "",
        "| game | candidate | run, protocol | CPU-hours | CPU-hours by machine |",
        "|---|---|---|---|---|",
        *rows,
        f"| all | | | **{_hours(total)}** | |",
        "",
        "| machine (as its results files record it) | CPU-hours |",
        "|---|---|",
        *(f"| {label} | {_hours(seconds)} |" for label, seconds in sorted(machines.items(), key=lambda kv: -kv[1])),
        END,
    ]
    return "\n".join(lines)


def with_compute_statement(page: str, statement: str) -> str:
    """``page`` with the text from `BEGIN` to `END` replaced by ``statement``; ``ValueError`` without the markers."""
    if BEGIN not in page or END not in page:
        raise ValueError(f"no compute statement markers ({BEGIN}) on the page")
    head, rest = page.split(BEGIN, 1)
    return head + statement + rest.split(END, 1)[1]


__all__ = ["BEGIN", "END", "compute_statement", "cpu_by_machine", "machine_label", "with_compute_statement"]
