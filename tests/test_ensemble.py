"""Expert advice: weights and predictions against a plain numpy reference, the regret
bound on adversarial losses, the one-pass protocol (chunks, one at a time), Auto,
save/load."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.ensemble import AutoClassifier, AutoRegressor, ExpertAdvice
from olearn.ensemble._combine import combine


def _members():
    return [olearn.make("pa1", C=c) for c in (0.01, 0.1, 1.0)] + [olearn.make("perceptron")]


def _stream(n=600, d=6, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + noise * rng.standard_normal(n) > 0, 1, -1)
    return X, y


# ---------------------------------------------------------------- plain reference
def reference(P, losses, classes_n, combine_rule="ewa", eta=None, regression=False):
    """Row by row: w_j = exp(-eta L_j) over the losses since the last restart (rows 1,
    2, 4, ... when eta is None, eta = sqrt(8 ln N / 2^m)), the prediction, then L += l."""
    n, N = losses.shape
    L = np.zeros(N)
    Ltot = np.zeros(N)
    out, weights = [], []
    end, big = 1, 0.0
    for t in range(1, n + 1):
        if eta is None:
            if t >= end:
                while end <= t:
                    end *= 2
                L[:] = 0.0
            e = math.sqrt(8 * math.log(max(N, 2)) / (end / 2))
            if regression and big > 0:
                e /= big
        else:
            e = eta
        w = np.exp(-e * (L - L.min()))
        if combine_rule == "follow-the-leader":
            w = (np.arange(N) == np.argmin(Ltot)).astype(float)
        p = w / w.sum()
        weights.append(p)
        if regression:
            out.append(float(p @ P[t - 1]))
        else:
            votes = np.bincount(P[t - 1], weights=p, minlength=classes_n)
            out.append(int(np.argmax(votes)))
        L += losses[t - 1]
        Ltot += losses[t - 1]
        big = max(big, losses[t - 1].max())
    return np.array(out), np.array(weights)


@pytest.mark.parametrize("rule", ["ewa", "follow-the-leader"])
@pytest.mark.parametrize("eta", [None, 0.3])
def test_classification_matches_the_numpy_reference(rule, eta):
    X, y = _stream()
    ens = ExpertAdvice(_members(), combine=rule, eta=eta)
    got = ens.predict_learn(X, y)
    P = np.column_stack([m.predict_learn(X, y) for m in _members()])
    Pi = (P == 1).astype(int)
    losses = (P != y[:, None]).astype(float)
    want, W = reference(Pi, losses, 2, rule, eta)
    np.testing.assert_array_equal(got, np.array([-1, 1])[want])
    np.testing.assert_allclose(ens.cumulative_loss_, losses.sum(axis=0))
    last = reference(np.vstack([Pi, Pi[-1:]]), np.vstack([losses, np.zeros((1, 4))]), 2, rule, eta)[1][-1]
    np.testing.assert_allclose(ens.weights_, last, rtol=1e-12)
    # the same run in chunks, on CSR input
    chunked = ExpertAdvice(_members(), combine=rule, eta=eta)
    parts = [chunked.predict_learn(sp.csr_matrix(X[i:i + 97]), y[i:i + 97])
             for i in range(0, len(y), 97)]
    np.testing.assert_array_equal(np.concatenate(parts), got)


def test_regression_matches_the_numpy_reference():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 5))
    y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(400)
    members = [olearn.make("pa1-reg", C=c) for c in (0.01, 0.1, 1.0)]
    ens = ExpertAdvice(members, combine="ewa")
    got = ens.predict_learn(X, y)
    P = np.column_stack([olearn.make("pa1-reg", C=c).predict_learn(X, y)
                         for c in (0.01, 0.1, 1.0)])
    want, _ = reference(P, (P - y[:, None]) ** 2, 0, regression=True)
    np.testing.assert_allclose(got, want, rtol=1e-10)


# ---------------------------------------------------------------- regret
def _mixture_losses(losses, rule="ewa", eta=0.0):
    """Per-row normalised weights from the compiled loop (scores of 'classes' = members)
    and the forecaster's loss sum_t p_t . l_t."""
    n, N = losses.shape
    votes = np.tile(np.arange(N), (n, 1))
    scores = np.zeros((n, N))
    state, L, Ltot = np.array([0.0, 1.0, 0.0, 0.0]), np.zeros(N), np.zeros(N)
    params = np.array([["ewa", "hedge", "follow-the-leader"].index(rule), eta, N, 0, 1.0])
    combine(votes, np.zeros((1, N)), losses, np.ones(N, np.bool_), state, L, Ltot, params,
            np.zeros(N), np.zeros(n, np.int64), np.zeros(n), scores)
    return float((scores * losses).sum())


