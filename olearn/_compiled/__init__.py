"""Compiled kernels (numpy + numba only), and where olearn caches them.

olearn's kernels (every ``cache=True`` function written in a file of the olearn package,
the entry points that ``declare`` makes included, also for a learner declared outside
olearn) are cached in a folder keyed on a hash of numba's version and of every olearn
source file that holds compiled code (the files that import numba, or ``njit`` from
here).  numba checks on its own only the file that holds a cached function
(``declare.py`` for every learner's entry point); a rule inlined from a learner file
would otherwise be served stale after an edit.  The base folder is ``$NUMBA_CACHE_DIR``
when set, else ``$OLEARN_CACHE_DIR``, else the platform cache folder
(``$XDG_CACHE_HOME/olearn`` or ``~/.cache/olearn``).

No process-wide numba setting is changed: importing this package puts
:class:`KernelCacheLocator` first among numba's cache locators, and it answers only for
source files inside the olearn package, so ``numba.config.CACHE_DIR`` and the cache of
every other function (a user's own ``@njit(cache=True)`` stays next to its file, or in
``$NUMBA_CACHE_DIR``) are numba's as before.  (Where ``NUMBA_CACHE_LOCATOR_CLASSES``
names numba's locators, numba uses that list: name
``olearn._compiled.KernelCacheLocator`` first in it to keep this folder.)

The locator must be in place before a ``cache=True`` decorator runs, so a module of
olearn that defines cached kernels outside this package takes ``njit`` from here
(``from .._compiled import njit``: numba's own ``njit``), whatever the import order.
"""
import functools
import hashlib
import os
import re
from pathlib import Path

import numba
from numba import njit  # noqa: F401 (re-exported: see the module docstring)
from numba.core import caching as _caching
from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

from .. import _compile_notice

_compile_notice.install()   # one line when olearn compiles (olearn/_compile_notice.py)

# numba's base of the function caches (named _CacheImpl in older numba versions)
_CacheImpl = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl

__all__ = ["cache_dir", "njit", "KernelCacheLocator", "entry_point"]

_PACKAGE = Path(__file__).resolve().parent.parent
_COMPILED_SOURCE = re.compile(
    rb"^[ \t]*(?:from numba\b|import numba\b|from [.\w]*_compiled import [^\n]*\bnjit\b)",
    re.M)


@functools.lru_cache(maxsize=None)
def _source_hash():
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if _COMPILED_SOURCE.search(text):
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()[:16]


def cache_dir():
    """The folder where this version of olearn keeps its compiled kernels."""
    base = (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("OLEARN_CACHE_DIR")
            or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn")
    return str(Path(base) / f"numba-{_source_hash()}")


def in_package(py_file):
    """True when ``py_file`` is a source file of the olearn package."""
    try:
        return _PACKAGE in Path(py_file).resolve().parents
    except (OSError, RuntimeError, TypeError, ValueError):
        return False


class KernelCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """numba's cache locator for olearn's own kernels: ``cache_dir()`` for a function
    written in a file of the olearn package, nothing (numba's next locator decides) for
    any other function.  Inside the folder, one sub-folder per source folder, as numba
    lays out ``NUMBA_CACHE_DIR``."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_dir(), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if not in_package(py_file):
            return None
        return super().from_function(py_func, py_file)


def entry_point(kernel, args):
    """The compiled function numba picked for ``args``, called without type dispatch
    (which costs more than the row's work for one example: about 1.3 us for eight
    arguments); the dispatcher itself when there is none (no JIT, a Python wrapper)."""
    try:
        sig = tuple(kernel.typeof_pyval(a) for a in args)
        return kernel.overloads[sig].entry_point
    except (AttributeError, KeyError, TypeError, ValueError):
        return kernel


def _register():
    """Put :class:`KernelCacheLocator` first among numba's locators (once: a reload of
    this module replaces the earlier class)."""
    classes = _CacheImpl._locator_classes
    classes[:] = [c for c in classes if c.__qualname__ != KernelCacheLocator.__qualname__
                  or c.__module__ != __name__]
    classes.insert(0, KernelCacheLocator)


_register()
