"""Embedded datasets and seeded generators: shapes, labels, determinism, stated
properties (margin, radius, flip rate, the seed book's layouts)."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn.datasets as ds
from olearn.datasets import embedded


@pytest.mark.parametrize("name, shape, task", [
    ("breast_cancer", (569, 30), "binary"), ("diabetes", (442, 10), "regression"),
    ("digits", (1797, 64), "multiclass"), ("iris", (150, 4), "multiclass"),
    ("wine", (178, 13), "multiclass")])
def test_embedded_loaders(name, shape, task):
    X, y = ds.EMBEDDED[name]()
    assert X.shape == shape and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (shape[0],)
    assert embedded.TASKS[name] == task
    n_labels = len(np.unique(y))
    assert (n_labels == 2) if task == "binary" else (n_labels > 2)
    Xs, ys = ds.load_embedded(name, scale="minmax")
    assert np.array_equal(ys, y)
    assert Xs.min() == 0.0 and Xs.max() == 1.0
    assert np.all((Xs >= 0) & (Xs <= 1))


def test_embedded_errors():
    with pytest.raises(KeyError, match="unknown embedded dataset"):
        ds.load_embedded("nope")
    with pytest.raises(ValueError, match="scale"):
        ds.load_breast_cancer(scale="z")


def test_breast_cancer_labels_as_given():
    X, y = ds.load_breast_cancer()
    assert set(np.unique(y)) == {0, 1}
    assert (y == 0).sum() == 212                  # malignant


def test_sparse_stream_properties():
    X, y = ds.make_sparse_stream(n_samples=2000, n_features=1000, nnz=40, flip=0.05,
                                 random_state=3)
    assert sp.issparse(X) and X.format == "csr"
    assert X.shape == (2000, 1000) and X.dtype == np.float64
    assert X.has_canonical_format and X.indices.dtype == np.int32
    assert np.all(np.diff(X.indptr) == 40)
    # strictly increasing column indices inside each row: sorted, no duplicates
    cols = X.indices.reshape(2000, 40)
    assert np.all(np.diff(cols, axis=1) > 0) and cols.max() < 1000
    assert set(np.unique(y)) == {-1.0, 1.0}
    X2, y2 = ds.make_sparse_stream(n_samples=2000, n_features=1000, nnz=40, flip=0.05,
                                   random_state=3)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)
    _, y3 = ds.make_sparse_stream(n_samples=2000, n_features=1000, random_state=4)
    assert not np.array_equal(y, y3)


def test_sparse_stream_flips_exactly():
    X, y = ds.make_sparse_stream(n_samples=4000, n_features=500, nnz=10, flip=0.05,
                                 random_state=1)
    _, clean = ds.make_sparse_stream(n_samples=4000, n_features=500, nnz=10, flip=0.0,
                                     random_state=1)
    # same seed, same draws before the flip: exactly 5% of the labels differ
    assert (y != clean).sum() == 200
    with pytest.raises(ValueError, match="nnz"):
        ds.make_sparse_stream(n_samples=10, n_features=5, nnz=6)


def test_two_gaussians_layout():
    X, y = ds.make_two_gaussians(n=2000, random_state=1)
    assert X.shape == (2000, 2) and (y == 1).sum() == 1000
    assert abs(X[y == 1, 0].mean() + 5) < 0.15 and abs(X[y == -1, 0].mean() - 5) < 0.15
    assert abs(X[:, 1].std() - 5) < 0.3 and abs(X[y == 1, 0].std() - 1) < 0.1
    X2, y2 = ds.make_two_gaussians(n=2000, random_state=1)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    Xo, yo = ds.make_two_gaussians(n=10, random_state=1, shuffle=False)
    assert np.array_equal(yo, [1] * 5 + [-1] * 5)
    with pytest.raises(ValueError, match="even"):
        ds.make_two_gaussians(n=7)


def test_outlier_gaussians_has_two_outliers():
    X, y = ds.make_outlier_gaussians(n=50, random_state=2, shuffle=False)
    assert X.shape == (50, 2)
    pos = X[y == 1, 0]
    # the two moved positives sit near -5, inside the negative class
    assert np.all(np.abs(pos[:2] + 5) < 4) and np.all(pos[2:] < -10)
    assert np.all(np.abs(X[y == -1, 0] + 5) < 5)
    Xs, ys = ds.make_outlier_gaussians(n=50, random_state=2)
    assert sorted(map(tuple, Xs)) == sorted(map(tuple, X))


@pytest.mark.parametrize("d", [1, 2, 20])
def test_separable_margin_and_radius(d):
    X, y, w = ds.make_separable(n=500, d=d, margin=0.2, radius=2.0, random_state=d)
    assert np.isclose(np.linalg.norm(w), 1.0)
    m = y * (X @ w)
    assert np.isclose(m.min(), 0.2, atol=1e-12)
    assert np.isclose(np.linalg.norm(X, axis=1).max(), 2.0, atol=1e-12)
    assert np.all(m >= 0.2 - 1e-12)
    X2, y2, w2 = ds.make_separable(n=500, d=d, margin=0.2, radius=2.0, random_state=d)
    assert np.array_equal(X, X2) and np.array_equal(w, w2)


def test_separable_perceptron_within_novikoff():
    from olearn.linear import Perceptron
    X, y, _ = ds.make_separable(n=3000, d=5, margin=0.25, radius=1.0, random_state=0)
    model = Perceptron(fit_intercept=False)
    for _ in range(20):
        model.partial_fit(X, y)
    assert model.n_updates_ <= (1.0 / 0.25) ** 2
    assert np.all(model.predict(X) == y)


def test_registry_names_are_lazy():
    assert "load" in dir(ds) and "make_separable" in ds.__all__
    with pytest.raises(AttributeError):
        ds.not_a_dataset
