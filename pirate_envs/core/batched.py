"""What the games' batched backends (``pirate_envs/<game>/batched.py``) share.

`BatchBackend`, the base of every backend (the outputs, the random streams, ``reset``,
``step``, ``moves``, loading engines into rows and copying rows); the batch driver, the loops
of every game's kernels (`reset_games`, `step_games`, `write_outputs`: a game writes only its
new-game, apply and output steps); `shuffle_kernel`, a loader's shuffles; the splitmix64 random
stream, in kernels (`splitmix64_next`, `random_below`) and in Python (`SplitMix64Stream`, the
same numbers: a chance source of `pirate_envs.core.chance`, re-exported here); and the
import-time helpers. It imports numba: only the backends import it.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, TextIO

import numpy as np
from numba import njit

from pirate_envs.core.chance import SplitMix64Stream as SplitMix64Stream
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import check_choice, shown
from pirate_envs.core.kernel_cache import cross_module_kernel
from pirate_envs.core.observation import SEAT_PRESENT, TABLE_LAYOUTS, ObservationLayout, max_table_layout
from pirate_envs.core.rewards import SCORE_CHANGE_MODES, score_margins


def check_constants(game: str, expected: Mapping[str, tuple[Any, Any]]) -> None:
    """Raise ``RuntimeError`` unless every ``name: (kernel's copy, reference value)`` pair agrees.

    numba's cache does not see changes in other modules, so a backend checks the constants it
    copied from its reference modules at import instead of running stale kernels.
    """
    mismatched = [name for name, (mine, reference) in expected.items() if mine != reference]
    if mismatched:
        raise RuntimeError(f"the batched {game} kernels are out of date with the reference: {mismatched} changed")


def kept_moves(history: np.ndarray, index: int, made: int) -> list[int]:
    """Game ``index``'s first ``made`` actions from ``history`` (one row per game, as many moves as it keeps).

    Raises ``RuntimeError`` when the game has made more moves than its row keeps: it cannot be replayed.
    """
    kept = history.shape[1]
    if made > kept:
        raise RuntimeError(
            f"game {index} has made {made} moves; only the first {kept} are kept, so it cannot be replayed"
        )
    return history[index, :made].tolist()


def kernel_layout(
    seated: ObservationLayout, table_layout: str, largest: ObservationLayout, max_players: int, pieces: Sequence[str]
) -> tuple[ObservationLayout, np.ndarray]:
    """The layout the kernels write for the env option ``table_layout``, and its offsets for them.

    ``seated``: the layout of this table; ``largest``: that of the largest table (``max_players``
    seats), the base of ``"max"``. The offsets are the start of each of ``pieces``, then that of
    ``seat_present`` (``-1`` in the seated layout, which has none); a piece an observation option left
    out has offset ``-1`` too.
    """
    check_choice("table_layout", table_layout, TABLE_LAYOUTS)
    layout = seated if table_layout == "seated" else max_table_layout(largest, max_players)
    seat_present = layout.piece(SEAT_PRESENT).start if SEAT_PRESENT in layout else -1
    starts = [layout.piece(name).start if name in layout else -1 for name in pieces]  # -1: an option left it out
    return layout, np.array([*starts, seat_present], dtype=np.int64)


# ----------------------------------------------------------------------------- compile options
#: The decorator of every kernel: cached, and compiled without numba's reference counting. Its
#: atomic increments and decrements, on every array handed between the inlined helpers, took
#: about 40% of a Kapern step (``perf``), and the step ran 2.6 times faster without them. Such a
#: kernel may allocate no array, nor call a function that does (numba refuses to compile it):
#: its scratch arrays come from the backend, through its record (`BatchBackend.State`). It releases
#: the GIL (``nogil``): another thread (a pipelined PPO update) runs beside a step. Its disk cache
#: is keyed by the sources of its game's package and of ``pirate_envs.core`` (`cross_module_kernel`):
#: a kernel reads their constants and inlines their helpers, which numba's own key (its file) misses.
def kernel(function: Callable[..., Any]) -> Any:
    """Compile ``function`` as a kernel (see above)."""
    package = function.__module__.rpartition(".")[0] or function.__module__
    return cross_module_kernel(package, "pirate_envs.core", _nrt=False)(function)


#: :data:`kernel`, inlined where it is called: the helpers of a game's step.
inline_kernel = njit(cache=True, nogil=True, inline="always", _nrt=False)


# ----------------------------------------------------------------------------- terminal win rewards
@inline_kernel
def win_rewards_from_flags(rewards: np.ndarray, i: int, n: int) -> None:
    """Turn game ``i``'s row of won flags (``rewards[i, s]`` 1.0 for a winner, else 0.0) into its
    zero-sum win rewards, as ``core.rewards.win_rewards``: ``1/w`` to each of ``w`` winners and
    ``-1/(n - w)`` to the others; all zero when every seat (or none) won."""
    winners = 0
    for s in range(n):
        if rewards[i, s] > 0.5:
            winners += 1
    for s in range(n):
        if winners == 0 or winners == n:
            rewards[i, s] = 0.0
        else:
            rewards[i, s] = 1.0 / winners if rewards[i, s] > 0.5 else -1.0 / (n - winners)


# ----------------------------------------------------------------------------- the random stream
@kernel
def splitmix64_next(rng: np.ndarray, i: int) -> np.uint64:
    """The next 64-bit word of game ``i``'s splitmix64 stream (``rng[i]`` is its state)."""
    z = rng[i] + np.uint64(0x9E3779B97F4A7C15)
    rng[i] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def random_below(rng: np.ndarray, i: int, bound: int) -> int:
    """An integer in ``0..bound-1`` from game ``i``'s stream (multiply-shift; bias below bound / 2**32)."""
    high = splitmix64_next(rng, i) >> np.uint64(32)
    return np.int64((high * np.uint64(bound)) >> np.uint64(32))


@kernel
def shuffle_kernel(rng: np.ndarray, i: int, items: np.ndarray) -> None:
    """Shuffle ``items`` in place from game ``i``'s stream as `SplitMix64Stream.shuffle` does (Fisher-Yates
    from the end down): a loader's draws at kernel speed (``rng`` may be a one-element copy of a stream)."""
    for j in range(items.shape[0] - 1, 0, -1):
        r = random_below(rng, i, j + 1)
        item = items[j]
        items[j] = items[r]
        items[r] = item


@kernel
def partial_shuffle(rng: np.ndarray, i: int, items: np.ndarray, count: int, take: int) -> None:
    """Make ``items[:take]`` a uniform draw without replacement from ``items[:count]``, from game ``i``'s
    stream (a partial Fisher-Yates shuffle from the front: ``take`` draws)."""
    for j in range(take):
        r = j + random_below(rng, i, count - j)
        item = items[r]
        items[r] = items[j]
        items[j] = item


# ----------------------------------------------------------------------------- the batch driver
# A game's kernels take one record, ``state``: a ``NamedTuple`` of its constants and arrays, each
# field the backend attribute of that name (`BatchBackend.State`). The two loops below are the
# bodies of every game's ``reset_kernel`` and ``step_kernel``; a game hands them its own steps,
# ``inline_kernel``s that numba inlines into the loop (a function passed to an inlined kernel
# resolves at compile time, so the compiled step is the one written out by hand):
#
# * ``new_game(i, state)``: start a new game in row ``i`` (``terminated[i]`` and ``truncated[i]``
#   are cleared and ``rewards[i]`` zeroed before it; it may write rewards earned at the start);
# * ``apply(i, action, state) -> bool``: apply the legal ``action`` of the seat on turn in game
#   ``i`` (already recorded in ``history``), set its end and its rewards; return whether row ``i``'s
#   outputs are still to be written (``False``: ``apply`` wrote them itself);
# * ``output(i, state)``: write row ``i``'s observation, action mask and ``current_player``.
#
# numba's cache keys a kernel on its own source file: a kernel cached before an edit of this module
# (this driver, the random stream) is not recompiled by itself. After editing them, clear the
# games' caches (``find pirate_envs -name "*.nb[ic]" -delete``).
@inline_kernel
def reset_games(state: Any, new_game: Callable[..., None], output: Callable[..., None]) -> None:
    """Start a new game in every row of ``state`` and write its outputs (a game's ``reset_kernel``)."""
    for i in range(state.rewards.shape[0]):
        state.rewards[i] = 0.0
        state.terminated[i] = False
        state.truncated[i] = False
        new_game(i, state)
        output(i, state)


@inline_kernel
def step_games(
    actions: np.ndarray,
    state: Any,
    new_game: Callable[..., None],
    apply: Callable[..., bool],
    output: Callable[..., None],
    moves_field: int,
    shown_field: int,
    current_field: int,
) -> None:
    """One step of every game in ``state`` (a game's ``step_kernel``).

    Row ``i`` with a negative ``actions[i]`` waits (nothing of it changes; its rewards row is zero);
    one whose game ended on the last step starts a new game instead of moving; any other records
    ``actions[i]`` in ``history`` (while its row has room), counts it in ``game[i, moves_field]``,
    shows its mover (``game[i, shown_field] = game[i, current_field]``) and applies it. Then the
    row's outputs are written.
    """
    history = state.history
    game = state.game
    capacity = history.shape[1]
    for i in range(actions.shape[0]):
        state.rewards[i] = 0.0
        action = actions[i]
        if action < 0:  # waits
            continue
        if state.terminated[i] or state.truncated[i]:
            state.terminated[i] = False
            state.truncated[i] = False
            new_game(i, state)
        else:
            moves = game[i, moves_field]
            if moves < capacity:
                history[i, moves] = action
            game[i, moves_field] = moves + 1
            game[i, shown_field] = game[i, current_field]
            if not apply(i, action, state):
                continue
        output(i, state)


@kernel
def step_actions(
    actions: np.ndarray,
    action_mask: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    active: np.ndarray,
    out: np.ndarray,
) -> tuple[int, bool]:
    """Check one step's ``actions`` and write the step kernel's ``out`` (`pirate_envs.vector.VectorEnv.step`).

    A game that waits (``active[i]`` false) gets ``-1``; one that ended on the last step, ``0`` (it
    starts anew; its action is not read); any other its action, which must be legal in its row of
    ``action_mask``. Returns the first game whose action is not (``-1``: none; ``out`` is then
    incomplete) and whether an ended game starts anew.
    """
    num_actions = action_mask.shape[1]
    restarts = False
    for i in range(actions.shape[0]):
        if not active[i]:
            out[i] = -1
        elif terminated[i] or truncated[i]:
            out[i] = 0
            restarts = True
        else:
            action = actions[i]
            if action < 0 or action >= num_actions or action_mask[i, action] == 0:
                return i, restarts
            out[i] = action
    return -1, restarts


@inline_kernel
def write_outputs(rows: np.ndarray, state: Any, output: Callable[..., None]) -> None:
    """Write the outputs of the games ``rows`` (a game's ``outputs_kernel``: after `BatchBackend.load`)."""
    for r in range(rows.shape[0]):
        output(rows[r], state)


#: Seconds a kernel's first call may take before `compile_notice` says that it is compiling.
COMPILE_NOTICE_DELAY = 2.0


@contextmanager
def compile_notice(
    what: str, kernel: Any, delay: float = COMPILE_NOTICE_DELAY, stream: TextIO | None = None
) -> Iterator[None]:
    """Around a kernel's call: when it is its first in this process (numba has compiled no
    signature yet) and the call lasts over ``delay`` seconds, say on ``stream`` (standard error)
    that ``what`` is compiling, then how long it took. A cached kernel loads well within the
    delay and says nothing."""
    if getattr(kernel, "signatures", None):
        yield
        return
    out = stream if stream is not None else sys.stderr
    start = time.perf_counter()
    said = threading.Event()

    def say() -> None:
        said.set()
        notice = f"pirate_envs: compiling {what} (first run only; later runs load numba's cache) ..."
        print(notice, file=out, flush=True)

    timer = threading.Timer(delay, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if said.is_set():
            print(f"pirate_envs: {what} compiled in {time.perf_counter() - start:.0f} s", file=out, flush=True)


# ----------------------------------------------------------------------------- the backends' base
class BatchBackend:
    """The state arrays of ``num_envs`` games of one game and the kernels that step them.

    Built by `pirate_envs.vector.make`, which checks the arguments and the actions. This
    base holds what every game has: the outputs (``observation``, ``action_mask``,
    ``current_player``, ``rewards``, ``terminated``, ``truncated``, rewritten in place by every
    ``reset`` and ``step``), each game's random state (``rng``) and its state where its game began
    (``start_state``, for games that draw as they go), and ``reset``, ``step`` and ``moves``. A
    game's backend sets the class attributes below, allocates its own arrays in
    `_allocate` (which must set ``game``, with the moves made in column ``MOVES_FIELD``, and
    ``history``, one row of actions per game; the kernels' scratch arrays too, since the kernels
    allocate nothing: see `kernel`) and names what its kernels take in its record type `State`:
    ``state``, built once after `_allocate`, holds those attributes, and the kernels' arrays are
    the backend's own (the kernels write them in place).

    Loading (`load`, `copy_rows`: see ``pirate_envs.vector``): a backend lists its own per-game
    arrays in `ROW_ARRAYS`, has an `outputs_kernel` and writes an engine's game into a row in
    `load_row`; `loaded` keeps each loaded game's start (`start_engine`).
    """

    #: The reference engine class the batched game mirrors.
    ENGINE: ClassVar[type[Engine]]
    #: The values of the env option ``table_layout`` that the kernels write.
    TABLE_LAYOUTS: ClassVar[tuple[str, ...]] = TABLE_LAYOUTS
    NUM_ACTIONS: ClassVar[int]
    #: Seats of the largest table (the rows of ``table_layout="max"``).
    MAX_PLAYERS: ClassVar[int]
    #: The observation pieces whose offsets the kernels take, in the order of their ``O_*`` constants.
    OFFSET_PIECES: ClassVar[tuple[str, ...]]
    #: The column of ``game`` that counts the moves made in each game.
    MOVES_FIELD: ClassVar[int]
    #: The kernels' record: a ``NamedTuple`` whose every field is the backend attribute of that name.
    State: ClassVar[type[tuple]]
    #: ``reset_kernel(state)``: start a new game in every slot and write the outputs (`reset_games`).
    reset_kernel: ClassVar[Callable[..., None]]
    #: ``step_kernel(actions, state)``: one step of every game, a negative action waiting (`step_games`).
    step_kernel: ClassVar[Callable[..., None]]
    #: The kernels' record, built once after `_allocate`.
    state: tuple
    #: The game's own per-game arrays (row ``i``: game ``i``), besides the base's `BASE_ROW_ARRAYS`:
    #: what `copy_rows` copies (``None``: not listed yet, and rows cannot be copied or loaded).
    ROW_ARRAYS: ClassVar[tuple[str, ...] | None] = None
    #: ``outputs_kernel(rows, state)``: write the outputs of the games ``rows`` (`write_outputs`).
    outputs_kernel: ClassVar[Callable[..., None] | None] = None

    game: np.ndarray
    history: np.ndarray
    #: The base's per-game arrays (`ROW_ARRAYS` adds the game's own).
    BASE_ROW_ARRAYS: ClassVar[tuple[str, ...]] = (
        "rng", "start_state", "game", "history", "observation", "action_mask", "current_player", "rewards",
        "terminated", "truncated",
    )  # fmt: skip

    def __init__(self, config: Any, reward_mode: str, num_envs: int, score_scale: float, table_layout: str = "seated"):
        self.config = config
        self.num_envs = num = num_envs
        self.num_players = n = config.num_players
        #: Scale of the score changes the kernels write as rewards (``0.0`` in win mode: terminal win rewards).
        self.score_scale = float(score_scale) if reward_mode in SCORE_CHANGE_MODES else 0.0
        #: Margin mode: `reset` and `step` turn the kernels' score changes into `score_margins`.
        self.margins = reward_mode == "margin"
        #: The seated layout of this table (the reference encoder's; the scales come from it).
        self.seated_layout = self.build_layout(config)
        layout, self.offsets = kernel_layout(
            self.seated_layout, table_layout, self.largest_layout(), self.MAX_PLAYERS, self.OFFSET_PIECES
        )
        self.rng = np.zeros(num, dtype=np.uint64)
        self.start_state = np.zeros(num, dtype=np.uint64)
        self.observation = np.zeros((num, layout.size), dtype=np.float32)
        self.action_mask = np.zeros((num, self.NUM_ACTIONS), dtype=np.int8)
        self.current_player = np.zeros(num, dtype=np.int64)
        self.rewards = np.zeros((num, n), dtype=np.float32)
        self.terminated = np.zeros(num, dtype=np.bool_)
        self.truncated = np.zeros(num, dtype=np.bool_)
        self._step_compiled = False
        #: Games loaded from an engine (`load`) and still in that game: row -> the engine as loaded,
        #: drawing from the row's stream as it was at the load (`start_engine` hands out clones).
        self.loaded: dict[int, Engine] = {}
        #: Loaded games whose hidden part was redrawn (`redraw_hidden`): no engine holds their start.
        self.redrawn: set[int] = set()
        self._allocate()
        self.state = self.State._make(getattr(self, name) for name in self.State._fields)

    @staticmethod
    def build_layout(config: Any) -> ObservationLayout:
        """The seated observation layout of ``config``'s table."""
        raise NotImplementedError

    @staticmethod
    def largest_layout() -> ObservationLayout:
        """The seated observation layout of the largest table (a backend with observation options may
        make it a method that reads ``self.config``)."""
        raise NotImplementedError

    def _allocate(self) -> None:
        """Allocate the game's own state arrays and kernel constants (called at the end of ``__init__``)."""
        raise NotImplementedError

    def reset(self, rng_states: np.ndarray) -> None:
        """Start a new game in every slot, game ``i`` drawing from the stream seeded by ``rng_states[i]``."""
        self.rng[:] = rng_states
        self.loaded.clear()
        self.redrawn.clear()
        with compile_notice(f"the batched {self._game_name()} engine's reset kernel", self.reset_kernel):
            self.reset_kernel(self.state)
        if self.margins:
            self.rewards[:] = score_margins(self.rewards)

    def step(self, actions: np.ndarray, restarts: bool = True) -> None:
        """Apply ``actions`` (``int64``, checked legal for every live game; negative: the game waits).

        ``restarts``: whether an ended game may start anew on this step (`step_actions` tells).
        """
        if restarts and self.loaded:  # a loaded game that ended and moves now starts a new game: it is loaded no more
            for row in np.flatnonzero((self.terminated | self.truncated) & (actions >= 0)).tolist():
                self.loaded.pop(row, None)
                self.redrawn.discard(row)
        if self._step_compiled:
            self.step_kernel(actions, self.state)
        else:
            with compile_notice(f"the batched {self._game_name()} engine's step kernel", self.step_kernel):
                self.step_kernel(actions, self.state)
            self._step_compiled = True
        if self.margins:
            self.rewards[:] = score_margins(self.rewards)

    def _game_name(self) -> str:
        """The game's package name (``skull_king``), for messages."""
        return type(self).__module__.split(".")[-2]

    def moves(self, index: int) -> list[int]:
        """The actions of game ``index`` so far, in order (``RuntimeError`` past the moves its history keeps)."""
        return kept_moves(self.history, index, int(self.game[index, self.MOVES_FIELD]))

    def reset_options(self, index: int) -> dict[str, Any]:
        """No options: `reference_engine` deals game ``index``'s cards (and rolls its dice) itself."""
        return {}

    def reference_engine(self, index: int) -> Engine:
        """A new reference engine whose ``reset(rng, reset_options(index))`` starts game ``index`` as it began."""
        raise NotImplementedError

    def start_engine(self, index: int) -> Engine:
        """Game ``index`` as it began here: the loaded engine (a clone) for a loaded game, else
        `reference_engine` reset with `reset_options`. Replaying `moves` on it gives the game now.
        ``RuntimeError`` for a redrawn game (`redraw_hidden`): no engine holds its start."""
        if index in self.redrawn:
            raise RuntimeError(
                f"game {index}'s hidden cards were redrawn in the batch (redraw_hidden): no reference engine "
                "holds its start; it is a rollout's world, read its arrays"
            )
        loaded = self.loaded.get(index)
        if loaded is not None:
            return loaded.clone()
        engine = self.reference_engine(index)
        engine.reset(np.random.default_rng(0), self.reset_options(index))
        return engine

    # ----------------------------------------------------------------- loading and copying games
    def load_row(self, index: int, engine: Engine, stream: SplitMix64Stream) -> None:
        """Write ``engine``'s game (checked by `check_engine`) into game ``index``'s own arrays.

        A game's loader: every field of the kernels' state, the seat shown after an end unset; not
        the moves made, ``rng``, ``start_state`` nor the outputs (`load` sets them). ``stream`` is the
        row's stream from the load on: a loader draws from it whatever the kernels hold drawn ahead
        (Skull King's later hands), as the engine drawing from the same stream would draw it; the
        row goes on from where the loader leaves it. A backend without a loader cannot load.
        """
        raise NotImplementedError

    def refuse_unless_loadable(self) -> None:
        """``NotImplementedError`` in one line unless this backend can load engines and copy rows."""
        if type(self).load_row is BatchBackend.load_row or self.ROW_ARRAYS is None:
            game = self._game_name()
            raise NotImplementedError(
                f"the batched {game} engine cannot load engines or copy rows yet (its backend has no loader)"
            )

    def check_engine(self, position: int, engine: object) -> None:
        """``ValueError`` (``TypeError`` for another game's engine) in one line unless ``engine`` can be loaded:
        this game's engine class, this batch's ``Config``, a game not over. ``position``: its place in the list."""
        if not isinstance(engine, self.ENGINE):
            raise TypeError(f"engines[{position}] is a {type(engine).__name__}; expected a {self.ENGINE.__name__}")
        config = getattr(engine, "config", None)
        if config != self.config:
            if getattr(config, "num_players", None) != self.num_players:
                raise ValueError(
                    f"engines[{position}] has {getattr(config, 'num_players', None)} players; "
                    f"this batch plays {self.num_players}"
                )
            names = [f.name for f in dataclasses.fields(self.config)]
            differ = [f"{name}={shown(getattr(config, name, None))} (batch: {shown(getattr(self.config, name))})"
                      for name in names if getattr(config, name, None) != getattr(self.config, name)]  # fmt: skip
            raise ValueError(f"engines[{position}]'s config differs from this batch's: {', '.join(differ)}")
        if engine.done:
            end = "terminated" if engine.terminated else "truncated"
            raise ValueError(f"engines[{position}]'s game is over ({end}); load a game still in play")

    def load(self, rows: np.ndarray, engines: Sequence[Engine], seeds: np.ndarray) -> None:
        """Write ``engines[k]``'s game into game ``rows[k]``, which then draws from the stream ``seeds[k]``.

        ``rows``: distinct valid indices (``int64``); ``seeds``: ``uint64`` stream states. Every engine
        is checked before any row is written. A loaded game's moves count from the load; it remembers
        ``engines[k].clone(SplitMix64Stream(seeds[k]))`` as its start (`start_engine`) until it ends
        and a new game starts in its row. Its rewards are zero and its outputs are written.
        """
        self.refuse_unless_loadable()
        for position, engine in enumerate(engines):
            self.check_engine(position, engine)
        for index, engine, seed in zip(rows.tolist(), engines, seeds.tolist()):
            stream = SplitMix64Stream(seed)
            self.load_row(index, engine, stream)
            self.game[index, self.MOVES_FIELD] = 0
            self.rng[index] = stream.state
            self.start_state[index] = seed
            self.loaded[index] = engine.clone(SplitMix64Stream(seed))
            self.redrawn.discard(index)
        self.rewards[rows] = 0.0
        self.terminated[rows] = False
        self.truncated[rows] = False
        assert self.outputs_kernel is not None, "a backend with a loader has an outputs_kernel"
        with compile_notice(f"the batched {self._game_name()} engine's outputs kernel", self.outputs_kernel):
            self.outputs_kernel(rows, self.state)

    def copy_rows(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Copy game ``src[k]`` whole (state, stream, history, outputs, loaded start) into row ``dst[k]``.

        ``dst``: distinct indices; every source is read before any row is written.
        """
        self.refuse_unless_loadable()
        for name in (*self.BASE_ROW_ARRAYS, *(self.ROW_ARRAYS or ())):
            array = getattr(self, name)
            if name == "history":  # the moves made only: a row's entries past its count are never read
                made = int(self.game[src, self.MOVES_FIELD].max(initial=0))
                array = array[:, : min(made, array.shape[1])]
            array[dst] = array[src]
        starts = [self.loaded.get(index) for index in src.tolist()]
        for index, start in zip(dst.tolist(), starts):
            if start is None:
                self.loaded.pop(index, None)
            else:
                self.loaded[index] = start  # shared: start_engine hands out clones only
        redrawn = [index in self.redrawn for index in src.tolist()]
        for index, was_redrawn in zip(dst.tolist(), redrawn):
            if was_redrawn:
                self.redrawn.add(index)
            else:
                self.redrawn.discard(index)

    def redraw_hidden(self, rows: np.ndarray, seat: int, seeds: np.ndarray) -> np.ndarray:
        """Redraw in the loaded games ``rows`` everything ``seat`` cannot see; return the rows it failed in.

        A backend that can (`pirate_envs.vector.VectorEnv.redraw_hidden` says what it does) draws
        from the stream ``seeds[k]`` in row ``rows[k]``, leaves that stream where the redraw ends,
        rewrites the rows' outputs and adds the rows to `redrawn`. Returns a ``bool`` array: ``True``
        where no redraw was found within the backend's tries (that row is as it was, bar its stream).
        """
        game = self._game_name()
        raise NotImplementedError(f"the batched {game} engine cannot redraw hidden cards in its rows yet")