@pytest.mark.parametrize("N", [2, 10])
def test_ewa_regret_within_the_doubling_trick_bound_on_adversarial_losses(N):
    """Losses that punish whoever leads (follow the leader's worst case) and random ones:
    EWA's regret to the best expert stays under sqrt(2)/(sqrt(2)-1) sqrt(n ln N / 2)."""
    n = 5000
    rng = np.random.default_rng(N)
    alt = np.zeros((n, N))
    alt[0, 0] = 0.5
    for t in range(1, n):                  # the leader loses: experts 0 and 1 in turn
        alt[t, t % 2] = 1.0
    alt[:, 2:] = 1.0
    noisy = rng.random((n, N)) * np.linspace(0.8, 1.0, N)
    for losses in (alt, noisy):
        best = losses.sum(axis=0).min()
        bound = math.sqrt(2) / (math.sqrt(2) - 1) * math.sqrt(n * math.log(N) / 2)
        regret = _mixture_losses(losses) - best
        assert regret <= bound
    # follow the leader suffers linear regret on the alternating sequence
    assert _mixture_losses(alt, "follow-the-leader") - alt.sum(axis=0).min() > 0.4 * n


# ---------------------------------------------------------------- protocol
def test_hedge_draws_do_not_depend_on_chunking():
    X, y = _stream(seed=3)
    a = ExpertAdvice(_members(), combine="hedge", random_state=5)
    b = ExpertAdvice(_members(), combine="hedge", random_state=5)
    whole = a.predict_learn(X, y)
    parts = np.concatenate([b.predict_learn(X[i:i + 50], y[i:i + 50])
                            for i in range(0, len(y), 50)])
    np.testing.assert_array_equal(whole, parts)
    c = ExpertAdvice(_members(), combine="hedge", random_state=6).predict_learn(X, y)
    assert (c != whole).any()


def test_one_at_a_time_and_predict_agree():
    X, y = _stream(n=200, seed=4)
    ens = ExpertAdvice(_members())
    got = [ens.predict_learn_one(xi, yi) for xi, yi in zip(X, y)]
    assert got[0] is None
    # until the stream has shown both classes a member one example at a time can only
    # name the class it knows (see tests/test_one.py); equal from then on
    both = next(i for i in range(1, len(y)) if len(set(y[:i])) == 2)
    batch = ExpertAdvice(_members()).partial_fit(X[:1], y[:1], classes=[-1, 1])
    for i in range(1, len(y)):
        if i >= both:
            assert batch.predict(X[i:i + 1])[0] == got[i]
        batch.partial_fit(X[i:i + 1], y[i:i + 1])
    assert ens.t_ == len(y) and ens.predict_one(X[0]) in (-1, 1)


def test_divergent_member_is_dropped():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4)) * 1e3
    y = X @ np.ones(4) * 1e3
    members = [olearn.make("ogd-reg", schedule="invsqrt", eta=10.0), olearn.make("pa1-reg")]
    ens = ExpertAdvice(members)
    ens.predict_learn(X, y)
    assert list(ens.alive_) == [False, True]
    assert ens.weights_[0] == 0.0


def test_bad_parameters_are_refused():
    X, y = _stream(n=20)
    with pytest.raises(ValueError, match="combine"):
        ExpertAdvice(_members(), combine="vote").fit(X, y)
    with pytest.raises(ValueError, match="eta"):
        ExpertAdvice(_members(), eta=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="loss"):
        ExpertAdvice(_members(), loss="squared").fit(X, y)
    with pytest.raises(ValueError, match="learners"):
        ExpertAdvice([]).fit(X, y)
    with pytest.raises(ValueError, match="all classifiers"):
        ExpertAdvice([olearn.make("pa1"), olearn.make("pa1-reg")]).fit(X, y)


