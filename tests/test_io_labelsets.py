"""Label sets in LIBSVM and Vowpal Wabbit text (olearn.io.labelsets): against
scikit-learn's multilabel svmlight reader, the single-label readers on the same
features, and the real multilabel sets written out as LIBSVM multilabel lines."""
import numpy as np
import pytest
import scipy.sparse as sp

from conftest import data_path
from olearn.io import (DataFormatError, load_libsvm_multilabel, load_vw, load_vw_multilabel,
                       read_arff, read_libsvm_multilabel, read_vw_multilabel)


def _random_file(path, n=300, d=40, L=9, seed=0):
    rng = np.random.default_rng(seed)
    lines, sets = [], []
    for i in range(n):
        labels = tuple(sorted(rng.choice(L, rng.integers(0, 4), replace=False).tolist()))
        cols = np.sort(rng.choice(d, rng.integers(0, 6), replace=False)) + 1
        feats = " ".join(f"{c}:{rng.normal():.6g}" for c in cols)
        lead = ",".join(map(str, labels)) if labels else ("" if i % 2 else " ")
        line = (lead + " " + feats if lead.strip() else lead + feats)
        if not line.strip():
            line = ",".join(map(str, labels)) or " 1:0"   # (a row must show itself)
        lines.append(line)
        sets.append(labels)
        if i % 50 == 7:
            lines.append("# a comment")
    path.write_text("\n".join(lines) + "\n")
    return sets


def test_libsvm_multilabel_equals_scikit_learn(tmp_path):
    from sklearn.datasets import load_svmlight_file
    f = tmp_path / "m.svm"
    sets = _random_file(f)
    X, got = load_libsvm_multilabel(f)
    Xs, ys = load_svmlight_file(str(f), multilabel=True, zero_based=False,
                                n_features=X.shape[1])
    assert got == sets and [tuple(int(v) for v in t) for t in ys] == sets
    assert abs(X - Xs).max() == 0 and X.shape == Xs.shape
    parts = list(read_libsvm_multilabel(f, chunk_size=37, n_features="grow"))
    assert [s for p in parts for s in p[1]] == sets
    stacked = sp.vstack([sp.csr_matrix((p[0].data, p[0].indices, p[0].indptr),
                                       shape=(p[0].shape[0], X.shape[1])) for p in parts])
    assert abs(stacked - X).max() == 0


def test_libsvm_multilabel_bases_and_streams(tmp_path):
    import io
    f = tmp_path / "z.svm"
    f.write_text("1,2 0:1 3:2\n 1:5\n7\n")
    X, sets = load_libsvm_multilabel(f)
    assert sets == [(1, 2), (), (7,)] and X.shape == (3, 4)
    assert X.toarray()[0].tolist() == [1, 0, 0, 2]
    X2, sets2 = load_libsvm_multilabel(io.BytesIO(b"1,2 1:1\n3 2:1\n"))
    assert sets2 == [(1, 2), (3,)] and X2.toarray().tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize("body, match", [
    ("1,2 1:1\n1,x 2:1\n", r"b\.svm:2: label set '1,x' is not comma-separated"),
    ("1,2 1:1\n\n3 1:y\n", r"b\.svm:3: value of feature 1 'y' is not a number"),
    ("1,,2 1:1\n", r"b\.svm:1: label set"),
])
def test_libsvm_multilabel_errors_name_file_and_line(tmp_path, body, match):
    f = tmp_path / "b.svm"
    f.write_text(body)
    with pytest.raises(DataFormatError, match=match):
        load_libsvm_multilabel(f)


def test_vw_multilabel_and_costs_read_the_features_as_vw_does(tmp_path):
    body = ["1,2 |f a b:2", "'t|g c", "3 'x|f a", "0,1,1 |f d |g e:0.5"]
    f = tmp_path / "m.vw"
    f.write_text("\n".join(body) + "\n")
    X, sets = load_vw_multilabel(f, n_bits=10)
    assert sets == [(1, 2), (), (3,), (0, 1)]
    plain = tmp_path / "p.vw"   # the same features under a plain label
    plain.write_text("1 |f a b:2\n1 't|g c\n1 'x|f a\n1 |f d |g e:0.5\n")
    Xp, _ = load_vw(plain, n_bits=10)
    assert abs(X - Xp).max() == 0
    c = tmp_path / "c.vw"
    c.write_text("1:0.5 2:1 |f a\n|f b\n2:0 3:1.5 'q|f c\n")
    X, costs = load_vw_multilabel(c, costs=True, n_bits=10)
    assert costs == [{1: 0.5, 2: 1.0}, {}, {2: 0.0, 3: 1.5}] and X.shape == (3, 1024)
    chunks = list(read_vw_multilabel(c, costs=True, n_bits=10, chunk_size=2))
    assert [s for p in chunks for s in p[1]] == costs


@pytest.mark.parametrize("costs, body, match", [
    (False, "1 |f a\n1 2 |f b\n", r"v\.vw:2: a multilabel line has one label field"),
    (False, "1 |f a\n1 f a\n", r"v\.vw:2: no '\|'"),
    (True, "1:0 2:x |f a\n", r"v\.vw:1: cost-sensitive label '2:x' is not label:cost"),
    (True, "1:0 |f a\n1:1 1:2 |f a\n", r"v\.vw:2: label 1 has two costs"),
])
def test_vw_multilabel_errors_name_file_and_line(tmp_path, costs, body, match):
    f = tmp_path / "v.vw"
    f.write_text(body)
    with pytest.raises(DataFormatError, match=match):
        load_vw_multilabel(f, costs=costs, n_bits=8)


@pytest.mark.parametrize("name", ["Music.arff", "Enron.arff.bz2"])
def test_real_sets_as_libsvm_multilabel_lines(tmp_path, name):
    X, Y, _ = read_arff(data_path("multilabel", name))
    X = sp.csr_matrix(X)
    lines = []
    for i in range(X.shape[0]):
        row = X[i]
        feats = " ".join(f"{j + 1}:{float(v)!r}" for j, v in zip(row.indices, row.data))
        labels = ",".join(str(j) for j in np.flatnonzero(Y[i]))
        lines.append(f"{labels} {feats}" if labels else f" {feats}")
    f = tmp_path / "real.svm"
    f.write_text("\n".join(lines) + "\n")
    got, sets = load_libsvm_multilabel(f, n_features=X.shape[1], zero_based=False)
    assert abs(got - X).max() == 0
    assert sets == [tuple(np.flatnonzero(r).tolist()) for r in Y]
