"""The batched engine: many games of one env id stepped together by compiled kernels.

Games covered
-------------
``skull_king_v0`` (2..6 players), ``piraten_kapern_v0`` (2..5 players), ``lucky_pirate_v0``
(2..6 players, tournaments, both First Mate rulings) and ``piratenpoker_v0`` (3..5 players, every
ruling option), each with every option of its env but one, both reward modes and both observation
layouts (``table_layout="seated"`` and ``"max"``). The exception: Piratenpoker's short decks
(``poker_copies`` other than the full 84 cards) are refused by `make` in one line; play them one
game per env (the AEC env, `pirate_envs.openspiel`, or training's default engine).

Install the ``fast`` extra (numba): ``pip install -e ".[fast]"``. ``import pirate_envs`` and
``import pirate_envs.vector`` import no numba and compile nothing; `make` imports the
game's kernels, which numba compiles on first use and caches on disk (``cache=True``), so
later processes start from the cache. The cache is keyed by the sources of the game's package and
of ``pirate_envs.core`` (`pirate_envs.core.kernel_cache`): a change there compiles the kernels
anew. A first use that compiles says so on standard error
(``pirate_envs: compiling the batched piratenpoker engine's step kernel (first run only ...``,
then how long it took) once it has lasted two seconds; a cached start is silent.

API
---

```python
import numpy as np
import pirate_envs.vector

venv = pirate_envs.vector.make("skull_king_v0", num_envs=1024, seed=0, num_players=4)
venv.reset()
rng = np.random.default_rng(0)
for _ in range(1000):
    actions = pirate_envs.vector.random_legal_actions(venv.action_mask, rng, venv.terminated | venv.truncated)
    venv.step(actions)
    # venv.observation, venv.action_mask, venv.current_player, venv.rewards,
    # venv.terminated, venv.truncated describe every game after this step
```

* ``make(env_id, num_envs, seed=None, **env_kwargs)``: ``env_kwargs`` are the env's own
  (``num_players``, ``reward_mode``, the game's options), validated by building the env;
  ``num_envs`` is at most `MAX_NUM_ENVS`.
* After ``reset(seed=None)`` and every ``step(actions)`` (both return ``None``) the arrays are:

  - ``observation`` ``(N, D)`` ``float32``: the vector the AEC env gives the player on turn
    (``env.observe(env.agent_selection)["observation"]``). On the step that ends a game, the
    final observation of the seat that made the last move, as the AEC env shows it;
  - ``action_mask`` ``(N, A)`` ``int8``: that player's legal actions (all zeros once ended);
  - ``current_player`` ``(N,)`` ``int64``: the seat of that player (the AEC ``agent_selection``);
  - ``rewards`` ``(N, P)`` ``float32``: every seat's reward of this step, as the AEC env pays
    it in its reward mode (``"win"``: zero-sum, on the step that ends the game; ``"score"``:
    each score change, times the env's ``SCORE_SCALE``);
  - ``terminated``, ``truncated`` ``(N,)`` ``bool``: the game ended on this step.

  The arrays are rewritten in place: copy what you keep.
* ``step(actions)`` takes ``(N,)`` integers, one per game. A game that ended on the previous
  step starts anew on this one (its action is ignored; its final rewards came with the step
  that ended it; the new game's rewards on this step are those the AEC env pays at ``reset``:
  0, but in Kapern's score mode the turns that end on their first roll inside the reset are
  paid). A game may also end on the step that starts it (Kapern with ``max_turns=1``, say).
  An illegal action raises
  `BatchIllegalActionError` naming the game, the action and the legal ones; no game
  moves then.
* ``step(actions, active)``: games that wait. ``active`` is an ``(N,)`` ``bool`` array (``None``,
  the default: every game moves). A game with ``active[i]`` false does not move at all: its state
  (its random stream included), ``observation``, ``action_mask``, ``current_player``,
  ``terminated`` and ``truncated`` rows stay as they were, its ``rewards`` row is zero, and its
  action is not checked. A game that ended and waits stays ended; it starts anew on the first
  step on which it is active. Each game's course depends only on its own actions: stepping a
  subset gives the active games exactly what stepping them alone would give.
* ``reset(seed)``: a non-negative integer reseeds, ``None`` continues each game's stream (the
  first ``reset`` uses the seed given to ``make``). Game ``i`` draws from its own stream: the same
  seed and ``num_envs`` give the same games.
* ``engine(i)``: game ``i`` as the reference engine the AEC env uses (to inspect, render, check):
  ``reference_engine(i)``, a fresh reference engine that deals game ``i``'s cards and dice, is
  reset with ``reset_options(i)`` and game ``i``'s moves so far (``moves(i)``) are replayed
  (``start_engine(i)`` is that engine before the replay; for a loaded game see "Loading games").
  The same two start the game in an AEC env: ``env.unwrapped.game = venv.reference_engine(i)``,
  then ``env.reset(options=venv.reset_options(i))``. Kapern keeps the first 8192 moves of a
  game; past them ``engine(i)`` raises a ``RuntimeError``.

Loading games and copying rows
------------------------------
A search's rollouts start from positions that no reset deals: the batched engine takes them from
reference engines (a true game, or a determinized world made by ``engine.clone()`` and
``resample_hidden``).

```python
venv.load(rows, engines, seeds=None)   # engines[k]'s game into row rows[k]
venv.copy_rows(src, dst)               # rows src[k] (or one row src) copied whole into rows dst[k]
```

* ``load``: each engine (this env's engine class and ``Config``, its game not over; anything else
  is refused in one line, before any row is written) is copied into its row: every field the
  kernels keep (hands, trick, bids, scores, phase, dealer, voids and played cards; Kapern's dice,
  chest, deck and final round; Lucky Pirate's hands, up and down cards, pile, direction, wins,
  set-up and turn counts; Piratenpoker's hands, bids being built, Pass cards, draw pile in its
  order, discard, loot stacks and face-up loot, displayed loot, last bids, pending gift and games
  played). Stepping the row then plays exactly the game the engine plays given
  the same actions, with the same observations, masks, rewards and ends, but its chance comes
  from the row's splitmix64 stream whose state is ``seeds[k]`` (one integer in ``0..2**64-1``
  per row; ``None``: each row's stream goes on from where it is). The engine's own chance source
  is not used: ``engines[k].clone(SplitMix64Stream(seeds[k]))`` is the loaded row's reference
  twin, dealing and rolling what the row does (Skull King deals the engine's later hands at the
  load, as that twin would). The loaded rows' rewards are zero and their ends cleared; no other
  row changes, nor the engines.
* After a load: ``moves(i)`` lists the moves since the load; ``start_engine(i)`` is the loaded
  engine drawing from the row's stream as it was at the load (a fresh clone per call), and
  ``engine(i)`` that engine with ``moves(i)`` replayed; ``is_loaded(i)`` is true;
  ``reference_engine(i)`` and ``reset_options(i)`` raise a one-line ``RuntimeError`` (the game did
  not start from a reset). When the loaded game has ended, the row's next step starts an ordinary
  new game from its stream, and all of these are as for any game again; so is every row after
  ``reset``.
* ``copy_rows``: every per-game array of the source rows (state, stream, moves, outputs, the
  loaded start) is read, then written into the destination rows (distinct). A copy plays on
  exactly as its source would, deals and dice included: to fan a position out into rollouts with
  other futures, load it into many rows with different seeds.
* ``redraw_hidden(rows, seat, seeds)``: a search's determinization in the batch (Skull King,
  Lucky Pirate and Piratenpoker; Kapern raises ``NotImplementedError``). In each row, everything
  ``seat`` cannot see is drawn anew from what it saw (Skull King: the other seats' cards, keeping
  their counts and public voids, bids made but not shown, every later hand; Lucky Pirate: the cards
  of the other hands not taken in public, every down card, the up cards still hidden in the set-up;
  Piratenpoker: the other seats' cards within the draw piles each may have come from, their bids
  not yet revealed, the draw pile and the hidden part of each loot stack, from the pile history
  of the engine the row was loaded from or replays);
  the row's stream is then ``seeds[k]``, drawn on. Load the searched position into one row, copy
  it, redraw the copies: about 2 us per row (Piratenpoker: plus, once per call and position, its
  pile history's attributions weighed in Python, a forward pass cached across calls), against a
  clone, a redraw and a load in Python per world. A redrawn row has no reference engine
  (``engine(i)`` and the like raise) until it starts a new game.
* ``kernel_state``: the backend's state record, as the game's step kernel takes it, for code
  that compiles its own loop around that kernel (the searches' fused rollouts,
  `agents.search.play_out_kernel`). Such a step skips ``step``'s checks: the loop passes only
  legal actions of live games, ``-1`` for the others.
* Cost (``python benchmarks/bench_load.py``: loads of 256 rows, plain Python per row): the
  median is about 0.1 ms per row for Skull King, Kapern and Piratenpoker and 0.3 ms for Lucky
  Pirate, most of it the clone kept as the start; ``copy_rows`` about 1 us per row.

Randomness
----------
Each game draws from its own splitmix64 stream, seeded from ``numpy.random.SeedSequence(seed)``;
these are not the AEC env's streams, so the same seed deals other cards there. Skull King deals
every hand of a game when the game starts (``reset_options(i)`` lists them, for the reference
engine's ``deals`` option). Kapern draws its deck shuffles and dice as the game goes, in the
order its reference engine asks for them; ``reference_engine(i)`` is that engine drawing from a
Python copy of game ``i``'s stream (``pirate_envs.piraten_kapern.batched``). Lucky Pirate
likewise draws its dealers and deals as the episode goes, a tournament's later games included
(``pirate_envs.lucky_pirate.batched``), and Piratenpoker its deck, loot stacks and reshuffles of the
played cards (``pirate_envs.piratenpoker.batched``).

How it is checked
-----------------
The per-game engines stay the reference and decide every rule; each game's kernels mirror its
engine step by step (Kapern's scoring comes as tables computed by its reference helpers).
``tests/vector`` plays the kernels in lockstep with the AEC env, for every player count and
both reward modes, on the same cards and dice (``reference_engine`` and ``reset_options``): the
observations, masks, players on turn, rewards and ends must be identical at every step, and
``engine(i)`` must show the AEC env's state. The long version is marked ``slow``.

Speed
-----
``python benchmarks/bench_vector.py --env-id ID --num-players N``: random legal play with
observations and masks, 1024 games per batch, beside the AEC env, PettingZoo's ``tictactoe_v3``
and (when ``open_spiel`` is installed) OpenSpiel's C++ ``oh_hell`` with 4 players in the same
run. The measured figures (27 to 47 times the AEC env per CPU-second, and Skull King 15
times OpenSpiel's ``oh_hell``) are in ``docs/notebook/RESULTS.md`` under "Training throughput". The
kernels are compiled without numba's reference counting (``core.batched.kernel``): its atomic
counts on the arrays handed between the inlined helpers had taken about 40% of a Kapern step.
Kapern's 2,084 actions (every set of dice a re-roll may take is one action) make its mask the
largest, written every step and read by the sampler. The first start compiles the kernels
(seconds to half a minute); later processes load them from numba's cache.
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
        pass only legal actions of live games (``-1`` for the others).
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
