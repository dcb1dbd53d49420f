"""Errors raised by the engines and environments, and the checks that raise them.

Every check names the bad value and what is valid. Numpy integers are accepted wherever Python
integers are (`plain_ints` turns them into Python integers); ``bool`` is never taken as
an integer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")
#: Characters of a value's ``repr`` that an error message shows before cutting it short.
SHOWN_CHARS = 80


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state (or outside the action space)."""

    def __init__(
        self,
        action: int,
        legal: Sequence[int],
        describe: Callable[[int], str] | None = None,
        num_actions: int | None = None,
    ):
        self.action = action
        self.legal = list(legal)
        outside = action < 0 or (num_actions is not None and action >= num_actions)
        if outside:
            name = f" (outside {action_space_text(num_actions)})" if num_actions is not None else ""
        else:
            name = f" ({describe(action)})" if describe is not None else ""
        if describe is not None:
            shown = ", ".join(f"{a}={describe(a)}" for a in self.legal[:20])
        else:
            shown = ", ".join(str(a) for a in self.legal[:20])
        more = f", ... ({len(self.legal)} in all)" if len(self.legal) > 20 else ""
        super().__init__(f"illegal action {action}{name}; legal actions: [{shown}{more}]")


class UnknownAgentError(KeyError):
    """An agent name that is not one of the env's agents (a ``KeyError``, as a dict lookup gives)."""

    def __init__(self, agent: object, agents: Iterable[str]):
        self.agent = agent
        self.agents = list(agents)
        super().__init__(f"unknown agent {agent!r}; agents: {self.agents}")

    def __str__(self) -> str:
        return str(self.args[0])  # KeyError would print the message quoted


def is_integer(value: object) -> bool:
    """Whether ``value`` is a Python or numpy integer (or a 0-d integer array), and not a ``bool``."""
    if type(value) is int:
        return True
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu"


def plain_ints(value: Any) -> Any:
    """``value`` with every numpy integer (also inside tuples, lists and dicts) as a Python ``int``.

    Numpy booleans become ``bool``; anything else is returned as it is.
    """
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (tuple, list)):
        return type(value)(plain_ints(v) for v in value)
    if isinstance(value, dict):
        return {plain_ints(k): plain_ints(v) for k, v in value.items()}
    return value


def action_space_text(num_actions: int) -> str:
    """How an action space of ``num_actions`` actions is described in error messages."""
    return f"the action space Discrete({num_actions}): integers 0..{num_actions - 1}"


def check_action(action: object, num_actions: int) -> int:
    """``action`` as an ``int``: ``TypeError`` unless it is an integer, ``ValueError`` outside ``0..n-1``."""
    if not is_integer(action):
        raise TypeError(
            f"action {action!r} ({type(action).__name__}) is not an integer; "
            f"expected {action_space_text(num_actions)} (Python or numpy integers)"
        )
    index = int(action)  # type: ignore[call-overload]
    if not 0 <= index < num_actions:
        raise ValueError(f"action {index} is outside {action_space_text(num_actions)}")
    return index


def check_seed(seed: object) -> int | None:
    """``seed`` as ``int`` (or ``None``): ``TypeError``/``ValueError`` naming it unless a non-negative integer."""
    if seed is None:
        return None
    valid = "expected None or a non-negative integer (Python or numpy)"
    if not is_integer(seed):
        raise TypeError(f"seed={seed!r} ({type(seed).__name__}) is not valid; {valid}")
    value = int(seed)  # type: ignore[call-overload]
    if value < 0:
        raise ValueError(f"seed={value} is negative; {valid}")
    return value


def check_mapping(field: str, value: object) -> dict[str, Any]:
    """``value`` as a dict (``None``: empty); ``TypeError`` naming ``field`` unless it is a mapping."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TypeError(f"{field}={shown(value)} ({type(value).__name__}) is not valid; expected a dict or None")
    return dict(value)


def check_bool(field: str, value: object) -> bool:
    """``value`` as ``bool``; ``TypeError`` naming ``field`` unless it is ``True`` or ``False``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{field}={shown(value)} ({type(value).__name__}) is not valid; expected True or False")
    return bool(value)


