"""olearn's kernel cache is relocatable, and the kernels shipped with a package are used.

A kernel compiled by one copy of the package (a build folder, another checkout) is a
cache hit for another copy of the same sources, whatever their paths and time stamps;
kernels moved into a copy's ``olearn/_kernels/numba-<key>`` (what ``pip install .``
builds: :mod:`olearn.cli._ship`) are adopted into an empty cache folder, and those
built for a generic CPU are filed under this machine's CPU as they are.  Each check runs
fresh processes (numba's own hit and miss counts of the kernel)."""
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: one small kernel of the package, called once; prints numba's hits and misses of it
#: and the compile seconds olearn counted
CALL = """
    import numpy as np
    from olearn import _compile_notice
    from olearn._compiled import finite
    k = finite.extreme_row
    assert k(np.array([0, 1], dtype=np.int64), np.array([1e40]), 1.0)
    print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()),
          _compile_notice.seconds() > 0)
"""


def _copy_package(dest):
    """A copy of the olearn package under ``dest`` with new time stamps."""
    shutil.copytree(REPO / "olearn", dest / "olearn", copy_function=shutil.copyfile,
                    ignore=shutil.ignore_patterns("__pycache__", "_kernels"))
    later = time.time() + 100
    for path in (dest / "olearn").rglob("*.py"):
        os.utime(path, (later, later))


def _call(root, cache, *after, **extra):
    """Run CALL with the copy ``root`` of olearn imported (``after``: more folders on
    the path behind it)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "OLEARN_CACHE"))}
    env.update(PYTHONPATH=os.pathsep.join(map(str, (root, *after))),
               NUMBA_CACHE_DIR=str(cache), **extra)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CALL)], env=env,
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    base = tmp_path_factory.mktemp("copies")
    for name in ("a", "b"):
        _copy_package(base / name)
    return base


def test_a_kernel_compiled_by_one_copy_is_a_hit_for_another(copies, tmp_path):
    cache = tmp_path / "cache"
    assert _call(copies / "a", cache) == ["0", "1", "True"]       # compiled
    assert _call(copies / "b", cache) == ["1", "0", "False"]      # loaded, not compiled
    subs = [p.name for p in next(cache.iterdir()).iterdir()]
    assert subs == ["olearn._compiled"]                           # no absolute path in it


def test_shipped_generic_kernels_are_adopted_and_hit(copies, tmp_path):
    built = tmp_path / "built"
    assert _call(copies / "a", built, NUMBA_CPU_NAME="generic") == ["0", "1", "True"]
    (key,) = list(built.iterdir())
    (key / "CPU").write_text("generic\n")
    shipped = copies / "b" / "olearn" / "_kernels"
    shutil.copytree(key, shipped / key.name)
    try:
        fresh = tmp_path / "fresh"
        assert _call(copies / "b", fresh) == ["1", "0", "False"]  # adopted, refiled, hit
        assert list(fresh.rglob("finite.extreme_row*.nbi"))
        assert not list(fresh.rglob("CPU"))
        assert _call(copies / "b", fresh) == ["1", "0", "False"]
        # a checkout without kernels, an installed copy of the same sources behind it on
        # the path (CI's tests after `pip install .`): the installed copy's are adopted
        assert _call(copies / "a", tmp_path / "other", copies / "b") == ["1", "0", "False"]
    finally:
        shutil.rmtree(shipped)


def test_a_damaged_shipped_index_only_means_compiling(copies, tmp_path):
    built = tmp_path / "built"
    _call(copies / "a", built)
    (key,) = list(built.iterdir())
    (key / "CPU").write_text("generic\n")
    for index in key.rglob("*.nbi"):
        index.write_bytes(b"not an index")
    shipped = copies / "b" / "olearn" / "_kernels"
    shutil.copytree(key, shipped / key.name)
    try:
        assert _call(copies / "b", tmp_path / "fresh") == ["0", "1", "True"]
    finally:
        shutil.rmtree(shipped)
