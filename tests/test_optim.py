"""``olearn.optim``: each optimiser's step against a plain numpy reference on random
dense and sparse streams (hinge, logistic and squared losses through OGD, binary,
multiclass and regression); the learners that are an optimiser on a loss equal the
composition (``adagrad`` = OGD + AdaGrad, ``cocob`` = OGD + COCOB, OGD's default = OGD +
SGD), bit for bit, and equal round 3's own rules (copied below as they were, declared
outside olearn), bit for bit; persistence; parameters; the generic protocol checks."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

import olearn
from olearn import optim
from olearn._compiled.averaging import G_, T_, adagrad_rows, add_at, add_row, avg_begin, \
    avg_scores, project_ball, scale_weights, weight
from olearn._compiled.declare import declare
from olearn._compiled.losses import ADAGRAD, GRADS, step_size
from olearn.linear import COCOBClassifier, COCOBRegressor, OGDClassifier, OGDRegressor
from olearn.linear.cocob import _COCOB
from olearn.linear.ogd import _OGD
from test_linear_ogd import score_grad
from test_linear_ogd_regressor import dloss

from conftest import CLF, close, weights, with_intercept

OPTIMIZERS = [optim.SGD(lr=0.3, schedule="constant"), optim.SGD(lr=0.5),
              optim.SGD(lr=0.4, schedule="power", power=0.7), optim.AdaGrad(lr=0.5),
              optim.AdaGrad(lr=0.2, delta=0.1), optim.RMSProp(lr=0.01, rho=0.8),
              optim.Adam(lr=0.05), optim.AdamW(lr=0.05, weight_decay=0.01),
              optim.COCOB(alpha=20.0), optim.Momentum(lr=0.1, momentum=0.9),
              optim.Momentum(lr=0.1, momentum=0.5, nesterov=True),
              optim.Adam(lr=0.05, reordered=True)]
IDS = [repr(o) for o in OPTIMIZERS]


# ---------------------------------------------------------------- reference
class Ref:
    """One optimiser's update of a (K, d) weight matrix by a (K, d) gradient, numpy."""

    def __init__(self, opt, shape):
        self.o, self.p = opt, opt.get_params()
        self.a, self.b = np.zeros(shape), np.zeros(shape)   # moments / sums
        self.c, self.T = np.zeros(shape), np.zeros(shape)   # (COCOB)

    def step(self, W, G, t):
        p, name = self.p, self.o.name
        if name == "sgd":
            lr = {"constant": p["lr"], "invsqrt": p["lr"] / math.sqrt(t),
                  "power": p["lr"] * t ** -p["power"]}[p["schedule"]]
            return W - lr * G
        if name == "adagrad":
            m = G != 0
            self.a[m] += G[m] ** 2
            W = W.copy()
            W[m] -= p["lr"] * G[m] / (p["delta"] + np.sqrt(self.a[m]))
            return W
        if name == "rmsprop":
            self.a = p["rho"] * self.a + (1 - p["rho"]) * G ** 2
            return W - p["lr"] * G / (np.sqrt(self.a) + p["epsilon"])
        if name == "momentum":
            self.a = p["momentum"] * self.a - p["lr"] * G
            return W + (p["momentum"] * self.a - p["lr"] * G if p["nesterov"] else self.a)
        if name in ("adam", "adamw"):
            self.a = p["beta_1"] * self.a + (1 - p["beta_1"]) * G
            self.b = p["beta_2"] * self.b + (1 - p["beta_2"]) * G ** 2
            if p["reordered"]:  # (Kingma and Ba, Section 2's order)
                lr = p["lr"] * np.sqrt(1 - p["beta_2"] ** t) / (1 - p["beta_1"] ** t)
                return W - lr * self.a / (np.sqrt(self.b) + p["epsilon"]) \
                    - p.get("weight_decay", 0.0) * W
            mhat = self.a / (1 - p["beta_1"] ** t)
            vhat = self.b / (1 - p["beta_2"] ** t)
            return W - p["lr"] * mhat / (np.sqrt(vhat) + p["epsilon"]) \
                - p.get("weight_decay", 0.0) * W
        W = W.copy()   # COCOB-Backprop, Algorithm 2, w1 = 0
        for k, i in zip(*np.nonzero(G)):
            c = -G[k, i]
            self.a[k, i] = max(self.a[k, i], abs(c))
            self.b[k, i] += abs(c)
            self.c[k, i] = max(self.c[k, i] + W[k, i] * c, 0.0)
            self.T[k, i] += c
            L = self.a[k, i]
            W[k, i] = self.T[k, i] / (L * max(self.b[k, i] + L, p["alpha"] * L)) \
                * (L + self.c[k, i])
        return W


