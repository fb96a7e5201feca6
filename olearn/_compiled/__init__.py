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

The cache is relocatable: inside the folder, one sub-folder per package folder named by
its path in the package (``olearn.linear``), never by its absolute path, and each
function's source stamp is a hash of its file's content, not its time stamp; so kernels
compiled by another copy of the same sources (a build folder, another checkout) are
valid here.  ``pip install .`` ships such kernels inside the package
(``olearn/_kernels/numba-<key>``, built by :mod:`olearn.cli._ship`): the first
olearn kernel looked up in a process copies those the cache folder lacks into it
(:func:`adopt_shipped`), so a fresh install starts with its main job's kernels compiled.

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

__all__ = ["cache_dir", "shipped_dir", "adopt_shipped", "njit", "KernelCacheLocator",
           "entry_point"]

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


def shipped_dir():
    """The folder of the kernels built with the installed package for these sources
    (present only when the install built them: :mod:`olearn.cli._ship`)."""
    return str(_PACKAGE / "_kernels" / f"numba-{_source_hash()}")


#: the file of a shipped folder that names the CPU its kernels were built for
CPU_FILE = "CPU"

_ADOPTED: set = set()


def adopt_shipped(dest=None):
    """Copy the shipped kernels (:func:`shipped_dir`) that the cache folder ``dest``
    (default :func:`cache_dir`) lacks into it, once per process and folder; returns the
    number of files copied.  Kernels built for a generic CPU (``OLEARN_BUILD_KERNELS=
    generic``) are filed under this machine's CPU as they are copied: code for the
    generic CPU of this architecture runs on every one of its CPUs.  Never raises: a
    folder that cannot be read or written only means compiling on first use."""
    dest = dest or cache_dir()
    if dest in _ADOPTED:
        return 0
    _ADOPTED.add(dest)
    copied = 0
    try:
        src = _shipped_source()
        if src is None:
            return 0
        cpu = (src / CPU_FILE).read_text().split() if (src / CPU_FILE).exists() else []
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if path.is_dir() or rel.name == CPU_FILE:
                continue
            target = Path(dest) / rel
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            if cpu[:1] == ["generic"] and path.suffix == ".nbi":
                data = _refile_index(data)
            tmp = target.with_name(f"{target.name}.tmp.{os.getpid()}")
            tmp.write_bytes(data)
            os.replace(tmp, target)  # (atomic: another process may adopt at once)
            copied += 1
    except Exception:  # noqa: BLE001 (only a lost speed-up: numba compiles instead)
        return copied
    return copied


def _shipped_source():
    """The shipped folder for these sources: this copy's, else (a checkout run from its
    folder after ``pip install .``: CI's tests) the installed copy's when its sources
    are the same (the same folder name: the same key)."""
    own = Path(shipped_dir())
    if own.is_dir():
        return own
    import sys
    for entry in sys.path:   # (a few stats: importlib.metadata would take 30 ms)
        other = Path(entry or ".") / "olearn" / "_kernels" / own.name
        if other.is_dir() and other.resolve() != own.resolve():
            return other
    return None


def _host_cpu():
    """numba's code generator's key of this machine: (triple, CPU name, features)."""
    from numba.core.registry import cpu_target
    return cpu_target.target_context.codegen().magic_tuple()


def _refile_index(data):
    """A numba cache index whose entries were built for the generic CPU, its entries
    filed under this machine's CPU (numba keys each entry on (signature, CPU, code))."""
    import io
    import pickle

    from numba.core.serialize import dumps
    f = io.BytesIO(data)
    version = pickle.load(f)
    stamp, overloads = pickle.loads(f.read())
    host = _host_cpu()
    overloads = {(sig, host if magic[1] == "generic" else magic, code): name
                 for (sig, magic, code), name in overloads.items()}
    out = io.BytesIO()
    pickle.dump(version, out, protocol=-1)
    out.write(dumps((stamp, overloads)))
    return out.getvalue()


@functools.lru_cache(maxsize=None)
def _content_stamp(path, mtime, size):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


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
    lays out ``NUMBA_CACHE_DIR``, but named by the folder's path in the package and
    stamped by content (module docstring: a relocatable cache)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        base = cache_dir()
        self._cache_path = os.path.join(base, self.get_suitable_cache_subpath(py_file))
        adopt_shipped(base)

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        st = os.stat(self._py_file)
        return _content_stamp(self._py_file, st.st_mtime, st.st_size)

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        """``olearn.linear`` for a file of olearn/linear: the same in every copy."""
        folder = Path(py_file).resolve().parent.relative_to(_PACKAGE)
        return ".".join(("olearn",) + folder.parts)

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
