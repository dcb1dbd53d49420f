"""Packaging: version ranges in pyproject.toml, exact pins in constraints.txt, the wheel's top-level names, and
what the wheel installed without extras promises (`bare_install_checks.py`, in a fresh virtual environment)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from setuptools import find_packages

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = {"pirate_envs", "agents", "experiments"}
BARE_CHECKS = Path(__file__).resolve().parent / "bare_install_checks.py"


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def requirements() -> list[Requirement]:
    """Every requirement of the project: its dependencies and those of every extra."""
    table = project()["project"]
    lines = table["dependencies"] + [r for extra in table["optional-dependencies"].values() for r in extra]
    return [Requirement(line) for line in lines]


def constraints() -> dict[str, Version]:
    """``{name: version}`` of constraints.txt (comments and blank lines left out)."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line).groups()
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_pyproject_states_ranges_not_exact_pins():
    pinned = [str(r) for r in requirements() if any(s.operator in ("==", "===") for s in r.specifier)]
    assert pinned == [], "exact versions belong in constraints.txt"


def test_every_constraint_is_an_exact_pin_of_a_requirement_within_its_range():
    pins = constraints()
    assert "torch" in pins
    for requirement in requirements():
        name = canonicalize_name(requirement.name)
        if name in pins:
            assert requirement.specifier.contains(pins[name], prereleases=True), (requirement, pins[name])
    required = {canonicalize_name(r.name) for r in requirements()}
    assert sorted(set(pins) - required) == [], "constraints.txt pins a package the project does not require"


def test_the_wheel_has_three_top_level_packages_and_the_readme_names_them():
    include = project()["tool"]["setuptools"]["packages"]["find"]["include"]
    found = {name.split(".")[0] for name in find_packages(where=str(ROOT), include=include)}
    assert found == TOP_LEVEL
    readme = ROOT / "README.md"
    section = readme.read_text().split("**Package names.**", 1)[1].split("\n\n", 1)[0]
    for name in TOP_LEVEL:
        assert f"`{name}`" in section


def build_wheel(folder: Path) -> Path:
    """The project's wheel, built into ``folder`` from a copy of its packages (the checkout is left as it is)."""
    source = folder / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for package in TOP_LEVEL:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(folder), "."]
    result = subprocess.run(command, cwd=source, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = folder.glob("pirate_envs-*.whl")
    return wheel


def run_bare_checks(python: str, cwd: Path, *args: str, pythonpath: str | None = None) -> str:
    """Run `bare_install_checks.py` with ``python``; its output, asserted to end with status 0."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    result = subprocess.run(
        [python, str(BARE_CHECKS), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.slow
def test_the_built_wheel_holds_only_the_three_packages_and_ranges(tmp_path):
    wheel = build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == TOP_LEVEL
    (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
    lines = zipfile.ZipFile(wheel).read(metadata).decode().splitlines()
    requires = [Requirement(line.removeprefix("Requires-Dist:")) for line in lines if line.startswith("Requires-Dist:")]
    assert requires and not [str(r) for r in requires if any(s.operator in ("==", "===") for s in r.specifier)]


def test_the_checkout_with_its_extras_blocked_keeps_the_bare_promises():
    """The in-process stand-in for a bare install: every module outside the core made unimportable."""
    out = run_bare_checks(sys.executable, ROOT, "--block-extras", pythonpath=str(ROOT))
    assert "ok  race: refuses" in out and "ok  pirate_envs/SkullKing-v0: check_env" in out, out


def test_the_wheel_installed_without_extras_keeps_its_promises(tmp_path):
    """The wheel in a fresh virtual environment, its requirements from pip's configured index, no extras."""
    wheel = build_wheel(tmp_path)
    venv.create(tmp_path / "venv", with_pip=True)
    python = str(tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python")
    command = [python, "-m", "pip", "install", "-q", "-c", str(ROOT / "constraints.txt"), str(wheel)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = run_bare_checks(python, tmp_path)
    assert "ok  race: refuses" in out and "ok  pirate_envs/SkullKing-v0: check_env" in out, out
