"""Streaming metrics: cumulative, windowed and faded figures against scikit-learn's
metrics with the matching sample weights, and the running means against plain loops."""
import math

import numpy as np
import pytest
from sklearn import metrics as skm

from olearn.evaluate.metrics import StreamMetrics, running_mean


def _weights(n, window, fading):
    if window is not None:
        return (np.arange(n) >= n - window).astype(float)
    if fading is not None:
        return fading ** np.arange(n - 1, -1, -1, dtype=float)
    return np.ones(n)


@pytest.mark.parametrize("window,fading", [(None, None), (50, None), (1, None),
                                           (None, 0.99), (None, 1.0)])
def test_running_mean_matches_a_plain_loop(window, fading):
    rng = np.random.default_rng(0)
    x = rng.random(300)
    rm = running_mean(window, fading)
    got = np.concatenate([rm.update(x[i:i + 37]) for i in range(0, 300, 37)])
    want, S, N = [], 0.0, 0.0
    for t in range(1, 301):
        if fading is not None:
            S, N = fading * S + x[t - 1], fading * N + 1
            want.append(S / N)
        elif window is not None:
            want.append(x[max(0, t - window):t].mean())
        else:
            want.append(x[:t].mean())
    np.testing.assert_allclose(got, want, rtol=1e-10)


@pytest.mark.parametrize("window,fading", [(None, None), (120, None), (None, 0.995)])
def test_classification_metrics_equal_sklearn_with_weights(window, fading):
    rng = np.random.default_rng(1)
    n = 700
    y = (rng.random(n) < 0.15).astype(int)           # imbalanced
    proba = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    pred = (proba > 0.5).astype(int)
    sm = StreamMetrics("classification", window=window, fading=fading)
    for i in range(0, n, 64):
        sm.update(y[i:i + 64], pred[i:i + 64], proba[i:i + 64])
    r = sm.result()
    w = _weights(n, window, fading)
    k = w > 0
    yk, pk, sk, wk = y[k], pred[k], proba[k], w[k]
    assert r["accuracy"] == pytest.approx(skm.accuracy_score(yk, pk, sample_weight=wk))
    assert r["balanced_accuracy"] == pytest.approx(
        skm.balanced_accuracy_score(yk, pk, sample_weight=wk))
    P, R, F, _ = skm.precision_recall_fscore_support(yk, pk, sample_weight=wk,
                                                     labels=[0, 1], zero_division=0)
    np.testing.assert_allclose([r["precision"][0], r["precision"][1]], P)
    np.testing.assert_allclose([r["recall"][0], r["recall"][1]], R)
    np.testing.assert_allclose([r["f1"][0], r["f1"][1]], F)
    assert r["roc_auc"] == pytest.approx(skm.roc_auc_score(yk, sk, sample_weight=wk))
    assert r["log_loss"] == pytest.approx(skm.log_loss(yk, sk, sample_weight=wk))


def test_auc_counts_ties_as_half_and_multiclass_reports():
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.2, 0.2, 0.5, 0.5, 0.9, 0.1])
    r = StreamMetrics().update(y, (s > 0.4).astype(int), s).result()
    assert r["roc_auc"] == pytest.approx(skm.roc_auc_score(y, s))
    y3 = np.array(["a", "b", "c", "a", "c", "c"])
    p3 = np.array(["a", "c", "c", "b", "c", "a"])
    r3 = StreamMetrics().update(y3, p3).result()
    assert r3["macro_f1"] == pytest.approx(skm.f1_score(y3, p3, average="macro"))
    assert r3["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y3, p3))


@pytest.mark.parametrize("window,fading", [(None, None), (90, None), (None, 0.98)])
def test_regression_metrics_equal_sklearn_with_weights(window, fading):
    rng = np.random.default_rng(2)
    y = rng.standard_normal(400) * 3 + 1
    p = y + rng.standard_normal(400)
    sm = StreamMetrics("regression", window=window, fading=fading)
    for i in range(0, 400, 33):
        sm.update(y[i:i + 33], p[i:i + 33])
    r = sm.result()
    w = _weights(400, window, fading)
    k = w > 0
    assert r["mae"] == pytest.approx(skm.mean_absolute_error(y[k], p[k], sample_weight=w[k]))
    assert r["rmse"] == pytest.approx(math.sqrt(skm.mean_squared_error(
        y[k], p[k], sample_weight=w[k])))
    assert r["r2"] == pytest.approx(skm.r2_score(y[k], p[k], sample_weight=w[k]))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="not both"):
        running_mean(window=3, fading=0.9)
    with pytest.raises(ValueError, match="window"):
        StreamMetrics(window=0)
    with pytest.raises(ValueError, match="fading"):
        StreamMetrics(fading=1.5)
    with pytest.raises(ValueError, match="task"):
        StreamMetrics("ranking")
    with pytest.raises(ValueError, match="no rows"):
        StreamMetrics().result()
    with pytest.raises(ValueError, match="same length"):
        StreamMetrics().update([0, 1], [0])


def test_a_cumulative_stream_keeps_counts_not_rows():
    from sklearn.metrics import f1_score, mean_absolute_error, r2_score
    rng = np.random.default_rng(11)
    sm, sr = StreamMetrics("classification"), StreamMetrics("regression")
    ys, ps, yr, pr = [], [], [], []
    for _ in range(40):
        y = rng.integers(0, 3, 500)
        p = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))
        sm.update(y, p)
        ys.append(y)
        ps.append(p)
        t = rng.normal(1e6, 3.0, 500)       # a large offset: the sums must stay exact
        q = t + rng.normal(0, 1.0, 500)
        sr.update(t, q)
        yr.append(t)
        pr.append(q)
    assert sum(len(a) for a in sm._y) <= 9 and sr._y == []       # pairs, not 20,000 rows
    y, p = np.concatenate(ys), np.concatenate(ps)
    got = sm.result()
    assert got["rows"] == 20_000
    assert got["accuracy"] == pytest.approx(np.mean(y == p), rel=1e-12)
    assert got["f1"][2] == pytest.approx(f1_score(y, p, labels=[2], average=None)[0], rel=1e-12)
    t, q = np.concatenate(yr), np.concatenate(pr)
    reg = sr.result()
    assert reg["mae"] == pytest.approx(mean_absolute_error(t, q), rel=1e-10)
    assert reg["r2"] == pytest.approx(r2_score(t, q), rel=1e-8)
    assert reg["rows"] == 20_000
