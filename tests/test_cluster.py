"""Online k-means (``olearn.cluster.KMeans``, registered as ``kmeans``) against a plain
numpy loop of MacQueen's update (1967), on dense, CSR and dict rows; its state on the
protocol for rows without a target (save/load with more clusters than features, mix,
tags)."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cluster import KMeans
from olearn.persistence import ModelFileError


def macqueen(X, k, w=None):
    """The reference: centres, counts and each row's nearest centre before its update.
    The first k distinct rows found the centres; then the nearest centre (Euclidean,
    lowest index on ties) takes the row: n += w, c += (w / n) (x - c)."""
    n, d = X.shape
    C, N = np.zeros((k, d)), np.zeros(k)
    before = []
    for i in range(n):
        x = X[i]
        wi = 1.0 if w is None else w[i]
        dist = []
        for c in range(k):
            if N[c] > 0:
                s = 0.0
                for j in range(d):
                    s += (x[j] - C[c, j]) * (x[j] - C[c, j])
                dist.append(np.sqrt(s))
            else:
                dist.append(np.inf)
        best = int(np.argmin(dist))
        before.append(best)
        if wi == 0.0:
            continue
        if N[best] == 0 or dist[best] > 0:
            unset = np.flatnonzero(N == 0)
            if len(unset):
                C[unset[0]] = x
                N[unset[0]] = wi
                continue
        N[best] += wi
        C[best] += (wi / N[best]) * (x - C[best])
    return C, N, np.array(before)


def _blobs(n=300, d=4, k=3, seed=0, sparse_frac=0.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(k, d))
    X = centres[rng.integers(k, size=n)] + rng.normal(size=(n, d))
    if sparse_frac:
        X[rng.random(X.shape) < sparse_frac] = 0.0
    return X


@pytest.mark.parametrize("k", [1, 3, 7])
def test_dense_equals_the_reference(k):
    X = _blobs(k=3)
    C, N, before = macqueen(X, k)
    m = KMeans(n_clusters=k)
    got = m.predict_learn(X)
    np.testing.assert_allclose(m.cluster_centers_, C, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.counts_, N)
    np.testing.assert_array_equal(got, before)
    np.testing.assert_array_equal(m.predict(X), np.argmin(
        ((X[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1))


def test_csr_and_dicts_equal_the_reference():
    X = _blobs(n=200, d=6, sparse_frac=0.5, seed=1)
    C, N, before = macqueen(X, 4)
    m = KMeans(n_clusters=4).partial_fit(sp.csr_matrix(X))
    np.testing.assert_allclose(m.cluster_centers_, C, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.counts_, N)
    d = KMeans(n_clusters=4)
    got = [d.predict_learn_one({f"f{j}": v for j, v in enumerate(row) if v})
           for row in X]
    # (a dict names only its non-zero features: columns arrive in the order met)
    order = [int(name[1:]) for name in d.vocabulary_.to_list()]
    np.testing.assert_allclose(d.cluster_centers_, C[:, order], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got, before)


def test_sample_weights_are_the_weighted_mean():
    X = _blobs(n=150, seed=2)
    w = np.random.default_rng(3).choice([0.0, 0.5, 1.0, 2.5], size=len(X))
    C, N, _ = macqueen(X, 3, w)
    m = KMeans(n_clusters=3).partial_fit(X, sample_weight=w)
    np.testing.assert_allclose(m.cluster_centers_, C, rtol=0, atol=1e-12)
    np.testing.assert_allclose(m.counts_, N, rtol=0, atol=1e-12)


def test_repeated_rows_do_not_found_a_second_centre():
    X = np.array([[1.0, 1.0], [1.0, 1.0], [5.0, 5.0], [9.0, 0.0]])
    m = KMeans(n_clusters=3).partial_fit(X)
    np.testing.assert_array_equal(m.counts_, [2, 1, 1])
    assert m.transform([[1.0, 1.0]]).shape == (1, 3)
    fresh = KMeans(n_clusters=3).partial_fit(X[:1])
    assert np.isinf(fresh.transform([[0.0, 0.0]])[0, 1:]).all()


def test_more_clusters_than_features_round_trips(tmp_path):
    X = _blobs(n=60, d=2, k=3)
    m = olearn.make("kmeans", n_clusters=3).partial_fit(X)
    m.save(tmp_path / "k.olearn")
    back = olearn.load(tmp_path / "k.olearn")
    np.testing.assert_array_equal(back.cluster_centers_, m.cluster_centers_)
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    back.partial_fit(X)
    m.partial_fit(X)
    np.testing.assert_array_equal(back.cluster_centers_, m.cluster_centers_)


def test_a_file_with_another_number_of_clusters_is_refused(tmp_path):
    m = KMeans(n_clusters=3).partial_fit(_blobs(n=30, d=2))
    meta, arrays = m.export_state()
    params = dict(m.get_params(), n_clusters=4)
    with pytest.raises(ValueError, match="state array C has shape"):
        KMeans.from_state(params, meta, arrays)


def test_learn_one_takes_dicts_and_the_vocabulary_grows():
    m = KMeans(n_clusters=2)
    m.learn_one({"a": 1.0})
    m.learn_one({"b": 2.0, "a": 1.0})
    m.learn_one({"c": -1.0})
    assert m.vocabulary_.to_list() == ["a", "b", "c"]
    # (b founds centre 1: it is at distance 2 from a; c is nearer a: (a + c) / 2)
    np.testing.assert_allclose(m.cluster_centers_, [[0.5, 0.0, -0.5], [1.0, 2.0, 0.0]])
    assert m.predict_one({"a": 1.0}) == 0
    assert m.score_one({"a": 1.0}) == np.sqrt(0.5)


def test_changing_n_clusters_after_learning_is_refused_until_fit():
    X = _blobs(n=30)
    m = KMeans(n_clusters=3).partial_fit(X)
    m.set_params(n_clusters=4)
    with pytest.raises(ValueError, match="n_clusters 3 -> 4"):
        m.partial_fit(X)
    assert m.fit(X).cluster_centers_.shape == (4, 4)


def test_bad_parameters_are_one_line_errors():
    for bad in (0, 2.5, True, None):
        with pytest.raises(ValueError, match="n_clusters must be a positive integer"):
            KMeans(n_clusters=bad).partial_fit(np.ones((3, 2)))


def test_mix_matches_clusters_and_weighs_centres_by_counts():
    rng = np.random.default_rng(5)
    centres = np.array([[10.0, 0, 0], [0, 10.0, 0], [0, 0, 10.0]])
    X = centres[np.arange(400) % 3] + rng.normal(size=(400, 3))
    a = KMeans(n_clusters=3).partial_fit(X[:200])
    b = KMeans(n_clusters=3).partial_fit(X[200:][::-1])  # another first-met order
    mixed = olearn.mix([a, b])
    perm = [int(np.argmin(((b.cluster_centers_ - c) ** 2).sum(axis=1)))
            for c in a.cluster_centers_]
    assert sorted(perm) == [0, 1, 2]
    Na, Nb = a.counts_, b.counts_[perm]
    want = (Na[:, None] * a.cluster_centers_ + Nb[:, None] * b.cluster_centers_[perm]) \
        / (Na + Nb)[:, None]
    np.testing.assert_allclose(mixed.cluster_centers_, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(mixed.counts_, Na + Nb)
    assert mixed.t_ == 400
    np.testing.assert_array_equal(a.counts_, KMeans(n_clusters=3).partial_fit(
        X[:200]).counts_)  # the members are unchanged


def test_tags_and_river_shape():
    t = olearn.tags(KMeans())
    assert t.target == "none" and t.sparse_input and t.one_example
    assert KMeans()._supervised is False
    assert olearn.tags(olearn.make("pa1")).target == "label"
    assert olearn.tags(olearn.make("pa1-reg")).target == "value"
