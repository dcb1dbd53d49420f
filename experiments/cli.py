"""Command-line parsing from a dataclass of arguments (one flag per field, CleanRL style)."""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def _flag_kwargs(field: dataclasses.Field, hint: Any) -> dict[str, Any]:
    """argparse keyword arguments for one dataclass field."""
    default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
    help_text = field.metadata.get("help", "")
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is bool:
        return {"action": argparse.BooleanOptionalAction, "default": default, "help": help_text}
    if origin is list:
        return {"nargs": "+", "type": args[0], "default": default, "help": help_text}
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)) and type(None) in args:
        inner = next(a for a in args if a is not type(None))
        return {"type": inner, "default": default, "help": help_text}
    return {"type": hint, "default": default, "help": help_text}


def parse_args(cls: type[T], argv: list[str] | None = None, description: str | None = None) -> T:
    """Parse ``argv`` into an instance of the dataclass ``cls``."""
    parser = argparse.ArgumentParser(description=description or cls.__doc__)
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        flag = "--" + field.name.replace("_", "-")
        parser.add_argument(flag, dest=field.name, **_flag_kwargs(field, hints[field.name]))
    return cls(**vars(parser.parse_args(argv)))
