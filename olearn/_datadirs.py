"""Where olearn looks for data files that a user put there by hand, in this order:

1. the folder given as ``mirror=`` to a loader;
2. ``$OLEARN_DATA_MIRROR``;
3. the user's data folder, :func:`user_data_dir`: ``$OLEARN_DATA_DIR``, else
   ``$XDG_DATA_HOME/olearn`` or ``~/.local/share/olearn`` on Linux,
   ``~/Library/Application Support/olearn`` on macOS, ``%APPDATA%/olearn`` on Windows;
4. in a source checkout only (never an installed package, whose ``site-packages``
   has no such folder), the ``shared/data`` folder beside the checkout.

Each folder is laid out like the project's shared data folder (``a9a/a9a``,
``movielens100k/ml-100k.inter``, ``portfolio/djia.csv``, ...).  Downloads go to the
cache folder instead (``olearn.datasets.data_home``).
"""
import os
import sys
from pathlib import Path


def user_data_dir():
    """The user's own data folder (see the module docstring); it need not exist."""
    if os.environ.get("OLEARN_DATA_DIR"):
        return Path(os.environ["OLEARN_DATA_DIR"]).expanduser()
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "olearn"
    if os.name == "nt":
        return Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "olearn"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "olearn"


def checkout_data_dir():
    """``shared/data`` beside a source checkout of olearn, or None for an installed
    package (a folder under ``site-packages``/``dist-packages``)."""
    package = Path(__file__).resolve().parent
    if any(part in ("site-packages", "dist-packages") for part in package.parts):
        return None
    return package.parent.parent / "shared" / "data"


def data_roots(mirror=None):
    """The folders searched for a data file, in order (existing or not)."""
    roots = [Path(r).expanduser() for r in (mirror, os.environ.get("OLEARN_DATA_MIRROR"))
             if r]
    roots.append(user_data_dir())
    checkout = checkout_data_dir()
    if checkout is not None:
        roots.append(checkout)
    out = []
    for r in roots:
        if r not in out:
            out.append(r)
    return out


def find(relative, mirror=None):
    """The first ``root / relative`` that is a file, or None."""
    return next((r / relative for r in data_roots(mirror) if (r / relative).is_file()), None)


def named(name):
    """The data-folder file that a bare ``name`` (no folder in it, e.g. ``a9a`` or
    ``a9a.t``) likely means -- ``ROOT/a9a/a9a``, ``ROOT/a9a/a9a.t`` or ``ROOT/name`` --
    or None.  For the command line's hint on a missing file, never a silent substitute."""
    if not name or os.sep in name or "/" in name:
        return None
    stem = name.split(".", 1)[0]
    for root in data_roots():
        for path in (root / name / name, root / stem / name, root / name):
            if path.is_file():
                return path
    return None
