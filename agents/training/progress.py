"""The progress log of a run: SB3's logger writing ``progress.csv`` (whole rows, atomic rewrites) and TensorBoard."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from pirate_envs.core.files import write_atomic

#: The SB3 column of ``progress.csv`` that holds the learner steps of a row.
STEPS_COLUMN = "time/total_timesteps"


def make_logger(run_dir: Path, resumed_step: int | None = None) -> Any:
    """SB3's CSV and TensorBoard logger of a run.

    ``resumed_step``: the learner steps of the checkpoint a resumed run starts from. The rows
    of ``progress.csv`` past it (logged after that checkpoint by a run that was killed) and a
    row cut short are dropped, so the file holds each step's row once, as an uninterrupted run
    writes it; TensorBoard hides the events past it.
    """
    from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat

    tensorboard = TensorBoardOutputFormat(str(run_dir))
    if resumed_step is not None:
        from torch.utils.tensorboard import SummaryWriter

        tensorboard.writer.close()
        tensorboard.writer = SummaryWriter(log_dir=str(run_dir), purge_step=resumed_step + 1)
    return Logger(str(run_dir), [progress_csv(run_dir / "progress.csv", resumed_step), tensorboard])


def progress_rows(path: Path, up_to_step: int | None = None) -> tuple[list[str], list[str]]:
    """The columns and the whole rows (lines) of a ``progress.csv``; with ``up_to_step``, only the
    rows whose learner steps are at most that."""
    lines = path.read_text().split("\n")[:-1] if path.is_file() else []  # the last piece: "" or a row cut short
    if not lines:
        return [], []
    columns = next(csv.reader([lines[0]]))
    if up_to_step is None:
        return columns, lines[1:]
    index = columns.index(STEPS_COLUMN) if STEPS_COLUMN in columns else -1
    rows = []
    for line in lines[1:]:
        values = next(csv.reader([line]), [])
        try:
            if 0 <= index < len(values) and float(values[index]) <= up_to_step:
                rows.append(line)
        except ValueError:
            pass  # a row without its step count is no row of the resumed run
    return columns, rows


def progress_csv(path: Path, resumed_step: int | None = None) -> Any:
    """The ``progress.csv`` writer of a run: SB3's CSV format, but it never rewrites the file in
    place. A row is appended whole; a new column rewrites the file atomically. ``resumed_step``:
    keep the rows up to it (else start an empty file)."""
    from stable_baselines3.common.logger import CSVOutputFormat, filter_excluded_keys

    class ProgressCSV(CSVOutputFormat):
        def __init__(self) -> None:
            self.separator, self.quotechar = ",", '"'
            self.keys, rows = progress_rows(path, resumed_step) if resumed_step is not None else ([], [])
            self._rewrite(rows)

        def _rewrite(self, rows: list[str]) -> None:
            header = [",".join(self.keys)] if self.keys else []
            write_atomic(path, "".join(line + "\n" for line in header + rows))
            self.file = open(path, "a")  # noqa: SIM115 - closed by close() or the next rewrite

        def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
            new = [key for key in filter_excluded_keys(key_values, key_excluded, "csv") if key not in self.keys]
            if new:
                self.file.close()
                self.keys += new
                self._rewrite([row + self.separator * len(new) for row in progress_rows(path)[1]])
            super().write(key_values, key_excluded, step)  # every key is a column now: appends one row

    return ProgressCSV()
