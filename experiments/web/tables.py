"""Shared tables: several people and agents at one game, each person at their own seat.

A host opens a `Table` (a game, its seats: the host's, seats for invited people, agents) and
gets one invite per person seat: a link carrying that seat's secret token
(``secrets.token_urlsafe``, 256 bits). The token is the seat: each answer shows that seat's
view only, a move is played for that seat only, and tokens are compared in constant time
(``hmac.compare_digest``) and never logged or shown to anyone but the host. Without a token a
page is a spectator and sees public facts only (`experiments.web.sessions.public_table`).
The game starts once every invited person has joined, or when the host starts it: agents
(the host's ``fill_agent``) take the seats nobody took.

The agents move in worker threads, one move at a time; after every change each seat's state
and the spectator's are built once and pushed to every open tab (`Table.listen`). A request
never waits for a table's lock in a worker thread: it is refused at once (`TableBusy`) and the
API tries again later (`experiments.web.table_api`). The `TableHall` keeps the tables, stores
every change in SQLite (`experiments.web.storage`) and, when it starts, rebuilds every table in
play from its seed and moves. A table nobody joined (still waiting, no page open) goes after
`WAITING_MINUTES`, one idle in play after `IDLE_HOURS`, one its host closed at once; finished
games' records are kept. Each client keeps at most ``open_per_client`` tables unfinished.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import pirate_envs
from experiments.web.host_controls import OpenLimits, Refused
from experiments.web.sessions import (
    MAX_SEED,
    AgentCatalog,
    GameSession,
    HintPosition,
    RequestError,
    _check_options,
    _check_seed,
    check_players,
    make_env,
)
from experiments.web.storage import TableDB

#: Bytes of randomness in a seat token (``secrets.token_urlsafe``: 43 characters).
TOKEN_BYTES = 32
#: Hours a table in play is kept after its last change (finished games' records are kept).
IDLE_HOURS = 24.0
#: Minutes a waiting table (the game not started) with no page open is kept after its last change.
WAITING_MINUTES = 10.0
#: Most tables in memory at once (waiting and in play); a new table past it is refused (503).
MAX_TABLES = 256
#: Seconds between two sweeps for expired tables (when a table is opened or the lobby is read).
PURGE_EVERY_S = 30.0
#: Finished tables listed in the lobby (the newest).
LOBBY_FINISHED = 50
#: A seat of a new table: the host's, one for an invited person, else an agent's name.
HOST, PERSON = "you", "person"
#: How long a request waits for a table busy with an agent's move before it is answered 409.
LOCK_WAIT_S = 30.0
#: Changes whose states a tab that fell behind is still sent one by one (`Table.states_since`).
RECENT_STATES = 64
#: Agents warmed (their kernels compiled) when a table of a game starts, besides the hint's default agent.
WARMED_AGENTS = ("halving",)
log = logging.getLogger(__name__)


@dataclass
class Seat:
    """One seat: ``kind`` is `PERSON` or an agent's name; a person's ``token``, shown ``name`` and whether joined."""

    kind: str
    token: str | None = None
    name: str = ""
    joined: bool = False

    def public(self, index: int) -> dict[str, Any]:
        """What anyone may know of the seat (never its token)."""
        person = self.kind == PERSON
        return {
            "seat": index,
            "kind": "person" if person else "agent",
            "agent": None if person else self.kind,
            "name": self.name or f"player_{index}",
            "joined": self.joined,
        }


def _person_name(name: Any, seat: int) -> str:
    """A person's shown name: up to 24 letters, digits, spaces, ``_-.``; else ``player_<seat>``."""
    text = re.sub(r"[^\w .-]", "", name if isinstance(name, str) else "")[:24].strip()
    return text or f"player_{seat}"


class TableBusy(RequestError):
    """The table's lock is held (an agent is moving): try the request again in a moment."""


