"""Compiled kernels (numpy + numba only).

Importing this package points numba's on-disk cache at a folder keyed on a hash of
numba's version and of every olearn source file that holds compiled code (the files
that import numba).  numba checks on its own only the file that holds a cached entry
point (``declare.py`` for every learner); a rule inlined from a learner file would
otherwise be served stale after an edit.
The base folder is ``$NUMBA_CACHE_DIR`` when set, else ``$OLEARN_CACHE_DIR``, else the
platform cache folder (``$XDG_CACHE_HOME/olearn`` or ``~/.cache/olearn``).
"""
import hashlib
import os
from pathlib import Path

import numba
from numba.core import config as _numba_config

_PACKAGE = Path(__file__).resolve().parent.parent


def _source_hash():
    h = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        text = path.read_bytes()
        if b"from numba" in text or b"import numba" in text:
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(text)
    return h.hexdigest()[:16]


def cache_dir():
    """The folder where this version of olearn keeps its compiled kernels."""
    base = (os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("OLEARN_CACHE_DIR")
            or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "olearn")
    return str(Path(base) / f"numba-{_source_hash()}")


_numba_config.CACHE_DIR = cache_dir()
