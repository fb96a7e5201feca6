"""olearn.decomposition: IncrementalSVD against numpy's SVD (exact without truncation,
any block size, rank growth, forgetting = weighted rows, truncation close to the batch
truncated SVD), OnlinePCA against scikit-learn's PCA on the data seen so far, Oja's rule
converging to the top subspace, save/load, bad input."""
import numpy as np
import pytest
from sklearn.decomposition import PCA

from conftest import data_path
from olearn.decomposition import IncrementalSVD, OnlinePCA
from olearn.persistence import load, save


def up_to_sign(A, B, atol):
    """Rows of A equal rows of B up to each row's sign."""
    s = np.sign(np.sum(A * B, axis=1))
    np.testing.assert_allclose(A * s[:, None], B, atol=atol)


@pytest.mark.parametrize("block_size", [1, 4, 100, 1000])
def test_isvd_exact_without_truncation(block_size):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(80, 9)) * np.linspace(3, 0.5, 9)
    m = IncrementalSVD(rank=9, block_size=block_size)
    for a in range(0, 80, 13):                         # several partial_fit calls
        m.partial_fit(A[a:a + 13])
    _, S, Vt = np.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose(m.singular_values_, S, atol=1e-8)
    up_to_sign(m.components_, Vt, 1e-8)
    np.testing.assert_allclose(m.inverse_transform(m.transform(A)), A, atol=1e-8)
    assert m.n_samples_seen_ == 80
    np.testing.assert_allclose(m.components_ @ m.components_.T, np.eye(9), atol=1e-10)


def test_isvd_rank_grows_only_with_new_directions():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(50, 3)) @ rng.normal(size=(3, 12))      # rank 3
    m = IncrementalSVD(rank=6, block_size=1)
    m.partial_fit(A[:1])
    assert m.rank_ == 1
    m.partial_fit(A[1:])
    assert m.rank_ == 3
    np.testing.assert_allclose(m.singular_values_, np.linalg.svd(A, compute_uv=False)[:3],
                               atol=1e-8)
    np.testing.assert_allclose(m.inverse_transform(m.transform(A)), A, atol=1e-8)


def test_isvd_forgetting_is_a_weighted_svd():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(30, 5))
    f = 0.9
    m = IncrementalSVD(rank=5, forget=f, block_size=4).fit(A)
    w = f ** np.arange(29, -1, -1.0)                # the newest row has weight 1
    S = np.linalg.svd(A * w[:, None], compute_uv=False)
    np.testing.assert_allclose(m.singular_values_, S, atol=1e-8)
    one = IncrementalSVD(rank=5, forget=f, block_size=1).fit(A)
    np.testing.assert_allclose(one.singular_values_, S, atol=1e-8)


def test_isvd_truncated_close_to_batch():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(400, 5)) @ rng.normal(size=(5, 40)) + 0.05 * rng.normal(size=(400, 40))
    m = IncrementalSVD(rank=5).fit(A)
    assert m.rank_ == 5
    U, S, Vt = np.linalg.svd(A, full_matrices=False)
    batch = np.linalg.norm(A - (U[:, :5] * S[:5]) @ Vt[:5])
    online = np.linalg.norm(A - m.inverse_transform(m.transform(A)))
    assert online <= 1.05 * batch
    np.testing.assert_allclose(m.singular_values_, S[:5], rtol=1e-2)


