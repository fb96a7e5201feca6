"""Drift detectors: each against a plain Python reference (same detection indices on
random streams), ``update_many`` = the ``update`` loop, the papers' worked behaviour,
false alarms on stationary streams, save/load, and OnDrift."""
import math

import numpy as np
import pytest

import olearn
from olearn.drift import ADWIN, DDM, EDDM, OnDrift, PageHinkley


# ---------------------------------------------------------------- plain references
class RefADWIN:
    """ADWIN2 (Bifet and Gavalda 2007, section 4) with Python lists: ``rows[i]`` holds
    the buckets of size 2^i, oldest first, each a [sum, variance term]."""

    def __init__(self, delta=0.002, clock=32, max_buckets=5, min_window_length=5,
                 grace_period=10, keep_recent=True):
        self.keep = keep_recent
        self.delta, self.clock, self.M = delta, clock, max_buckets
        self.mwl, self.grace = min_window_length, grace_period
        self.rows, self.width, self.total, self.var, self.tick = [[]], 0.0, 0.0, 0.0, 0

    def _drop_oldest(self):
        top = len(self.rows) - 1
        size = 2.0 ** top
        u, v = self.rows[top].pop(0)
        self.width -= size
        self.total -= u
        if self.width > 0:
            d = u / size - self.total / self.width
            self.var -= v + size * self.width * d * d / (size + self.width)
        while self.rows and not self.rows[-1]:
            self.rows.pop()

    def update(self, x):
        self.tick += 1
        w = self.width + 1
        if w > 1:
            self.var += (w - 1) * (x - self.total / (w - 1)) ** 2 / w
        self.width, self.total = w, self.total + x
        if not self.rows:
            self.rows = [[]]
        self.rows[0].append([x, 0.0])
        i = 0
        while len(self.rows[i]) == self.M + 1:
            (t0, v0), (t1, v1) = self.rows[i][0], self.rows[i][1]
            size = 2.0 ** i
            d = t0 / size - t1 / size
            if i + 1 == len(self.rows):
                self.rows.append([])
            self.rows[i + 1].append([t0 + t1, v0 + v1 + size * size * d * d / (2 * size)])
            del self.rows[i][:2]
            i += 1
        found_any = False
        if self.tick % self.clock == 0 and self.width > self.grace:
            found = True
            while found and self.width >= 2:
                found = False
                ln = math.log(2 * math.log(self.width) / self.delta)
                s2 = max(self.var / self.width, 0.0)
                cuts = [(2.0 ** i, b[0]) for i in range(len(self.rows) - 1, -1, -1)
                        for b in self.rows[i]]
                n0 = u0 = 0.0
                n1, u1 = self.width, self.total
                for size, u in cuts:
                    n0, n1, u0, u1 = n0 + size, n1 - size, u0 + u, u1 - u
                    if n1 < self.mwl:
                        break
                    if n0 >= self.mwl:
                        m = 1 / n0 + 1 / n1
                        eps = math.sqrt(2 * m * s2 * ln) + 2 / 3 * m * ln
                        if abs(u0 / n0 - u1 / n1) > eps:
                            found = found_any = True
                            self._drop_oldest()
                            break
        if found_any and not self.keep:      # River's reaction: start afresh
            self.rows, self.width, self.total, self.var, self.tick = [[]], 0.0, 0.0, 0.0, 0
        return found_any


class RefDDM:
    """Gama et al. 2004: p_i, s_i, the minimum of p + s after the warm-up."""

    def __init__(self, warm_start=30, warning_threshold=2.0, drift_threshold=3.0):
        self.w, self.a, self.b = warm_start, warning_threshold, drift_threshold
        self.i = self.k = 0
        self.best = None

    def update(self, x):
        self.i += 1
        self.k += x
        i = self.i
        p = self.k / i
        s = math.sqrt(p * (1 - p) / i)
        self.warning = False
        if i <= self.w:
            return False
        if self.best is None or p + s <= self.best[0] + self.best[1]:
            self.best = (p, s)
        if p + s > self.best[0] + self.b * self.best[1]:
            self.i, self.k, self.best = 0, 0, None
            return True
        self.warning = p + s > self.best[0] + self.a * self.best[1]
        return False


