"""Uniclass Passive-Aggressive (``olearn.anomaly.UniclassPA``, registered as
``uniclass``) against a plain numpy loop of the paper's equations (Crammer et al.,
JMLR 7, 2006, section 5), on dense, CSR and dict rows, for PA, PA-I and PA-II; the
anomaly calls (score_one, score_samples, decision_function, predict, score_learn);
save/load, mix, bad parameters."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.anomaly import UniclassPA

TOL = 1e-10
VARIANTS = ["PA", "PA-I", "PA-II"]


def paper(X, variant, C, epsilon, w=None):
    """The reference, literally section 5: w_1 = 0; each round the loss
    l = max(0, ||w - x|| - epsilon), tau = l (PA), min(C, l) (PA-I),
    l / (1 + 1/(2C)) (PA-II) (times the row's weight), w += tau (x - w) / ||x - w||.
    Returns every centre (after each row), every pre-update distance and every loss."""
    n, d = X.shape
    wt = np.zeros(d)
    centres, dists, losses = [], [], []
    for i in range(n):
        x = X[i]
        s = 1.0 if w is None else w[i]
        dist = np.linalg.norm(wt - x)
        loss = max(0.0, dist - epsilon)
        dists.append(dist)
        losses.append(loss)
        if s > 0 and loss > 0:
            if variant == "PA":
                tau = loss
            elif variant == "PA-I":
                tau = min(C, loss)
            else:
                tau = loss / (1.0 + 1.0 / (2.0 * C))
            wt = wt + s * tau * (x - wt) / dist
        centres.append(wt.copy())
    return np.array(centres), np.array(dists), np.array(losses)


def paper_learned(X, variant, C, B):
    """The learned radius, literally section 5's construction: the row padded with a 0,
    xbar = (x, 0); the fixed-radius algorithm in R^(n+1) with radius B from
    wbar_1 = (0, ..., 0, B); the radius sqrt(B^2 - e^2) read from the extra coordinate
    e.  Returns every centre, radius (after each row), pre-update distance ||w - x||
    and padded loss."""
    n, d = X.shape
    wb = np.zeros(d + 1)
    wb[d] = B
    centres, radii, dists, losses = [], [], [], []
    for i in range(n):
        xb = np.append(X[i], 0.0)
        dists.append(np.linalg.norm(wb[:d] - X[i]))
        dist = np.linalg.norm(wb - xb)
        loss = max(0.0, dist - B)
        losses.append(loss)
        if loss > 0:
            tau = {"PA": loss, "PA-I": min(C, loss),
                   "PA-II": loss / (1.0 + 1.0 / (2.0 * C))}[variant]
            wb = wb + tau * (xb - wb) / dist
        centres.append(wb[:d].copy())
        radii.append(np.sqrt(B * B - wb[d] ** 2))
    return np.array(centres), np.array(radii), np.array(dists), np.array(losses)


def _stream(n=300, d=5, seed=0, sparse_frac=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=2.0, size=(n, d))
    X[rng.random(n) < 0.05] *= 6.0  # a few outliers
    if sparse_frac:
        X[rng.random(X.shape) < sparse_frac] = 0.0
    return X


def _per_row(make, X):
    """The model's centre after each row and its pre-update distances, row by row."""
    m = make()
    centres, dists = [], []
    for row in X:
        dists.append(m.score_learn(row[None, :])[0])
        centres.append(m.center_)
    return m, np.array(centres), np.array(dists)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("C,epsilon", [(1.0, 1.0), (0.1, 0.5), (5.0, 0.0)])
def test_dense_every_centre_radius_and_loss_equal_the_paper(variant, C, epsilon):
    X = _stream()
    centres, dists, losses = paper(X, variant, C, epsilon)
    make = lambda: UniclassPA(variant=variant, C=C, epsilon=epsilon)  # noqa: E731
    m, got_c, got_d = _per_row(make, X)
    np.testing.assert_allclose(got_c, centres, rtol=0, atol=TOL)
    np.testing.assert_allclose(got_d, dists, rtol=0, atol=TOL)
    np.testing.assert_allclose(np.maximum(0.0, got_d - m.radius_), losses, rtol=0,
                               atol=TOL)
    assert m.radius_ == epsilon
    # one compiled pass gives the same pre-update scores and final centre
    one = make()
    np.testing.assert_allclose(one.score_learn(X), dists, rtol=0, atol=TOL)
    np.testing.assert_allclose(one.center_, centres[-1], rtol=0, atol=TOL)
    assert one.n_samples_seen_ == len(X)
    assert one.n_updates_ == int((losses > 0).sum())


@pytest.mark.parametrize("variant", VARIANTS)
def test_csr_equals_the_paper(variant):
    X = _stream(n=250, d=8, seed=1, sparse_frac=0.6)
    centres, dists, losses = paper(X, variant, 0.7, 0.8)
    m = UniclassPA(variant=variant, C=0.7, epsilon=0.8)
    got = m.score_learn(sp.csr_matrix(X))
    np.testing.assert_allclose(got, dists, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.center_, centres[-1], rtol=0, atol=TOL)
    # every centre, by CSR batches of one row
    one = UniclassPA(variant=variant, C=0.7, epsilon=0.8)
    for i in range(len(X)):
        one.partial_fit(sp.csr_matrix(X[i:i + 1]))
        np.testing.assert_allclose(one.center_, centres[i], rtol=0, atol=TOL)


@pytest.mark.parametrize("variant", VARIANTS)
def test_dicts_equal_the_paper(variant):
    X = _stream(n=200, d=6, seed=2, sparse_frac=0.4)
    centres, dists, losses = paper(X, variant, 2.0, 0.3)
    m = UniclassPA(variant=variant, C=2.0, epsilon=0.3)
    got = []
    for i, row in enumerate(X):
        x = {f"f{j}": float(v) for j, v in enumerate(row) if v}
        got.append(m.score_one(x))  # (the first: to w_1 = 0, its norm)
        m.learn_one(x)
        order = [int(name[1:]) for name in m.vocabulary_.to_list()]
        np.testing.assert_allclose(m.center_, centres[i][order], rtol=0, atol=TOL)
        assert np.all(centres[i][[j for j in range(6) if j not in order]] == 0.0)
    np.testing.assert_allclose(got, dists, rtol=0, atol=TOL)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("C,B", [(1.0, 3.0), (0.2, 8.0)])
def test_learned_radius_equals_the_paper_dense_and_csr(variant, C, B):
    X = _stream(n=250, d=5, seed=11, sparse_frac=0.3)
    centres, radii, dists, losses = paper_learned(X, variant, C, B)
    make = lambda: UniclassPA(variant=variant, C=C, epsilon=None, B=B)  # noqa: E731
    m = make()
    got_c, got_r, got_d = [], [], []
    for row in X:
        got_d.append(m.score_learn(row[None, :])[0])
        got_c.append(m.center_)
        got_r.append(m.radius_)
    np.testing.assert_allclose(got_c, centres, rtol=0, atol=TOL)
    np.testing.assert_allclose(got_r, radii, rtol=0, atol=TOL)
    np.testing.assert_allclose(got_d, dists, rtol=0, atol=TOL)
    assert np.all(np.diff(radii) >= -1e-15) and 0 < radii[-1] <= B  # grows from 0 to B
    # the padded loss, from the public radius: sqrt(dist^2 + B^2 - r^2) - B
    before = np.concatenate([[0.0], radii[:-1]])
    padded = np.maximum(0.0, np.sqrt(dists ** 2 + B * B - before ** 2) - B)
    np.testing.assert_allclose(padded, losses, rtol=0, atol=TOL)
    for rows in (X, sp.csr_matrix(X)):
        one = make()
        np.testing.assert_allclose(one.score_learn(rows), dists, rtol=0, atol=TOL)
        np.testing.assert_allclose(one.center_, centres[-1], rtol=0, atol=TOL)
        assert abs(one.radius_ - radii[-1]) < TOL
        assert one.n_updates_ == int((losses > 0).sum())


def test_learned_radius_calls_dicts_save_and_mix(tmp_path):
    X = _stream(n=200, d=4, seed=12)
    centres, radii, dists, _ = paper_learned(X, "PA-I", 1.0, 5.0)
    m = UniclassPA(epsilon=None, B=5.0)
    assert m.predict_one({"a": 0.1}) == -1  # before any row: radius 0
    got = []
    for row in X:
        x = {f"f{j}": float(v) for j, v in enumerate(row)}
        got.append(m.score_one(x))
        m.learn_one(x)
    np.testing.assert_allclose(got, dists, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.center_, centres[-1], rtol=0, atol=TOL)
    r = m.radius_
    assert abs(r - radii[-1]) < TOL and m.offset_ == -r
    dist = np.linalg.norm(X - m.center_, axis=1)
    np.testing.assert_allclose(m.decision_function(X), r - dist, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), np.where(dist > r, -1, 1))
    m.save(tmp_path / "u.olearn")
    back = olearn.load(tmp_path / "u.olearn")
    assert back.radius_ == r and back.get_params()["B"] == 5.0
    a = UniclassPA(epsilon=None, B=5.0).partial_fit(X[:50])
    b = UniclassPA(epsilon=None, B=5.0).partial_fit(X[50:])
    mixed = olearn.mix([a, b])
    e = lambda u: np.sqrt(25.0 - u.radius_ ** 2)  # noqa: E731  (the extra coordinate)
    assert mixed.radius_ == pytest.approx(np.sqrt(25.0 - ((50 * e(a) + 150 * e(b))
                                                          / 200) ** 2), abs=1e-12)


