"""Compiled kernels (numpy + numba only).

Importing this package points numba's on-disk cache at a folder keyed on a hash of this
folder's sources and numba's version.  numba checks on its own only the file that holds
a cached entry point; code inlined from elsewhere (the shared driver and helpers here)
would otherwise be served stale after an edit.  So every inline helper shared between
learner files lives in this folder, and a learner's own rule lives in the file of its
entry points.
The base folder is ``$NUMBA_CACHE_DIR`` when set, else ``$OLEARN_CACHE_DIR``, else the
platform cache folder (``$XDG_CACHE_HOME/olearn`` or ``~/.cache/olearn``).
"""
import hashlib
import os
from pathlib import Path

import numba
from numba.core import config as _numba_config

_HERE = Path(__file__).resolve().parent


def _source_hash():
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir():
    """The folder where this version of olearn keeps its compiled kernels."""
    base = (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("OLEARN_CACHE_DIR")
            or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn")
    return str(Path(base) / f"numba-{_source_hash()}")


_numba_config.CACHE_DIR = cache_dir()
