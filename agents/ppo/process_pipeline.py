"""Pipelined PPO with the update in a child process: `ProcessUpdatePipeline`.

`agents.ppo.pipeline.UpdatePipeline` runs the update of rollout ``k`` in a thread beside rollout
``k + 1``; both threads then take turns at Python's lock, and each runs about half again slower
than alone (Skull King 4 players on 2 cores: 1.4 cores used). Here the update runs in a child
process forked from the learner's, which shares the learner's memory where it matters:

* the learner's parameters and the optimizer's state tensors are moved to shared memory
  (``share_memory_``, in place: the objects stay the policy's and the optimizer's own), so the
  child's update writes what the parent reads after `join`: checkpoints, snapshots and
  ``state_dict`` need nothing copied back;
* each rollout is copied into shared buffers the child reads; the settings and learning rates
  of the update go through a pipe as JSON, its figures come back the same way (nothing pickled).

The first update runs in this process, before the child is forked: the optimizer creates its
state there, and the child inherits the update's random generator after it, so the run draws
the minibatch orders of a thread-pipelined run and ends with the same parameters. A child is
forked again when the shared tensors were replaced (an optimizer state loaded) or the rollout's
shapes changed. Needs the ``fork`` start method (Linux; not Windows, and unsafe on macOS).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import signal
import traceback
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

import numpy as np
import torch

from agents.ppo.pipeline import UpdatePipeline

Result = TypeVar("Result")
#: What the child runs: ``work(update_rng, rollout, message)`` -> a JSON-able result.
Work = Callable[[np.random.RandomState, dict[str, torch.Tensor], dict[str, Any]], Any]


def fork_available() -> bool:
    """Whether this platform can fork the update's child (`ProcessUpdatePipeline` needs it)."""
    return "fork" in multiprocessing.get_all_start_methods()


def _rng_state(rng: np.random.RandomState) -> list[Any]:
    """``rng``'s state as JSON (`_set_rng_state` takes it back)."""
    name, keys, position, has_gauss, cached = rng.get_state()  # type: ignore[misc]
    return [name, keys.tolist(), int(position), int(has_gauss), float(cached)]


def _set_rng_state(rng: np.random.RandomState, state: list[Any]) -> None:
    """Give ``rng`` the state `_rng_state` wrote."""
    name, keys, position, has_gauss, cached = state
    rng.set_state((name, np.array(keys, dtype=np.uint32), position, has_gauss, cached))


