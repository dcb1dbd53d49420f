"""The web table's tests need the ``web`` extra; outside CI they skip when it is missing."""

from __future__ import annotations

import importlib.util
import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_module(name: str, extra: str) -> None:
    """Skip (outside CI) or fail (in CI) when ``name`` cannot be imported."""
    if importlib.util.find_spec(name) is None:
        message = f"{name} is not installed: pip install -e '.[{extra}]'"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
