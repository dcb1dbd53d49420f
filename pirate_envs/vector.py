"""The batched engine: many games of one env id stepped together by compiled kernels.

```py
venv = pirate_envs.vector.make("skull_king_v0", num_envs=1024, seed=0, num_players=4)
venv.reset()
venv.step(actions)  # venv.observation, action_mask, current_player, rewards, terminated, truncated
```

Every game, every option but one: Piratenpoker's short decks (``poker_copies`` other than the
full 84 cards) are refused by `make` in one line. ``import pirate_envs.vector`` imports no numba;
`make` imports the game's kernels (the ``fast`` extra), compiled on first use and cached on disk.

The guide, ``docs/guides/batched.md``, holds the games covered, the install and the kernel
cache, the API (``make``, ``reset``, ``step`` and waiting games, ``engine``), loading games and
copying rows, ``redraw_hidden``, randomness, how the kernels are checked, their speed, and each
game's backend (its randomness and state arrays).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy as np

from pirate_envs.core.chance import RecordingChance
from pirate_envs.core.engine import Engine
from pirate_envs.core.errors import (
    IllegalActionError,
    check_int64_fields,
    check_range,
    check_seed,
    is_integer,
    shown,
)
from pirate_envs.core.spec import resolve
from pirate_envs.registry import ENV_IDS, GAME_SPECS, env_module, game_spec

#: The env ids the batched engine covers: those whose spec names a ``batched_backend``.
COVERED_ENV_IDS: tuple[str, ...] = tuple(spec.env_id for spec in GAME_SPECS if spec.batched_backend is not None)


#: The most games one `VectorEnv` holds: every game's arrays (3-19 KB of them) are allocated up front, so a
#: larger count is refused before anything is (2**20 games: up to about 20 GB).
MAX_NUM_ENVS = 2**20


class BatchIllegalActionError(IllegalActionError):
    """An illegal action in one game of a batch; ``game`` is its index."""

    def __init__(self, game: int, action: int, legal: list[int], describe: Any, num_actions: int):
        super().__init__(action, legal, describe, num_actions)
        self.game = game
        self.args = (f"game {game}: {self.args[0]}",)


#: Columns per block of the sampler's first pass (block sums vectorise; only one block is scanned).
_PICK_BLOCK = 128


def _pick_legal(action_mask: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """``out[i]``: the legal action of row ``i`` at position ``floor(uniforms[i] * count)`` (compiled by numba).

    The full blocks are summed in loops of a fixed length, which the compiler vectorises (three
    times faster on Kapern's 2,084 actions than one loop bounded by ``min``).
    """
    width = action_mask.shape[1]
    full_blocks = width // _PICK_BLOCK
    num_blocks = (width + _PICK_BLOCK - 1) // _PICK_BLOCK
    block_sums = np.zeros(num_blocks, dtype=np.int64)
    for i in range(action_mask.shape[0]):
        row = action_mask[i]
        count = 0
        for block in range(full_blocks):
            total = 0
            base = block * _PICK_BLOCK
            for a in range(_PICK_BLOCK):
                total += row[base + a]
            block_sums[block] = total
            count += total
        if num_blocks > full_blocks:  # the last, shorter block
            total = 0
            for a in range(full_blocks * _PICK_BLOCK, width):
                total += row[a]
            block_sums[full_blocks] = total
            count += total
        pick = int(uniforms[i] * count)
        out[i] = -1  # a row with no legal action: told apart by the caller
        for block in range(num_blocks if count else 0):
            if pick >= block_sums[block]:
                pick -= block_sums[block]
                continue
            for a in range(block * _PICK_BLOCK, min(width, (block + 1) * _PICK_BLOCK)):
                if row[a]:
                    if pick == 0:
                        out[i] = a
                        break
                    pick -= 1
            break


_compiled_pick_legal: Any = None


def random_legal_actions(
    action_mask: np.ndarray, rng: np.random.Generator, ended: np.ndarray | None = None
) -> np.ndarray:
    """One uniformly random legal action per row of ``action_mask`` (``(N, A)``), as ``int64``.

    Draws one uniform number per row from ``rng`` (a ``numpy.random.Generator``); compiled by numba on
    first use. A row with no legal action raises ``ValueError`` naming it, unless ``ended`` (``(N,)``
    booleans, the games that ended: ``venv.terminated | venv.truncated``) marks it: such a row gets
    ``0``, which `VectorEnv.step` ignores for an ended game.
    """
    global _compiled_pick_legal
    if not isinstance(action_mask, np.ndarray) or action_mask.ndim != 2:
        shape = getattr(action_mask, "shape", type(action_mask).__name__)
        raise ValueError(f"action_mask must be a 2-D array, one row per game (N, A); got {shape}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng={shown(rng)} is not valid; expected a numpy Generator (np.random.default_rng(seed))")
    if _compiled_pick_legal is None:
        from numba import njit

        _compiled_pick_legal = njit(cache=True)(_pick_legal)
    out = np.empty(len(action_mask), dtype=np.int64)
    _compiled_pick_legal(action_mask, rng.random(len(action_mask)), out)
    empty = out < 0
    if ended is not None:
        ended = np.asarray(ended)
        if ended.shape != out.shape or ended.dtype != np.bool_:
            raise ValueError(f"ended must be {len(out)} booleans, one per row; got shape {ended.shape} {ended.dtype}")
        out[empty & ended] = 0
        empty &= ~ended
    if empty.any():
        rows = np.flatnonzero(empty)
        raise ValueError(
            f"action_mask row {rows[0]} has no legal action ({len(rows)} such rows); a game that ended has none: "
            "pass ended=venv.terminated | venv.truncated"
        )
    return out


def _stream_states(seeds: Any, count: int) -> np.ndarray:
    """``seeds`` (one splitmix64 stream state in ``0..2**64-1`` per row, ``count`` rows) as ``uint64``.

    A one-line ``ValueError`` for a wrong count or a bad state; a ``uint64`` vector is taken as is.
    """
    if isinstance(seeds, np.ndarray) and seeds.dtype == np.uint64 and seeds.ndim == 1:
        listed: Any = seeds  # already stream states: nothing to check per seed
    else:
        listed = [seeds] if is_integer(seeds) else list(seeds)
    if len(listed) != count:
        raise ValueError(f"{len(listed)} seeds given for {count} rows; give one seed per row")
    if listed is seeds:
        return seeds
    bad = [seed for seed in listed if not is_integer(seed) or not 0 <= int(seed) < 2**64]
    if bad:
        raise ValueError(f"seeds: {shown(bad[0])} is not valid; expected integers 0..2**64-1 (stream states)")
    return np.array([int(seed) for seed in listed], dtype=np.uint64)


class VectorEnv:
    """``num_envs`` games of one env id in arrays (see the module docstring)."""

    def __init__(self, env_id: str, num_envs: int, seed: int | None = None, **env_kwargs: Any):
        module = env_module(env_id)  # names the valid ids when env_id is unknown
        backend = game_spec(env_id).batched_backend
        if backend is None:
            raise ValueError(
                f"the batched engine does not cover {env_id!r} yet; covered: {list(COVERED_ENV_IDS)} "
                f"(all env ids: {list(ENV_IDS)}; play the others with pirate_envs.make)"
            )
        self.num_envs = check_range("num_envs", num_envs, 1, MAX_NUM_ENVS)  # before any allocation
        self._seed = check_seed(seed)
        if env_kwargs.get("render_mode") is not None:
            raise ValueError(
                f"render_mode={env_kwargs['render_mode']!r} is not valid here; expected None "
                "(render game i with venv.engine(i).render())"
            )
        self._env = kernel_env(module, env_kwargs)
        self.env_id = env_id
        self.config = self._env.config
        self.reward_mode: str = self._env.reward_mode
        self.observation_layout = self._env.observation_layout
        self.actions = self._env.actions
        self.num_actions = len(self.actions)
        self.num_players = self._env.game.num_players
        if importlib.util.find_spec("numba") is None:
            raise ImportError('the batched engine needs numba: pip install -c constraints.txt -e ".[fast]"')
        self._backend = resolve(backend)(
            self.config, self.reward_mode, self.num_envs, self._env.SCORE_SCALE, table_layout=self._env.table_layout
        )
        #: `step`'s buffers: every game active, and the actions handed to the step kernel.
        self._everyone = np.ones(self.num_envs, dtype=np.bool_)
        self._kernel_actions = np.zeros(self.num_envs, dtype=np.int64)
        from pirate_envs.core.batched import step_actions  # numba: imported with the backend, not with this module

        self._step_actions = step_actions
        self._has_reset = False

    # ----------------------------------------------------------------- outputs
    @property
    def observation(self) -> np.ndarray:
        """``(N, D)`` ``float32``: the observation of the player on turn in each game."""
        return self._backend.observation

    @property
    def action_mask(self) -> np.ndarray:
        """``(N, A)`` ``int8``: the legal actions of the player on turn (zeros once a game ended)."""
        return self._backend.action_mask

    @property
    def current_player(self) -> np.ndarray:
        """``(N,)``: the seat whose observation is shown (the AEC env's ``agent_selection``)."""
        return self._backend.current_player

    @property
    def rewards(self) -> np.ndarray:
        """``(N, P)`` ``float32``: every seat's reward of the last step."""
        return self._backend.rewards

    @property
    def terminated(self) -> np.ndarray:
        """``(N,)`` ``bool``: the game ended by its rules on the last step."""
        return self._backend.terminated

    @property
    def truncated(self) -> np.ndarray:
        """``(N,)`` ``bool``: the game was cut off by a turn limit on the last step."""
        return self._backend.truncated

    @property
    def kernel_state(self) -> Any:
        """The batched engine's state record, as its step kernel takes it (``step_kernel(actions, state)``).

        For code that compiles its own loop around the game's step kernel (the searches' fused
        rollouts): a step made that way skips `step`'s checks and restarts, so such a loop must
        pass only legal actions of live games (``-1`` for the others). In ``reward_mode="margin"``
        the kernels write score changes: `step` turns them into margins, such a loop does not.
        """
        return self._backend.state

    # ----------------------------------------------------------------- stepping
    def reset(self, seed: int | None = None, *, streams: Any = None) -> None:
        """Start a new game in every slot (``seed``: reseed; ``None``: continue each game's stream).

        ``streams``: instead of a seed, each game's own stream state (``num_envs`` integers in
        ``0..2**64-1``): games given equal states deal and roll alike (duplicate deals).
        """
        if streams is not None:
            if seed is not None:
                raise ValueError("give reset either seed or streams, not both")
            states = self._check_streams(streams)
        else:
            seed = check_seed(seed)
            if seed is None and not self._has_reset:
                seed = self._seed
            if seed is None and self._has_reset:
                states = self._backend.rng.copy()
            else:
                states = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)
        self._backend.reset(states)
        self._has_reset = True

    def _check_streams(self, streams: Any) -> np.ndarray:
        """``streams`` as ``num_envs`` ``uint64`` stream states; one-line errors otherwise."""
        values = np.asarray(streams)
        if values.shape != (self.num_envs,) or values.dtype.kind not in "iu":
            raise TypeError(
                f"streams must be {self.num_envs} integers, one per game (shape ({self.num_envs},)); "
                f"got shape {values.shape} of dtype {values.dtype}"
            )
        if values.dtype.kind == "i" and (values < 0).any():
            raise ValueError("streams must be integers in 0..2**64-1; got a negative one")
        return np.ascontiguousarray(values, dtype=np.uint64)

    def scores(self, rows: Any = None) -> np.ndarray:
        """``(len(rows), num_players)`` every seat's score in games ``rows`` (``None``: all), as the
        reference engine's ``scores()`` gives them: read from the kernels' arrays where the game's
        spec says (``batched_scores``)."""
        if not self._has_reset:
            raise RuntimeError("call reset() before reading scores")
        rows = np.arange(self.num_envs) if rows is None else self._check_rows("rows", rows, distinct=False)
        backend = self._backend
        attribute, _, column = game_spec(self.env_id).batched_scores.partition(":")
        values = getattr(backend, attribute)
        if not column:
            return values[rows].astype(np.float64)
        field = getattr(importlib.import_module(type(backend).__module__), column)
        return values[rows, :, field].astype(np.float64)

    def step(self, actions: Any, active: Any = None) -> None:
        """Play one action per game: ``actions`` holds ``num_envs`` integers (ignored for ended games).

        ``active``: ``num_envs`` booleans, the games that move (``None``: all). A game with
        ``active[i]`` false waits: its state, observation, mask, current player and ended flags stay
        as they are, its rewards row is zero, and its action is not checked (see the module docstring).
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise TypeError(
                f"actions must be {self.num_envs} integers, one per game (shape ({self.num_envs},)); "
                f"got shape {actions.shape} of dtype {actions.dtype}"
            )
        if active is None:
            active = self._everyone
        else:
            active = np.asarray(active)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise TypeError(
                    f"active must be {self.num_envs} booleans, one per game (shape ({self.num_envs},), dtype bool) "
                    f"or None; got shape {active.shape} of dtype {active.dtype}"
                )
        # a uint64 beyond int64 turns negative here: outside the action space, as it is
        numbers = actions if actions.dtype == np.int64 else actions.astype(np.int64)
        kernel_actions = self._kernel_actions
        bad, restarts = self._step_actions(
            numbers, self.action_mask, self.terminated, self.truncated, active, kernel_actions
        )
        if bad >= 0:
            raise BatchIllegalActionError(
                bad,
                int(actions[bad]),
                np.flatnonzero(self.action_mask[bad]).tolist(),
                self._env.action_to_string,
                self.num_actions,
            )
        self._backend.step(kernel_actions, restarts)

    # ----------------------------------------------------------------- one game
    def _check_index(self, index: Any) -> int:
        if not is_integer(index) or not 0 <= int(index) < self.num_envs:
            raise IndexError(f"game index {index!r} is not valid; expected an integer 0..{self.num_envs - 1}")
        if not self._has_reset:
            raise RuntimeError("call reset() before looking at a game")
        return int(index)

    def engine(self, index: int) -> Engine:
        """Game ``index`` as a reference engine in the same state: a new object (changing it changes nothing here).

        Built by `start_engine` (the game as it began: reset from `reference_engine` and
        `reset_options`, or the engine it was loaded from) with the game's moves replayed;
        ``RuntimeError`` if the reference finds one of them illegal (the batched game would then
        have left the rules).
        """
        index = self._check_index(index)
        return self._replayed(index, self._backend.start_engine(index))

    def _replayed(self, index: int, engine: Engine) -> Engine:
        """``engine``, holding game ``index`` as it began, with the game's moves played on it.

        ``RuntimeError`` if the reference finds one of them illegal (the batched game would then
        have left the rules).
        """
        for turn, action in enumerate(self._backend.moves(index)):
            if not engine.legal_mask()[action]:
                raise RuntimeError(
                    f"game {index}: move {turn} ({action}) is illegal in the reference engine; "
                    f"legal: {engine.legal_actions()}"
                )
            engine.apply(action)
        return engine

    def reference_engine(self, index: int) -> Engine:
        """A new reference engine whose ``reset(rng, reset_options(index))`` starts game ``index`` as it began.

        It deals the same cards (and rolls the same dice) as the batched game: plug it into an AEC
        env (``env.unwrapped.game = venv.reference_engine(i)``, then ``env.reset(options=
        venv.reset_options(i))``) to replay the game there.
        """
        return self._backend.reference_engine(self._check_unloaded(index, "reference_engine"))

    def chance_outcomes(self, index: int) -> list[Any]:
        """Every chance outcome of game ``index`` so far (deals, shuffles, dice), in the order drawn.

        The kernels keep no log (it would cost every step): the row's stream is the record, read
        back by replaying the game's moves on `reference_engine` around a
        `pirate_envs.core.chance.RecordingChance`. ``ScriptedChance(outcomes)`` replays the game on
        a plain engine. A row loaded from an engine (`load`) has no such record: ``RuntimeError``.
        """
        index = self._check_unloaded(index, "chance_outcomes")
        engine = self._backend.reference_engine(index)
        recording = RecordingChance(engine.pinned_chance)
        engine.pinned_chance = recording
        engine.reset(recording, self._backend.reset_options(index))
        return self._replayed(index, engine).chance.outcomes

    def reset_options(self, index: int) -> dict[str, Any]:
        """The reset options that start game ``index`` on `reference_engine` (Skull King: its deals)."""
        return self._backend.reset_options(self._check_unloaded(index, "reset_options"))

    def moves(self, index: int) -> list[int]:
        """The actions played in game ``index`` so far, in order (a loaded game: since its load)."""
        return self._backend.moves(self._check_index(index))

    def start_engine(self, index: int) -> Engine:
        """A new engine holding game ``index`` as it began: replaying `moves` on it gives `engine`.

        A game started by a reset: `reference_engine` reset with `reset_options`. A loaded game
        (`load`): a clone of the engine it was loaded from, drawing from the row's stream as it was
        at the load, so it deals and rolls what the row does.
        """
        return self._backend.start_engine(self._check_index(index))

    def is_loaded(self, index: int) -> bool:
        """Whether game ``index`` was loaded from an engine (`load`) and is still that game."""
        return self._check_index(index) in self._backend.loaded

    def _check_unloaded(self, index: Any, call: str) -> int:
        index = self._check_index(index)
        if index in self._backend.redrawn:
            raise RuntimeError(f"game {index}'s hidden cards were redrawn (redraw_hidden), so it has no {call}()")
        if index in self._backend.loaded:
            raise RuntimeError(
                f"game {index} was loaded from an engine and did not start from a reset, so it has no {call}(); "
                f"use venv.start_engine({index}) (the loaded engine) or venv.engine({index})"
            )
        return index

    # ----------------------------------------------------------------- loading and copying games
    def _check_rows(self, name: str, rows: Any, distinct: bool) -> np.ndarray:
        """``rows`` (one index or a sequence of them) as ``int64`` indices; one-line errors naming ``name``."""
        fast = isinstance(rows, np.ndarray) and rows.ndim == 1 and rows.dtype.kind in "iu" and rows.size > 0
        if fast and not ((rows < 0) | (rows >= self.num_envs)).any():
            indices = rows.astype(np.int64)  # the searches' hot path: no Python loop
        else:
            indices = self._listed_rows(name, rows)  # every other form, and the errors
        if distinct and len(np.unique(indices)) < len(indices):
            raise ValueError(f"{name} repeats a game index ({shown(indices.tolist())}); each row may be written once")
        if not self._has_reset:
            raise RuntimeError("call reset() before loading or copying games")
        return indices

    def _listed_rows(self, name: str, rows: Any) -> np.ndarray:
        """``rows`` checked element by element."""
        listed = [rows] if is_integer(rows) else rows
        try:
            listed = list(listed)
        except TypeError:
            raise TypeError(f"{name}={rows!r} is not valid; expected a game index or a sequence of them") from None
        if not listed:
            raise ValueError(f"{name} is empty; expected at least one game index 0..{self.num_envs - 1}")
        bad = [row for row in listed if not is_integer(row) or not 0 <= int(row) < self.num_envs]
        if bad:
            first = int(bad[0]) if is_integer(bad[0]) else bad[0]  # numpy's integers shown as numbers
            raise ValueError(f"{name}: {shown(first)} is not a game index; expected integers 0..{self.num_envs - 1}")
        return np.array([int(row) for row in listed], dtype=np.int64)

    def load(self, rows: Any, engines: Engine | Sequence[Engine], seeds: Any = None) -> None:
        """Write the games of reference ``engines`` into the games ``rows`` (one engine per row).

        Each engine (this env's engine class and ``Config``, its game not over) is copied: stepping
        row ``rows[k]`` then plays exactly the game ``engines[k]`` would play given the same
        actions, except for its chance: from the load on, the row deals and rolls from the
        splitmix64 stream whose state is ``seeds[k]`` (``seeds``: one integer in ``0..2**64-1`` per
        row, or ``None``: each row's stream goes on where it is). ``start_engine(rows[k])`` is
        ``engines[k]`` drawing from that stream: the reference twin of the loaded game. The loaded
        rows' rewards are zero, their ends cleared, their outputs written; other rows are untouched.
        ``moves(i)`` counts from the load; ``reference_engine(i)`` and ``reset_options(i)`` raise
        for a loaded game (it did not start from a reset) until its row starts a new game.
        """
        self._backend.refuse_unless_loadable()
        indices = self._check_rows("rows", rows, distinct=True)
        listed = [engines] if isinstance(engines, Engine) else engines
        try:
            listed = list(listed)
        except TypeError:
            what = type(engines).__name__
            raise TypeError(f"engines must be an engine or a sequence of engines; got {what}") from None
        if len(listed) != len(indices):
            raise ValueError(f"{len(listed)} engines given for {len(indices)} rows; give one engine per row")
        states = self._backend.rng[indices].copy() if seeds is None else _stream_states(seeds, len(indices))
        self._backend.load(indices, listed, states)

    def copy_rows(self, src: Any, dst: Any) -> None:
        """Copy games ``src`` whole into the rows ``dst``: state, stream, moves, outputs and loaded start.

        ``src``: one index (copied into every row of ``dst``) or one per ``dst`` row; ``dst``:
        distinct indices. Every source is read before a row is written. A copy plays on exactly as
        its source would, deals and dice included (load with other ``seeds`` for other futures).
        """
        self._backend.refuse_unless_loadable()
        destinations = self._check_rows("dst", dst, distinct=True)
        sources = self._check_rows("src", src, distinct=False)
        if len(sources) == 1:
            sources = np.repeat(sources, len(destinations))
        if len(sources) != len(destinations):
            raise ValueError(f"{len(sources)} src rows for {len(destinations)} dst rows; give one src or one per dst")
        self._backend.copy_rows(sources, destinations)

    def redraw_hidden(self, rows: Any, seat: int, seeds: Any) -> np.ndarray:
        """Redraw, in games ``rows``, everything ``seat`` cannot see; each row then draws from ``seeds[k]``.

        A search's determinization done in the batch: load the searched position into one row,
        copy it (`copy_rows`), then redraw the copies, each from its own stream state ``seeds[k]``
        (integers in ``0..2**64-1``), which the redraw draws from and leaves where it ends (so the
        row's later deals and dice come from it too). What ``seat`` sees (its observation in the
        AEC env) is unchanged; what it cannot see is drawn anew from what it saw, so two rows whose
        games look the same to ``seat`` are the same after a redraw with the same seeds. Skull King,
        Lucky Pirate and Piratenpoker (Kapern raises ``NotImplementedError``): see their backends'
        ``redraw_hidden``. The outputs of the rows are rewritten; a redrawn row has no reference
        engine (``engine(i)``, ``start_engine(i)``, ``reference_engine(i)`` raise) until it starts a
        new game. Returns a ``bool`` array, ``True`` for a row where no redraw respecting the public
        voids was found in the backend's tries (that row keeps its cards; redraw it otherwise, say by
        ``load``).
        """
        indices = self._check_rows("rows", rows, distinct=True)
        if not is_integer(seat) or not 0 <= int(seat) < self.num_players:
            raise ValueError(f"seat={shown(seat)} is not valid; expected an integer 0..{self.num_players - 1}")
        return self._backend.redraw_hidden(indices, int(seat), _stream_states(seeds, len(indices)))

    def action_to_string(self, action: int) -> str:
        """A readable label of ``action``."""
        return self._env.action_to_string(action)


def kernel_env(module: Any, env_kwargs: dict[str, Any]) -> Any:
    """The raw env of ``module`` built from ``env_kwargs``: its ``Config`` validated as ``pirate_envs.make`` does,
    then every integer of it checked to fit the kernels' 64-bit integers (the same ``ValueError``)."""
    env = module.raw_env(**env_kwargs)
    check_int64_fields(env.config)
    return env


def make(env_id: str, num_envs: int, seed: int | None = None, **env_kwargs: Any) -> VectorEnv:
    """``num_envs`` games of ``env_id`` stepped together (see the module docstring)."""
    return VectorEnv(env_id, num_envs, seed, **env_kwargs)


__all__ = ["COVERED_ENV_IDS", "MAX_NUM_ENVS", "BatchIllegalActionError", "VectorEnv", "make", "random_legal_actions"]
