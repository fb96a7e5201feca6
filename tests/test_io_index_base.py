"""The LIBSVM reader settles the index base without a prescan (issue 34 item 1): a byte
search for tokens that start with 0, each confirmed by parsing its line; the result is
the prescan's on 0-based and 1-based files, tricky ones included, and the command line,
which now reads every LIBSVM file once, learns the same model as with the width and the
base given."""
import gzip

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli import main
from olearn.io import DataFormatError, load_libsvm, read_libsvm


def _rows(n, zero_at, rng):
    """LIBSVM lines with indices from 1 to 30, and index 0 on line ``zero_at`` (None:
    never), written sparsely in increasing order."""
    lines = []
    for i in range(n):
        idx = np.sort(rng.choice(np.arange(1, 31), size=5, replace=False))
        if i == zero_at:
            idx[0] = 0
        label = 1 if rng.random() < 0.5 else -1
        lines.append(f"{label} " + " ".join(f"{j}:{rng.normal():.6g}" for j in idx))
    return lines


CASES = {
    "one_based": lambda r: _rows(3000, None, r),
    "zero_based_late": lambda r: _rows(3000, 2500, r),         # index 0 only on line 2501
    "zero_based_first": lambda r: _rows(300, 0, r),
    # tokens that start with 0 but are no index 0: a comment, index 012 (= 12), a label
    # after leading blanks, a qid
    "one_based_decoys": lambda r: ["# 0:1 a comment", "1 012:1 3:2 # 0:5",
                                   "  0 4:1", "\t0\t5:1", "-1 qid:0 7:1"] + _rows(50, None, r),
    "zero_based_padded": lambda r: _rows(50, None, r) + ["1 3:1\t00:2"],
}


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path):
    lines = CASES[request.param](np.random.default_rng(len(request.param)))
    path = tmp_path / f"{request.param}.svm"
    path.write_text("\n".join(lines) + "\n")
    return request.param, path


def _stacked(reader, width):
    Xs, ys = zip(*reader)
    X = sp.vstack([sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
                   for X in Xs]).tocsr()
    return X, np.concatenate(ys)


def test_the_search_settles_the_base_as_the_prescan_does(case):
    name, path = case
    prescanned = read_libsvm(path)                 # no width: the prescan, as before
    assert prescanned.prescanned
    assert prescanned.zero_based == name.startswith("zero")
    X_all, y_all = load_libsvm(path)
    for width in ("grow", prescanned.n_features):
        reader = read_libsvm(path, n_features=width, chunk_size=700)
        assert not reader.prescanned and reader.zero_based == prescanned.zero_based
        X, y = _stacked(reader, prescanned.n_features)
        assert (X != X_all).nnz == 0 and X.shape == X_all.shape
        np.testing.assert_array_equal(y, y_all)
    if width == "grow":
        assert reader.n_features == prescanned.n_features


def test_a_compressed_file_or_a_bad_line_falls_back_to_the_prescan(tmp_path):
    lines = _rows(200, 150, np.random.default_rng(0))
    gz = tmp_path / "z.svm.gz"
    gz.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    reader = read_libsvm(gz, n_features="grow")
    assert reader.prescanned and reader.zero_based
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n1 0x:1\n")           # the search finds line 2, which is bad:
    with pytest.raises(DataFormatError, match=r"bad.svm:2: feature index .*0x.* not an int"):
        read_libsvm(bad, n_features="grow")      # the prescan reports it, as it did


def test_the_command_line_reads_once_and_learns_what_it_learned_before(case, tmp_path,
                                                                       capsys):
    name, path = case
    before = read_libsvm(path)                      # the base and width of the prescan
    zero = "yes" if before.zero_based else "no"
    models = {}
    for how, extra in (("auto", []), ("given", ["--n-features", before.n_features,
                                                 "--zero-based", zero])):
        model = tmp_path / f"{how}.olm"
        assert main(["train", path, "--algo", "pa1", "--model", model, *extra]) == 0
        models[how] = (olearn.load(model), capsys.readouterr().err)   # (the summary: stderr)
    (auto, out_auto), (given, out_given) = models["auto"], models["given"]
    np.testing.assert_array_equal(auto.coef_, given.coef_)
    np.testing.assert_array_equal(auto.intercept_, given.intercept_)
    assert out_auto.split("mistake rate")[1].split("\n")[0] == \
        out_given.split("mistake rate")[1].split("\n")[0]
