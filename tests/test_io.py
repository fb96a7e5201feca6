"""Tests for olearn.io: LIBSVM and CSV readers, feature dicts."""

import bz2
import gzip
import io
import json
import lzma
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.io import (DataFormatError, Vocabulary, dicts_to_csr, hash_dicts, load_csv,
                       load_libsvm, read_csv, read_libsvm)

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")


def data_file(relative):
    path = DATA / relative
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


def write(tmp_path, name, text, compress=None):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    opener = {None: None, "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[compress]
    path = tmp_path / name
    path.write_bytes(opener(raw) if opener else raw)
    return path


def stack(reader):
    parts = list(reader)
    return sp.vstack([p[0] for p in parts], format="csr"), np.concatenate([p[1] for p in parts])


def assert_same(a, b):
    (Xa, ya), (Xb, yb) = a, b
    assert Xa.shape == Xb.shape
    assert (Xa != Xb).nnz == 0
    np.testing.assert_array_equal(ya, yb)


# ---------------------------------------------------------------------------
# LIBSVM: round trips

def test_labels_in_every_spelling(tmp_path):
    path = write(tmp_path, "labels.svm", "+1 1:1\n1 1:1\n1.0 1:1\n-1 1:1\n-1.0 1:1\n2 1:1\n1e0 2:1\n")
    X, y = load_libsvm(path)
    np.testing.assert_array_equal(y, [1, 1, 1, -1, -1, 2, 1])
    assert y.dtype == np.float64
    assert X.shape == (7, 2)


def test_qid_comments_blank_lines_and_empty_rows(tmp_path):
    text = ("# a comment line\n"
            "1 qid:3 2:1.5 # trailing comment 9:9\n"
            "\n"
            "-1\n"
            "   \t \n"
            "2 qid:1 1:1 3:-2\n"
            "-1 # empty row with a comment\n")
    X, y = load_libsvm(write(tmp_path, "q.svm", text))
    np.testing.assert_array_equal(y, [1, -1, 2, -1])
    np.testing.assert_array_equal(X.toarray(), [[0, 1.5, 0], [0, 0, 0], [1, 0, -2], [0, 0, 0]])


def test_duplicates_summed_unsorted_sorted_zeros_dropped(tmp_path):
    X, _ = load_libsvm(write(tmp_path, "d.svm", "1 5:1 2:2 5:3 3:0\n0 4:1 1:-1\n"))
    np.testing.assert_array_equal(X.toarray(), [[0, 2, 0, 0, 4], [-1, 0, 0, 1, 0]])
    assert X.has_canonical_format
    assert X.nnz == 4
    assert X.dtype == np.float64


def test_values_in_many_spellings(tmp_path):
    tokens = ["1e-3", ".5", "-0", "+2.5", "1E5", "7", "-12.25e-2", "0.1", "123456789012345678"]
    text = "".join(f"1 {i + 1}:{t}\n" for i, t in enumerate(tokens))
    X, _ = load_libsvm(write(tmp_path, "v.svm", text))
    np.testing.assert_array_equal(X.toarray().diagonal(), [float(t) for t in tokens])


@pytest.mark.parametrize("token", ["1_0", "0x10", "infinity", "+.5", "5.", ".e1", "1e",
                                   "nan(1)", "1e400", "1.5.5", "1-2", "--1", "٣"])
def test_unusual_values_follow_float(tmp_path, token):
    path = write(tmp_path, "u.svm", f"1 1:2\n1 1:{token}\n")
    try:  # the reference: Python's float() on the bytes (ASCII digits only)
        expected = float(token.encode("utf-8"))
    except ValueError:
        expected = None
    if expected is None or not np.isfinite(expected):
        with pytest.raises(DataFormatError, match=f"^{path}:2: "):
            load_libsvm(path)
    else:
        X, _ = load_libsvm(path)
        assert X[1, 0] == expected


def test_zero_based_auto_and_explicit(tmp_path):
    zero = write(tmp_path, "zero.svm", "1 0:1 2:2\n-1 1:3\n")
    reader = read_libsvm(zero)
    assert reader.zero_based and reader.n_features == 3
    X, _ = load_libsvm(zero)
    np.testing.assert_array_equal(X.toarray(), [[1, 0, 2], [0, 3, 0]])
    one = write(tmp_path, "one.svm", "1 1:1 3:2\n-1 2:3\n")
    reader = read_libsvm(one)
    assert not reader.zero_based and reader.n_features == 3
    np.testing.assert_array_equal(load_libsvm(one)[0].toarray(), [[1, 0, 2], [0, 3, 0]])
    # Forcing 0-based on a 1-based file shifts the columns right by one.
    X, _ = load_libsvm(one, zero_based=True)
    np.testing.assert_array_equal(X.toarray(), [[0, 1, 0, 2], [0, 0, 3, 0]])
    for load in (load_libsvm, lambda p, **k: stack(read_libsvm(p, chunk_size=1, **k))):
        with pytest.raises(DataFormatError, match=f"^{zero}:1: feature index 0 .*zero_based=True"):
            load(zero, zero_based=False)


@pytest.mark.parametrize("compress", ["gz", "bz2", "xz"])
def test_compressed_files_by_suffix_and_by_content(tmp_path, compress):
    text = "1 1:0.5 4:2\n-1 2:1\n\n2 3:-1 # c\n"
    plain = load_libsvm(write(tmp_path, "p.svm", text))
    assert_same(load_libsvm(write(tmp_path, f"c.svm.{compress}", text, compress)), plain)
    # Magic bytes are enough: a compressed file without the suffix.
    odd = write(tmp_path, "noext.txt", text, compress)
    assert_same(stack(read_libsvm(odd, chunk_size=2)), plain)


def random_libsvm(rng, n_rows, n_features, decorate=True):
    lines = []
    for _ in range(n_rows):
        k = rng.integers(0, 6)
        idx = rng.choice(np.arange(1, n_features + 1), size=k)  # may repeat
        vals = np.round(rng.normal(size=k), 3)
        label = rng.choice(["+1", "-1", "1.0", "2", "-1.0"])
        line = " ".join([label] + [f"{i}:{v}" for i, v in zip(idx, vals)])
        if decorate and rng.random() < 0.1:
            line += "  # comment"
        lines.append(line)
        if decorate and rng.random() < 0.1:
            lines.append("")
    return "\n".join(lines) + "\n"


def dense_reference(text, n_features):
    """An independent, obvious parse of a (1-based) LIBSVM text."""
    rows, labels = [], []
    for line in text.splitlines():
        tokens = line.split("#")[0].split()
        if not tokens:
            continue
        labels.append(float(tokens[0]))
        row = np.zeros(n_features)
        for t in tokens[1:]:
            i, v = t.split(":")
            row[int(i) - 1] += float(v)
        rows.append(row)
    return np.array(rows), np.array(labels)


@pytest.mark.parametrize("chunk_size", [1, 2, 7, 10000])
def test_chunks_concatenate_to_the_whole(tmp_path, chunk_size):
    rng = np.random.default_rng(chunk_size)
    text = random_libsvm(rng, 60, 9)
    path = write(tmp_path, "r.svm", text)
    reader = read_libsvm(path, chunk_size=chunk_size, n_features=9)
    chunks = list(reader)
    assert all(X.shape[0] <= chunk_size and X.shape[1] == 9 for X, _ in chunks)
    assert all(X.has_canonical_format and X.shape[0] == len(y) for X, y in chunks)
    X, y = stack(reader)  # a path reader can be iterated again
    Xd, yd = dense_reference(text, 9)
    np.testing.assert_allclose(X.toarray(), Xd, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(y, yd)
    assert_same((X, y), load_libsvm(path, n_features=9))


def test_n_features_inferred_given_and_too_small(tmp_path):
    path = write(tmp_path, "n.svm", "1 3:1\n\n-1 17:1 2:1\n1 5:1\n")
    reader = read_libsvm(path)
    assert reader.n_features == 17
    assert load_libsvm(path)[0].shape == (3, 17)
    assert load_libsvm(path, n_features=40)[0].shape == (3, 40)
    assert all(X.shape[1] == 17 for X, _ in read_libsvm(path, chunk_size=1))
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path, n_features=10)
    assert str(info.value) == f"{path}:3: feature index 17 is out of range for n_features=10"
    with pytest.raises(DataFormatError, match=f"^{path}:3: "):
        list(read_libsvm(path, n_features=10, chunk_size=2))
    with pytest.raises(DataFormatError, match=f"^{path}:3: "):
        list(read_libsvm(path, n_features=16, zero_based=False))


MALFORMED = [
    ("abc 1:1", "label 'abc' is not a number"),
    ("nan 1:1", "label 'nan' is not finite"),
    ("1 abc:1", "feature index 'abc' is not an integer"),
    ("1 3.5:1", "feature index '3.5' is not an integer"),
    ("1 -3:1", "feature index '-3' is negative"),
    ("1 3", "feature '3' is not of the form index:value"),
    ("1 :3", "feature index '' is not an integer"),
    ("1 3:", "value of feature 3 '' is not a number"),
    ("1 3:x", "value of feature 3 'x' is not a number"),
    ("1 3:4:5", "value of feature 3 '4:5' is not a number"),
    ("1 34 3:4:5", "feature '34' is not of the form index:value"),
    ("1 3:nan", "value of feature 3 'nan' is not finite"),
    ("1 3:inf", "value of feature 3 'inf' is not finite"),
    ("1 3:-Infinity", "is not finite"),
    ("2:1 3:1", "label '2:1' is not a number"),
    ("1 99999999999999999999:1", "feature index 99999999999999999999 is too large"),
]


@pytest.mark.parametrize("bad, reason", MALFORMED)
def test_malformed_lines_name_file_and_line(tmp_path, bad, reason):
    text = "# header\n1 1:1\n\n" + bad + "\n-1 2:1\n"
    path = write(tmp_path, "bad.svm", text)
    for read in (lambda: load_libsvm(path),
                 lambda: list(read_libsvm(path, chunk_size=1)),
                 lambda: list(read_libsvm(path, n_features=5, zero_based=False)),
                 lambda: load_libsvm(io.BytesIO(text.encode()))):
        with pytest.raises(DataFormatError) as info:
            read()
        message = str(info.value)
        assert "\n" not in message
        assert message.startswith(f"{info.value.path}:4: ") and reason in message
        assert info.value.line == 4


def test_malformed_line_deep_in_a_large_file(tmp_path):
    good = "1 1:1 2:0.5\n" * 25000
    path = write(tmp_path, "deep.svm.gz", good + "1 2:x\n" + good, "gz")
    with pytest.raises(DataFormatError, match=rf"^{path}:25001: value of feature 2 'x'"):
        load_libsvm(path)
    with pytest.raises(DataFormatError, match=rf"^{path}:25001: "):
        for _ in read_libsvm(path, chunk_size=3000):
            pass


def test_file_level_errors(tmp_path):
    missing = tmp_path / "missing.svm"
    with pytest.raises(FileNotFoundError, match="missing.svm"):
        read_libsvm(missing)
    with pytest.raises(DataFormatError, match=f"^{tmp_path}: is a directory"):
        load_libsvm(tmp_path)
    fake = write(tmp_path, "fake.svm.gz", "1 1:1\n")
    with pytest.raises(DataFormatError, match=f"^{fake}: the name ends in .gz but"):
        load_libsvm(fake)
    corrupt = write(tmp_path, "corrupt.svm.gz", b"\x1f\x8b" + b"not gzip at all" * 10)
    with pytest.raises(DataFormatError, match=f"^{corrupt}: cannot decompress: the data is "
                       "corrupt"):
        load_libsvm(corrupt, n_features=3)
    whole = bz2.compress(("1 1:1\n" * 5000).encode())
    truncated = write(tmp_path, "cut.svm.bz2", whole[: len(whole) // 2])
    with pytest.raises(DataFormatError, match=f"^{truncated}: cannot decompress: the file is "
                       "truncated"):
        load_libsvm(truncated)
    # cut far into a file that compresses badly: not reported at line 1 (the whole first
    # piece fails to decompress), but as truncated, with the lines read before the piece
    rng = np.random.default_rng(0)
    text = "".join(f"{rng.choice([-1, 1])} " + " ".join(f"{j}:{v:.6f}" for j, v in
                                                         enumerate(rng.random(10), 1)) + "\n"
                   for _ in range(30000))
    packed = bz2.compress(text.encode())
    cut = write(tmp_path, "rnd.svm.bz2", packed[: int(len(packed) * 0.4)])
    with pytest.raises(DataFormatError, match=rf"^{cut}: cannot decompress: the file is "
                       r"truncated \(the lines before line [1-9][0-9,]+ were read\)$"):
        for _ in read_libsvm(cut, chunk_size=1000, n_features=10):
            pass
    binary = write(tmp_path, "image.svm", bytes(range(256)) * 4)
    with pytest.raises(DataFormatError, match=f"^{binary}:1: label"):
        load_libsvm(binary)


def test_error_message_is_one_line_and_picklable(tmp_path):
    import pickle
    path = write(tmp_path, "x.svm", "1 1:1\r\n1 2:a\r\n")
    with pytest.raises(DataFormatError) as info:
        load_libsvm(path)
    err = info.value
    assert str(err) == f"{path}:2: value of feature 2 'a' is not a number"
    assert (err.path, err.line) == (str(path), 2) and isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err)
    assert "\n" not in str(DataFormatError("a\nb", 3, "x\ny"))


def test_streams(tmp_path, monkeypatch):
    text = "1 1:1 3:2\n-1 2:3\n2 3:1\n"
    expected = load_libsvm(write(tmp_path, "s.svm", text))
    # A one-pass stream without n_features grows: each chunk as wide as the widest
    # index so far, the first chunk (rows 1-2) 3 wide here ...
    grown = list(read_libsvm(io.BytesIO(text.encode()), chunk_size=2))
    assert [X.shape[1] for X, _ in grown] == [3, 3]
    assert_same(stack(iter(grown)), expected)
    narrow = list(read_libsvm(io.BytesIO(b"1 1:1\n1 2:1\n1 5:2\n1 1:1\n"), chunk_size=2))
    assert [X.shape[1] for X, _ in narrow] == [2, 5]
    # ... and with n_features every chunk has that width.
    reader = read_libsvm(io.BytesIO(text.encode()), n_features=3, chunk_size=2)
    assert_same(stack(reader), expected)
    with pytest.raises(RuntimeError, match="only be read once"):
        list(reader)
    # ... text streams work too; load_libsvm infers everything.
    assert_same(stack(read_libsvm(io.StringIO(text), n_features=3)), expected)
    assert_same(load_libsvm(io.StringIO(text)), expected)
    # "auto" on a stream is 1-based and says how to read 0-based data.
    with pytest.raises(DataFormatError, match=r"^<stream>:2: feature index 0 .*zero_based=True"):
        list(read_libsvm(io.BytesIO(b"1 1:1\n1 0:1\n"), n_features=3))

    class Stdin:
        buffer = io.BytesIO(text.encode())
    monkeypatch.setattr(sys, "stdin", Stdin)
    assert_same(load_libsvm("-"), expected)


def test_empty_file(tmp_path):
    path = write(tmp_path, "empty.svm", "# nothing\n\n")
    assert list(read_libsvm(path)) == []
    X, y = load_libsvm(path, n_features=4)
    assert X.shape == (0, 4) and y.shape == (0,)


def test_float32_and_bad_arguments(tmp_path):
    path = write(tmp_path, "f.svm", "1 1:0.1\n")
    X, y = load_libsvm(path, dtype=np.float32)
    assert X.dtype == np.float32 and y.dtype == np.float64
    with pytest.raises(ValueError, match="chunk_size"):
        read_libsvm(path, chunk_size=0)
    with pytest.raises(ValueError, match="zero_based"):
        read_libsvm(path, zero_based="yes")
    with pytest.raises(ValueError, match="dtype"):
        read_libsvm(path, dtype=np.int32)


def test_streaming_holds_one_chunk_at_a_time(tmp_path):
    n = 200_000
    path = tmp_path / "big.svm"
    with open(path, "w") as f:
        for i in range(n):
            f.write(f"{1 if i % 3 else -1} {i % 50 + 1}:1 {i % 7 + 51}:0.5 60:{i % 11}\n")
    size = path.stat().st_size
    rows = 0
    tracemalloc.start()
    try:
        for X, y in read_libsvm(path, chunk_size=1000):
            assert X.shape[0] == len(y) <= 1000
            assert X.shape[1] == 60
            rows += X.shape[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert rows == n
    # Well below the size of the file, let alone of the parsed matrix.
    assert peak < size / 2, (peak, size)


# ---------------------------------------------------------------------------
# LIBSVM: real data

def test_a9a_matches_sklearn():
    from sklearn.datasets import load_svmlight_file
    path = data_file("a9a/a9a")
    X, y = load_libsvm(path, n_features=123)
    Xs, ys = load_svmlight_file(str(path), n_features=123)
    assert X.shape == (32561, 123)
    assert_same((X, y), (Xs.tocsr(), ys))
    assert X.has_canonical_format
    assert_same(stack(read_libsvm(path, chunk_size=5000)), (X, y))
    assert sorted(np.unique(y)) == [-1, 1] and (y == 1).sum() == 7841


def test_news20_bz2():
    X, y = load_libsvm(data_file("news20/news20.converted.bz2"))
    assert X.shape[0] == 15935 and len(y) == 15935
    assert X.nnz == 1272569
    np.testing.assert_array_equal(np.unique(y), np.arange(1, 21))


def test_cpusmall_and_w8a_match_sklearn():
    from sklearn.datasets import load_svmlight_file
    for relative, shape in [("cpusmall/cpusmall.converted", (8192, 12)),
                            ("w8a/w8a", (49749, 300))]:
        path = data_file(relative)
        X, y = load_libsvm(path)
        assert X.shape == shape
        Xs, ys = load_svmlight_file(str(path), n_features=shape[1])
        assert_same((X, y), (Xs.tocsr(), ys))
    assert np.diff(X.indptr).min() == 0  # w8a has rows without features


# ---------------------------------------------------------------------------
# CSV

def test_csv_header_inferred_and_label_by_name(tmp_path):
    path = write(tmp_path, "h.csv", "a,b,target,c\n1,2,0.5,3\n\n4,5,1.5,6\n")
    reader = read_csv(path, label="target")
    assert reader.columns == ["a", "b", "target", "c"]
    assert reader.feature_names == ["a", "b", "c"]
    X, y = load_csv(path, label="target")
    np.testing.assert_array_equal(X, [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(y, [0.5, 1.5])
    assert X.flags.c_contiguous and X.dtype == np.float64 and y.dtype == np.float64
    X2, y2 = load_csv(path, label=2)  # header inferred: "a" is not a number
    np.testing.assert_array_equal(X2, X)
    with pytest.raises(DataFormatError, match=f"^{path}:1: no column named 'label'"):
        read_csv(path, label="label")
    with pytest.raises(ValueError, match="needs a header"):
        read_csv(path, label="target", header=False)


def test_csv_no_header_label_positions(tmp_path):
    path = write(tmp_path, "n.csv", "1,2,3\n4,5,6\n")
    assert read_csv(path).columns is None
    X, y = load_csv(path)
    np.testing.assert_array_equal(X, [[1, 2], [4, 5]])
    np.testing.assert_array_equal(y, [3, 6])
    X, y = load_csv(path, label=0)
    np.testing.assert_array_equal(X, [[2, 3], [5, 6]])
    X, y = load_csv(path, label=-2)
    np.testing.assert_array_equal(X, [[1, 3], [4, 6]])
    np.testing.assert_array_equal(y, [2, 5])
    # header=True takes the first line as names even when numeric.
    X, y = load_csv(path, header=True)
    np.testing.assert_array_equal(X, [[4, 5]])
    with pytest.raises(DataFormatError, match=f"^{path}:1: label column 3 is out of range"):
        read_csv(path, label=3)


def test_csv_string_labels_and_label_first(tmp_path):
    text = "ham\t0.5\t1\nspam\t2\t3\nham\t-1\t0\n"
    X, y = load_csv(write(tmp_path, "t.tsv", text), label=0, delimiter="\t")
    assert y.dtype == object and list(y) == ["ham", "spam", "ham"]
    np.testing.assert_array_equal(X, [[0.5, 1], [2, 3], [-1, 0]])
    # Numeric labels in the first chunk make later words an error.
    path = write(tmp_path, "m.csv", "1,0\n2,1\n3,UP\n")
    with pytest.raises(DataFormatError, match=f"^{path}:3: label 'UP' is not a number"):
        list(read_csv(path, chunk_size=2))


def test_csv_quotes_whitespace_and_compression(tmp_path):
    text = '"name, quoted",x,y\n1,2,"a,b"\n3,4,"c"\n'
    X, y = load_csv(write(tmp_path, "q.csv", text))
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert list(y) == ["a,b", "c"]
    assert read_csv(write(tmp_path, "q2.csv", text)).columns[0] == "name, quoted"
    spaced = "1 2  3\n\t4 5 6  \n"
    X, y = load_csv(write(tmp_path, "w.txt", spaced), delimiter=None)
    np.testing.assert_array_equal(X, [[1, 2], [4, 5]])
    X, y = load_csv(write(tmp_path, "sp.csv", "1, 2, 3\n4 ,5,6\n"))  # spaces round fields
    np.testing.assert_array_equal(X, [[1, 2], [4, 5]])
    for compress in ("gz", "bz2"):
        Xc, yc = load_csv(write(tmp_path, f"c.csv.{compress}", "a,b\n1,2\n3,4\n", compress))
        np.testing.assert_array_equal(Xc, [[1], [3]])
        np.testing.assert_array_equal(yc, [2, 4])


@pytest.mark.parametrize("chunk_size", [1, 2, 7])
def test_csv_chunks_concatenate_to_the_whole(tmp_path, chunk_size):
    rng = np.random.default_rng(chunk_size)
    data = np.round(rng.normal(size=(40, 5)), 4)
    lines = ["f1,f2,f3,f4,y"] + [",".join(map(str, r)) for r in data]
    lines.insert(10, "")
    path = write(tmp_path, "c.csv", "\n".join(lines) + "\n")
    chunks = list(read_csv(path, chunk_size=chunk_size))
    assert all(len(y) <= chunk_size and X.flags.c_contiguous for X, y in chunks)
    X = np.concatenate([c[0] for c in chunks])
    y = np.concatenate([c[1] for c in chunks])
    np.testing.assert_array_equal(X, data[:, :4])
    np.testing.assert_array_equal(y, data[:, 4])


CSV_MALFORMED = [
    ("1,2", "expected 3 fields, found 2"),
    ("1,2,3,4", "expected 3 fields, found 4"),
    ("1,abc,3", "field 2 ('b'): 'abc' is not a number"),
    ("1,,3", "field 2 ('b'): '' is not a number"),
    ("1 2,5,3", "field 1 ('a'): '1 2' is not a number"),
    ("nan,2,3", "field 1 ('a'): 'nan' is not finite"),
    ("1,-inf,3", "field 2 ('b'): '-inf' is not finite"),
    ("1,2,inf", "label 'inf' is not finite"),
]


@pytest.mark.parametrize("bad, reason", CSV_MALFORMED)
def test_csv_malformed_lines(tmp_path, bad, reason):
    path = write(tmp_path, "bad.csv", "a,b,y\n1,2,3\n\n" + bad + "\n4,5,6\n")
    for chunk_size in (1, 1000):
        with pytest.raises(DataFormatError) as info:
            list(read_csv(path, chunk_size=chunk_size))
        assert str(info.value) == f"{path}:4: {reason}"


def test_csv_stream_and_empty(tmp_path):
    reader = read_csv(io.StringIO("\nx,y\n1,2\n3,4\n"), chunk_size=1)
    assert reader.columns == ["x", "y"]
    chunks = list(reader)
    assert [c[1].tolist() for c in chunks] == [[2.0], [4.0]]
    with pytest.raises(DataFormatError, match=r"^<stream>:4: expected 2 fields"):
        list(read_csv(io.BytesIO(b"1,2\n3,4\n\n5\n")))
    X, y = load_csv(write(tmp_path, "e.csv", "\n\n"))
    assert X.shape[0] == 0 and y.shape == (0,)


def test_spambase_csv():
    X, y = load_csv(data_file("spambase/spambase.data"))
    assert X.shape == (4601, 57)
    assert (y == 1).sum() == 1813
    assert X[0, 0] == 0 and X[0, -1] == 278


def test_cal_housing_label_by_name():
    path = data_file("cal_housing/cal_housing.csv")
    reader = read_csv(path, label="median_house_value")
    assert reader.feature_names[0] == "longitude" and reader.n_features == 8
    X, y = load_csv(path, label="median_house_value")
    assert X.shape == (20640, 8)
    assert y[0] == 452600.0 and X[0, 0] == -122.23


def test_usps_zip_test_reports_line_2006():
    path = data_file("usps/zip.test")
    with pytest.raises(DataFormatError) as info:
        load_csv(path, label=0, delimiter=None)
    assert str(info.value) == f"{path}:2006: expected 257 fields, found 258"
    rows = 0
    with pytest.raises(DataFormatError):
        for X, y in read_csv(path, label=0, delimiter=None, chunk_size=500):
            assert X.shape[1] == 256
            rows += len(y)
    assert rows == 2000  # the chunks before the faulty one were delivered


# ---------------------------------------------------------------------------
# Feature dicts

def test_vocabulary_order_growth_and_sorting():
    vocabulary = Vocabulary()
    idx, val = vocabulary.lookup({"b": 1, "a": 2.5}, grow=True)
    assert idx.tolist() == [0, 1] and val.tolist() == [1.0, 2.5]
    assert idx.dtype == np.int64 and val.dtype == np.float64
    idx, val = vocabulary.lookup({"c": 3, "a": 4, "b": 5}, grow=False)  # c unseen: dropped
    assert idx.tolist() == [0, 1] and val.tolist() == [5.0, 4.0]
    assert len(vocabulary) == 2
    idx, val = vocabulary.lookup({"c": 3, "a": 4, 7: True}, grow=True)
    assert idx.tolist() == [1, 2, 3] and val.tolist() == [4.0, 3.0, 1.0]
    assert list(vocabulary) == ["b", "a", "c", 7]
    idx, val = vocabulary.lookup({})
    assert idx.shape == val.shape == (0,)


def test_vocabulary_rejects_non_finite_values():
    vocabulary = Vocabulary(["a", "b"])
    for bad in (float("nan"), float("inf"), "1.5", None, 10**400):
        with pytest.raises(ValueError, match="feature 'b' has value"):
            vocabulary.lookup({"a": 1.0, "b": bad})
    assert vocabulary.lookup({"a": 1e308, "b": 1e308})[1].tolist() == [1e308, 1e308]
    # A failed call leaves the vocabulary as it was.
    with pytest.raises(ValueError, match="feature 'd' has value"):
        vocabulary.lookup({"c": 1.0, "d": float("nan")}, grow=True)
    with pytest.raises(ValueError, match="dict 1: feature 'd' has value"):
        dicts_to_csr([{"c": 1.0}, {"d": "x"}], vocabulary)
    assert vocabulary.to_list() == ["a", "b"]


def test_vocabulary_persistence():
    vocabulary = Vocabulary(["word", 3, 2.5, True, "ü"])
    names = json.loads(json.dumps(vocabulary.to_list()))
    restored = Vocabulary.from_list(names)
    assert restored == vocabulary
    x = {"ü": 1, 3: 2, "word": 3}
    np.testing.assert_array_equal(restored.lookup(x)[0], vocabulary.lookup(x)[0])
    with pytest.raises(TypeError, match="cannot be saved as JSON"):
        Vocabulary([("a", "b")]).to_list()
    with pytest.raises(TypeError, match="cannot be saved as JSON"):
        Vocabulary([np.int64(3)]).to_list()
    with pytest.raises(ValueError, match="duplicate"):
        Vocabulary.from_list(["a", "a"])


def test_dicts_to_csr():
    vocabulary = Vocabulary(["x"])
    dicts = [{"y": 1, "x": 2}, {}, {"z": -1, "y": 0.5}]
    X = dicts_to_csr(dicts, vocabulary)
    assert X.shape == (3, 3) and X.has_canonical_format
    np.testing.assert_array_equal(X.toarray(), [[2, 1, 0], [0, 0, 0], [0, 0.5, -1]])
    X = dicts_to_csr([{"w": 1, "z": 4}], vocabulary, grow=False)
    np.testing.assert_array_equal(X.toarray(), [[0, 0, 4]])
    with pytest.raises(ValueError, match="dict 1: feature 'x' has value nan"):
        dicts_to_csr([{"x": 1}, {"x": float("nan")}], vocabulary)


HASH_SNIPPET = ("from olearn.io import hash_dicts;"
                "X = hash_dicts([{'word': 1.0, 'other': 2.0, 3: -1, 'ü': 0.5}], 2**20, seed=7);"
                "print(X.indices.tolist(), X.data.tolist())")


def test_hash_dicts_stable_across_processes():
    outputs = []
    for hash_seed in ("1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
        done = subprocess.run([sys.executable, "-c", HASH_SNIPPET], env=env, cwd=ROOT,
                              capture_output=True, text=True, check=True)
        outputs.append(done.stdout)
    X = hash_dicts([{"word": 1.0, "other": 2.0, 3: -1, "ü": 0.5}], 2**20, seed=7)
    assert outputs[0] == outputs[1] == f"{X.indices.tolist()} {X.data.tolist()}\n"


def test_hash_dicts_signs_collisions_and_seed():
    names = [f"feature{i}" for i in range(2000)]
    single = hash_dicts([{n: 1.0} for n in names], n_features=2**20)
    signs = single.data
    assert set(signs) == {-1.0, 1.0}
    assert 0.4 < (signs < 0).mean() < 0.6
    # With one column everything collides: values add up with their signs.
    x = {n: float(i) for i, n in enumerate(names[:50])}
    one = hash_dicts([x], n_features=1)
    signs1 = hash_dicts([{n: 1.0} for n in names[:50]], n_features=1).toarray()[:, 0]
    assert one.shape == (1, 1)
    assert one[0, 0] == pytest.approx(float(np.dot(signs1, list(x.values()))))
    other_seed = hash_dicts([{n: 1.0} for n in names], n_features=2**20, seed=1)
    assert (other_seed.indices != single.indices).mean() > 0.9
    assert hash_dicts([{"1": 1}], 2**20).indices[0] != hash_dicts([{1: 1}], 2**20).indices[0]
    with pytest.raises(ValueError, match="dict 0: feature 'a'"):
        hash_dicts([{"a": "text"}])


def test_vectorized_and_line_parsers_agree():
    from olearn.io import libsvm
    rng = np.random.default_rng(0)
    spellings = ["1", "+1", "-1", "1.0", "-0.25", "3e2", "12", "007", "1E-2", "0"]
    lines = []
    for i in range(400):
        label = spellings[rng.integers(len(spellings))]
        feats = [f"{rng.integers(0, 10**rng.integers(1, 7))}:{spellings[rng.integers(len(spellings))]}"
                 for _ in range(rng.integers(0, 8))]
        extra = " qid:4" if i % 17 == 0 else ""
        comment = " # note 3:4" if i % 13 == 0 else ""
        lines.append(f"{label}{extra} {' '.join(feats)}{comment}\n".encode())
        if i % 29 == 0:
            lines.append(b"  \n")
    fast = libsvm._fast_parse(b"".join(lines), 1, True)
    slow = libsvm._parse_lines(lines, 1, "x", None, None, True)
    assert fast is not None
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


def _csv_text(rng):
    """A random delimited file: maybe a header, blank lines, spaces, CRLF, numeric or
    text labels anywhere, and now and then a line the compiled parser must refuse."""
    delim = rng.choice([",", ";", "\t", None])
    sep = " " if delim is None else delim
    n = int(rng.integers(1, 6))
    label = int(rng.integers(-n, n))
    text_labels = rng.random() < 0.3
    lines = []
    if rng.random() < 0.4:
        lines.append(sep.join(f"c{j}" for j in range(n)))
    for _ in range(int(rng.integers(0, 40))):
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "  ", "\t"]) if delim != "\t" else "")
            continue
        fields = [rng.choice([repr(float(rng.normal())), "%.3g" % rng.normal(), "7", "+.5",
                              " 1e-3 ", "-0", "2E+2"]) for _ in range(n)]
        if delim is None:
            fields = [f.strip() for f in fields]
        if text_labels:
            fields[label % n] = rng.choice(["ham", "spam", " x y ", "3"]) \
                if delim is not None else rng.choice(["ham", "spam", "3"])
        if rng.random() < 0.03:  # refused by the compiled parser: quotes, junk, a field
            fields[int(rng.integers(n))] = rng.choice(['"1"', "abc", "", "inf", "1_0"])
        lines.append(sep.join(fields) + ("\r" if rng.random() < 0.2 else ""))
    return "\n".join(lines) + rng.choice(["", "\n"]), delim, label


def test_csv_compiled_path_equals_the_line_by_line_path(tmp_path, monkeypatch):
    """The compiled CSV parser gives the same chunks as the line-by-line parser, or the
    same error, on random files, for several chunk sizes."""
    from olearn.io.csv import CSVReader
    rng = np.random.default_rng(12)
    compiled = CSVReader._compiled

    def run(path, delim, label, chunk_size, fast):
        monkeypatch.setattr(CSVReader, "_compiled", compiled if fast else
                            lambda self, item: (*item, None))
        try:
            return [(X.tolist(), y.tolist()) for X, y in
                    read_csv(path, label=label, delimiter=delim, chunk_size=chunk_size)]
        except (DataFormatError, ValueError) as exc:
            return str(exc)

    took = 0
    for trial in range(150):
        text, delim, label = _csv_text(rng)
        path = tmp_path / f"t{trial}.csv"
        path.write_bytes(text.encode())
        for chunk_size in (3, 10000):
            slow = run(path, delim, label, chunk_size, False)
            fast = run(path, delim, label, chunk_size, True)
            assert fast == slow, (trial, text)
        took += isinstance(slow, list)
    assert took > 60