def test_isvd_movielens_rows():
    data = np.loadtxt(data_path("movielens100k", "ml-100k.inter"), skiprows=1)
    R = np.zeros((943, 1682))
    R[data[:, 0].astype(int) - 1, data[:, 1].astype(int) - 1] = data[:, 2]
    R = R[:100]
    m = IncrementalSVD(rank=100, block_size=30).fit(R)      # no truncation: exact
    np.testing.assert_allclose(m.singular_values_, np.linalg.svd(R, compute_uv=False),
                               rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("block_size", [1, 3, 100])
def test_online_pca_equals_sklearn_pca_on_data_seen(block_size):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 6)) @ rng.normal(size=(6, 6)) + 5.0
    m = OnlinePCA(n_components=6, block_size=block_size)
    for a in range(0, 120, 25):
        m.partial_fit(X[a:a + 25])
        seen = X[:a + 25]
        p = PCA(n_components=6, svd_solver="full").fit(seen)
        np.testing.assert_allclose(m.mean_, p.mean_, atol=1e-10)
        np.testing.assert_allclose(m.explained_variance_, p.explained_variance_,
                                   rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(m.explained_variance_ratio_, p.explained_variance_ratio_,
                                   atol=1e-8)
        up_to_sign(m.components_, p.components_, 1e-8)
        np.testing.assert_allclose(np.abs(m.transform(seen)), np.abs(p.transform(seen)),
                                   atol=1e-7)


def test_online_pca_truncated_and_oja_find_the_top_subspace():
    rng = np.random.default_rng(5)
    basis = np.linalg.qr(rng.normal(size=(10, 2)))[0]
    X = (rng.normal(size=(4000, 2)) * [5.0, 2.0]) @ basis.T + 0.3 * rng.normal(size=(4000, 10))
    p = PCA(n_components=2).fit(X)
    for m in (OnlinePCA(2).fit(X), OnlinePCA(2, method="oja", random_state=0).fit(X)):
        cos = np.abs(np.diag(m.components_ @ p.components_.T))
        assert cos.min() > 0.999 if m.method == "svd" else cos.min() > 0.99
        np.testing.assert_allclose(m.explained_variance_, p.explained_variance_, rtol=0.05)
        np.testing.assert_allclose(m.mean_, p.mean_, atol=1e-10)
        np.testing.assert_allclose(m.explained_variance_ratio_, p.explained_variance_ratio_,
                                   atol=0.02)


def test_oja_against_reference_loop():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 4)) @ rng.normal(size=(4, 4))
    m = OnlinePCA(2, method="oja", learning_rate=0.5, random_state=1)
    m.partial_fit(X[:20]).partial_fit(X[20:])
    W = np.linalg.qr(np.random.RandomState(1).normal(size=(4, 2)))[0]
    mean = np.zeros(4)
    for t, x in enumerate(X, start=1):
        mean += (x - mean) / t
        z = x - mean
        W = W + 0.5 / t * np.outer(z, z @ W)
        for c in range(2):                                  # Gram-Schmidt, in order
            W[:, c] -= W[:, :c] @ (W[:, :c].T @ W[:, c])
            W[:, c] /= np.linalg.norm(W[:, c])
    got = {tuple(np.round(np.abs(c), 8)) for c in m.components_}
    assert got == {tuple(np.round(np.abs(c), 8)) for c in W.T}
    np.testing.assert_allclose(m.mean_, X.mean(axis=0), atol=1e-12)


@pytest.mark.parametrize("cls, params", [(IncrementalSVD, dict(rank=3)),
                                         (OnlinePCA, dict(n_components=2)),
                                         (OnlinePCA, dict(n_components=2, method="oja",
                                                          random_state=0))])
def test_save_load_round_trip(cls, params, tmp_path):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 5))
    a = cls(**params).partial_fit(X[:20])
    a.save(tmp_path / "m.olearn")
    b = load(tmp_path / "m.olearn")
    save(cls(**params), tmp_path / "empty.olearn")          # unfitted: saves, loads unfitted
    assert not hasattr(load(tmp_path / "empty.olearn"), "n_features_in_")
    assert b.get_params() == a.get_params()
    np.testing.assert_array_equal(b.transform(X), a.transform(X))
    a.partial_fit(X[20:])
    b.partial_fit(X[20:])
    np.testing.assert_array_equal(b.components_, a.components_)


def test_bad_input():
    with pytest.raises(ValueError, match="rank must be a positive integer"):
        IncrementalSVD(rank=0).partial_fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="forget must be"):
        IncrementalSVD(forget=1.5).partial_fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="method must be one of"):
        OnlinePCA(method="eig").partial_fit(np.ones((2, 2)))
    with pytest.raises(ValueError, match="n_components=3 exceeds"):
        OnlinePCA(3).partial_fit(np.ones((2, 2)))
    m = IncrementalSVD(rank=2).fit(np.eye(3))
    with pytest.raises(ValueError, match="3 features"):
        m.partial_fit(np.ones((1, 4)))
    with pytest.raises(ValueError, match="expected coordinates"):
        m.inverse_transform(np.ones((1, 3)))
