"""numba's disk cache for kernels that call into other modules, keyed by every source they can reach.

numba keys a cached kernel by its own file only. A kernel that calls the kernels of other modules (a
search's fused rollout loop runs the game's step kernel and a heuristic's choice) would keep its old
compiled copy of them after they change, and play old rules without a word. `cross_module_kernel`
compiles such a kernel with ``cache=True`` whose cache is keyed by its own file *and* the SHA-256 of
every ``.py`` file of the packages it names (`packages_sha256`): any change there recompiles it.

The batched engines' kernels (`pirate_envs.core.batched.kernel`) are keyed so by their game's
package and ``pirate_envs.core``, the batched heuristics' and the fused rollouts' by ``pirate_envs``
and ``agents``: a change to a rule table, a constant or a helper they read is compiled in, never
served stale from the cache (an edit in those packages costs a recompile of their kernels).

It works through numba's list of cache locators (``CacheImpl._locator_classes``): a variant of each,
taking only the functions marked here, goes first. Where that list is not there (another numba) or
``NUMBA_CACHE_LOCATOR_CLASSES`` replaces it, such kernels are cached by their own file, as numba
does for any other.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: The attribute that marks a function as a cross-module kernel: the packages its cache is keyed by.
PACKAGES_ATTRIBUTE = "__kernel_cache_packages__"
#: The attribute that marks the cache locator classes this module put in numba's list (to add them once).
_DEPENDENT_LOCATOR_ATTRIBUTE = "__kernel_cache_dependent_locator__"


def packages_sha256(packages: Iterable[str], suffixes: Iterable[str] = (".py",)) -> str:
    """SHA-256 of every ``suffixes`` file of ``packages`` (importable names), by its path within the
    package's parent and its bytes, in path order; ``__pycache__`` left out. A name that is a module,
    not a package, stands for its own file."""
    wanted = tuple(suffixes)
    digest = hashlib.sha256()
    for package in packages:
        for base, name in _package_files(importlib.import_module(package), wanted):
            data = (base / name).read_bytes()
            digest.update(f"{name}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def _package_files(module: Any, wanted: tuple[str, ...]) -> list[tuple[Path, str]]:
    """``(folder, name)`` of each file `packages_sha256` reads of ``module``: a package's ``wanted``
    files, named from the package's parent, in order (each folder of a namespace package in turn);
    a plain module's own file."""
    folders = getattr(module, "__path__", None)
    if folders is None:
        own = Path(module.__file__).resolve()
        return [(own.parent, own.name)]
    files = []
    for folder in folders:
        root = Path(folder).resolve()
        names = sorted(
            path.relative_to(root.parent).as_posix()
            for path in root.rglob("*")
            if path.suffix in wanted and "__pycache__" not in path.parts and path.is_file()
        )
        files += [(root.parent, name) for name in names]
    return files


@functools.cache
def _sources_stamp(packages: tuple[str, ...]) -> str:
    """`packages_sha256` of ``packages``, once per process (numba asks when a cached kernel is defined)."""
    return packages_sha256(packages)


def _dependent_locator(base: type) -> type:
    """A variant of numba's cache locator ``base`` for marked functions only, whose source stamp also
    holds the packages' `packages_sha256`."""

    class DependentLocator(base):  # type: ignore[misc, valid-type]
        _packages: tuple[str, ...] = ()

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            packages = getattr(py_func, PACKAGES_ATTRIBUTE, None)
            if packages is None:
                return None
            locator = super().from_function(py_func, py_file)
            if locator is not None:
                locator._packages = packages
            return locator

        def get_source_stamp(self) -> Any:
            return (super().get_source_stamp(), _sources_stamp(self._packages))

    DependentLocator.__name__ = DependentLocator.__qualname__ = f"Dependent{base.__name__.lstrip('_')}"
    return DependentLocator


@functools.lru_cache(maxsize=1)
def _locators_registered() -> bool:
    """Put a dependent variant of each of numba's cache locators first (once); whether it could."""
    from numba.core import caching, config

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    bases = getattr(impl, "_locator_classes", None)
    if not isinstance(bases, list) or not bases or getattr(config, "CACHE_LOCATOR_CLASSES", None):
        return False
    if not any(getattr(base, _DEPENDENT_LOCATOR_ATTRIBUTE, False) for base in bases):
        variants = [_dependent_locator(base) for base in bases]
        for variant in variants:
            setattr(variant, _DEPENDENT_LOCATOR_ATTRIBUTE, True)
        bases[:0] = variants
    return True


def cross_module_kernel(*packages: str, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``njit(cache=True, nogil=True, **options)`` whose disk cache is keyed by the sources of ``packages``
    as well as its own file (where numba has no list of locators: by its own file, as numba keys it)."""
    from numba import njit

    def compile_kernel(function: Callable[..., Any]) -> Any:
        if _locators_registered():
            setattr(function, PACKAGES_ATTRIBUTE, tuple(packages))
        return njit(cache=True, nogil=True, **options)(function)

    return compile_kernel


__all__ = ["PACKAGES_ATTRIBUTE", "cross_module_kernel", "packages_sha256"]
