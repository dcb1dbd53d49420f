"""Vectorised self-play envs: the batched engine, all in this process, or batches of envs in worker processes.

`make_vec_env` builds either path (``engine``): ``"batched"`` runs every game on the
batched engine (`agents.selfplay.batched_vec_env.BatchedSelfPlayVecEnv`, in this process; every
opponent plays there, those with no batched form, such as ``mcts``, through
`agents.batched.one_game`); ``"single"`` is the fallback without numba, one `SelfPlayEnv` per
game (the reference engine); ``"auto"`` takes the batched path when numba imports and the batched
engine covers the game, else the one-game path, and prints which and why in one line. Both paths
play the same episodes by the same rules (`agents.selfplay.core`).

On the one-game path, SB3's ``SubprocVecEnv`` would run one env per process and ask for the
action masks in a second round trip every step. `BatchedSubprocVecEnv` runs several envs
per worker (one process per core), steps a whole batch per message and returns the masks with
the observations, so ``env_method("action_masks")`` costs no round trip.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import signal
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper

from agents.selfplay.core import with_vec_keys
from agents.selfplay.env import SelfPlayEnv

#: The ``engine`` choices of :func:`make_vec_env`.
ENGINES = ("auto", "batched", "single")

#: Extra episode figures that ``VecMonitor`` copies from the final ``info`` into the episode info.
EPISODE_KEYS = ("win_share", "final_score", "seat", "num_players")


def _reset_one(env: SelfPlayEnv, seed: int | None, options: dict | None) -> tuple[np.ndarray, np.ndarray]:
    obs, _ = env.reset(seed=seed, options=options)
    return obs, env.action_masks()


def _step_one(env: SelfPlayEnv, action: int) -> tuple[np.ndarray, float, bool, dict, np.ndarray]:
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
    if done:
        info = with_vec_keys(info, obs, truncated and not terminated)
        obs, _ = env.reset()
    return obs, reward, done, info, env.action_masks()


def _worker(remote: Any, parent_remote: Any, env_fns: CloudpickleWrapper) -> None:
    """A worker's loop: it owns a batch of envs and answers one message per command.

    It ignores Ctrl-C (the terminal sends it to the whole process group): the main process
    decides when to stop, saves, and then closes the workers.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent_remote.close()
    envs = [fn() for fn in env_fns.var]
    while True:
        command, data = remote.recv()
        if command == "step":
            results = [_step_one(env, int(a)) for env, a in zip(envs, data)]
            obs, rewards, dones, infos, masks = zip(*results)
            remote.send((np.stack(obs), rewards, dones, infos, np.stack(masks)))
        elif command == "reset":
            seeds, options = data
            obs, masks = zip(*[_reset_one(env, s, o) for env, s, o in zip(envs, seeds, options)])
            remote.send((np.stack(obs), np.stack(masks)))
        elif command == "env_method":
            name, args, kwargs, local = data
            remote.send([getattr(envs[i], name)(*args, **kwargs) for i in local])
        elif command == "get_attr":
            name, local = data
            remote.send([getattr(envs[i], name) for i in local])
        elif command == "set_attr":
            name, value, local = data
            for i in local:
                setattr(envs[i], name, value)
            remote.send(None)
        elif command == "close":
            remote.close()
            return
        else:
            raise ValueError(f"unknown worker command {command!r}")