def _serve(connection: Connection, work: Work, rollout: dict[str, torch.Tensor], rng: np.random.RandomState) -> None:
    """The child: run ``work`` for each message until told to stop; its result or its error back as JSON."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    torch.set_num_threads(1)
    while True:
        try:
            raw = connection.recv_bytes()
        except EOFError:  # the parent is gone
            return
        if raw == b"stop":
            return
        try:
            reply = {"result": work(rng, rollout, json.loads(raw)), "rng": _rng_state(rng)}
        except BaseException:  # every failure goes back to the parent, which raises it
            reply = {"error": traceback.format_exc()}
        connection.send_bytes(json.dumps(reply).encode())


class ProcessUpdatePipeline(UpdatePipeline[Result], Generic[Result]):
    """`UpdatePipeline` whose updates run in a forked child process (see the module docstring).

    ``work`` is what the child runs for each update (`start_update`'s ``message``); ``shared``
    gives, at each fork, every tensor the update writes and the parent reads (the learner's
    parameters and the optimizer's state); ``finish(result, context)`` turns the child's result and
    `start_update`'s ``context`` into what `join` returns.
    """

    def __init__(
        self,
        learner: Iterable[torch.nn.Parameter],
        behaviour: Iterable[torch.nn.Parameter],
        seed: int,
        work: Work,
        shared: Callable[[], list[torch.Tensor]],
        finish: Callable[[Any, Any], Result],
    ) -> None:
        if not fork_available():
            raise ValueError("the update in a child process needs the 'fork' start method, which this platform lacks")
        super().__init__(learner, behaviour, seed)
        self.work, self.shared, self.finish = work, shared, finish
        self._child: Any = None
        self._connection: Connection | None = None
        self._buffers: dict[str, torch.Tensor] = {}
        self._shared_pointers: list[tuple[torch.Tensor, int]] = []
        self._waiting: Any = None  # the context of the update in the child
        self._done: tuple[Any, Any] | None = None  # an update run here: (result, context), joined next

    @property
    def in_flight(self) -> bool:
        return self._waiting is not None or self._done is not None

    def join(self) -> Result | None:
        """Wait for the update in flight; its result (``None`` when none was). The child's error is raised here."""
        if self._done is not None:
            (result, context), self._done = self._done, None
        elif self._waiting is not None:
            assert self._connection is not None
            try:
                raw = self._connection.recv_bytes()  # interrupted: still in flight, read next time
            except EOFError:
                self._waiting = None
                code = self._stop_child()
                raise RuntimeError(f"the PPO update's child process ended without a reply (exit code {code})") from None
            reply = json.loads(raw)
            context, self._waiting = self._waiting, None
            if "error" in reply:
                raise RuntimeError(f"the PPO update failed in its child process:\n{reply['error']}")
            result = reply["result"]
            _set_rng_state(self.update_rng, reply["rng"])  # the child drew from its copy: carry on here
        else:
            return None
        self.updates_done += 1
        return self.finish(result, context)

    def start_update(self, rollout: dict[str, torch.Tensor], message: dict[str, Any], context: Any) -> Result | None:
        """Join the update in flight, copy the learner into the behaviour copy and start ``work`` on
        ``rollout`` and ``message``: in the child, or here (synchronously) before the child exists;
        the joined update's result (``None`` when none was in flight)."""
        previous = self.join()
        self.sync()
        if self.updates_done == 0 and self._child is None:  # the first update: the optimizer makes its state here
            self._done = (self.work(self.update_rng, rollout, message), context)
            return previous
        if not self._child_fits(rollout):
            self.close()
            self._fork(rollout)
        assert self._connection is not None
        for name, tensor in rollout.items():
            self._buffers[name].copy_(tensor)
        self._connection.send_bytes(json.dumps(message).encode())
        self._waiting = context
        return previous

    def start(self, update: Callable[[np.random.RandomState], Result]) -> Result | None:
        raise TypeError("a ProcessUpdatePipeline runs its own work: call start_update")

    def _child_fits(self, rollout: dict[str, torch.Tensor]) -> bool:
        """Whether the child runs, still shares every tensor the update writes, and has buffers of these shapes."""
        if self._child is None or not self._child.is_alive():
            return False
        shared = self.shared()
        if len(shared) != len(self._shared_pointers) or any(
            tensor is not known or tensor.data_ptr() != pointer
            for tensor, (known, pointer) in zip(shared, self._shared_pointers)
        ):
            return False
        return self._buffers.keys() == rollout.keys() and all(
            self._buffers[name].shape == tensor.shape and self._buffers[name].dtype == tensor.dtype
            for name, tensor in rollout.items()
        )

    def _fork(self, rollout: dict[str, torch.Tensor]) -> None:
        shared = self.shared()
        for tensor in shared:
            tensor.share_memory_()
        self._shared_pointers = [(tensor, tensor.data_ptr()) for tensor in shared]
        self._buffers = {name: torch.empty_like(tensor).share_memory_() for name, tensor in rollout.items()}
        context = multiprocessing.get_context("fork")
        self._connection, child_end = context.Pipe()
        self._child = context.Process(
            target=_serve,
            args=(child_end, self.work, self._buffers, self.update_rng),
            name="ppo-update",
            daemon=True,
        )
        self._child.start()
        child_end.close()

    def close(self) -> Result | None:
        """Join the update in flight and stop the child; the joined result."""
        try:
            return self.join()
        finally:
            self._stop_child()

    def _stop_child(self) -> int | None:
        """Tell the child to stop, wait for it (terminate it if it hangs) and close the pipe; its exit code."""
        if self._child is None:
            return None
        assert self._connection is not None
        with contextlib.suppress(OSError):  # the child may be gone already
            self._connection.send_bytes(b"stop")
        self._child.join(timeout=30)
        if self._child.is_alive():
            self._child.terminate()
            self._child.join()
        code = self._child.exitcode
        self._connection.close()
        self._child = self._connection = None
        return code