class RefEDDM:
    """Baena-Garcia et al. 2006: mean + 2 sd of the distances between errors."""

    def __init__(self, warm_start=30, alpha=0.95, beta=0.9):
        self.w, self.alpha, self.beta = warm_start, alpha, beta
        self._start()

    def _start(self):
        self.i, self.last, self.dists, self.best, self.warning = 0, 0, [], 0.0, False

    def update(self, x):
        self.i += 1
        if x != 1:
            return False
        self.dists.append(self.i - self.last)
        self.last = self.i
        d = np.array(self.dists, dtype=float)
        level = d.mean() + 2 * (d.std(ddof=1) if len(d) > 1 else 0.0)
        self.best = max(self.best, level)
        if len(d) >= self.w:
            if level / self.best < self.beta:
                self._start()
                return True
            self.warning = level / self.best < self.alpha
        return False


class RefPH:
    """Page-Hinkley with a fading factor, both directions."""

    def __init__(self, min_instances=30, delta=0.005, threshold=50.0, alpha=0.9999):
        self.n0, self.delta, self.lam, self.alpha = min_instances, delta, threshold, alpha
        self._start()

    def _start(self):
        self.n, self.sum, self.up, self.down = 0, 0.0, 0.0, 0.0
        self.lo, self.hi = math.inf, -math.inf

    def update(self, x):
        self.n += 1
        self.sum += x
        mean = self.sum / self.n
        self.up = self.alpha * self.up + (x - mean) - self.delta
        self.down = self.alpha * self.down + (x - mean) + self.delta
        self.lo, self.hi = min(self.lo, self.up), max(self.hi, self.down)
        if self.n >= self.n0 and (self.up - self.lo > self.lam
                                        or self.hi - self.down > self.lam):
            self._start()
            return True
        return False


def _loop(det, xs):
    out = []
    for i, x in enumerate(xs):
        hit = det.update(float(x))  # (a reference's bool; olearn's None, as River's)
        if det.drift_detected if hit is None else hit:
            out.append(i)
    return out


def _errors(seed, rates=(0.1, 0.35, 0.05, 0.2), n=3000):
    rng = np.random.default_rng(seed)
    return np.concatenate([(rng.random(n) < p).astype(float) for p in rates])