def test_sample_weights_multiply_tau():
    X = _stream(n=150, seed=3)
    w = np.random.default_rng(4).choice([0.0, 0.5, 1.0, 1.5], size=len(X))
    centres, dists, _ = paper(X, "PA-I", 1.0, 1.0, w)
    m = UniclassPA()
    np.testing.assert_allclose(m.score_learn(X, sample_weight=w), dists, rtol=0, atol=TOL)
    np.testing.assert_allclose(m.center_, centres[-1], rtol=0, atol=TOL)
    assert m.n_samples_seen_ == pytest.approx(w.sum())


def test_pa_puts_the_row_on_the_sphere():
    m = UniclassPA(variant="PA", epsilon=1.0)
    m.learn_one(np.array([3.0, 4.0]))  # from w_1 = 0: l = 4, w = 4 (3, 4) / 5
    np.testing.assert_allclose(m.center_, [2.4, 3.2])
    assert m.score_one(np.array([3.0, 4.0])) == pytest.approx(1.0)
    m.learn_one(np.array([2.4, 3.5]))  # inside the ball: passive
    np.testing.assert_allclose(m.center_, [2.4, 3.2])


def test_anomaly_calls_follow_river_and_scikit_learn():
    X = _stream(n=200, seed=5)
    m = UniclassPA(epsilon=2.5).partial_fit(X)
    dist = np.linalg.norm(X - m.center_, axis=1)
    np.testing.assert_allclose(m.score_samples(X), -dist, rtol=0, atol=1e-12)
    assert m.offset_ == -2.5
    np.testing.assert_allclose(m.decision_function(X), m.score_samples(X) - m.offset_,
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), np.where(dist > 2.5, -1, 1))
    assert set(m.predict(X)) == {-1, 1}
    assert m.score_one(X[0]) == pytest.approx(dist[0], abs=1e-12)  # higher = farther
    assert m.predict_one(X[0]) == (-1 if dist[0] > 2.5 else 1)
    # progressive: predict_learn's +-1 agree with score_learn's distances
    a, b = UniclassPA(epsilon=2.5), UniclassPA(epsilon=2.5)
    np.testing.assert_array_equal(a.predict_learn(X),
                                  np.where(b.score_learn(X) > 2.5, -1, 1))
    # before any row: the distance to the paper's w_1 = 0, as score_learn's first score
    assert UniclassPA().score_one({"a": 3.0, "b": 4.0}) == 5.0
    assert UniclassPA().score_one(X[0]) == UniclassPA().score_learn(X[:1])[0]
    assert UniclassPA(epsilon=5.0).predict_one({"a": 3.0, "b": 4.0}) == 1
    assert UniclassPA(epsilon=4.9).predict_one({"a": 3.0, "b": 4.0}) == -1
    fresh = UniclassPA()
    fresh.score_one({"a": 1.0})
    assert not fresh.__sklearn_is_fitted__()  # (scoring learns nothing)
    with pytest.raises(ValueError, match="NaN"):
        UniclassPA().score_one(np.array([np.nan, 1.0]))
    assert UniclassPA().fit_predict(X).shape == (200,)
    assert UniclassPA().__sklearn_tags__().estimator_type == "outlier_detector"


