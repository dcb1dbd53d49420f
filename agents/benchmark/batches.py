"""A protocol run's finished batches kept on disk, so that a stopped run goes on where it stopped.

A full run of a search candidate takes CPU-hours; one stopped (a machine going back, Ctrl-C) lost
every game it had played. With a `BatchStore` each finished batch (`agents.benchmark.run`: the
games of ``Lineup.chunk_deals`` deals) is written to ``<folder>/<players>p_<opponent>_<deals>d_<batch>.npz``
as it comes back, and a rerun of the same run reads it back instead of playing it again. Batches are
independent and seeded by their line-up and index, so a resumed run's figures are the ones an
unbroken run gives.

A batch file holds numpy arrays only (read with ``allow_pickle=False``), the machine that played it
(`agents.benchmark.provenance.machine_record`, outside its identity: a run stopped on one machine
goes on on another, and its results file says which batches came from where) and its **identity**: the
protocol version, the deals' SHA-256, the game, the line-up and its deals, the batch's first deal
and size, the candidate (name, kind and file SHA-256) and the SHA-256 of the code that played it
(`agents.benchmark.provenance.code_sha256`: the package's playing files, so an installed package
and uncommitted changes are told apart as well as commits, and a commit that changes only the docs
or the commands keeps the batches). A batch is reused only where its identity is the run's; a file
of another run in the folder stops the run with a one-line ``ValueError`` rather than being mixed in.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.benchmark.protocol import Lineup
from pirate_envs.core.files import write_atomic

#: The arrays of a batch (``luck`` only where the game has control variates) and its counters.
ARRAYS = ("scores", "shares", "truncated", "luck")
COUNTERS = ("candidate_moves", "candidate_seconds", "wall_seconds", "decisions", "cpu_seconds")
#: The largest batch file read back (a batch of the protocol is far smaller).
MAX_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class BatchStore:
    """Where the batches of one run are kept (``folder``) and what they must match (``run``: the run's
    identity without the batch: version, deals hash, game, candidate record, code hash)."""

    folder: Path
    run: dict[str, Any]

    def path(self, lineup: Lineup, batch: int) -> Path:
        """The file of batch ``batch`` of ``lineup``."""
        return self.folder / f"{lineup.players}p_{lineup.opponent}_{lineup.deals}d_{batch:05d}.npz"

    def identity(self, lineup: Lineup, batch: int, first_deal: int, deals: int) -> dict[str, Any]:
        """The batch's identity: the run's, its line-up, and which deals it played."""
        return {
            **self.run,
            "lineup": lineup.key,
            "lineup_deals": lineup.deals,
            "batch": batch,
            "first_deal": first_deal,
            "deals": deals,
        }

    def save(
        self, lineup: Lineup, batch: int, first_deal: int, deals: int, fields: dict[str, Any], machine: dict[str, Any]
    ) -> Path:
        """Write one finished batch (``fields``: `ARRAYS` and `COUNTERS`; ``machine``: where it was played)
        whole, then rename it into place."""
        arrays = {name: np.asarray(fields[name]) for name in ARRAYS if fields[name] is not None}
        counters = np.array([float(fields[name]) for name in COUNTERS])
        identity = json.dumps(self.identity(lineup, batch, first_deal, deals), sort_keys=True)
        buffer = io.BytesIO()
        played_on = np.array(json.dumps(machine, sort_keys=True))
        np.savez(buffer, identity=np.array(identity), counters=counters, machine=played_on, **arrays)
        return write_atomic(self.path(lineup, batch), buffer.getvalue())

    def load(self, lineup: Lineup, batch: int, first_deal: int, deals: int) -> dict[str, Any] | None:
        """The fields of a kept batch (as `save` took them, and ``"machine"``: where it was played, ``None``
        in a file written before batches recorded it), or ``None`` where none is kept.

        Raises a one-line ``ValueError`` for a file that is not a batch of this run.
        """
        path = self.path(lineup, batch)
        if not path.is_file():
            return None
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"{path}: over {MAX_BYTES} bytes, not a batch of the protocol")
        try:
            with np.load(path, allow_pickle=False) as kept:
                stored = json.loads(str(kept["identity"]))
                counters = kept["counters"]
                fields: dict[str, Any] = {name: kept[name] if name in kept.files else None for name in ARRAYS}
                machine = json.loads(str(kept["machine"])) if "machine" in kept.files else None
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"{path}: not a readable batch file ({error})") from None
        expected = self.identity(lineup, batch, first_deal, deals)
        if stored != expected:
            differ = sorted(k for k in expected.keys() | stored.keys() if stored.get(k) != expected.get(k))
            raise ValueError(
                f"{path}: a batch of another run ({', '.join(differ)} differ); "
                "finish that run as it was started, or start again without resuming"
            )
        if counters.shape != (len(COUNTERS),):
            raise ValueError(f"{path}: not a readable batch file (counters of shape {counters.shape})")
        if machine is not None and not isinstance(machine, dict):
            raise ValueError(f"{path}: not a readable batch file (its machine is not a record)")
        fields.update(zip(COUNTERS, counters.tolist(), strict=True))
        fields["machine"] = machine
        return fields

    def clear(self) -> None:
        """Delete the kept batches (a fresh run into the same folder)."""
        for path in self.folder.glob("*p_*_*d_*.npz"):
            path.unlink()


__all__ = ["ARRAYS", "COUNTERS", "BatchStore"]