def _reals(seed, n=4000):
    rng = np.random.default_rng(seed)
    means = np.repeat(rng.normal(0, 1, 4), n // 4)
    return means + rng.normal(0, 1 + rng.random(), n)


# ---------------------------------------------------------------- against the references
@pytest.mark.parametrize("seed", range(3))
def test_adwin_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    for xs, params in ((_errors(seed), {}), (_reals(seed), {"clock": 1}),
                       (_reals(seed + 10), {"max_buckets": 2, "min_window_length": 3,
                                            "delta": 0.05, "clock": 4}),
                       (_errors(seed + 20), {"keep_recent": False})):
        want = _loop(RefADWIN(**params), xs)
        got = ADWIN(**params).update_many(xs)
        assert list(got) == want and len(want) > 0
    assert rng is not None


@pytest.mark.parametrize("seed", range(3))
def test_ddm_eddm_ph_match_the_references(seed):
    xs = _errors(seed)
    for det, ref in ((DDM(), RefDDM()), (DDM(warm_start=100, drift_threshold=2.5),
                                          RefDDM(100, 2.0, 2.5)),
                     (EDDM(), RefEDDM()), (EDDM(warm_start=10, beta=0.8),
                                           RefEDDM(10, 0.95, 0.8))):
        want = _loop(ref, xs)
        assert list(det.update_many(xs)) == want and len(want) > 0, type(det).__name__
    reals = _reals(seed)
    for det, ref in ((PageHinkley(), RefPH()),
                     (PageHinkley(threshold=20.0, alpha=1.0), RefPH(30, 0.005, 20.0, 1.0))):
        want = _loop(ref, reals)
        assert list(det.update_many(reals)) == want and len(want) > 0


def test_ddm_warnings_match_the_reference():
    xs = _errors(5)
    ref, want = RefDDM(), []
    for i, x in enumerate(xs):
        ref.update(x)
        if ref.warning:
            want.append(i)
    drifts, warnings = DDM().update_many(xs, return_warnings=True)
    assert list(warnings) == want and len(want) > 0


@pytest.mark.parametrize("make", [ADWIN, DDM, EDDM, PageHinkley,
                                  lambda: ADWIN(clock=1, max_buckets=1)])
def test_update_many_equals_the_update_loop(make):
    xs = _errors(7)
    one = make()
    flags = [(one.update(x), one.drift_detected, one.warning_detected)[1:] for x in xs]
    many = make()
    drifts, warnings = many.update_many(xs[:5000], return_warnings=True)
    d2, w2 = many.update_many(xs[5000:], return_warnings=True)   # in two calls
    assert list(drifts) + list(d2 + 5000) == [i for i, f in enumerate(flags) if f[0]]
    assert list(warnings) + list(w2 + 5000) == [i for i, f in enumerate(flags) if f[1]]
    assert one.n_detections_ == many.n_detections_ and one.n_ == many.n_ == len(xs)


# ---------------------------------------------------------------- worked behaviour
def test_adwin_documented_example_change_at_1000_flagged_at_1023():
    """River's documented example: values in {0, 1}, then in {4..7} from index 1000;
    with delta = 0.002 and the clock of 32 the first test after the change cuts."""
    import random
    rng = random.Random(12345)
    stream = rng.choices([0, 1], k=1000) + rng.choices(range(4, 8), k=1000)
    assert list(ADWIN(delta=0.002).update_many(stream)) == [1023]
    det = ADWIN(delta=0.002)
    assert list(det.update_many(stream[:1024])) == [1023]
    # the window kept its newer part, the values since the change (the paper's rule)
    assert 24 <= det.width <= 64 and det.estimation > 3.0
    river_like = ADWIN(keep_recent=False)
    assert list(river_like.update_many(stream[:1024])) == [1023] and river_like.width == 0


def test_adwin_cut_follows_its_delta():
    """A small shift is cut at a large delta and not at a tiny one."""
    rng = np.random.default_rng(3)
    xs = np.concatenate([rng.normal(0, 1, 2000), rng.normal(0.25, 1, 2000)])
    assert len(ADWIN(delta=0.5, clock=1).update_many(xs)) > 0
    assert len(ADWIN(delta=1e-12, clock=1).update_many(xs)) == 0


def test_ddm_warning_then_drift_levels():
    """Error rate 0.1 then 0.5: the warning level (2 s) is crossed before the drift (3 s)."""
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.random(1000) < 0.1, rng.random(500) < 0.5]).astype(float)
    drifts, warnings = DDM().update_many(xs, return_warnings=True)
    assert len(drifts) >= 1 and drifts[0] >= 1000
    after = warnings[warnings >= 1000]
    assert len(after) and after[0] < drifts[0]      # warned before the drift
    assert drifts[0] - 1 in warnings


def test_no_false_alarm_on_stationary_bernoulli_streams():
    for p in (0.5, 0.1):
        b = (np.random.default_rng(1).random(100_000) < p).astype(float)
        assert len(ADWIN().update_many(b)) == 0, p
    # Page-Hinkley's default threshold (50) suits low error rates: quiet at p = 0.01;
    # on Bernoulli(0.5) it (and River's, the same test) fires about 12 times per 10^5
    b = (np.random.default_rng(1).random(100_000) < 0.01).astype(float)
    assert len(PageHinkley().update_many(b)) == 0


