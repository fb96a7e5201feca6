"""Dense batches reach the kernels as CSR in chunks of rows (``olearn._rows.run_chunks``):
one compiled specialisation for dense and CSR input, results bit for bit those of the
same rows as CSR with every column, and of one chunk, a divergence named at its row."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import _rows
from olearn.anomaly import UniclassPA
from olearn.base import DivergenceError
from olearn.cluster import KMeans


def _data(n=90, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.4] = 0.0   # zeros, which the chunks keep as entries
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def _every_column(X):
    """``X`` as CSR with every entry explicit (zeros included): the dense rows' view."""
    n, d = X.shape
    return sp.csr_matrix((X.ravel().copy(), np.tile(np.arange(d), n),
                          np.arange(0, n * d + 1, d)), shape=(n, d))


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 3 rows of 7 columns: every batch below crosses many boundaries."""
    monkeypatch.setattr(_rows, "CHUNK_ENTRIES", 21)


def _same(a, b):
    assert a.n_updates_ == b.n_updates_ and a.t_ == b.t_
    for k in a.state_:
        np.testing.assert_array_equal(a.state_[k], b.state_[k], err_msg=k)


@pytest.mark.parametrize("name", ["pa1", "arow", "ogd", "ftrl", "kernel-pa"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_chunked_dense_equals_csr_of_every_column(small_chunks, name, fit_intercept):
    X, y = _data()
    ym = y + (X[:, 1] > 0.5)              # three classes: the seen classes cross chunks
    for labels in (y, ym):
        models = [olearn.make(name, fit_intercept=fit_intercept) for _ in range(3)]
        out = [models[0].predict_learn(X, labels, return_scores=True),
               models[1].predict_learn(_every_column(X), labels, return_scores=True)]
        _rows.CHUNK_ENTRIES = 1 << 16     # (the fixture puts it back): one chunk
        out.append(models[2].predict_learn(X, labels, return_scores=True))
        _rows.CHUNK_ENTRIES = 21
        for m, o in zip(models[1:], out[1:]):
            _same(models[0], m)
            np.testing.assert_array_equal(out[0][1], o[1])
            np.testing.assert_array_equal(out[0][0], o[0])
        want = models[2].decision_function(X)   # (one chunk: the scorers' chunks too)
        _rows.CHUNK_ENTRIES = 1 << 16
        np.testing.assert_array_equal(models[0].decision_function(X), want)
        _rows.CHUNK_ENTRIES = 21


def test_chunked_scorers_and_grids(small_chunks):
    X, y = _data(seed=1)
    for make in (UniclassPA, lambda: KMeans(n_clusters=3, random_state=0)):
        a, b = make(), make()
        a.partial_fit(X)
        b.partial_fit(_every_column(X))
        _same(a, b)
        np.testing.assert_array_equal(a.batch_scores(X), b.batch_scores(_every_column(X)))
    g, h = (olearn.grid("pa1", C=[0.1, 1.0]) for _ in range(2))
    g.partial_fit(X, y)
    h.partial_fit(_every_column(X), y)
    for e, f in zip(g.estimators_, h.estimators_):
        _same(e, f)


@pytest.mark.parametrize("row", [16, 17])   # inside chunk 6 (rows 15-17), and its last
def test_divergence_in_a_later_chunk_names_its_row(small_chunks, row):
    X, y = _data(n=30, seed=2)
    X[row] = 1e160
    y[:] = 1
    y[0] = 0                               # (a mistake on row 0 first: weights of 1e150)
    for rows in (X, _every_column(X)):
        m = olearn.make("perceptron", eta=1e150)
        with pytest.raises(DivergenceError) as err:
            m.partial_fit(rows, y, classes=[0, 1])
        assert (err.value.where, err.value.row) == ("batch", row)


CHILD = r"""
import numpy as np, scipy.sparse as sp, olearn
from olearn.base import BINARY
X = np.random.default_rng(0).standard_normal((40, 5)); y = np.arange(40) % 2
out = []
for fit_intercept in (True, False):
    m = olearn.make("pa1", fit_intercept=fit_intercept)
    m.partial_fit(X, y, classes=[0, 1])
    m.partial_fit(sp.csr_matrix(X), y)
    out.append(len(m.kernels[BINARY].signatures))
print(out)
"""


def test_dense_and_csr_compile_one_specialisation():
    """In a fresh process (a dispatcher's signatures are per process): a dense batch
    and its CSR form take the entry point's one specialisation (two: with and without
    an intercept)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "[1, 2]"
