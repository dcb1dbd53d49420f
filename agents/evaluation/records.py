"""Game records: one JSON file per game, saved without overwriting and replayed with every field checked.

A record holds ``env_id``, ``env_kwargs``, ``seed``, ``actions`` in order, ``agents`` by seat,
final ``scores``, ``win_shares`` and ``truncated``. `save_games` (or `RecordWriter`, one game at
a time as games end) names them ``game_000000.json`` ... numbered on after the records already
in the folder, and never overwrites one (each is written whole to a temporary file, then linked
to a name not yet taken: `write_new`).
`replay` plays a record back and checks it: a record with a missing or mistyped field, an
action that is not legal at its step, a game that ends before its last action or not at all,
or final figures that differ from the replayed ones is refused with a ``ValueError`` naming
the fault. `load_records` reads the records of one or more folders, each replayed and checked,
so an evaluation split into several runs (other seeds, other machines, or a run stopped
part-way) can be summarised as one; `whole_deals` keeps the duplicate deals that have every
rotation.
"""

from __future__ import annotations

import json
import os
import re
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pirate_envs
from agents.evaluation.games import GameRecord, deal_key, finished_record

#: The name of a saved game record: ``game_000000.json`` ...
RECORD_NAME = re.compile(r"game_(\d+)\.json")
#: The most bytes a record may hold (the longest games of every game: a few hundred KB).
MAX_RECORD_BYTES = 2**24


def read_record_text(path: Path, max_bytes: int | None = None) -> str:
    """The text of the record file ``path``: a regular file (a link to one is followed) of at most
    ``max_bytes`` (default `MAX_RECORD_BYTES`); ``ValueError`` for anything else (a FIFO, a device,
    a folder), found without waiting on it or reading past the cap."""
    cap = MAX_RECORD_BYTES if max_bytes is None else max_bytes
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens at once
    except OSError as error:
        raise ValueError(f"cannot be read ({error.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("not a regular file (a FIFO, a device or a folder); a record is a plain file")
        if status.st_size > cap:
            raise ValueError(f"the file has {status.st_size} bytes, more than a record may ({cap})")
        data = file.read(cap + 1)
    if len(data) > cap:
        raise ValueError(f"the file grew past the {cap} bytes a record may hold")
    return data.decode("utf-8")


class RecordWriter:
    """Saves game records into ``folder`` one at a time, as games end (a run stopped part-way keeps
    the games it finished), numbered on after the records already there; never overwrites one."""

    def __init__(self, folder: str | Path, env_id: str, **env_kwargs: Any):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.env_id, self.env_kwargs = env_id, env_kwargs
        self.index = next_record_index(self.folder)
        self.paths: list[Path] = []

    def write(self, names: list[str], record: GameRecord) -> Path:
        """Save one game (``names``: the agent at each seat) as the next ``game_NNNNNN.json``; its path."""
        payload = {
            "env_id": self.env_id,
            "env_kwargs": {**self.env_kwargs, "num_players": len(names)},
            "seed": record.seed,
            "actions": record.actions,
            "agents": names,
            "scores": record.scores,
            "win_shares": record.win_shares,
            "truncated": record.truncated,
        }
        text = json.dumps(payload)
        while True:  # a name taken meanwhile (another run into this folder) moves on to the next
            path = self.folder / f"game_{self.index:06d}.json"
            self.index += 1
            try:
                write_new(path, text)
                break
            except FileExistsError:
                continue
        self.paths.append(path)
        return path


def save_games(
    folder: str | Path, env_id: str, played: list[tuple[list[str], GameRecord]], **env_kwargs: Any
) -> list[Path]:
    """One JSON record per game in ``folder``, numbered on after the records already there; the paths.

    ``game_000000.json`` ... in an empty folder; a second run into the same folder continues the
    numbering. No record is ever overwritten (`write_new`), and each appears whole.
    """
    writer = RecordWriter(folder, env_id, **env_kwargs)
    for names, record in played:
        writer.write(names, record)
    return writer.paths


def next_record_index(folder: Path) -> int:
    """One past the highest number of a game record in ``folder`` (0 when there is none)."""
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := RECORD_NAME.fullmatch(p.name))]
    return max(numbers, default=-1) + 1


def write_new(path: Path, text: str) -> None:
    """Write ``text`` to the new file ``path``, whole; ``FileExistsError`` (nothing written) if it exists.

    The text goes to a temporary file in the same folder that is then hard-linked as ``path``:
    unlike ``os.replace``, a link never replaces a file that is there.
    """
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temp, path)
    finally:
        temp.unlink(missing_ok=True)


#: The fields every saved game record has: their Python types, and those types in words.
RECORD_FIELDS: dict[str, tuple[type, str]] = {
    "env_id": (str, "a string"),
    "env_kwargs": (dict, "an object"),
    "seed": (int, "an integer"),
    "actions": (list, "a list"),
    "scores": (list, "a list"),
}


def replay(record: dict[str, Any]) -> list[float]:
    """Play a saved game record's actions through the raw env from its seed; the final scores.

    The record is checked as it is replayed: a ``ValueError`` names the fault of a record that
    lacks a field or has one of the wrong type, an action that is not an integer or not legal
    at its step, a game that is over before its last action or not over after it, or final
    scores (and ``win_shares``, ``truncated`` where the record has them) that differ from the
    replayed ones.
    """
    return replayed_record(record).scores