# ---------------------------------------------------------------- API
def test_bad_values_and_parameters_are_refused():
    with pytest.raises(ValueError, match="finite"):
        ADWIN().update_many([0.0, np.nan])
    with pytest.raises(ValueError, match="finite"):
        DDM().update(np.inf)
    with pytest.raises(ValueError, match="delta"):
        ADWIN(delta=2.0).update(1.0)
    with pytest.raises(ValueError, match="clock"):
        ADWIN(clock=0).update(1.0)
    with pytest.raises(ValueError, match="drift_threshold"):
        DDM(warning_threshold=3.0, drift_threshold=2.0).update(1.0)
    with pytest.raises(ValueError, match="mode"):
        PageHinkley(mode="sideways").update(1.0)
    with pytest.raises(ValueError, match="one-dimensional"):
        EDDM().update_many(np.zeros((2, 2)))


@pytest.mark.parametrize("make", [ADWIN, DDM, EDDM, PageHinkley])
def test_save_load_continues_the_same_stream(make, tmp_path):
    xs = _errors(11)
    a = make()
    a.update_many(xs[:4000])
    a.save(tmp_path / "d.olm")
    b = olearn.load(tmp_path / "d.olm")
    assert type(b) is make and b.get_params() == a.get_params() and b.n_ == 4000
    np.testing.assert_array_equal(a.update_many(xs[4000:]), b.update_many(xs[4000:]))


def test_params_repr_and_reset():
    a = ADWIN(delta=0.01)
    assert a.get_params()["delta"] == 0.01 and "delta=0.01" in repr(a)
    a.update_many(_errors(0))
    assert a.width > 0
    a.reset()
    assert a.width == 0 and a.n_ == 0
    with pytest.raises(ValueError, match="unknown parameter"):
        a.set_params(nope=1)


# ---------------------------------------------------------------- OnDrift
def _concept_stream(n=3000, d=5, seed=0):
    """Two linear concepts, the second the negation of the first from row n // 2."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = np.where(X @ w > 0, 1, -1)
    y[n // 2:] *= -1
    return X, y


def test_on_drift_resets_the_learner_at_each_detection():
    X, y = _concept_stream()
    batch = OnDrift(olearn.make("perceptron"), DDM())
    pred = batch.predict_learn(X, y)
    drifts = batch.drifts_
    assert any(1500 <= d < 1700 for d in drifts)
    # between detections the predictions are those of a fresh learner from the last reset
    bounds = [0] + [d + 1 for d in drifts] + [len(y)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        fresh = olearn.make("perceptron").predict_learn(X[a:b], y[a:b])
        assert list(pred[a:b]) == list(fresh)
    # and the detector saw exactly those errors: its detections are where it fired
    errors = (pred != y).astype(float)
    det, want = DDM(), []
    for i, e in enumerate(errors):
        det.update(e)
        if det.drift_detected:
            want.append(i)
    assert want == drifts
    # chunked calls give the same run
    chunked = OnDrift(olearn.make("perceptron"), DDM())
    got = np.concatenate([chunked.predict_learn(X[i:i + 500], y[i:i + 500])
                          for i in range(0, len(y), 500)])
    assert chunked.drifts_ == drifts and list(got) == list(pred)
    # resetting pays: fewer mistakes after the change than the learner alone
    alone = olearn.make("perceptron").predict_learn(X, y)
    assert (pred[1500:] != y[1500:]).sum() < (alone[1500:] != y[1500:]).sum()
    one = OnDrift(olearn.make("perceptron"), ADWIN())
    for xi, yi in zip(X, y):
        one.predict_learn_one(xi, yi)
    assert any(1500 <= d < 1700 for d in one.drifts_)


@pytest.mark.parametrize("make", [DDM, ADWIN])
def test_on_drift_saves_loads_and_continues(make, tmp_path):
    X, y = _concept_stream(seed=2)
    a = OnDrift(olearn.make("pa1"), make())
    a.predict_learn(X[:2000], y[:2000])
    assert a.drifts_
    a.save(tmp_path / "o.olm")
    b = olearn.load(tmp_path / "o.olm")
    assert type(b) is OnDrift and b.drifts_ == a.drifts_ and b.t_ == a.t_
    assert b.detector_.get_params() == a.detector_.get_params()
    np.testing.assert_array_equal(b.predict(X[2000:]), a.predict(X[2000:]))
    np.testing.assert_array_equal(b.predict_learn(X[2000:], y[2000:]),
                                  a.predict_learn(X[2000:], y[2000:]))
    assert b.drifts_ == a.drifts_
    fresh = OnDrift(olearn.make("pa1"), make())        # nothing learned yet: saves too
    fresh.save(tmp_path / "f.olm")
    c = olearn.load(tmp_path / "f.olm")
    np.testing.assert_array_equal(c.predict_learn(X, y), fresh.predict_learn(X, y))


# ---------------------------------------------------------------- River's detector API
def _five_changes(seed, n=1500):
    """Six segments of Bernoulli errors or Gaussian values: five changes."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        return np.concatenate([(rng.random(n) < p).astype(float)
                               for p in (0.1, 0.4, 0.15, 0.3, 0.05, 0.25)])
    return np.concatenate([rng.normal(m, 1.0, n) for m in rng.normal(0, 1.5, 6)])


