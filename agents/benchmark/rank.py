"""Where a candidate ranks: its run placed among the committed full runs of the same protocol and table size.

`rank` compares a results document with the committed ones (`agents.benchmark.pages.load_documents` of
``docs/results/data``): per table size, the full runs made under the same protocol label (version and
revision) with line-ups at that size, ordered by strength (`agents.benchmark.board.strength`: the mean
over line-ups of the corrected win rate over chance). Each strength carries an interval: the mean of its
line-ups' bounds over chance, as wide as if their errors were perfectly correlated (never narrower than
the truth). A run is "tied" with every run whose interval overlaps its own.

A reduced run is never ranked: its deals are the first of the list, not the full run's, and its
intervals are wider; `rank` says so per table size instead. Nor is a run whose opponents' fingerprints
differ from the package's (`agents.benchmark.fingerprint`): it did not play the protocol's opponents.
"""

from __future__ import annotations

from typing import Any

from agents.benchmark.board import strength


def strength_interval(lineups: list[dict[str, Any]]) -> list[float]:
    """``[strength, low, high]`` over ``lineups`` (one table size; see the module docstring)."""
    wins = [r["estimates"]["win"]["corrected"] for r in lineups]
    bounds = [[w[0] if w[i] is None else w[i] for w in wins] for i in (1, 2)]
    return [
        strength(lineups),
        *(sum(b / r["chance"] for b, r in zip(side, lineups)) / len(lineups) for side in bounds),
    ]


def _at(document: dict[str, Any], players: int) -> list[dict[str, Any]]:
    return [r for r in document["lineups"] if r["players"] == players]


def rank(document: dict[str, Any], committed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per table size of ``document``: ``{"players", "ranked": bool, "why": str | None, "place", "of",
    "strength", "tied", "table"}`` among ``committed`` (results documents of any games and versions)."""
    result = []
    for players in sorted({r["players"] for r in document["lineups"]}):
        entry: dict[str, Any] = {"players": players, "ranked": False, "why": None}
        if not document["full_protocol"]:
            entry["why"] = "a reduced run is not ranked beside full runs (other deals, wider intervals)"
        elif document.get("fingerprint_differences"):
            entry["why"] = "its opponents played otherwise than the package's fingerprints"
        peers = [
            d
            for d in committed
            if d["env_id"] == document["env_id"]
            and d["protocol"] == document["protocol"]
            and d["full_protocol"]
            and _at(d, players)
            and d["candidate"] != document["candidate"]
        ]
        if entry["why"] is None and not peers:
            entry["why"] = f"no committed full run of {document['protocol']} at {players} players"
        if entry["why"] is not None:
            result.append(entry)
            continue
        own = strength_interval(_at(document, players))
        table = sorted(
            [(d["candidate"], strength_interval(_at(d, players))) for d in peers] + [(document["candidate"], own)],
            key=lambda row: -row[1][0],
        )
        place = next(i for i, (name, values) in enumerate(table) if values is own) + 1
        tied = [name for name, values in table if values is not own and values[1] <= own[2] and own[1] <= values[2]]
        entry.update(ranked=True, place=place, of=len(table), strength=own, tied=tied, table=table)
        result.append(entry)
    return result


def rank_lines(ranks: list[dict[str, Any]], candidate: str) -> list[str]:
    """The rank as markdown lines: per table size its place, or why there is none."""
    lines = ["## Rank", ""]
    for entry in ranks:
        players = entry["players"]
        if not entry["ranked"]:
            lines.append(f"- {players} players: not ranked: {entry['why']}.")
            continue
        low_high = "{:.2f} [{:.2f}, {:.2f}]".format(*entry["strength"])
        tied = f"; tied within intervals with {', '.join(f'`{n}`' for n in entry['tied'])}" if entry["tied"] else ""
        lines.append(f"- {players} players: {entry['place']} of {entry['of']}, strength {low_high}{tied}:")
        for name, (value, low, high) in entry["table"]:
            mark = " **(this run)**" if name == candidate else ""
            lines.append(f"    - `{name}` {value:.2f} [{low:.2f}, {high:.2f}]{mark}")
    lines += [
        "",
        "Strength: the mean over the table's line-ups of the corrected win rate over chance, with the mean of "
        "their 95% bounds (as wide as perfectly correlated errors); among the committed full runs of the same "
        "protocol version and revision.",
    ]
    return lines


__all__ = ["rank", "rank_lines", "strength_interval"]
