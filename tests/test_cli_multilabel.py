"""Label sets from the shell (issue 42 item 5; olearn/cli/_multilabel.py): train,
evaluate and predict of ARFF, LIBSVM multilabel and vw multilabel files, the metrics
against a plain numpy count of the same predictions, the model file's input pipeline,
and bad files as one line with no model written."""
import numpy as np
import pytest

import olearn
from olearn.io import load_libsvm_multilabel, read_arff

from conftest import data_path
from test_cli import assert_one_error, run_cli


def _sets(n=150, d=8, L=5, seed=3):
    """Rows whose labels follow the features (so learning shows), as label sets."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, L))
    Y = (X @ W > 0.5).astype(np.int8)
    return X, Y


def _write_svm(path, X, Y):
    lines = []
    for x, y in zip(X, Y):
        labels = ",".join(str(j) for j in np.flatnonzero(y))
        feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(x))
        lines.append(f"{labels} {feats}" if labels else f" {feats}")
    path.write_text("\n".join(lines) + "\n")


def _write_vw(path, X, Y):
    path.write_text("".join(",".join(str(j) for j in np.flatnonzero(y)) + " |f " +
                            " ".join(f"x{j}:{v:.6g}" for j, v in enumerate(x)) + "\n"
                            for x, y in zip(X, Y)))


def _figures(Y, P):
    """The five figures by plain numpy (as benchmarks/multilabel.py counts them)."""
    Y, P = Y.astype(bool), P.astype(bool)
    tp, size = (Y & P).sum(1), Y.sum(1) + P.sum(1)
    TP, FP, FN = (Y & P).sum(0), (~Y & P).sum(0), (Y & ~P).sum(0)
    den = 2 * TP + FP + FN
    return {"Hamming loss": (Y != P).mean(),
            "example-based F1": np.where(size == 0, 1, 2 * tp / np.maximum(size, 1)).mean(),
            "micro F1": 2 * TP.sum() / max(den.sum(), 1),
            "macro F1": np.where(den == 0, 1, 2 * TP / np.maximum(den, 1)).mean(),
            "subset accuracy": (Y == P).all(1).mean()}


def _printed(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("progressive ") and " = " in line:
            key, value = line[len("progressive "):].split(" = ")
            out[key] = float(value)
    return out


def test_train_predict_libsvm_multilabel(tmp_path, capsys):
    X, Y = _sets()
    data, model, pred = tmp_path / "m.svm", tmp_path / "m.olm", tmp_path / "p.txt"
    _write_svm(data, X, Y)
    rc, out, err = run_cli(capsys, "train", data, "--algo", "ml-pa1", "-f", model,
                           "--chunk-size", 40)
    assert rc == 0, err
    printed = _printed(out + err)
    Xr, sets = load_libsvm_multilabel(data)
    ref = olearn.make("ml-pa1")
    P = ref.predict_learn(Xr, sets)
    truth = np.zeros_like(P)
    for i, s in enumerate(sets):
        truth[i, np.searchsorted(ref.classes_, s)] = 1
    for key, value in _figures(truth, P).items():
        assert printed[key] == pytest.approx(value, abs=1e-6), key
    saved, rec = olearn.persistence.load(model, pipeline=True)
    assert rec["format"] == "libsvm" and rec["zero_based"] == "no"
    np.testing.assert_array_equal(saved.predict(Xr), ref.predict(Xr))
    rc, _, err = run_cli(capsys, "predict", data, "-i", model, "-p", pred)
    assert rc == 0, err
    assert "Hamming loss" in err
    lines = pred.read_text().split("\n")[:-1]
    want = [",".join(str(c) for c, r in zip(ref.classes_, row) if r) for row in ref.predict(Xr)]
    assert lines == want


def test_vw_multilabel_with_task_and_evaluate_of_a_binary_learner(tmp_path, capsys):
    X, Y = _sets(seed=5)
    data, model = tmp_path / "m.vw", tmp_path / "v.olm"
    _write_vw(data, X, Y)
    rc, out, err = run_cli(capsys, "train", data, "--task", "multilabel", "-b", 10, "-f",
                           model)
    assert rc == 0, err
    saved, rec = olearn.persistence.load(model, pipeline=True)
    assert type(saved).__name__ == "BinaryRelevance" and rec["bits"] == 10
    rc, out, err = run_cli(capsys, "evaluate", data, "--task", "multilabel", "--algo",
                           "pa1", "-b", 10)
    assert rc == 0, err
    assert "ml-br over pa1" in out + err and "subset accuracy" in out + err
    rc, out, err = run_cli(capsys, "evaluate", data, "--init", model)
    assert rc == 0, err
    assert "progressive Hamming loss" in out + err


@pytest.mark.parametrize("body, needle", [
    ("1,2 1:0.5\n3 2:1\n1,z 1:1\n", "b.svm:3: label set '1,z'"),
    ("1,2 1:0.5\n3 2:x\n", "b.svm:2: value of feature 2"),
])
def test_bad_files_are_one_line_and_write_nothing(tmp_path, capsys, body, needle):
    data, model = tmp_path / "b.svm", tmp_path / "b.olm"
    data.write_text(body)
    rc, _, err = run_cli(capsys, "train", data, "--algo", "ml-br", "-f", model)
    assert_one_error(rc, err, needle)
    assert not model.exists()


def test_options_that_do_not_apply_are_refused(tmp_path, capsys):
    X, Y = _sets(n=20)
    data = tmp_path / "m.svm"
    _write_svm(data, X, Y)
    for argv, needle in ((("--holdout", 3), "--holdout is not for a multilabel"),
                         (("--algo", "ml-cc", "--param", "C=1"), "unknown parameter 'C'"),
                         (("--algo", "pa1-reg"), "pa1-reg is a regressor")):
        rc, _, err = run_cli(capsys, "train", data, *argv)
        assert_one_error(rc, err, needle)
    rc, _, err = run_cli(capsys, "evaluate", data, "--algo", "ml-br", "--metric", "f1")
    assert_one_error(rc, err, "--metric")


def test_arff_train_then_predict_music(tmp_path, capsys):
    path = data_path("multilabel", "Music.arff")
    model, pred = tmp_path / "music.olm", tmp_path / "music.txt"
    rc, out, err = run_cli(capsys, "train", path, "--algo", "ml-br", "-f", model)
    assert rc == 0, err
    X, Y, _ = read_arff(path)
    ref = olearn.make("ml-br")
    P = ref.predict_learn(X, Y)
    printed = _printed(out + err)
    for key, value in _figures(Y, P).items():
        assert printed[key] == pytest.approx(value, abs=1e-6), key
    rc, _, err = run_cli(capsys, "predict", path, "-i", model, "-p", pred)
    assert rc == 0, err
    got = [line for line in pred.read_text().split("\n")[:-1]]
    assert got == [",".join(str(j) for j in np.flatnonzero(r)) for r in ref.predict(X)]


def test_single_label_files_stay_single_label(tmp_path, capsys):
    """A LIBSVM file whose first label has no comma is a single-label stream (a leading
    blank before the label included); an ml-* name or --task makes it multilabel."""
    data = tmp_path / "s.svm"
    data.write_text(" 1 1:0.5\n-1 2:1\n1 1:1\n")
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1")
    assert rc == 0, err
    assert "Hamming" not in out + err
    rc, out, err = run_cli(capsys, "evaluate", data, "--task", "multilabel", "--algo", "pa1")
    assert_one_error(rc, err, "s.svm:1: feature '1' is not of the form index:value")