@pytest.mark.parametrize("seed", range(3))
def test_adwin_is_adwin2_on_streams_with_five_changes(seed):
    """The paper's rule (keep the newer part) against the reference, at MOA's clock and
    at the paper's (every value): same detections, more than one per stream."""
    xs = _five_changes(seed)
    for params in ({}, {"clock": 1, "grace_period": 0, "min_window_length": 1}):
        want = _loop(RefADWIN(**params), xs)
        assert list(ADWIN(**params).update_many(xs)) == want and len(want) >= 3
        det = ADWIN(**params)
        assert _loop(det, xs) == want  # update's loop: the same, update returns None


def test_update_returns_none_and_reset_as_rivers():
    det = ADWIN()
    assert det.update(1.0) is None and det.drift_detected is False and det.n_ == 1
    assert det._reset() is None and det.n_ == 0 and det.width == 0
    ph = PageHinkley()
    assert ph.learn_one(0.5) is ph


river = None
try:  # (River's own detectors, where installed; olearn never imports River)
    import river
    from river import drift as river_drift
except ImportError:
    pass


def _river_run(det, xs):
    drifts, warnings = [], []
    for i, x in enumerate(xs):
        det.update(x)
        if det.drift_detected:
            drifts.append(i)
        if getattr(det, "warning_detected", False):
            warnings.append(i)
    return drifts, warnings


@pytest.mark.skipif(river is None, reason="River is optional (the test extra)")
def test_rivers_documented_examples_and_type():
    import random
    from river import base as river_base
    rng = random.Random(12345)
    stream = rng.choices([0, 1], k=1000) + rng.choices(range(4, 8), k=1000)
    for ours, theirs in ((ADWIN(), river_drift.ADWIN()),
                         (PageHinkley(), river_drift.PageHinkley())):
        want = _river_run(theirs, stream)[0]
        assert _river_run(ours, stream)[0] == want and want  # ADWIN: [1023], PH: [1006]
    rng = random.Random(42)  # DDM's example (EDDM departs from River: see its docstring)
    errors = rng.choices([0, 1], k=1000)
    errors += rng.choices([0, 1], k=1000, weights=[0.3, 0.7])
    want = _river_run(river_drift.binary.DDM(), errors)[0]
    assert _river_run(DDM(), errors)[0] == want and want  # [1334]
    # (not River's DriftDetector type: its bases are no ABCs; olearn/drift/_base.py)
    assert not isinstance(ADWIN(), river_base.DriftDetector)
    det = ADWIN(delta=0.01)
    det.update_many(stream[:1100])
    import pickle
    back = pickle.loads(pickle.dumps(det))
    assert type(back) is type(det) and back.width == det.width and back.delta == 0.01
    assert type(det.clone()) is type(det) and type(det).__name__ == "ADWIN"
