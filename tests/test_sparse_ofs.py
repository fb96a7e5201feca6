"""Online feature selection (OFS, Wang, Zhao, Hoi, Jin 2014) against an eager numpy
reference: full inputs (binary and the multiclass column extension) and the
partial-input variant with the same random generator; at most B non-zero weights
after every row."""
import math

import numpy as np
import pytest

from olearn.sparse import OFSClassifier

from test_sparse import sparse_stream, with_constant

MASK48 = (1 << 48) - 1


class Drand48:
    """drand48's generator: x <- (0x5DEECE66D x + 11) mod 2^48, u = x / 2^48."""

    def __init__(self, seed):
        self.x = ((seed * 2654435761 + 0x330E) & MASK48) or 1

    def __call__(self):
        self.x = (0x5DEECE66D * self.x + 11) & MASK48
        return self.x / 2.0 ** 48


def truncate_columns(W, B):
    """Keep the B columns of largest norm (the lowest-numbered first on ties)."""
    q = (W * W).sum(axis=0)
    nz = np.flatnonzero(q)
    if len(nz) <= B:
        return W
    order = sorted(nz, key=lambda i: (-q[i], i))
    out = np.zeros_like(W)
    out[:, order[:B]] = W[:, order[:B]]
    return out


def ref_ofs(X, y, K, B, eta, lam, partial=False, eps=0.0, seed=0):
    """The paper's algorithms as written, O(d) per row; returns scores and W."""
    Xc = with_constant(X)
    n, d = Xc.shape
    W = np.zeros((K, d))
    seen = np.zeros(K, dtype=bool)
    rng = Drand48(seed)
    scores = np.zeros((n, K))
    nnz = []
    for t in range(n):
        x = Xc[t]
        supp = (W != 0).any(axis=0)
        if partial:
            if rng() < eps:
                obs = np.zeros(d, dtype=bool)
                for j in range(d - min(B, d), d):  # Floyd's sample of B features
                    c = min(int(rng() * (j + 1)), j)
                    if obs[c]:
                        c = j
                    obs[c] = True
            else:
                obs = supp
            x = np.where(obs, x, 0.0)
        r = W @ x
        scores[t] = r
        if K == 1:
            c = {0: 1.0 if y[t] == 1 else -1.0}
            violated = c[0] * r[0] <= 1.0
        else:
            yi = int(y[t])
            seen[yi] = True
            others = [k for k in range(K) if k != yi and seen[k]]
            s = max(others, key=lambda k: (r[k], -k)) if others else None
            violated = s is not None and r[yi] - r[s] <= 1.0
            c = {yi: 1.0, s: -1.0}
        if not partial:
            W *= 1.0 - lam * eta
        if violated:
            if partial:
                x = x / ((min(B, d) / d) * eps + np.where(supp, 1.0 - eps, 0.0))
                x[~obs] = 0.0
            for k, ck in c.items():
                W[k] += eta * ck * x
            norm = np.linalg.norm(W)
            if norm * math.sqrt(lam) > 1.0:
                W /= norm * math.sqrt(lam)
            W = truncate_columns(W, B)
        nnz.append(np.count_nonzero((W != 0).any(axis=0)))
    return scores, W, nnz


@pytest.mark.parametrize("K,partial", [(2, False), (3, False), (2, True)],
                         ids=["binary", "multiclass", "partial"])
def test_ofs_equals_the_eager_algorithm_and_keeps_b_features(K, partial):
    X, y = sparse_stream(n=150, d=40, nnz=6, K=K, seed=21 + K)
    B = 5
    m = OFSClassifier(n_selected=B, eta=0.3, lam=0.05, partial=partial, epsilon=0.3,
                      random_state=4, shuffle=False)
    s = m.predict_learn(X, y, return_scores=True).reshape(len(y), -1)
    W = np.hstack([m.intercept_.reshape(-1, 1), m.coef_.reshape(s.shape[1], -1)])
    s_ref, W_ref, nnz = ref_ofs(X, y, 1 if K == 2 else K, B, 0.3, 0.05, partial, 0.3,
                                seed=4)
    np.testing.assert_allclose(s, s_ref, rtol=0, atol=1e-10)
    np.testing.assert_allclose(W, W_ref, rtol=0, atol=1e-10)
    assert max(nnz) == B  # the budget is used, never exceeded (reference)
    assert np.count_nonzero(np.abs(W).sum(axis=0)) <= B


def test_at_most_b_nonzeros_after_every_row():
    X, y = sparse_stream(n=120, d=50, nnz=8, seed=30)
    B = 7
    m = OFSClassifier(n_selected=B, eta=0.5, lam=0.01)
    for row, yi in zip(X.toarray(), y):
        m.learn_one(row, yi)
        assert m.n_nonzero_ + int(m.intercept_[0] != 0) <= B
    assert m.n_nonzero_ >= B - 1


@pytest.mark.parametrize("bad", [dict(n_selected=0), dict(n_selected=2.5),
                                 dict(lam=1.0, eta=2.0), dict(epsilon=1.5)])
def test_ofs_bad_hyper_parameters(bad):
    X, y = sparse_stream(n=5)
    with pytest.raises(ValueError):
        OFSClassifier(**bad).fit(X, y)
