"""``load_libsvm``'s one-pass read (``libsvm._load_direct``) against the older loader
it replaced (``libsvm._load_exact``) and against scikit-learn's ``load_svmlight_file``:
the same ``(X, y)`` (dense equality, and bit for bit against the older loader: arrays,
dtypes, width, canonical flag), and the same ``file:line`` errors."""
import io
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.io import DataFormatError, libsvm, load_libsvm
from olearn.io._source import Source
from test_io_libsvm_direct import _random_file

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR")
            or Path(__file__).resolve().parents[2] / "shared" / "data")


def _old(path, n_features=None, zero_based="auto", dtype=np.float64):
    n_features, dtype = libsvm._check_args(1, n_features, zero_based, dtype)
    n_features = None if isinstance(n_features, str) else n_features
    return libsvm._load_exact(Source(path), n_features, zero_based, dtype)


def _identical(a, b):
    (X1, y1), (X2, y2) = a, b
    assert X1.shape == X2.shape and X1.dtype == X2.dtype
    for u, v in ((X1.indptr, X2.indptr), (X1.indices, X2.indices), (y1, y2)):
        assert u.dtype == v.dtype and np.array_equal(u, v)
    assert np.array_equal(X1.data.view(f"i{X1.data.itemsize}"),
                          X2.data.view(f"i{X2.data.itemsize}"))   # bit for bit
    assert X1.has_canonical_format and X2.has_canonical_format
    X3 = X2.copy()
    X3.has_canonical_format = False   # the flag is true of the arrays
    X3.sum_duplicates()
    assert np.array_equal(X3.indices, X2.indices) and X3.nnz == X2.nnz


def _no_fallback(monkeypatch):
    """Make a fall back to the older loader fail the test."""
    def refuse(*args):
        raise AssertionError("load_libsvm fell back to _load_exact")
    monkeypatch.setattr(libsvm, "_load_exact", refuse)