def test_save_load_goes_on_as_before(tmp_path):
    X = _stream(n=120, seed=6)
    m = olearn.make("uniclass", variant="PA-II", C=0.3, epsilon=0.7).partial_fit(X[:60])
    m.save(tmp_path / "u.olearn")
    back = olearn.load(tmp_path / "u.olearn")
    assert type(back) is UniclassPA and back.get_params() == m.get_params()
    np.testing.assert_array_equal(back.center_, m.center_)
    np.testing.assert_array_equal(back.score_learn(X[60:]), m.score_learn(X[60:]))
    np.testing.assert_array_equal(back.center_, m.center_)


def test_mix_weighs_centres_by_counts():
    X = _stream(n=300, seed=7)
    a = UniclassPA().partial_fit(X[:100])
    b = UniclassPA().partial_fit(X[100:])
    mixed = olearn.mix([a, b])
    want = (100 * a.center_ + 200 * b.center_) / 300
    np.testing.assert_allclose(mixed.center_, want, rtol=0, atol=1e-12)
    assert mixed.n_samples_seen_ == 300 and mixed.radius_ == 1.0
    np.testing.assert_array_equal(a.center_, UniclassPA().partial_fit(X[:100]).center_)


@pytest.mark.parametrize("params,message", [
    ({"variant": "PA-III"}, "variant must be one of PA, PA-I, PA-II"),
    ({"C": 0.0}, "C must be a finite number > 0"),
    ({"C": -1.0, "variant": "PA-II"}, "C must be a finite number > 0"),
    ({"epsilon": -0.1}, "epsilon"),
    ({"epsilon": float("nan")}, "epsilon"),
    ({"epsilon": None}, "needs its upper bound B"),
    ({"epsilon": None, "B": 0.0}, "B must be"),
    ({"epsilon": 1.0, "B": 2.0}, "read only with epsilon=None"),
    ({"epochs": 0}, "epochs"),
])
def test_bad_parameters_are_one_line_errors(params, message):
    with pytest.raises(ValueError, match=message) as info:
        UniclassPA(**params).partial_fit(np.ones((3, 2)))
    assert "\n" not in str(info.value)


