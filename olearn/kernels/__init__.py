"""Compiled kernels (numpy + numba only).

Importing this package points numba's on-disk cache at a folder keyed on a hash of
olearn's sources and numba's version, so that editing any kernel (including the shared
driver, whose changes numba's own cache would not notice) never loads stale machine code.
The base folder is ``$NUMBA_CACHE_DIR`` when set, else ``$OLEARN_CACHE_DIR``, else the
platform cache folder (``$XDG_CACHE_HOME/olearn`` or ``~/.cache/olearn``).
"""
import hashlib
import os
from pathlib import Path

import numba
from numba.core import config as _numba_config

_PKG = Path(__file__).resolve().parents[1]


def _source_hash():
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_PKG.rglob("*.py")):
        h.update(str(path.relative_to(_PKG)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir():
    """The folder where this version of olearn keeps its compiled kernels."""
    base = (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("OLEARN_CACHE_DIR")
            or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn")
    return str(Path(base) / f"numba-{_source_hash()}")


_numba_config.CACHE_DIR = cache_dir()