def ref_pass(X, y, opt, K=1, loss="hinge", regression=False):
    """OGD with ``opt`` row by row: the pre-update scores and the final weights."""
    n, d = X.shape
    W = np.zeros((K, d))
    ref = Ref(opt, W.shape)
    seen = np.zeros(K, dtype=bool)
    scores = np.zeros((n, K))
    for t in range(1, n + 1):
        x = X[t - 1]
        scores[t - 1] = r = W @ x
        if regression:
            g = np.array([dloss(loss, r[0] - y[t - 1], 0.0)])
        else:
            if K > 1:
                seen[int(y[t - 1])] = True
            g = score_grad(loss, r, y[t - 1], seen)
        W = ref.step(W, np.outer(g, x), t)
    return scores, W


def stream(n=80, d=9, K=1, seed=0, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    z = X @ rng.standard_normal((d, K)) + 0.3 * rng.standard_normal((n, K))
    y = np.where(z[:, 0] > 0, 1.0, -1.0) if K == 1 else np.argmax(z, axis=1).astype(float)
    return X, y, z[:, 0]


@pytest.mark.parametrize("opt", OPTIMIZERS, ids=IDS)
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_binary_matches_reference_dense_and_sparse(opt, loss):
    X, y, _ = stream()
    scores, W = ref_pass(with_intercept(X, CLF), y, opt, loss=loss)
    for data in (X, sp.csr_matrix(X)):
        m = OGDClassifier(loss=loss, optimizer=opt)
        close(m.predict_learn(data, y, return_scores=True), scores[:, 0])
        close(weights(m), W)


@pytest.mark.parametrize("opt", OPTIMIZERS, ids=IDS)
def test_multiclass_matches_reference(opt):
    X, y, _ = stream(K=3, seed=1)
    for loss in ("hinge", "logistic"):
        scores, W = ref_pass(with_intercept(X, CLF), y, opt, K=3, loss=loss)
        m = OGDClassifier(loss=loss, optimizer=opt, fit_intercept=True)
        close(m.predict_learn(sp.csr_matrix(X), y, return_scores=True), scores)
        close(weights(m), W)


@pytest.mark.parametrize("opt", OPTIMIZERS, ids=IDS)
def test_regression_matches_reference(opt):
    X, _, z = stream(seed=2)
    X = 0.3 * X  # (a constant rate of 0.3 on the squared loss stays stable)
    scores, W = ref_pass(with_intercept(X), z, opt, loss="squared", regression=True)
    m = OGDRegressor(loss="squared", optimizer=opt)
    close(m.predict_learn(sp.csr_matrix(X), z, return_scores=True), scores[:, 0])
    close(weights(m), W)


@pytest.mark.parametrize("opt", OPTIMIZERS, ids=IDS)
def test_one_at_a_time_equals_the_batch(opt):
    X, y, _ = stream(n=40, seed=3)
    batch = OGDClassifier(optimizer=opt, loss="logistic").partial_fit(X, y)
    one = OGDClassifier(optimizer=opt, loss="logistic")
    for x, label in zip(X, y):
        one.learn_one(x, label)
    close(weights(one), weights(batch), rtol=1e-12)


# ---------------------------------------------------------------- equivalences
def same(a, b):
    """Bit for bit: every state array and the pre-update scores."""
    assert set(a.state_) == set(b.state_)
    for k in a.state_:
        np.testing.assert_array_equal(a.state_[k], b.state_[k], err_msg=k)


def runs(make, X, y):
    m = make()
    return m, m.predict_learn(X, y, return_scores=True)


@pytest.mark.parametrize("average", [False, True])
def test_adagrad_learner_is_ogd_with_adagrad_bit_for_bit(average):
    X, y, _ = stream(n=200, seed=4)
    kw = dict(loss="modified_huber", alpha=0.01, radius=4.0, average=average)
    a, sa = runs(lambda: olearn.make("adagrad", eta=0.4, **kw), sp.csr_matrix(X), y)
    b, sb = runs(lambda: OGDClassifier(optimizer=optim.AdaGrad(lr=0.4), **kw),
                 sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sa, sb)
    same(a, b)


def test_ogd_default_is_ogd_with_sgd_bit_for_bit():
    X, y, _ = stream(n=200, seed=5)
    a, sa = runs(lambda: OGDClassifier(eta=0.7, average=True), X, y)
    b, sb = runs(lambda: OGDClassifier(optimizer=optim.SGD(lr=0.7), average=True), X, y)
    np.testing.assert_array_equal(sa, sb)
    same(a, b)


@pytest.mark.parametrize("cls", [COCOBClassifier, COCOBRegressor])
def test_cocob_learner_is_ogd_with_cocob_bit_for_bit(cls):
    X, y, z = stream(n=200, seed=6)
    target = z if cls is COCOBRegressor else y
    ogd = OGDRegressor if cls is COCOBRegressor else OGDClassifier
    loss = "squared" if cls is COCOBRegressor else "logistic"
    a, sa = runs(lambda: cls(alpha=30.0, average=True), X, target)
    b, sb = runs(lambda: ogd(loss=loss, optimizer=optim.COCOB(alpha=30.0), average=True),
                 X, target)
    np.testing.assert_array_equal(sa, sb)
    same(a, b)


# Round 3's own rules, as they were before the optimisers (commit 0caad0e), declared
# outside olearn: the compositions must give their numbers bit for bit.
@njit(inline="always")
def _round3_ogd(state, params, idx, val, y, sw, seen, grad):
    eta, kind, power, alpha = params.eta, params.kind, params.power, params.alpha
    t0, radius, eps = params.t0, params.radius, params.eps
    W = state[0]
    U = state[1]
    A = state[2]
    step = step_size(kind, eta, power, alpha, t0, A[0, T_])
    if alpha > 0.0:
        scale_weights(W, U, A, max(0.0, 1.0 - step * alpha))
    moved = grad(A, seen, y, eps)
    if moved:
        if kind == ADAGRAD:
            G = state[3]
            adagrad_rows(W, U, A, G, G[0, :0], eta, sw, idx, val)
        else:
            for k in range(A.shape[0]):
                if A[k, G_] != 0.0:
                    add_row(W, U, A, k, -step * sw * A[k, G_], idx, val)
    if radius > 0.0:
        project_ball(W, U, A, radius)
    return moved


@njit(inline="always")
def _round3_cocob(state, params, idx, val, y, sw, seen, grad):
    alpha, eps = params.alpha, params.eps
    W = state[0]
    U = state[1]
    A = state[2]
    Q = state[3]
    T = state[4]
    moved = grad(A, seen, y, eps)
    if moved:
        for k in range(A.shape[0]):
            if A[k, G_] != 0.0:
                gk = -sw * A[k, G_]
                for j in range(idx.shape[0]):
                    c = gk * val[j]
                    if c != 0.0:
                        i = idx[j]
                        w = weight(W, A, k, i)
                        a = abs(c)
                        if a > Q[k, i, 0]:
                            Q[k, i, 0] = a
                        Q[k, i, 1] += a
                        Q[k, i, 2] = max(Q[k, i, 2] + w * c, 0.0)
                        T[k, i] += c
                        L = Q[k, i, 0]
                        den = L * max(Q[k, i, 1] + L, alpha * L)
                        if den > 0.0:
                            add_at(W, U, A, k, i, T[k, i] / den * (L + Q[k, i, 2]) - w)
    return moved


OLD_OGD = declare("test.round3_ogd", params=("eta", "kind", "power", "alpha", "t0",
                                             "radius", "eps"),
                  score=avg_scores, begin=avg_begin, binary=_round3_ogd,
                  multiclass=_round3_ogd, regression=_round3_ogd, losses=GRADS)
OLD_COCOB = declare("test.round3_cocob", params=("alpha", "eps"), score=avg_scores,
                    begin=avg_begin, binary=_round3_cocob, multiclass=_round3_cocob,
                    regression=_round3_cocob, losses=GRADS)


class Round3OGD(OGDClassifier):
    _declared = OLD_OGD

    def _kernel_params(self):
        p = super()._kernel_params()
        return {k: p[k] for k in OLD_OGD.params._fields}


class Round3COCOB(COCOBClassifier):
    _declared = OLD_COCOB

    def _kernel_params(self):
        return {"alpha": self.alpha, "eps": self.epsilon}


@pytest.mark.parametrize("kw", [dict(schedule="adagrad", eta=0.4, alpha=0.01, radius=4.0,
                                     loss="modified_huber", average=True),
                                dict(schedule="adagrad", loss="logistic"),
                                dict(schedule="invsqrt", alpha=0.05, radius=3.0, average=True),
                                dict(schedule="optimal", alpha=0.05, loss="logistic"),
                                dict(schedule="power", power=0.7)])
@pytest.mark.parametrize("K", [1, 3])
def test_ogd_and_adagrad_equal_round_3_bit_for_bit(kw, K):
    X, y, _ = stream(n=300, K=K, seed=7)
    for data in (X, sp.csr_matrix(X)):
        a, sa = runs(lambda: Round3OGD(**kw), data, y)
        b, sb = runs(lambda: OGDClassifier(**kw), data, y)
        np.testing.assert_array_equal(sa, sb)
        same(a, b)


@pytest.mark.parametrize("K", [1, 3])
@pytest.mark.parametrize("average", [False, True])
def test_cocob_equals_round_3_bit_for_bit(K, average):
    X, y, _ = stream(n=300, K=K, seed=8)
    a, sa = runs(lambda: Round3COCOB(alpha=30.0, average=average), sp.csr_matrix(X), y)
    b, sb = runs(lambda: COCOBClassifier(alpha=30.0, average=average), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(sa, sb)
    same(a, b)


# ---------------------------------------------------------------- parameters, files
def test_make_takes_a_name_and_the_object_a_record():
    m = olearn.make("ogd", optimizer="adam")
    assert m.optimizer == "adam" and m._optimizer() == optim.Adam()
    assert repr(OGDClassifier(optimizer=optim.Adam(lr=0.01))) == \
        "OGDClassifier(optimizer=Adam(lr=0.01))"
    assert optim.resolve({"optimizer": "rmsprop", "rho": 0.5}) == optim.RMSProp(rho=0.5)
    from olearn._estimator import clone
    assert clone(optim.Adam().set_params(lr=0.1)) == optim.Adam(lr=0.1)


@pytest.mark.parametrize("opt", [optim.Adam(lr=0.02), "cocob", optim.AdaGrad(delta=0.5)])
def test_a_model_file_keeps_its_optimizer(tmp_path, opt):
    X, y, _ = stream(seed=9)
    m = OGDClassifier(optimizer=opt).partial_fit(X, y)
    m.save(tmp_path / "m.olearn")
    back = olearn.load(tmp_path / "m.olearn")
    assert back.get_params() == m.get_params()
    same(back, m)
    m.partial_fit(X, y)
    back.partial_fit(X, y)
    same(back, m)


@pytest.mark.parametrize("opt,match", [
    (optim.Adam(lr=0), "lr must be"), (optim.Adam(beta_1=1.0), "beta_1 must be"),
    (optim.RMSProp(rho=-0.1), "rho must be"), (optim.AdaGrad(delta=-1), "delta must be"),
    (optim.SGD(schedule="optimal"), "schedule must be"), (optim.COCOB(alpha=0), "alpha"),
    (optim.AdamW(weight_decay=1.5), "weight_decay must be"), ("nadam", "optimizer must be"),
    (3, "optimizer must be")])
def test_bad_optimizers_are_refused_in_one_line(opt, match):
    X, y, _ = stream(n=10)
    with pytest.raises(ValueError, match=match) as e:
        OGDClassifier(optimizer=opt).partial_fit(X, y)
    assert "\n" not in str(e.value)


def test_cocob_refuses_an_l2_decay():
    X, y, _ = stream(n=10)
    with pytest.raises(ValueError, match="COCOB"):
        OGDClassifier(optimizer="cocob", alpha=0.1).partial_fit(X, y)


def test_the_optimizer_cannot_change_after_learning():
    X, y, _ = stream(n=10)
    m = OGDClassifier(optimizer="adam").partial_fit(X, y)
    with pytest.raises(ValueError, match="changed after learning started"):
        m.set_params(optimizer="cocob").partial_fit(X, y)


def test_an_optimizer_is_a_plain_parameter_holder():
    a = optim.AdamW(lr=0.01)
    assert a.get_params()["weight_decay"] == 1e-4 and repr(a) == "AdamW(lr=0.01)"
    assert a.set_params(weight_decay=0.1).weight_decay == 0.1
    assert OGDClassifier(optimizer=a).get_params(deep=True)["optimizer__lr"] == 0.01
    assert optim.resolve(a.to_record()) == a and hash(a) == hash(optim.resolve(a.to_record()))


# ---------------------------------------------------------------- the protocol checks
@pytest.mark.parametrize("name", list(optim.OPTIMIZERS))
def test_protocol(name):
    from generic import check_model
    opt = optim.OPTIMIZERS[name]()
    if name in ("adam", "adamw", "rmsprop"):
        opt.set_params(lr=0.05)
    check_model(OGDClassifier(optimizer=opt))


def test_a_wrapper_saves_a_member_with_an_optimiser_object(tmp_path):
    """A wrapped learner whose optimizer is an object (not a name) saves and loads: the
    nested parameters carry the optimiser's record, read back as the same optimiser."""
    from olearn.multiclass import OneVsRest
    from olearn.optim import Adam
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((150, 5)), rng.integers(0, 3, 150)
    model = OneVsRest(olearn.linear.OGDClassifier(optimizer=Adam(lr=0.05))).fit(X, y)
    model.save(tmp_path / "m.olm")
    back = olearn.load(tmp_path / "m.olm")
    assert back.base.optimizer == Adam(lr=0.05)
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
