"""Progressive validation: checkpoint values equal a hand loop over predict_learn, a
stream of chunks gives the same result as arrays, regression losses, the result object."""
import json

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.datasets import load_breast_cancer, load_diabetes
from olearn.evaluate import Checkpoint, progressive


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(scale="minmax")


def hand_losses(model, X, y, regression=False):
    """Row by row: the pre-update prediction of each row, then its loss."""
    losses = []
    for i in range(X.shape[0]):
        p = model.predict_learn(X[i:i + 1], y[i:i + 1])[0]
        losses.append((p - y[i]) ** 2 if regression else float(p != y[i]))
    return np.array(losses)


def test_checkpoints_equal_hand_loop(cancer):
    X, y = cancer
    ref = hand_losses(olearn.make("pa1"), X, y)
    seen = []
    res = progressive(olearn.make("pa1"), (X, y), chunk_size=100, on_checkpoint=seen.append)
    assert res.checkpoints.tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 569]
    expected = np.array([ref[:c].sum() / c for c in res.checkpoints])
    assert np.array_equal(res.values, expected)
    assert res.final == ref.mean() and res.n_mistakes == int(ref.sum())
    assert res.n_rows == 569 and res.task == "classification"
    assert [c.rows for c in seen] == res.checkpoints.tolist()
    assert all(isinstance(c, Checkpoint) for c in seen)
    # since_last: mean loss over the rows between consecutive checkpoints
    assert seen[-1].since_last == pytest.approx(ref[512:].mean(), abs=1e-15)
    assert seen[-1].label == y[-1]


def test_n_updates_and_model_state(cancer):
    X, y = cancer
    m = olearn.make("perceptron")
    res = progressive(m, (X, y))
    ref = olearn.make("perceptron").partial_fit(X, y)
    assert res.n_updates == ref.n_updates_ == m.n_updates_
    assert np.array_equal(m.coef_, ref.coef_)
    # a second run counts only its own updates
    before = m.n_updates_
    res2 = progressive(m, (X, y))
    assert res2.n_updates == m.n_updates_ - before


@pytest.mark.parametrize("chunk", [1, 7, 64, 10_000])
def test_stream_of_chunks_equals_arrays(cancer, chunk):
    X, y = cancer
    a = progressive(olearn.make("pa1"), (X, y))
    Xs = sp.csr_matrix(X)
    stream = ((Xs[i:i + chunk], y[i:i + chunk]) for i in range(0, len(y), chunk))
    b = progressive(olearn.make("pa1"), stream)
    assert np.array_equal(a.checkpoints, b.checkpoints)
    assert np.array_equal(a.values, b.values)
    assert a.n_updates == b.n_updates


def test_checkpoint_schedules(cancer):
    X, y = cancer
    ref = hand_losses(olearn.make("pa1"), X, y)
    every = progressive(olearn.make("pa1"), (X, y), checkpoints=100, chunk_size=33)
    assert every.checkpoints.tolist() == [100, 200, 300, 400, 500, 569]
    assert np.array_equal(every.values, [ref[:c].mean() for c in every.checkpoints])
    listed = progressive(olearn.make("pa1"), (X, y), checkpoints=[569, 3, 10, 10_000])
    assert listed.checkpoints.tolist() == [3, 10, 569]
    with pytest.raises(ValueError, match="checkpoints"):
        progressive(olearn.make("pa1"), (X, y), checkpoints=0)


def test_regression_losses():
    X, y = load_diabetes(scale="minmax")
    X, y = X[:150], y[:150]
    ref = olearn.make("pa1-reg", C=2.0)
    errs = np.array([ref.predict_learn(X[i:i + 1], y[i:i + 1])[0] - y[i]
                     for i in range(len(y))])
    res = progressive(olearn.make("pa1-reg", C=2.0), (X, y), chunk_size=40)
    assert res.task == "regression" and res.metric == "squared error"
    cps = res.checkpoints
    assert cps.tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 150]
    np.testing.assert_allclose(res.values, [np.mean(errs[:c] ** 2) for c in cps], rtol=1e-12)
    np.testing.assert_allclose(res.mae, [np.mean(np.abs(errs[:c])) for c in cps], rtol=1e-12)
    assert res.n_mistakes is None
    assert "absolute error" in str(res)


def test_string_labels_and_result_object(cancer):
    X, y = cancer
    names = np.where(y == 1, "yes", "no")           # sorts as 0/1 do: same -1/+1 sides
    a = progressive(olearn.make("pa1"), (X, names))
    b = progressive(olearn.make("pa1"), (X, y))
    assert np.array_equal(a.values, b.values)
    d = json.loads(json.dumps(a.to_dict()))
    assert d["n_rows"] == 569 and d["final"] == a.final and d["checkpoints"][-1] == 569
    assert d["metric"] == "mistake rate" and d["rows_per_second"] > 0
    text = str(a)
    assert "569 rows" in text and "mistake rate" in text and f"{a.n_mistakes:,} mistakes" in text
    assert a.seconds <= a.total_seconds


def test_plot(cancer):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    X, y = cancer
    res = progressive(olearn.make("pa1"), (X, y))
    ax = res.plot()
    line = ax.get_lines()[0]
    assert np.array_equal(line.get_xdata(), res.checkpoints)
    assert np.array_equal(line.get_ydata(), res.values)
    assert ax.get_xscale() == "log"
    import matplotlib.pyplot as plt
    plt.close("all")


def test_bad_input(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="empty"):
        progressive(olearn.make("pa1"), iter([]))
    with pytest.raises(ValueError, match="rows"):
        progressive(olearn.make("pa1"), (X, y[:-1]))
    with pytest.raises(TypeError, match="predict_learn"):
        progressive(object(), (X, y))
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        progressive(olearn.make("pa1"), (Xn, y))
