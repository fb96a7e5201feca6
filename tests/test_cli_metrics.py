"""``--metric``, ``--window`` and ``--fading`` of ``olearn evaluate`` and ``olearn compare``:
the printed figures equal scikit-learn's metrics over the same pre-update predictions,
the pre-update scores and probabilities behind auc / logloss equal a row-by-row loop, and
every bad name or impossible request ends in one error line, exit code 2, before work."""
import subprocess
import sys

import numpy as np
import pytest
from sklearn import metrics as skm

import olearn
from olearn.evaluate import progressive
from olearn.evaluate.metrics import parse_metrics, predict_learn_scored

from conftest import run_cli



def assert_one_error(rc, err, *needles):
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("olearn: error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in lines[0]


def _data(n=300, d=5, seed=0, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    s = X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n)
    return X, (s if regression else np.where(s > 0.4, 1, -1))   # imbalanced labels


def _write_svm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:g} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row))
                    + "\n")
    return path


@pytest.fixture(scope="module")
def svm(tmp_path_factory):
    X, y = _data()
    path = _write_svm(tmp_path_factory.mktemp("m") / "d.svm", X, y)
    return path, olearn.io.load_libsvm(path)


def _value(out, name, col=1):
    line = next(line for line in out.splitlines() if line.startswith(name + " "))
    return float(line.split()[col + len(name.split()) - 1])


def test_evaluate_prints_metrics_equal_to_sklearn(capsys, svm):
    path, (X, y) = svm
    rc, out, err = run_cli(capsys, "evaluate", path, "--algo", "pa1", "--metric",
                           "accuracy,f1,auc,balanced-accuracy,precision,recall",
                           "--window", 50, "--chunk-size", 64)
    assert rc == 0, err
    model = olearn.make("pa1")
    s = model.predict_learn(X, y, return_scores=True)
    p = olearn.make("pa1").predict_learn(X, y)
    w = slice(len(y) - 50, None)
    assert _value(err, "accuracy") == pytest.approx(skm.accuracy_score(y, p), abs=1e-4)
    assert _value(err, "accuracy", 2) == pytest.approx(skm.accuracy_score(y[w], p[w]),
                                                       abs=1e-4)
    assert _value(err, "auc") == pytest.approx(skm.roc_auc_score(y, s), abs=1e-4)
    assert _value(err, "auc", 2) == pytest.approx(skm.roc_auc_score(y[w], s[w]), abs=1e-4)
    assert _value(err, "f1 [1]") == pytest.approx(skm.f1_score(y, p, pos_label=1), abs=1e-4)
    assert _value(err, "macro f1") == pytest.approx(skm.f1_score(y, p, average="macro"),
                                                    abs=1e-4)
    assert _value(err, "balanced-accuracy") == pytest.approx(
        skm.balanced_accuracy_score(y, p), abs=1e-4)
    assert _value(err, "recall [-1]") == pytest.approx(
        skm.recall_score(y, p, pos_label=-1), abs=1e-4)
    assert "mistake rate (window 50)" in err


def test_evaluate_regression_metrics_with_fading(capsys, tmp_path):
    X, y = _data(200, regression=True)
    path = _write_svm(tmp_path / "r.svm", X, y)
    rc, out, err = run_cli(capsys, "evaluate", path, "--algo", "pa1-reg", "--metric",
                           "mae,rmse,r2", "--fading", 0.99)
    assert rc == 0, err
    Xr, yr = olearn.io.load_libsvm(path)
    p = olearn.make("pa1-reg").predict_learn(Xr, yr)
    w = 0.99 ** np.arange(len(yr) - 1, -1, -1)
    assert _value(err, "mae") == pytest.approx(skm.mean_absolute_error(yr, p), abs=1e-4)
    assert _value(err, "r2") == pytest.approx(skm.r2_score(yr, p), abs=1e-4)
    assert _value(err, "rmse", 2) == pytest.approx(
        np.sqrt(skm.mean_squared_error(yr, p, sample_weight=w)), abs=1e-4)


@pytest.mark.parametrize("algo,kw", [("pa1", {}), ("ogd", {"loss": "logistic"}),
                                     ("scw", {}), ("auto", {})])
