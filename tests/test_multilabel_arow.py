"""AROW on label ranking (``ml-arow``, olearn/multilabel/arow.py; issue 42 item 2's
second-order form) against a plain numpy loop of its equations (the worst pair of
Crammer et al. 2006 section 6, AROW's step and diagonal precision update of Crammer,
Kulesza, Dredze 2009) on random rows (dense, sparse, weighted, labels met late) and on
Music, then the generic checks."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.io import read_arff
from olearn.multilabel import MultilabelAROW

from conftest import data_path
from generic_multilabel import check_multilabel


def reference(X, Y, r=1.0, constant=1.0, first=None, sw=None):
    """Row by row: (W, V after, the pre-update scores s_j - s_v)."""
    X = X.toarray() if sp.issparse(X) else X
    n, d = X.shape
    L = Y.shape[1]
    W, V = np.zeros((L + 1, d + 1)), np.ones((L + 1, d + 1))
    first = np.full(L, -1) if first is None else first
    out = np.zeros((n, L))
    for i in range(n):
        z = np.r_[constant, X[i]]
        s = W @ z
        out[i] = np.where(first < i, s[1:] - s[0], 0.0)
        h = 1.0 if sw is None else sw[i]
        known = first <= i
        R = np.flatnonzero(known & (Y[i] == 1))
        S = np.flatnonzero(known & (Y[i] == 0))
        pairs = []   # (a, b): rows of W, label j is row j + 1, the threshold row 0
        if len(R) and len(S):
            pairs.append((R[np.argmin(s[R + 1])] + 1, S[np.argmax(s[S + 1])] + 1))
        if len(R):
            pairs.append((R[np.argmin(s[R + 1])] + 1, 0))
        if len(S):
            pairs.append((0, S[np.argmax(s[S + 1])] + 1))
        if not pairs or h == 0:
            continue
        a, b = min(pairs, key=lambda p: s[p[0]] - s[p[1]])
        m = s[a] - s[b]
        if m >= 1.0:
            continue
        v = z @ (V[a] * z) + z @ (V[b] * z)
        alpha = (1.0 - m) / (v + r / h)
        Va, Vb = V[a].copy(), V[b].copy()
        W[a] += alpha * Va * z
        W[b] -= alpha * Vb * z
        V[a] = 1.0 / (1.0 / Va + z * z * h / r)
        V[b] = 1.0 / (1.0 / Vb + z * z * h / r)
    return W, V, out


def _data(n=90, d=6, L=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) > 0.6] = 0.0
    Y = (X[:, :L] + 0.5 * rng.standard_normal((n, L)) > 0.3).astype(np.int8)
    return X, Y


@pytest.mark.parametrize("sparse", [False, True])
def test_arow_equals_the_numpy_loop(sparse):
    X, Y = _data()
    for r, scale in ((1.0, 1.0), (0.1, 0.5), (10.0, 2.0)):
        W, V, S = reference(X, Y, r=r, constant=scale)
        m = MultilabelAROW(r=r, intercept_scaling=scale)
        got = m.predict_learn(sp.csr_matrix(X) if sparse else X, Y, return_scores=True)
        np.testing.assert_allclose(got, S, rtol=0, atol=1e-10)
        np.testing.assert_allclose(m.W_, W, rtol=0, atol=1e-10)
        np.testing.assert_allclose(m.V_, V, rtol=1e-12, atol=0)
        Z = np.c_[np.full(len(X), scale), X]
        np.testing.assert_array_equal(m.predict(X), (Z @ (W[1:] - W[0]).T > 0).astype(int))


def test_weights_labels_met_late_and_no_intercept():
    X, Y = _data(seed=3)
    rng = np.random.default_rng(4)
    h = rng.uniform(0.0, 2.0, len(X))
    h[::7] = 0.0
    W, V, S = reference(X, Y, sw=h)
    m = MultilabelAROW()
    np.testing.assert_allclose(m.predict_learn(X, Y, return_scores=True, sample_weight=h),
                               S, rtol=0, atol=1e-10)
    np.testing.assert_allclose(m.W_, W, rtol=0, atol=1e-10)
    Y[:20, 1] = 0
    Y[:40, 3] = 0
    sets = [np.flatnonzero(y).tolist() for y in Y]
    first = np.array([min(i for i, s in enumerate(sets) if j in s) for j in range(4)])
    W, V, S = reference(X, Y, constant=0.0, first=first)
    m = MultilabelAROW(fit_intercept=False)
    np.testing.assert_allclose(m.predict_learn(X, sets, return_scores=True), S, rtol=0,
                               atol=1e-10)
    np.testing.assert_allclose(m.V_, V, rtol=1e-12, atol=0)


def test_music_against_the_reference():
    X, Y, _ = read_arff(data_path("multilabel", "Music.arff"))
    X = X[:300] / np.abs(X).max(axis=0).clip(1e-12)
    W, V, S = reference(X, Y[:300], r=2.0)
    m = olearn.make("ml-arow", r=2.0)
    np.testing.assert_allclose(m.predict_learn(X, Y[:300], return_scores=True), S,
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(m.W_, W, rtol=0, atol=1e-9)


def test_bad_r_is_refused():
    X, Y = _data(n=5)
    with pytest.raises(ValueError, match="r"):
        MultilabelAROW(r=0.0).partial_fit(X, Y)


RNG = np.random.default_rng(5)
GX = RNG.normal(size=(60, 5)) * (RNG.random((60, 5)) < 0.7)
GY = (GX[:, :3] + 0.4 * RNG.normal(size=(60, 3)) > 0.1).astype(np.int8)


def test_the_generic_checks(tmp_path):
    check_multilabel(lambda: olearn.make("ml-arow"), GX, GY, tmp_path)


def test_mix_means_the_rows_and_takes_the_least_variance():
    """Halves with different labels: W the count-weighted mean on the union of labels,
    V the least variance of each entry (1 where a member lacks the label)."""
    X, Y = _data(n=80, seed=8)
    sets = [np.flatnonzero(y).tolist() for y in Y]
    a = MultilabelAROW().partial_fit(X[:50], [[v for v in s if v != 2] for s in sets[:50]])
    b = MultilabelAROW().partial_fit(X[50:], sets[50:])
    mixed = olearn.mix([a, b])
    ra = [0] + [1 + int(np.searchsorted(b.classes_, c)) for c in a.classes_]
    W = 30 / 80 * b.W_
    W[ra] += 50 / 80 * a.W_
    V = b.V_.copy()
    V[ra] = np.minimum(V[ra], a.V_)
    np.testing.assert_allclose(mixed.W_, W, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(mixed.V_, V)
    assert 2 not in a.classes_ and mixed.classes_.tolist() == b.classes_.tolist()