class BatchedSubprocVecEnv(VecEnv):
    """``num_envs`` envs split evenly over ``num_workers`` processes (see the module docstring)."""

    def __init__(
        self, env_fns: Sequence[Callable[[], gymnasium.Env]], num_workers: int, start_method: str | None = None
    ):
        if not 1 <= num_workers <= len(env_fns):
            raise ValueError(f"num_workers must be in 1..{len(env_fns)} (the number of envs), got {num_workers}")
        if start_method is None:  # fork starts in milliseconds; workers never touch torch
            start_method = "fork" if "fork" in mp.get_all_start_methods() else "forkserver"
        context = mp.get_context(start_method)
        bounds = np.linspace(0, len(env_fns), num_workers + 1).astype(int)
        self._slices = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds.tolist())]
        self.remotes, self.processes = [], []
        for part in self._slices:
            remote, work_remote = context.Pipe()
            args = (work_remote, remote, CloudpickleWrapper(list(env_fns[part])))
            process = context.Process(target=_worker, args=args, daemon=True)
            process.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(process)
        probe = env_fns[0]()
        super().__init__(len(env_fns), probe.observation_space, probe.action_space)
        probe.close()
        self._masks = np.ones((len(env_fns), probe.action_space.n), dtype=bool)
        self._actions: np.ndarray | None = None
        self.closed = False

    # ------------------------------------------------------------------ stepping
    def reset(self) -> np.ndarray:
        for remote, part in zip(self.remotes, self._slices):
            remote.send(("reset", (self._seeds[part], self._options[part])))
        obs, masks = zip(*[remote.recv() for remote in self.remotes])
        self._masks = np.concatenate(masks)
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        for remote, part in zip(self.remotes, self._slices):
            remote.send(("step", actions[part]))

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        obs, rewards, dones, infos, masks = [], [], [], [], []
        for remote in self.remotes:
            o, r, d, i, m = remote.recv()
            obs.append(o)
            rewards.extend(r)
            dones.extend(d)
            infos.extend(i)
            masks.append(m)
        self._masks = np.concatenate(masks)
        return np.concatenate(obs), np.array(rewards, dtype=np.float32), np.array(dones), infos

    def close(self) -> None:
        if self.closed:
            return
        for remote in self.remotes:
            remote.send(("close", None))
        for process in self.processes:
            process.join()
        self.closed = True

    # ------------------------------------------------------------------ attributes and methods
    def _by_worker(self, indices: Any) -> list[tuple[Any, list[int]]]:
        """``(remote, local indices)`` of the workers that hold the given env indices."""
        wanted = set(self._get_indices(indices))
        pairs = []
        for remote, part in zip(self.remotes, self._slices):
            local = [i - part.start for i in range(part.start, part.stop) if i in wanted]
            if local:
                pairs.append((remote, local))
        return pairs

    def _ask(self, command: str, payload: Callable[[list[int]], tuple], indices: Any) -> list[Any]:
        pairs = self._by_worker(indices)
        for remote, local in pairs:
            remote.send((command, payload(local)))
        return [value for remote, _ in pairs for value in remote.recv()]

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            return list(self._masks[self._get_indices(indices)])
        return self._ask("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "action_masks":  # sb3-contrib only checks that the method exists
            return [None] * len(list(self._get_indices(indices)))
        return self._ask("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        pairs = self._by_worker(indices)
        for remote, local in pairs:
            remote.send(("set_attr", (attr_name, value, local)))
        for remote, _ in pairs:
            remote.recv()

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or super().has_attr(attr_name)


def make_vec_env(
    env_id: str,
    num_envs: int,
    num_workers: int,
    seed: int,
    opponents: dict[str, float],
    reward_mode: str = "win",
    max_snapshots: int = 10,
    env_kwargs: dict[str, Any] | None = None,
    truncation_reward: float | None = None,
    engine: str = "single",
) -> VecEnv:
    """``num_envs`` seeded self-play games in a ``VecMonitor``, on the path ``engine`` chooses.

    ``"single"`` (the fallback without numba): `SelfPlayEnv`s (env ``i`` gets ``seed + i``) over
    ``num_workers`` processes; ``"batched"``: one `agents.selfplay.batched_vec_env.BatchedSelfPlayVecEnv`
    (``num_workers`` unused); ``"auto"``: the batched path when numba imports and the batched engine
    covers the game (see `agents.selfplay.batched_vec_env.batched_support`), saying which in one line.
    """
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    if num_workers < 0:
        raise ValueError(f"num_workers must be >= 0, got {num_workers}")
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not valid; expected one of {list(ENGINES)}")
    kwargs = dict(env_kwargs or {})
    if engine != "single":
        batched = _make_batched(
            env_id, num_envs, seed, opponents, reward_mode, max_snapshots, kwargs, truncation_reward, engine
        )
        if batched is not None:
            return VecMonitor(batched, info_keywords=EPISODE_KEYS)

    def factory() -> SelfPlayEnv:
        return SelfPlayEnv(
            env_id,
            opponents,
            reward_mode=reward_mode,
            max_snapshots=max_snapshots,
            truncation_reward=truncation_reward,
            **kwargs,
        )

    fns = [factory] * num_envs
    vec: VecEnv = BatchedSubprocVecEnv(fns, num_workers) if num_workers > 0 else DummyVecEnv(fns)
    vec.seed(seed)
    return VecMonitor(vec, info_keywords=EPISODE_KEYS)


def _make_batched(
    env_id: str,
    num_envs: int,
    seed: int,
    opponents: dict[str, float],
    reward_mode: str,
    max_snapshots: int,
    env_kwargs: dict[str, Any],
    truncation_reward: float | None,
    engine: str,
) -> VecEnv | None:
    """The batched path's VecEnv; ``None`` (after one line saying why) when ``engine="auto"`` cannot use it."""
    from agents.selfplay.batched_vec_env import BatchedSelfPlayVecEnv, batched_support

    reason = batched_support(env_id, opponents)
    if reason is None:
        try:
            vec = BatchedSelfPlayVecEnv(
                env_id,
                num_envs,
                opponents,
                reward_mode=reward_mode,
                max_snapshots=max_snapshots,
                truncation_reward=truncation_reward,
                seed=seed,
                **env_kwargs,
            )
        except (ValueError, ImportError) as error:  # an option beyond the kernels' integers, say
            if engine == "batched":
                raise
            reason = str(error)
        else:
            if engine == "auto":
                print(f"engine: batched (numba is installed and the batched engine covers {env_id})")
            return vec
    if engine == "batched":
        raise ValueError(f"engine='batched' cannot train {env_id}: {reason}")
    print(f"engine: single, one game per env ({reason})")
    return None