def test_hinge_loss_weights_by_margin():
    X, y = _stream(seed=2)
    ens = ExpertAdvice(_members(), loss="hinge")
    ens.predict_learn(X, y)
    assert np.all(ens.cumulative_loss_ >= 0) and np.all(ens.cumulative_loss_ <= len(y))
    assert ens.cumulative_loss_[3] > ens.cumulative_loss_[1]   # perceptron: no margin


# ---------------------------------------------------------------- Auto
def test_auto_is_registered_and_saves(tmp_path):
    assert isinstance(olearn.make("auto"), AutoClassifier)
    assert isinstance(olearn.make("auto-reg"), AutoRegressor)
    X, y = _stream(n=300, seed=5)
    m = AutoClassifier(random_state=0).fit(X, y)
    m.save(tmp_path / "a.olm")
    back = olearn.load(tmp_path / "a.olm")
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    np.testing.assert_array_equal(back.predict_learn(X, y), m.predict_learn(X, y))
    np.testing.assert_array_equal(back.weights_, m.weights_)


# ---------------------------------------------------------------- saving given learners
@pytest.mark.parametrize("regression", [False, True])
def test_expert_advice_over_given_learners_saves_loads_and_continues(tmp_path, regression):
    """Members (one of them an OnDrift meta-model) and a detector are saved as nested
    olearn models; the loaded ensemble continues the stream exactly as the original."""
    from olearn.drift import DDM, OnDrift, PageHinkley
    rng = np.random.default_rng(7)
    X = rng.standard_normal((600, 5))
    if regression:
        y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(600)
        y[300:] = -y[300:]
        members = [olearn.make("pa1-reg", C=c) for c in (0.1, 1.0)] + \
            [OnDrift(olearn.make("rls"), PageHinkley(threshold=5.0))]
        det = PageHinkley(threshold=20.0)
    else:
        y = np.where(X @ rng.standard_normal(5) > 0, 1, -1)
        y[300:] = -y[300:]
        members = _members() + [OnDrift(olearn.make("arow"), DDM())]
        det = DDM()
    m = ExpertAdvice(members, combine="ewa", detector=det)
    m.predict_learn(X[:400], y[:400])
    assert m.drifts_                                  # the switch at 300 was seen
    m.save(tmp_path / "e.olm")
    back = olearn.load(tmp_path / "e.olm")
    assert type(back) is ExpertAdvice and back.drifts_ == m.drifts_
    assert [type(a) for a in back.members_] == [type(a) for a in m.members_]
    np.testing.assert_array_equal(back.weights_, m.weights_)
    np.testing.assert_array_equal(back.predict(X[400:]), m.predict(X[400:]))
    for i in range(400, 600, 50):                     # the rest of the stream, in chunks
        np.testing.assert_array_equal(back.predict_learn(X[i:i + 50], y[i:i + 50]),
                                      m.predict_learn(X[i:i + 50], y[i:i + 50]))
    assert back.drifts_ == m.drifts_
    # Auto over given learners saves the same way
    a = AutoClassifier(learners=_members()) if not regression else \
        AutoRegressor(learners=members[:2])
    a.fit(X[:100], y[:100])
    a.save(tmp_path / "a.olm")
    np.testing.assert_array_equal(olearn.load(tmp_path / "a.olm").predict(X), a.predict(X))


def test_saving_refuses_what_is_not_json_or_olearn(tmp_path):
    X, y = _stream(n=50)
    m = ExpertAdvice(_members(), random_state=np.random.default_rng(0)).fit(X, y)
    with pytest.raises(TypeError, match="cannot save a parameter"):
        m.save(tmp_path / "x.olm")
    assert not (tmp_path / "x.olm").exists()