@pytest.mark.parametrize("zero_based", [False, True])
def test_one_pass_load_equals_the_older_loader(tmp_path, monkeypatch, zero_based):
    rng = np.random.default_rng(11 + zero_based)
    old_exact = libsvm._load_exact
    monkeypatch.setattr(libsvm, "_LOAD_LINES", 37)   # many blocks, parsed two at a time
    for trial in range(4):
        text = _random_file(rng, int(rng.integers(1, 400)), zero_based)
        path = tmp_path / f"f{trial}.svm"
        path.write_bytes(text.encode())
        for kw in ({}, {"n_features": 60}, {"zero_based": zero_based},
                   {"dtype": np.float32}, {"zero_based": zero_based, "n_features": 41}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # float32's overflow
                with monkeypatch.context() as m:
                    m.setattr(libsvm, "_load_exact", old_exact)
                    expected = _old(path, **kw)
                with monkeypatch.context() as m:
                    _no_fallback(m)
                    _identical(load_libsvm(path, **kw), expected)
                    if "n_features" not in kw:   # (streams: "auto" and a width: older)
                        _identical(load_libsvm(io.BytesIO(text.encode()), **kw), expected)


def test_a_crafted_file_equals_scikit_learn_and_the_older_loader(tmp_path, monkeypatch):
    """Decoys of the grammar that both readers accept: signs, exponents, 17-digit and
    longer numbers, the extremes of float64, explicit zeros, qid, comments, blank lines,
    CRLF, tabs, rows without features, a last line without a newline (scikit-learn
    refuses unsorted or repeated indices: those are against the older loader, above and
    below)."""
    from sklearn.datasets import load_svmlight_file
    lines = ["+1 qid:4 1:-2.5 3:0.5 7:1e-3",
             "-1",
             "",
             "# a comment line",
             "2.5 2:0 5:-0.0 6:0.1234567890123456789  # tail 9:9",
             "-1.0e0\t4:+7 8:12345678901234567\r",
             "1 " + " ".join(f"{i}:{(-1) ** i * i / 7!r}" for i in range(1, 9)),
             "0 1:1.7976931348623157e308 2:5e-324 3:2.2250738585072014e-308",
             "3 2:1E+2 8:.5"]
    text = "\n".join(lines)
    path = tmp_path / "crafted.svm"
    path.write_bytes(text.encode())
    expected = _old(path)
    Xs, ys = load_svmlight_file(str(path))
    decoys = tmp_path / "decoys.svm"   # unsorted, repeated (summed, to zero), zeros
    decoys.write_bytes(b"1 3:1 1:-2.5 3:0.5 7:1e-3\n-1 4:+7 4:-7 2:0 8:1\n2 5:1 5:1\n")
    expected_decoys = _old(decoys)
    monkeypatch.setattr(libsvm, "_LOAD_LINES", 3)
    _no_fallback(monkeypatch)
    X, y = load_libsvm(path)
    _identical((X, y), expected)
    assert X.shape == Xs.shape == (7, 8)
    np.testing.assert_array_equal(X.toarray(), Xs.toarray())
    np.testing.assert_array_equal(y, ys)
    _identical(load_libsvm(decoys), expected_decoys)
    np.testing.assert_array_equal(load_libsvm(decoys)[0].toarray(),
                                  [[-2.5, 0, 1.5, 0, 0, 0, 1e-3, 0],
                                   [0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 2, 0, 0, 0]])


def test_a9a_equals_scikit_learn_and_the_older_loader(tmp_path, monkeypatch):
    from sklearn.datasets import load_svmlight_file
    path = DATA / "a9a" / "a9a"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    expected = _old(path)
    Xs, ys = load_svmlight_file(str(path))
    _no_fallback(monkeypatch)
    X, y = load_libsvm(path)
    _identical((X, y), expected)
    assert X.shape == Xs.shape == (32561, 123)
    np.testing.assert_array_equal(X.toarray(), Xs.toarray())
    np.testing.assert_array_equal(y, ys)
    # blocks joined: a9a three times over, in blocks of 50,000 lines, as read in one
    big = tmp_path / "a9a3.svm"
    big.write_bytes(path.read_bytes() * 3)
    X3, y3 = load_libsvm(big)
    _identical((X3, y3), (sp.vstack([X] * 3, format="csr"), np.concatenate([y] * 3)))


@pytest.mark.parametrize("text, kw", [
    ("1 1:1\n1 2:1 0:3\n", {"zero_based": False}),         # index 0, 1-based
    ("1 1:1\n\n# c\n1 2:1 9:3\n", {"n_features": 5}),      # past the width
    ("1 0:1\n\n# c\n1 2:1 5:3\n", {"n_features": 5}),      # past it once 0-based
    ("1 3:1\n1 2147483648:1\n", {}),                       # past int32
    ("1 3:1\n1 2:x\n", {}),                                # not a number
    ("1 3:1\r\n1 -2:1\r\n", {"zero_based": True}),         # negative
    ("1 3:1\n1 3:1 1:nan\n1 9:1\n", {"n_features": 4}),     # two faults: the older order
])
def test_faults_are_the_older_loaders(tmp_path, text, kw):
    path = tmp_path / "bad.svm"
    path.write_bytes(text.encode())
    with pytest.raises(DataFormatError) as old:
        _old(path, **kw)
    with pytest.raises(DataFormatError) as new:
        load_libsvm(path, **kw)
    assert str(new.value) == str(old.value) and new.value.line == old.value.line
    import gzip   # a compressed file: read as bytes, not mapped, read again all the same
    packed = tmp_path / "bad.svm.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(DataFormatError) as compressed:
        load_libsvm(packed, **kw)
    assert str(compressed.value) == str(old.value).replace(str(path), str(packed))
    # a stream cannot be read again: its first fault, as its lines come
    if not ("n_features" in kw and kw.get("zero_based", "auto") == "auto"):
        with pytest.raises(DataFormatError) as streamed:
            load_libsvm(io.BytesIO(text.encode()), **kw)
        assert str(streamed.value).replace("<stream>", str(path)) == str(old.value)


def test_a_block_the_one_pass_parse_refuses_is_read_exactly(tmp_path, monkeypatch):
    """``1_0`` (Python's float() reads 10) and a 70-byte number are beyond parse_csr:
    their block goes by the exact parsers, the others by the one pass, joined."""
    long = "1." + "0" * 68
    text = "1 1:2\n" * 3 + f"1 1:1_0 2:{long}\n" + "-1 3:4\n" * 3
    path = tmp_path / "odd.svm"
    path.write_bytes(text.encode())
    expected = _old(path)
    monkeypatch.setattr(libsvm, "_LOAD_LINES", 2)
    _no_fallback(monkeypatch)
    _identical(load_libsvm(path), expected)
    assert load_libsvm(path)[0][3].toarray().tolist() == [[10.0, 1.0, 0.0]]


# ----------------------------------------------------------------- load_vw, load_csv
def test_load_vw_equals_the_stacked_chunks(tmp_path, monkeypatch):
    from olearn.io import load_vw, read_vw
    from olearn.io import vw
    from test_io_vw import random_lines
    data = random_lines(np.random.default_rng(3), 300)
    path = tmp_path / "d.vw"
    path.write_bytes(data)
    monkeypatch.setattr(vw, "_LOAD_LINES", 41)   # blocks joined
    for kw in ({}, {"n_bits": 12, "quadratic": ["ab"], "cubic": ["aab"], "ignore": "c"}):
        parts = list(read_vw(path, chunk_size=7, sample_weight=True, **kw))
        X, y, w = load_vw(path, sample_weight=True, **kw)
        Xr = sp.vstack([p[0] for p in parts], format="csr")
        assert X.shape == Xr.shape and X.has_canonical_format
        assert np.array_equal(X.indptr, Xr.indptr) and np.array_equal(X.indices, Xr.indices)
        assert np.array_equal(X.data, Xr.data)
        np.testing.assert_array_equal(y, np.concatenate([p[1] for p in parts]))
        np.testing.assert_array_equal(w, np.concatenate([p[2] for p in parts]))
        X2, y2 = load_vw(io.BytesIO(data), **kw)
        assert (X2 != X).nnz == 0 and np.array_equal(y2, y, equal_nan=True)
    empty = tmp_path / "e.vw"
    empty.write_bytes(b"\n\n")
    X, y = load_vw(empty, n_bits=4)
    assert X.shape == (0, 16) and y.shape == (0,)
    bad = tmp_path / "bad.vw"
    bad.write_bytes(b"1 |a x\n" * 50 + b"yes |a x\n")
    with pytest.raises(DataFormatError, match=rf"^{bad}:51: label 'yes'"):
        load_vw(bad)


def test_load_csv_of_a_mapped_file_equals_its_stream(tmp_path):
    from olearn.io import load_csv
    text = ("\ufeffa,b,label\n1,2,ham\n\n3.5,-4e-3,spam\n" + "7,8,ham\n" * 30
            + '"9",10,spam\n1,2,ham')
    path = tmp_path / "m.csv"
    path.write_bytes(text.encode())
    X, y = load_csv(path)
    X2, y2 = load_csv(io.BytesIO(text.encode()))
    np.testing.assert_array_equal(X, X2)
    assert y.tolist() == y2.tolist() and y[:2].tolist() == ["ham", "spam"]
    assert X.shape == (34, 2) and X[-2].tolist() == [9, 10]


def test_the_registrys_dense_files_read_by_the_csv_reader(tmp_path):
    """``olearn.datasets.load``'s dense mirror files (USPS: ``label v1 .. vd``) go
    through ``load_csv``'s compiled parse; a line of another length or a value that is
    not a number is named by its line, as before."""
    from olearn.datasets.registry import _read_dense_label_first
    path = tmp_path / "dense.txt"
    path.write_bytes(b"3 0.5 -1\n\n 0  1e-3 2 \n")
    X, y = _read_dense_label_first(path, 2, label_offset=1.0)
    assert sp.issparse(X) and X.shape == (2, 2)
    np.testing.assert_array_equal(X.toarray(), [[0.5, -1], [1e-3, 2]])
    np.testing.assert_array_equal(y, [4, 1])
    for text, line, reason in [(b"1 2 3\n1 2\n", 2, "expected a label and 2 values, found 2"),
                               (b"1 2\n", 1, "expected a label and 2 values, found 2"),
                               (b"x 1 2\n", 1, "not a number"),
                               (b"1 2 3\n1 2 z\n", 2, "not a number")]:
        path.write_bytes(text)
        with pytest.raises(DataFormatError, match=reason) as info:
            _read_dense_label_first(path, 2, label_offset=1.0)
        assert info.value.line == line and info.value.path == str(path)
