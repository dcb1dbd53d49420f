"""Convert an SB3 checkpoint (``.zip``) to the data-only agent format (``.npz``), unpickling nothing.

    python -m experiments.export --checkpoint runs/<run>/checkpoints/step_200000.zip
    python -m experiments.export --checkpoint old.zip --out my_agent.npz

The zip is read like ``ppo:<zip>`` reads it (``policy.pth`` with ``weights_only=True`` and the
plain JSON fields of ``data``); a zip that needs unpickling to be understood is refused. The
header records the env, its observation layout as the code has it today, the network and, when
the zip lies in a run folder's ``checkpoints/``, the run's training command and its latest
evaluation figures. See `agents.policy.checkpoint` for the format.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.policy.agent import sb3_zip_header
from agents.policy.checkpoint import save_agent
from experiments.cli import check_output_file, parse_args


@dataclass
class ExportArgs:
    """Convert an SB3 checkpoint (.zip) to a data-only agent file (.npz)."""

    checkpoint: str = field(default="", metadata={"help": "the SB3 .zip to convert (required)"})
    out: str | None = field(default=None, metadata={"help": "the .npz to write (None: beside the .zip)"})


def run_facts(checkpoint: Path) -> dict[str, Any]:
    """The training command and latest evaluation figures of the run folder the checkpoint lies in."""
    from experiments.train import TrainArgs, command_line

    run_dir = checkpoint.resolve().parent.parent
    if checkpoint.resolve().parent.name != "checkpoints" or not (run_dir / "config.json").is_file():
        return {}
    saved = json.loads((run_dir / "config.json").read_text())
    names = {f.name for f in dataclasses.fields(TrainArgs)}
    facts: dict[str, Any] = {"command": command_line(TrainArgs(**{k: v for k, v in saved.items() if k in names}))}
    history_file = run_dir / "eval" / "history.json"
    history = json.loads(history_file.read_text()) if history_file.is_file() else []
    if history:
        latest = max(row["timesteps"] for row in history)
        facts["figures"] = {
            f"vs {row['opponent']} at {latest} steps": f"win rate {row['win_rate']:.3f} [{row['win_low']:.3f}, "
            f"{row['win_high']:.3f}], mean score {row['mean_score']:.1f}"
            for row in history
            if row["timesteps"] == latest
        }
    return facts


def export(checkpoint: str | Path, out: str | Path | None = None) -> Path:
    """Write the data-only agent of an SB3 checkpoint; return its path."""
    checkpoint = Path(checkpoint)
    policy, header = sb3_zip_header(checkpoint, **run_facts(checkpoint))
    return save_agent(Path(out) if out else checkpoint.with_suffix(".npz"), policy, header)


def check_args(args: ExportArgs) -> None:
    """``ValueError`` (one line) unless the checkpoint is an existing ``.zip`` and the output an ``.npz``."""
    if not args.checkpoint or not Path(args.checkpoint).is_file():
        raise ValueError(f"--checkpoint {args.checkpoint!r}: no such file")
    if args.out is not None and not args.out.endswith(".npz"):
        raise ValueError(f"--out {args.out!r}: the data-only format is an .npz file")
    check_output_file(args.out or Path(args.checkpoint).with_suffix(".npz"), "--out")


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(ExportArgs, argv, check=check_args)
    try:
        path = export(args.checkpoint, args.out)
    except ValueError as error:  # a zip that cannot be read without unpickling: one line, status 2
        sys.stderr.write(f"export: error: --checkpoint {args.checkpoint}: {error}\n")
        raise SystemExit(2) from None
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main()