# ---------------------------------------------------------------- re-weighting on drift
def _switch_stream(n=4000, d=10, seed=0):
    """An abrupt concept switch at the middle: a new random separating direction."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w1, w2 = rng.standard_normal(d), rng.standard_normal(d)
    y = np.where(X @ w1 > 0, 1, -1)
    y[n // 2:] = np.where(X[n // 2:] @ w2 > 0, 1, -1)
    return X, y


def _drift_members():
    # a confident second-order learner (best before the switch, slow after it) and two
    # first-order ones that adapt at once
    return [olearn.make("arow", r=1.0), olearn.make("perceptron"), olearn.make("pa1", C=0.1)]


@pytest.mark.parametrize("combine", ["follow-the-leader", "ewa"])
def test_reweighting_on_drift_lowers_the_post_drift_windowed_error(combine):
    from olearn.drift import DDM
    from olearn.evaluate.metrics import running_mean
    for seed in range(3):
        X, y = _switch_stream(seed=seed)
        h = len(y) // 2
        plain = ExpertAdvice(_drift_members(), combine=combine).predict_learn(X, y)
        m = ExpertAdvice(_drift_members(), combine=combine, detector=DDM())
        watched = m.predict_learn(X, y)
        assert any(h <= d < h + 200 for d in m.drifts_)
        # windowed (last 500 rows) mistake rate over the 1,000 rows after the switch
        errs = [running_mean(window=500).update((p != y).astype(float))[h:h + 1000].mean()
                for p in (plain, watched)]
        assert errs[1] < errs[0] - (0.02 if combine == "follow-the-leader" else 0.0)
        assert (watched[:h] == plain[:h]).mean() > 0.95     # before it: the same ensemble


def test_reweighting_does_not_depend_on_chunks_or_one_at_a_time():
    from olearn.drift import DDM
    X, y = _switch_stream(n=1200, seed=1)
    whole = ExpertAdvice(_drift_members(), combine="ewa", detector=DDM())
    pw = whole.predict_learn(X, y)
    chunked = ExpertAdvice(_drift_members(), combine="ewa", detector=DDM())
    pc = np.concatenate([chunked.predict_learn(X[i:i + 97], y[i:i + 97])
                         for i in range(0, len(y), 97)])
    np.testing.assert_array_equal(pw, pc)
    assert chunked.drifts_ == whole.drifts_ and whole.drifts_
    np.testing.assert_allclose(chunked.weights_, whole.weights_)
    # one at a time: the same detections once both classes are known (the first row
    # has no prediction)
    one = ExpertAdvice(_drift_members(), combine="ewa", detector=DDM())
    po = [one.predict_learn_one(xi, yi) for xi, yi in zip(X, y)]
    both = next(i for i in range(1, len(y)) if len(set(y[:i])) == 2)
    assert (np.array(po[both + 5:]) == pw[both + 5:]).mean() > 0.99
    # the detector saw the ensemble's own errors: its detections are where it fires
    det, want = DDM(), []
    for i, e in enumerate((pw != y).astype(float)):
        det.update(e)
        if det.drift_detected:
            want.append(i)
    assert want == whole.drifts_


def test_reweight_sets_uniform_weights_and_restarts_the_rate():
    X, y = _stream(n=400, seed=3)
    m = ExpertAdvice(_members(), combine="ewa").fit(X, y)
    assert np.ptp(m.weights_) > 0
    m.reweight()
    np.testing.assert_allclose(m.weights_, np.full(4, 0.25))
    assert np.all(m.cumulative_loss_ == 0)
    Xn, yn = _stream(n=1, seed=9)
    m.partial_fit(Xn, yn)          # after one row the rate is sqrt(8 ln N) again
    L = m._Ltot
    w = np.exp(-math.sqrt(8 * math.log(4)) * (L - L.min()))
    np.testing.assert_allclose(m.weights_, w / w.sum())


# ---------------------------------------------------------------- online bagging
def _oza_reference(make, X, y, n_models, seed, regression=False):
    """Oza and Russell's online bagging written plainly, one example at a time: each
    member's prediction (a member that has learned nothing does not vote), the majority
    (the lowest label on ties) or the mean, then k ~ Poisson(1) updates of each member,
    k drawn per member per row from one numpy generator."""
    rng = np.random.default_rng(seed)
    members = [make() for _ in range(n_models)]
    preds = []
    for x, t in zip(X, y):
        k = rng.poisson(1.0, n_models)
        votes = [m.predict_one(x) for m in members]
        if regression:
            preds.append(float(np.mean(votes)))
        else:
            known = [v for v in votes if v is not None]
            preds.append(min(set(known), key=lambda c: (-known.count(c), c))
                         if known else None)
        for m, kj in zip(members, k):
            for _ in range(kj):
                m.learn_one(x, t)
    return members, preds


@pytest.mark.parametrize("regression", [False, True])
def test_oza_bagging_is_the_plain_loop(regression):
    from olearn.ensemble import OzaBagging
    X, y = _stream(n=300, seed=3)
    if regression:
        y = X @ np.arange(1.0, 7.0) + 0.1
    name = "pa1-reg" if regression else "pa1"
    members, ref = _oza_reference(lambda: olearn.make(name), X, y, 5, 11, regression)
    one = OzaBagging(olearn.make(name), n_models=5, random_state=11)
    got = [one.predict_learn_one(x, t) for x, t in zip(X, y)]
    if regression:
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    else:
        assert got == ref
    for form in (X, sp.csr_matrix(X)):  # the batch path: the same draws, the same members
        bag = OzaBagging(olearn.make(name), n_models=5, random_state=11)
        pred = bag.predict_learn(form, y)
        for m, r in zip(bag.members_, members):
            np.testing.assert_allclose(m.coef_, r.coef_, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(m.intercept_, r.intercept_, rtol=1e-10, atol=1e-12)
            assert m.n_updates_ == r.n_updates_
        # (a member that knows one class predicts it one example at a time, and by the
        # sign of its score in a batch, which registers both labels first: the first
        # rows may differ, then every member knows both)
        late = slice(20, None)
        if regression:
            np.testing.assert_allclose(pred, ref, rtol=1e-10, atol=1e-10)
        else:
            assert list(pred[late]) == ref[late]
        assert bag.t_ == len(y) and bag.n_updates_ == sum(r.n_updates_ for r in members)
    # each member learns about n rows (Poisson(1) has mean 1), not all the same ones
    counts = [m.n_updates_ for m in bag.members_]
    assert len(set(counts)) > 1


def test_oza_bagging_batches_chunks_and_a_saved_file_learn_the_same(tmp_path):
    from olearn.ensemble import OzaBagging
    X, y = _stream(n=400, seed=5, noise=0.5)
    whole = OzaBagging(olearn.make("pa1"), random_state=2)
    p_whole = whole.predict_learn(X, y)
    parts = OzaBagging(olearn.make("pa1"), random_state=2)
    p_parts = np.concatenate([parts.predict_learn(sp.csr_matrix(X[i:i + 57]), y[i:i + 57])
                              for i in range(0, 400, 57)])
    np.testing.assert_array_equal(p_whole, p_parts)
    saved = OzaBagging(olearn.make("pa1"), random_state=2).partial_fit(X[:150], y[:150])
    saved.save(tmp_path / "bag.olm")
    back = olearn.load(tmp_path / "bag.olm")  # its generator's state comes back with it
    assert type(back) is OzaBagging and back.t_ == 150
    np.testing.assert_array_equal(back.predict_learn(X[150:], y[150:]), p_whole[150:])
    np.testing.assert_array_equal(back.decision_function(X), whole.decision_function(X))
    other = OzaBagging(olearn.make("pa1"), random_state=3).fit(X, y)
    assert not np.array_equal(other.decision_function(X), whole.decision_function(X))


def test_oza_bagging_refuses_bad_parameters_and_holds_one_kind():
    from olearn.ensemble import OzaBagging
    X, y = _stream(n=20)
    for bad in (0, 2.5, True, "10"):
        with pytest.raises(ValueError, match="n_models must be an integer >= 1"):
            OzaBagging(olearn.make("pa1"), n_models=bad).partial_fit(X, y)
    with pytest.raises(TypeError, match="base must be an olearn learner"):
        OzaBagging(None).partial_fit(X, y)
    bag = OzaBagging(olearn.make("pa1-reg"), n_models=3)
    assert olearn.tags(bag).task == "regressor" and olearn.tags(bag).wrapper
    bag.fit(X, y.astype(float))
    with pytest.raises(olearn.protocol.CannotMixError, match="OzaBagging cannot be mixed"):
        olearn.mix([bag, olearn.ensemble.OzaBagging(olearn.make("pa1-reg"), n_models=3)
                    .fit(X, -y.astype(float))])
