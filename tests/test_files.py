"""``pirate_envs.core.files``: a file is replaced whole or not at all, and a leftover temporary names its target."""

from __future__ import annotations

import os

import pytest

from pirate_envs.core import files
from pirate_envs.core.files import temporary_target, write_atomic


def test_write_atomic_replaces_the_file_whole_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "new" / "page.md"
    assert write_atomic(target, "first") == target and target.read_text() == "first"
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second" and os.listdir(target.parent) == ["page.md"]


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path, monkeypatch):
    target = tmp_path / "page.md"
    write_atomic(target, "old")

    def refuse(*args):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["page.md"]


def test_a_temporary_names_the_file_it_was_to_become(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "replace", lambda *args: None)  # the temporary stays, as after a crash
    write_atomic(tmp_path / "results.json", "{}")
    (leftover,) = os.listdir(tmp_path)
    assert temporary_target(leftover) == "results.json" and temporary_target("results.json") is None
