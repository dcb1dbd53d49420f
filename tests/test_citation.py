"""The project is citable: LICENSE, CITATION.cff and CHANGELOG agree with the package and the protocol."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

import pirate_envs

ROOT = Path(__file__).resolve().parent.parent


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_one_version_everywhere():
    version = project()["version"]
    assert pirate_envs.__version__ == version
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf"^version: {re.escape(version)}$", citation, re.M)
    assert re.search(r"^cff-version: 1\.2\.0$", citation, re.M)
    for key in ("message", "title", "authors", "license", "date-released"):
        assert re.search(rf"^{key}:", citation, re.M), key


def test_the_release_date_is_the_changelogs_for_this_version():
    """``date-released`` is the date of the version's CHANGELOG heading (``## 0.3.1 (2026-11-27): ...``)."""
    version = project()["version"]
    citation = (ROOT / "CITATION.cff").read_text()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = re.search(r"^date-released: ([0-9]{4}-[0-9]{2}-[0-9]{2})$", citation, re.M)
    heading = re.search(rf"^## {re.escape(version)} \(([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})\)", changelog, re.M)
    assert released and heading, "CITATION.cff's date-released and the version's CHANGELOG heading"
    assert released.group(1) == heading.group(1)


def test_the_changelog_ties_the_protocol_to_the_package_version():
    from agents.benchmark.protocol import VERSION, title

    version = project()["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text()
    heading = next(line for line in changelog.splitlines() if line.startswith(f"## {version} "))
    assert re.search(rf"{re.escape(title())}(\.[0-9]+)?$", heading)  # the version, with its revision if any
    # the scheme: the minor version of a 0.x package is the protocol version it runs by default
    assert version.split(".")[:2] == ["0", str(VERSION)]


def test_the_license_is_the_one_pyproject_names():
    assert project()["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the pirate_envs authors" in text
    assert "MIT" in (ROOT / "CITATION.cff").read_text()