def test_river_filters_take_the_detector():
    anomaly = pytest.importorskip("river.anomaly")
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 3))
    X[150] = 40.0
    for f in (anomaly.ThresholdFilter(UniclassPA(epsilon=3.0), threshold=6.0),
              anomaly.QuantileFilter(UniclassPA(epsilon=3.0), q=0.95)):
        flags = []
        for row in X:
            x = dict(enumerate(row))
            flags.append(f.classify(f.score_one(x)))
            f.learn_one(x)
        assert flags[150]


def test_tags_and_registry():
    t = olearn.tags(olearn.make("uniclass"))
    assert t.target == "none" and t.sparse_input and t.one_example
    assert "uniclass" in olearn.registry.unlabelled_names()
    assert UniclassPA()._supervised is False


def test_learned_radius_passes_the_generic_checks(tmp_path):
    from generic_unlabelled import check_unlabelled
    check_unlabelled(lambda: UniclassPA(epsilon=None, B=2.0), _stream(n=60, seed=13),
                     tmp_path)


def _http(n):
    from conftest import data_path
    data = np.loadtxt(data_path("kdd99_http", "kdd99_http.csv.gz"), delimiter=",",
                      skiprows=1, max_rows=n)
    return np.ascontiguousarray(data[:, :-1])


def test_learned_radius_on_kdd99_http_equals_the_paper():
    X = _http(3000)
    centres, radii, dists, _ = paper_learned(X, "PA-I", 1.0, 16.0)
    for rows in (X, sp.csr_matrix(X)):
        m = UniclassPA(epsilon=None, B=16.0)
        np.testing.assert_allclose(m.score_learn(rows), dists, rtol=0, atol=TOL)
        np.testing.assert_allclose(m.center_, centres[-1], rtol=0, atol=TOL)
        assert abs(m.radius_ - radii[-1]) < TOL