def test_pre_update_scores_and_probabilities_equal_a_row_loop(algo, kw):
    """Labels from the pass's scores are predict_learn's; probabilities are those of
    predict_proba just before each row's update (1/2 before two classes are known)."""
    X, y = _data(80, seed=3)
    y = -y            # the first label sorts last: a label flip after the first rows
    if algo == "auto":
        kw = {"learners": [olearn.make("pa1"), olearn.make("perceptron")], "combine": "ewa"}
    need = "proba" if hasattr(olearn.make(algo, **kw), "predict_proba") else "score"
    a = olearn.make(algo, **kw)
    labels, values = [], []
    for i in range(0, len(y), 17):                          # chunks, as progressive reads
        lab, val = predict_learn_scored(a, X[i:i + 17], y[i:i + 17], need)
        labels.append(lab)
        values.append(val)
    labels, values = np.concatenate(labels), np.concatenate(values)
    np.testing.assert_array_equal(labels, olearn.make(algo, **kw).predict_learn(X, y))
    b = olearn.make(algo, **kw)
    want = []
    for i in range(len(y)):
        fitted = len(getattr(b, "classes_", None) if "classes_" in b.__dict__ else ()) == 2
        if need == "proba":
            want.append(b.predict_proba(X[i:i + 1])[0, 1] if fitted else 0.5)
        elif not hasattr(b, "decision_function"):    # an ensemble: its row-by-row score
            s = b.predict_learn(X[i:i + 1], y[i:i + 1], return_scores=True)[0]
            want.append(s if fitted else np.nan)
            continue
        else:
            want.append(b.decision_function(X[i:i + 1])[0] if fitted else np.nan)
        b.predict_learn(X[i:i + 1], y[i:i + 1])
    want = np.array(want)
    ok = ~np.isnan(want)
    assert ok.sum() > 60
    np.testing.assert_allclose(values[ok], want[ok], rtol=1e-9, atol=1e-12)


def test_logloss_through_progressive_equals_sklearn():
    X, y = _data(150, seed=1)
    r = progressive(olearn.make("ogd", loss="logistic"), (X, y), metrics="logloss,auc",
                    chunk_size=40)
    labels, p = predict_learn_scored(olearn.make("ogd", loss="logistic"), X, y, "proba")
    assert r.metrics["log_loss"] == pytest.approx(skm.log_loss(y, p), rel=1e-9)
    assert r.metrics["roc_auc"] == pytest.approx(skm.roc_auc_score(y, p), rel=1e-9)


def test_bad_metric_names_and_requests_are_one_line_exit_2(capsys, svm):
    path, _ = svm
    for argv, needle in [
            (["evaluate", path, "--algo", "pa1", "--metric", "accuracy,bogus"], "bogus"),
            (["evaluate", path, "--algo", "pa1", "--metric", "mae"], "regression"),
            (["evaluate", path, "--algo", "pa1", "--metric", "accuracy,mae"], "mix"),
            (["evaluate", path, "--algo", "auto", "--metric", "logloss"], "predict_proba"),
            (["evaluate", path, "--algo", "pa1", "--window", "0"], "window"),
            (["evaluate", path, "--algo", "pa1", "--fading", "1.5"], "fading"),
            (["evaluate", path, "--algo", "pa1", "--window", "5", "--fading", "0.9"],
             "not both"),
            (["compare", path, "--algos", "pa1", "--metric", "nope", "--no-plot"], "nope"),
            (["compare", path, "--algos", "auto", "--metric", "logloss", "--no-plot"],
             "predict_proba")]:
        rc, out, err = run_cli(capsys, *argv)
        assert_one_error(rc, err, needle)
        assert out == ""                         # nothing was learned or printed


def test_exit_code_in_a_real_process(svm):
    path, _ = svm
    proc = subprocess.run([sys.executable, "-m", "olearn", "evaluate", str(path), "--algo",
                           "pa1", "--metric", "f2"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "unknown metric 'f2'" in proc.stderr


def test_compare_metric_column_and_ranking(capsys, svm):
    path, (X, y) = svm
    rc, out, err = run_cli(capsys, "compare", path, "--algos", "pa1,perceptron",
                           "--permutations", 2, "--no-tune", "--no-plot", "--quiet",
                           "--metric", "balanced-accuracy")
    assert rc == 0, err
    head = next(line for line in out.splitlines() if line.startswith("learner"))
    assert "balanced-accuracy" in head
    from olearn.evaluate.compare import compare
    res = compare(["pa1", "perceptron"], X, y, permutations=2, tune=False,
                  metric="balanced-accuracy")
    want = []
    for nm in ("pa1", "perceptron"):
        vals = [skm.balanced_accuracy_score(y[o], olearn.make(nm).predict_learn(X[o], y[o]))
                for o in res.orders]
        np.testing.assert_allclose(res.scores[nm], vals, rtol=1e-12)
        want.append(np.mean(vals))
    rows = res.rows()
    assert rows[0]["score_mean"] == max(want)            # higher is better: listed first


def test_parse_metrics():
    assert parse_metrics("F1, auc,f1") == ["f1", "auc"]
    assert parse_metrics(["log-loss"]) == ["logloss"]
    with pytest.raises(ValueError, match="known"):
        parse_metrics("")
