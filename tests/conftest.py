"""Shared test helpers: where the real datasets live.

The real data of ``../shared/data`` (relative to the repository root) is pointed at,
never copied; ``OLEARN_DATA_MIRROR`` overrides the folder.  Tests that need a file
skip cleanly when it is absent::

    def test_on_a9a(data_dir):               # the folder, or skip
        path = data_dir / "a9a" / "a9a"

    path = data_path("a9a", "a9a")             # a file, or skip (usable in helpers)
"""
import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def data_root():
    """The real-data folder (``$OLEARN_DATA_MIRROR`` or ``../shared/data``), or None."""
    root = Path(os.environ.get("OLEARN_DATA_MIRROR") or REPO.parent / "shared" / "data")
    if not root.is_absolute():
        root = (REPO / root).resolve()
    return root if root.is_dir() else None


def data_path(*parts):
    """Path of a file under the real-data folder; skips the calling test when absent."""
    root = data_root()
    if root is None:
        pytest.skip("real-data folder not found (set OLEARN_DATA_MIRROR or provide "
                    "../shared/data)")
    path = root.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"data file {'/'.join(parts)} not found under {root}")
    return path


@pytest.fixture
def data_dir():
    """The real-data folder as a Path; skips the test when it is absent."""
    root = data_root()
    if root is None:
        pytest.skip("real-data folder not found (set OLEARN_DATA_MIRROR or provide "
                    "../shared/data)")
    return root


def weights(model):
    """The current iterate ``w`` of a linear learner, materialised.  The lazy-state
    contract: ``state_["W"]`` is in units of the scale ``s = A[0, 5]`` (0 before the
    first row, read as 1), folded only when it leaves [1e-3, 1e3]."""
    W = model.state_["W"]
    A = model.state_.get("A")
    if A is None or A.ndim != W.ndim or A.shape[-1] < 6 or A[..., 0, 2].max() == 0:
        return W
    return A[..., 0:1, 5:6] * W


#: the default ``intercept_scaling`` of PA, OGD and COCOB classifiers
CLF = 0.1


def with_intercept(X, c=1.0):
    """``X`` with the constant column ``c`` olearn puts in front when ``fit_intercept``
    (``c`` is the learner's ``intercept_scaling``: ``CLF`` for the PA, OGD and COCOB
    classifiers, 1 for the others)."""
    return np.hstack([np.full((X.shape[0], 1), c), X])


def close(actual, expected, rtol=1e-10):
    """Equal to ``rtol``, relative to the largest expected magnitude (at least 1)."""
    expected = np.asarray(expected)
    np.testing.assert_allclose(actual, expected, rtol=rtol,
                               atol=rtol * max(1.0, float(np.abs(expected).max())))


#: the line the command line prints when kernels compile (a cold cache)
NOTICE = "olearn: compiling "


def run_cli(capsys, *argv):
    """``olearn ARGV`` in this process: exit code, stdout, and stderr less the compile
    notice."""
    from olearn.cli import main
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    err = "".join(line + "\n" for line in err.splitlines() if not line.startswith(NOTICE))
    return rc, out, err
