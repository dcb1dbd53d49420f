"""Errors raised by the engines and environments."""

from __future__ import annotations

from collections.abc import Callable, Sequence


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state."""

    def __init__(self, action: int, legal: Sequence[int], describe: Callable[[int], str] | None = None):
        self.action = action
        self.legal = list(legal)
        name = f" ({describe(action)})" if describe is not None and action >= 0 else ""
        if describe is not None:
            shown = ", ".join(f"{a}={describe(a)}" for a in self.legal[:20])
        else:
            shown = ", ".join(str(a) for a in self.legal[:20])
        more = f", ... ({len(self.legal)} in all)" if len(self.legal) > 20 else ""
        super().__init__(f"illegal action {action}{name}; legal actions: [{shown}{more}]")


def check_choice(field: str, value: object, allowed: Sequence[object]) -> None:
    """Raise ``ValueError`` naming ``field`` when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{field}={value!r} is not valid; expected one of {list(allowed)}")


def check_range(field: str, value: int, low: int, high: int | None = None) -> None:
    """Raise ``ValueError`` naming ``field`` unless ``low <= value <= high`` (``high=None``: no upper bound)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{field}={value!r} must be an integer")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{field}={value!r} is out of range; allowed: {bound}")
