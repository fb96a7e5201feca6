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
    state, L, Ltot = np.array([0.0, 1.0, 0.0]), np.zeros(N), np.zeros(N)
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
    members = [olearn.make("ogd-reg", eta=10.0), olearn.make("pa1-reg")]
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
    with pytest.raises(TypeError, match="cannot save parameters"):   # learners: objects
        AutoClassifier(learners=_members()).fit(X, y).save(tmp_path / "b.olm")
