"""General file helpers: ``write_atomic(path, data)``, and the name of the file a leftover temporary was to become."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader never sees a half-written file: the old one or the new one, whole.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode() if isinstance(data, str) else data
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes the file private; give it the usual mode
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def temporary_target(name: str) -> str | None:
    """The name of the file that the `write_atomic` temporary file ``name`` (``.<target>.<random>.tmp``)
    was to become, or ``None`` when ``name`` is not such a temporary (``<random>``: ``tempfile``'s 8
    characters)."""
    match = re.fullmatch(r"\.(.+)\.[a-z0-9_]{8}\.tmp", name)
    return match.group(1) if match else None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = ["temporary_target", "write_atomic"]