class Table:
    """One shared table; every method that changes it runs under its ``lock`` and stores the change."""

    def __init__(self, tid: str, setup: dict[str, Any], status: str, created: float, hall: TableHall, client: str = ""):
        self.id, self.status, self.created, self.hall, self.client = tid, status, created, hall, client
        self.env_id: str = setup["env_id"]
        self.num_players: int = setup["num_players"]
        self.options: dict[str, Any] = setup["options"]
        self.seed: int = setup["seed"]
        self.seeded: bool = setup["seeded"]
        self.fill_agent: str = setup["fill_agent"]
        self.host: int = setup["host"]
        self.seats = [Seat(**seat) for seat in setup["seats"]]
        self.game: GameSession | None = None
        self.record: dict[str, Any] | None = None
        self._final_actions: list[int] | None = None  # a finished game loaded from storage, not rebuilt yet
        self.lock = threading.RLock()
        self.running = False  # the agents' moves are being played in a worker thread
        #: counts the changes, from the time the table was loaded in ms: it grows across restarts too, so a page
        #: that outlived a server orders the new server's states after the old one's
        self.serial = int(hall.clock() * 1000)
        #: the last `RECENT_STATES` changes: (serial, the state of each seat and the spectator's, as JSON)
        self._recent: deque[tuple[int, dict[int | None, str]]] = deque(maxlen=RECENT_STATES)
        self._listeners: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._listeners_lock = threading.Lock()

    # ------------------------------------------------------------ seats
    def setup(self) -> dict[str, Any]:
        """The table as stored (secrets included: the seed and the tokens stay on the server)."""
        return {
            "env_id": self.env_id,
            "num_players": self.num_players,
            "options": self.options,
            "seed": self.seed,
            "seeded": self.seeded,
            "fill_agent": self.fill_agent,
            "host": self.host,
            "seats": [asdict(seat) for seat in self.seats],
        }

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token is ``token`` (``None``/empty: a spectator); 403 for a token of no seat here.

        Every seat's token is compared, in constant time, whichever matches."""
        if not token:
            return None
        found = None
        given = token.encode("utf-8", "replace")
        for index, seat in enumerate(self.seats):
            if seat.token is not None and hmac.compare_digest(seat.token.encode(), given):
                found = index
        if found is None:
            raise RequestError("this seat link is not valid at this table (a seat nobody took is an agent's)", 403)
        return found

    def invites(self, seat: int | None) -> list[dict[str, Any]]:
        """The host's invites: per person seat, its token (403 for anyone but the host)."""
        if seat != self.host:
            raise RequestError("only the host sees the invites", 403)
        return [
            {"seat": i, "token": s.token, "joined": s.joined}
            for i, s in enumerate(self.seats)
            if s.kind == PERSON and i != self.host
        ]

    def join(self, seat: int | None, name: Any) -> str:
        """The person at ``seat`` takes it (again: a reload, another device) under ``name``; the game starts
        when every person seat is taken. The seat's state right after, as JSON."""
        if seat is None:
            raise RequestError("a spectator takes no seat: open the seat's invite link", 403)
        if self.status == "finished":
            return self.state_json(seat)[1]
        with self._held():
            self._check_open()
            person = self.seats[seat]
            person.joined, person.name = True, _person_name(name, seat) if name is not None else person.name
            if self.game is not None:
                self.game.people_names[seat] = person.name
            self._stored()
            if self.status == "waiting" and all(s.joined for s in self.seats if s.kind == PERSON):
                self._start()
            self._changed()
            return self.state_json(seat)[1]

    def start(self, seat: int | None) -> str:
        """The host starts the game now: agents (``fill_agent``) take the seats nobody took; the host's state."""
        if seat != self.host:
            raise RequestError("only the host starts the game", 403)
        with self._held():
            self._check_open()
            if self.status != "waiting":
                raise RequestError("the game has started", 409)
            self._start()
            self._changed()
            return self.state_json(seat)[1]

    def _start(self) -> None:
        for index, seat in enumerate(self.seats):
            if seat.kind == PERSON and not seat.joined:
                self.seats[index] = Seat(self.fill_agent)
        self.status = "playing"
        self._stored()
        self.game = self._game([])
        self.hall.warm(self.env_id, self.num_players, self.options)
        self.hall.schedule(self)

    def _game(self, actions: list[int], build_agents: bool = True) -> GameSession:
        agents = {i: s.kind for i, s in enumerate(self.seats) if s.kind != PERSON}
        names = {i: s.name or f"player_{i}" for i, s in enumerate(self.seats) if s.kind == PERSON}
        return GameSession.seated(
            self.env_id,
            self.num_players,
            self.options,
            self.seed,
            agents,
            self.hall.catalog,
            actions,
            names,
            build_agents,
        )

    def resume(self, actions: list[int], record: dict[str, Any] | None) -> None:
        """Rebuild the game after ``actions`` (a server restart); the agents go on if it is their turn. A finished
        game is rebuilt only when a page asks for it (`state_json`)."""
        self.record = record
        if self.status == "finished":
            self._final_actions = actions
            return
        if self.status != "waiting":
            self.game = self._game(actions)
        self._changed()
        if self.status == "playing":
            self.hall.schedule(self)

    # ------------------------------------------------------------ moves
    def play(self, seat: int | None, body: Any) -> str:
        """``seat`` plays ``body`` (with the ``version`` it was made on); the seat's state right after the move,
        as JSON. The agents answer in a worker thread."""
        if seat is None:
            raise RequestError("a spectator makes no moves", 403)
        with self._held():  # the game may end or the table close while a move waits: checked under the lock
            self._check_open()
            if self.status == "finished":
                raise RequestError("the game is over", 409)
            if self.game is None:
                raise RequestError("the game has not started: waiting for the invited people", 409)
            self.game.play(seat, body)
            self._moved()
            text = self.state_json(seat)[1]
        self.hall.schedule(self)
        return text

    def close(self, seat: int | None) -> None:
        """The host closes the table: every open tab is told, the table and its moves are deleted."""
        if seat != self.host:
            raise RequestError("only the host closes the table", 403)
        with self._held():
            self._check_open()
            if self.status == "finished":
                raise RequestError("the game is over: its record is kept", 409)
            self.status, self.game = "closed", None
            self._changed()
        self.hall.drop(self)

    def _check_open(self) -> None:
        if self.status == "closed":
            raise RequestError("the host closed this table", 410)

    def hint_position(self, seat: int | None, staged: list[int]) -> HintPosition:
        """A copy of the position a hint of ``seat`` is about, after its ``staged`` moves
        (`GameSession.hint_position`), taken under the lock; 409 when it is not the seat's turn."""
        with self._held():
            if self.game is None or seat is None:
                raise RequestError("a hint is for your turn; it is not your turn", 409)
            return self.game.hint_position(seat, staged)

    def advance(self) -> None:
        """Play the agents' moves, one at a time, until a person's turn or the end (in a worker thread)."""
        try:
            while True:
                with self.lock:
                    game = self.game
                    if game is None or game.agent_on_turn is None or self.hall.stopping:
                        self.running = False
                        return
                    game.step_agent()
                    self._moved()
        except Exception:
            log.exception("an agent's move failed at a shared table")
            with self.lock:
                self.running = False

    def _moved(self) -> None:
        """Store the last move (and the record at the end); push the new state."""
        game = self.game
        assert game is not None
        now = self.hall.clock()
        self.hall.db.add_move(self.id, game.version - 1, game.actions[-1], now)
        if game.done:
            self.status = "finished"
            self.record = game.record()
            self.hall.db.finish(self.id, self.record, now)
        self._changed()
        if game.done:
            self.game = None  # its final states are built: the engine and the agents are freed

    def _stored(self) -> None:
        self.hall.db.save(self.id, self.setup(), self.status, self.created, self.hall.clock())

    # ------------------------------------------------------------ states
    def _held(self) -> Any:
        """The table's lock, never waited for: `TableBusy` while an agent's move holds it."""
        table = self

        class Held:
            def __enter__(self) -> None:
                if not table.lock.acquire(blocking=False):
                    raise TableBusy("this table is busy with an agent's move; try again", 409)

            def __exit__(self, *exc: Any) -> None:
                table.lock.release()

        return Held()

    def summary(self) -> dict[str, Any]:
        """The table in the lobby: public facts only."""
        game = self.game
        return {
            "id": self.id,
            "env_id": self.env_id,
            "game": pirate_envs.game_spec(self.env_id).name,
            "players": self.num_players,
            "status": self.status,
            "seeded": self.seeded,
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "version": game.version if game is not None else len(self.record["actions"]) if self.record else 0,
            "scores": self.record["scores"] if self.record else None,
            "created": self.created,
        }

    def _state(self, seat: int | None) -> dict[str, Any]:
        base = {
            "id": self.id,
            "table_status": self.status,
            "is_host": seat is not None and seat == self.host,
            "seats": [s.public(i) for i, s in enumerate(self.seats)],
            "seeded": self.seeded,
            "serial": self.serial,
        }
        if self.game is None:
            return {
                "kind": "table",
                "env_id": self.env_id,
                "game": pirate_envs.game_spec(self.env_id).name,
                "seat": seat,
                "version": 0,
                "done": False,
                "your_turn": False,
                "events": [],
                "table": None,
                **base,
            }
        state = self.game.state(seat)
        state.update(base, kind="table", chosen_seed=None, agent_moves=[])
        return state

    def _changed(self) -> None:
        """Build every seat's and the spectator's state once, then wake every open tab."""
        self.serial += 1
        seats: list[int | None] = [*range(self.num_players), None]
        self._recent.append((self.serial, {seat: json.dumps(self._state(seat)) for seat in seats}))
        self.wake()

    def state_json(self, seat: int | None) -> tuple[int, str]:
        """The last state built for ``seat`` (None: a spectator) as JSON, with its serial."""
        if not self._recent:  # a finished game loaded from storage: its final states, built once
            with self.lock:
                if not self._recent and self._final_actions is not None:
                    self.game = self._game(self._final_actions, build_agents=False)
                    self._changed()
                    self.game, self._final_actions = None, None
        serial, states = self._recent[-1]
        return serial, states[seat]

    def states_since(self, seat: int | None, serial: int) -> list[tuple[int, str]]:
        """The states of ``seat`` after change ``serial``, oldest first (each agent's move, for the page to play
        out; only the last if more than `RECENT_STATES` went by)."""
        self.state_json(seat)  # built, for a finished game loaded from storage
        recent = list(self._recent)
        if recent[0][0] > serial + 1:
            recent = recent[-1:]
        return [(s, states[seat]) for s, states in recent if s > serial]

    @property
    def listened(self) -> bool:
        """Whether a page follows the table."""
        with self._listeners_lock:
            return bool(self._listeners)

    def wake(self) -> None:
        """Wake every open tab's stream (a change, a close, the server stopping)."""
        with self._listeners_lock:
            listeners = list(self._listeners)
        for loop, event in listeners:
            loop.call_soon_threadsafe(event.set)

    def listen(self, listener: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._listeners_lock:
            self._listeners.add(listener)

    def unlisten(self, listener: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._listeners_lock:
            self._listeners.discard(listener)


class Warmer:
    """Compiles the searches of a game once per process (numba's kernels are the process's), in its own thread,
    never in the agents' way: it asks the hint's default agent and `WARMED_AGENTS` for a move on a scratch game."""

    def __init__(self) -> None:
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="table-warm")
        self.done: set[str] = set()
        self._lock = threading.Lock()

    def warm(self, catalog: AgentCatalog, env_id: str, num_players: int, options: dict[str, Any]) -> None:
        with self._lock:
            if env_id in self.done:
                return
            self.done.add(env_id)

        def work() -> None:
            try:
                scratch = GameSession.seated(env_id, num_players, options, 0, {}, catalog)
                seat = scratch.env.game.current_player
                for name in (None, *WARMED_AGENTS):  # None: the hint's default agent
                    if name is None or name in catalog.names(env_id):
                        scratch.hint(name, seat)
            except Exception:
                log.exception("warming the searches failed")

        self.executor.submit(work)


#: The process's `Warmer`.
WARMER = Warmer()


class TableHall:
    """Every table of the server: opened, looked up, listed, stored and resumed after a restart."""

    def __init__(
        self,
        catalog: AgentCatalog,
        db: TableDB | None = None,
        idle_hours: float = IDLE_HOURS,
        capacity: int = MAX_TABLES,
        threads: int = 4,
        clock: Callable[[], float] = time.time,
        waiting_minutes: float = WAITING_MINUTES,
        open_per_client: int = OpenLimits.unfinished_per_client,
    ):
        for name, value in (("idle_hours", idle_hours), ("waiting_minutes", waiting_minutes)):
            if not value > 0:
                raise ValueError(f"{name} {value!r}: must be positive")
        self.catalog, self.db, self.capacity, self.clock = catalog, db or TableDB(), capacity, clock
        self.idle_hours, self.waiting_minutes, self.open_per_client = idle_hours, waiting_minutes, open_per_client
        self.tables: dict[str, Table] = {}
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="table-agents")
        self.stopping = False  # the server is stopping: the streams end, the agents stop after their move
        self._lock = threading.Lock()
        self._purged_at = -math.inf
        self._purge()
        for stored in self.db.load():
            table = Table(stored.id, stored.setup, stored.status, stored.created, self)
            self.tables[stored.id] = table
            try:
                table.resume(stored.actions, stored.record)
            except Exception:  # a stored table the code cannot rebuild any more stays listed, unplayable
                log.exception("a stored table could not be resumed")

    def open(self, body: Any, client: str = "") -> tuple[Table, int]:
        """A new table from the host's ``body``: ``{env_id, seats: ["you", "person", <agent>, ...],
        fill_agent?, name?, seed?, options?}``, opened by ``client`` (its address); the table and the host's seat."""
        if not isinstance(body, dict):
            raise RequestError("the body must be a JSON object")
        env_id, seats = body.get("env_id"), body.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats) or seats.count(HOST) != 1:
            raise RequestError(f'seats must list each seat: "{HOST}" (once: the host), "{PERSON}" or an agent name')
        check_players(env_id, len(seats), f"{len(seats)} seats")
        options = _check_options(env_id, body.get("options")) if env_id in pirate_envs.ENV_IDS else {}
        make_env(env_id, len(seats), options)  # the game and its options are checked before the table opens
        fill = body.get("fill_agent", "heuristic")
        if not isinstance(fill, str):
            raise RequestError("fill_agent must be an agent name")
        for name in {fill, *seats} - {HOST, PERSON}:
            if not isinstance(name, str) or name not in self.catalog.names(env_id):
                raise RequestError(f"unknown agent {str(name)[:60]!r}; choose one of {self.catalog.names(env_id)}")
        seed = body.get("seed")
        host = seats.index(HOST)
        table_seats = [
            Seat(PERSON, secrets.token_urlsafe(TOKEN_BYTES), _person_name(body.get("name"), i), True)
            if s == HOST
            else Seat(PERSON, secrets.token_urlsafe(TOKEN_BYTES))
            if s == PERSON
            else Seat(s)
            for i, s in enumerate(seats)
        ]
        setup = {
            "env_id": env_id,
            "num_players": len(seats),
            "options": options,
            "seed": secrets.randbelow(MAX_SEED + 1) if seed is None else _check_seed(seed),
            "seeded": seed is not None,
            "fill_agent": fill,
            "host": host,
            "seats": [asdict(s) for s in table_seats],
        }
        self._purge()
        with self._lock:
            unfinished = [t for t in self.tables.values() if t.status not in ("finished", "closed")]
            retry = {"Retry-After": str(math.ceil(self.waiting_minutes * 60))}
            if sum(t.client == client for t in unfinished) >= self.open_per_client:
                raise Refused(
                    f"you have {self.open_per_client} tables unfinished: finish or close one first", 429, retry
                )
            if len(unfinished) >= self.capacity:
                raise Refused(f"the server is full ({self.capacity} tables open); try again later", 503, retry)
            tid = secrets.token_urlsafe(12)
            table = Table(tid, setup, "waiting", self.clock(), self, client)
            self.tables[tid] = table
        with table.lock:
            table._stored()
            table.join(host, body.get("name"))
        return table, host

    def get(self, tid: str) -> Table:
        """The table ``tid`` (404 if unknown or deleted)."""
        table = self.tables.get(tid) if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", tid) else None
        if table is None:
            raise RequestError("no such table (closed by its host, or unfinished and idle: deleted)", 404)
        return table

    def lobby(self) -> dict[str, Any]:
        """The open tables (waiting and in play) and the newest finished ones: public facts only."""
        self._purge()
        tables = sorted(self.tables.values(), key=lambda t: -t.created)
        finished = [t.summary() for t in tables if t.status == "finished"][:LOBBY_FINISHED]
        return {
            "open": [t.summary() for t in tables if t.status != "finished"],
            "finished": finished,
            "idle_hours": self.idle_hours,
            "waiting_minutes": self.waiting_minutes,
        }

    def schedule(self, table: Table) -> None:
        """Play the agents' moves of ``table`` in a worker thread (one runner per table)."""
        with table.lock:
            if table.running or table.game is None or table.game.agent_on_turn is None:
                return
            table.running = True
        self.pool.submit(table.advance)

    def warm(self, env_id: str, num_players: int, options: dict[str, Any]) -> None:
        """Warm the searches of ``env_id`` (`WARMER`: once per game and process)."""
        WARMER.warm(self.catalog, env_id, num_players, options)

    def drop(self, table: Table) -> None:
        """Forget ``table`` (closed by its host): in memory and stored."""
        self.db.delete(table.id)
        self.tables.pop(table.id, None)

    def _purge(self) -> None:
        """Delete the expired tables, stored and in memory (at most every `PURGE_EVERY_S`): those in play idle for
        `idle_hours`, those waiting for `waiting_minutes` with no page open (a page open keeps its table)."""
        now = self.clock()
        with self._lock:
            if now - self._purged_at < PURGE_EVERY_S:
                return
            self._purged_at = now
            watched = [t.id for t in self.tables.values() if t.status == "waiting" and t.listened]
        self.db.touch(watched, now)
        for tid in self.db.delete_idle(now - self.idle_hours * 3600, now - self.waiting_minutes * 60, watched):
            self.tables.pop(tid, None)

    def stop_streams(self) -> None:
        """The server is stopping: every open event stream ends now, the agents after their move."""
        self.stopping = True
        for table in list(self.tables.values()):
            table.wake()

    def close(self) -> None:
        self.stopping = True
        self.pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["HOST", "IDLE_HOURS", "PERSON", "TOKEN_BYTES", "WAITING_MINUTES", "Seat", "Table", "TableBusy", "TableHall"]