def replayed_record(record: dict[str, Any]) -> GameRecord:
    """The figures of a saved game record as its replay gives them, the record checked as `replay` says."""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, not {type(record).__name__}")
    for name, (kind, words) in RECORD_FIELDS.items():
        if name not in record:
            raise ValueError(f"game record: no {name!r} field; a record has {', '.join(RECORD_FIELDS)}")
        value = record[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"game record: {name}={value!r} must be {words}, not {type(value).__name__}")
    seed, actions, kwargs = record["seed"], record["actions"], record["env_kwargs"]
    where = f"game record of {record['env_id']} seed {seed}"
    if record["env_id"] not in pirate_envs.ENV_IDS:
        raise ValueError(f"{where}: env_id {record['env_id']!r} is not a game; valid ids: {pirate_envs.ENV_IDS}")
    if seed < 0:
        raise ValueError(f"{where}: the seed must be a non-negative integer")
    try:
        env = pirate_envs.make(record["env_id"], raw=True, **kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: env_kwargs {kwargs}: {error}") from None
    env.reset(seed=seed)
    game = env.game
    for step, action in enumerate(actions):
        if type(action) is not int:
            raise ValueError(f"{where}: action {step} is {action!r}, not an integer")
        if game.done:
            raise ValueError(f"{where}: the game is over after {step} actions, but the record has {len(actions)}")
        try:
            env.step(action)
        except ValueError as error:  # an IllegalActionError: out of range or against the rules
            raise ValueError(f"{where}: action {step}: {error}") from None
    if not game.done:
        raise ValueError(f"{where}: not over after its {len(actions)} actions")
    finished = finished_record(game, seed, actions)
    replayed = {"scores": finished.scores, "win_shares": finished.win_shares, "truncated": finished.truncated}
    for name, value in replayed.items():
        if name in record and record[name] != value:
            raise ValueError(f"{where}: recorded {name} {record[name]!r}, but the replay gives {value!r}")
    return finished


@dataclass(frozen=True)
class RecordSet:
    """The saved games of one game and one set of env options, read back and replayed."""

    env_id: str
    #: The env options of every record, the player count left out (the records' tables give it).
    env_kwargs: dict[str, Any]
    #: Each game's agent names by seat and its record (figures from the replay), in file order.
    played: list[tuple[list[str], GameRecord]]


def load_records(folders: list[str | Path]) -> RecordSet:
    """Every ``game_NNNNNN.json`` of ``folders`` (in folder, then number order), replayed and checked.

    Only regular files of at most `MAX_RECORD_BYTES` are read (`read_record_text`).
    ``ValueError`` naming the file for a record that is not JSON, fails `replay`, or has no
    ``agents`` list of one name per seat; for records of different games or env options; for
    the same game (seed, seating and actions) twice; and for folders that hold no record.
    """
    played: list[tuple[list[str], GameRecord]] = []
    seen: set[str] = set()
    kind: tuple[str, dict[str, Any]] | None = None  # the game and env options of the first record
    first = ""
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise ValueError(f"{folder}: not a folder of game records")
        paths = sorted(
            (p for p in folder.iterdir() if RECORD_NAME.fullmatch(p.name)),
            key=lambda p: int(RECORD_NAME.fullmatch(p.name).group(1)),  # type: ignore[union-attr]
        )
        for path in paths:
            try:
                record = json.loads(read_record_text(path))
                finished = replayed_record(record)
            except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as error:
                raise ValueError(f"{path}: {error}") from None
            names, seats = record.get("agents"), len(finished.scores)
            if not isinstance(names, list) or len(names) != seats or not all(isinstance(n, str) and n for n in names):
                raise ValueError(f"{path}: agents must list one agent name per seat ({seats})")
            key = json.dumps([record["seed"], names, record["actions"]])
            if key in seen:
                raise ValueError(f"{path}: the same game (seed {record['seed']}, seating, actions) is there twice")
            seen.add(key)
            this = (record["env_id"], {k: v for k, v in record["env_kwargs"].items() if k != "num_players"})
            if kind is None:
                kind, first = this, str(path)
            elif this != kind:
                raise ValueError(f"{path}: another game or env options than {first}; summarise one kind at a time")
            played.append((names, finished))
    if kind is None:
        raise ValueError(f"no game records (game_NNNNNN.json) in {', '.join(map(str, folders))}")
    return RecordSet(*kind, played)


def whole_deals(
    played: list[tuple[list[str], GameRecord]],
) -> tuple[list[tuple[list[str], GameRecord]], list[int]]:
    """The games of the duplicate deals played in every rotation, and the seeds of the others.

    A deal is the games of one lineup (its names, in any seating) with one seed; it is whole
    when it has as many games as seats, each in a different seating. A run stopped part-way
    leaves deals short of a rotation: their games would weigh the deal's luck unevenly, so they
    are left out (their seeds returned, in order).
    """
    seatings: dict[tuple[tuple[str, ...], int | None], list[tuple[str, ...]]] = {}
    for names, record in played:
        seatings.setdefault(deal_key(names, record), []).append(tuple(names))
    whole = {deal for deal, seen in seatings.items() if len(seen) == len(deal[0]) and set(seen) == rotations(seen[0])}
    kept = [(names, record) for names, record in played if deal_key(names, record) in whole]
    left_out = sorted({seed for _, seed in seatings.keys() - whole if seed is not None})
    return kept, left_out


def rotations(names: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The distinct seatings of ``names`` turned round the table."""
    return {names[k:] + names[:k] for k in range(len(names))}