def one_line(error: Any, limit: int = 300) -> str:
    """The message of ``error`` (or any value's text) on one line, at most ``limit`` characters."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for an error message, cut short to ``limit`` characters (ending in ``...``)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_list(
    field: str, value: object, what: str, length: int | None = None, max_length: int | None = None
) -> list[Any]:
    """``value`` as a list: ``TypeError`` naming ``field`` unless a list or tuple, ``ValueError`` unless
    it has ``length`` items (or at most ``max_length``; ``None``: any number). ``what`` names the items."""
    count = f"{length} " if length is not None else f"at most {max_length} " if max_length is not None else ""
    expected = f"expected a list of {count}{what}"
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{field}={shown(value)} ({type(value).__name__}) is not valid; {expected}")
    if (length is not None and len(value) != length) or (max_length is not None and len(value) > max_length):
        raise ValueError(f"{field}={shown(value)} has {len(value)} items; {expected}")
    return list(value)


def check_name(field: str, value: object, parse: Callable[[str], T], what: str = "a card name") -> T:
    """``parse(value)`` for a name: ``TypeError`` naming ``field`` unless ``value`` is a ``str``; ``parse``'s
    ``ValueError`` (which names the valid names) with ``field`` in front."""
    if not isinstance(value, str):
        raise TypeError(f"{field}={shown(value)} ({type(value).__name__}) is not valid; expected {what}")
    try:
        return parse(value)
    except ValueError as error:
        raise ValueError(f"{field}: {error}") from None


def check_names(
    field: str,
    value: object,
    parse: Callable[[str], T],
    length: int | None = None,
    max_length: int | None = None,
    what: str = "card names",
) -> list[T]:
    """A list of names (see `check_list`), each ``parse``d as `check_name` does."""
    items = check_list(field, value, what, length, max_length)
    return [check_name(f"{field}[{i}]", item, parse, f"one of the {what}") for i, item in enumerate(items)]


def check_copies(field: str, used: Sequence[int], copies: Sequence[int], names: Sequence[str], holder: str) -> None:
    """``ValueError`` naming ``field`` when ``used[k]`` (copies of kind ``k`` given) exceeds ``copies[k]``.

    ``names[k]`` names kind ``k``; ``holder`` what holds ``copies`` (``"the deck"``, say).
    """
    for kind, (count, held) in enumerate(zip(used, copies)):
        if count > held:
            raise ValueError(f"{field}: {names[kind]} is given {int(count)} times; {holder} holds {int(held)}")


def check_choice(field: str, value: object, allowed: Sequence[object]) -> None:
    """Raise ``ValueError`` naming ``field`` when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{field}={value!r} is not valid; expected one of {list(allowed)}")


def check_range(field: str, value: int, low: int, high: int | None = None) -> int:
    """``value`` as ``int``; ``ValueError`` naming ``field`` unless ``low <= value <= high`` (``None``: no bound).

    Numpy integers are accepted; ``bool`` and floats are not.
    """
    if not is_integer(value):
        raise ValueError(f"{field}={shown(value)} must be an integer; allowed: {bound_text(low, high)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise out_of_range(field, value, low, high)
    return value


def out_of_range(field: str, value: int, low: int | None, high: int | None, why: str = "") -> ValueError:
    """The error of an integer ``value`` of ``field`` outside ``low..high`` (``None``: no bound on that side)."""
    reason = f" ({why})" if why else ""
    return ValueError(f"{field}={value!r} is out of range; allowed: {bound_text(low, high)}{reason}")


def bound_text(low: int | None, high: int | None) -> str:
    """How the integers ``low..high`` (``None``: no bound on that side) are named in error messages."""
    if low is not None and high is not None:
        return f"{low}..{high}"
    return f">= {low}" if low is not None else f"<= {high}"


#: The range of a 64-bit signed integer, the integers of the batched engine's kernels.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def integer_fields(value: Any, name: str) -> Iterator[tuple[str, int]]:
    """Every integer in ``value`` (a dataclass, tuple, list or mapping, walked recursively) with its field name."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from integer_fields(getattr(value, field.name), field.name)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from integer_fields(item, f"{name}[{key!r}]")
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield from integer_fields(item, f"{name}[{index}]")
    elif is_integer(value):
        yield name, int(value)


def check_int64_fields(config: Any) -> None:
    """Raise the ``ValueError`` of `check_range` for the first integer of ``config`` beyond 64 bits.

    ``config`` is a game's validated ``Config`` dataclass: Python holds any integer, the batched
    engine's kernels only 64-bit ones.
    """
    for field, value in integer_fields(config, type(config).__name__):
        if not INT64_MIN <= value <= INT64_MAX:
            low, high = (INT64_MIN, None) if value < INT64_MIN else (None, INT64_MAX)
            raise out_of_range(field, value, low, high, "the batched engine holds 64-bit integers")
