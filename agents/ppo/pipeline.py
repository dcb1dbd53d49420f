"""Pipelined PPO: the update of rollout ``k`` on a background thread while rollout ``k + 1`` is collected.

A single thread alternates rollout and update, each leaving the second core idle. `UpdatePipeline`
overlaps them: the update runs on the *learner* parameters in a worker thread, on its own flat copy
of the rollout, while the main thread collects the next rollout with a *behaviour* copy of the
network. When a rollout is done, `UpdatePipeline.start` joins the update in flight, copies the
learner into the behaviour copy and starts the next update: rollout ``k + 1`` is played by the
policy after update ``k - 1`` (a policy lag of one update, as in asynchronous PPO). The PPO ratio
divides by the log-probabilities the behaviour policy recorded, so the update stays the clipped
surrogate of the data it reads; only the clipping is centred on a policy one update older.

Determinism: the rollout draws its actions from torch's global generator, on the main thread
only; the update draws its minibatch orders from a generator of its own (``update_rng``, seeded
from the run's seed), never from numpy's global one, so a run with the same seed gives the same
numbers whatever the threads' timing. Nothing but the update touches the learner parameters
while it runs; `UpdatePipeline.join` (``settle``) waits for it before anyone reads them
(checkpoints, evaluation, the end of a run). Self-play snapshots copy the behaviour policy, which
only the main thread changes, between rollouts.

Both threads run torch with the process's intra-op thread count: keep it at 1 (``--torch-threads``'
default) so that the two threads use the two cores without oversubscribing them. The batched
engine's numba kernels release the GIL (``nogil``); torch releases it inside its operations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

import numpy as np
import torch

Result = TypeVar("Result")

#: Added to the run's seed to seed the update's own minibatch generator.
UPDATE_SEED_OFFSET = 0x5EED


class UpdatePipeline(Generic[Result]):
    """One update at a time on a worker thread; a behaviour copy of the learner's parameters for the rollouts.

    ``learner`` and ``behaviour``: parameters of the same shapes, in the same order. ``updates_done``
    counts the updates joined, ``behaviour_version`` the updates the behaviour copy has seen (its
    parameters are the learner's after that many updates).
    """

    def __init__(
        self, learner: Iterable[torch.nn.Parameter], behaviour: Iterable[torch.nn.Parameter], seed: int
    ) -> None:
        self.learner, self.behaviour = list(learner), list(behaviour)
        shapes = [p.shape for p in self.learner], [p.shape for p in self.behaviour]
        if shapes[0] != shapes[1]:
            raise ValueError(f"behaviour parameters of shapes {shapes[1]}, the learner's are {shapes[0]}")
        self.update_rng = np.random.RandomState(seed + UPDATE_SEED_OFFSET)
        self.updates_done = self.behaviour_version = 0
        self._executor: ThreadPoolExecutor | None = None
        self._in_flight: Future[Result] | None = None
        self.sync()

    @property
    def in_flight(self) -> bool:
        """Whether an update is running (or done but not joined)."""
        return self._in_flight is not None

    def sync(self) -> None:
        """Copy the learner's parameters into the behaviour copy (no update may be in flight)."""
        if self._in_flight is not None:
            raise RuntimeError("sync with an update in flight: join it first")
        with torch.no_grad():
            torch._foreach_copy_(self.behaviour, self.learner)
        self.behaviour_version = self.updates_done

    def join(self) -> Result | None:
        """Wait for the update in flight; its result (``None`` when none was). Its error is raised here."""
        future = self._in_flight
        if future is None:
            return None
        try:
            result = future.result()
        finally:
            if future.done():  # else interrupted while waiting (KeyboardInterrupt): still in flight
                self._in_flight = None
        self.updates_done += 1
        return result

    def start(self, update: Callable[[np.random.RandomState], Result]) -> Result | None:
        """Join the update in flight, copy the learner into the behaviour copy, and run ``update(update_rng)``
        in the worker thread; return the joined update's result (``None`` when none was in flight)."""
        previous = self.join()
        self.sync()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ppo-update")
        self._in_flight = self._executor.submit(update, self.update_rng)
        return previous

    def close(self) -> Result | None:
        """Join the update in flight and stop the worker thread; the joined result."""
        try:
            return self.join()
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None
