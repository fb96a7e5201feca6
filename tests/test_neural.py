"""olearn.neural: the MLP against a plain numpy reference of the seed's "Online
BackPropagation" box (and of each step rule), the generic checks, the one-example
protocol, warm starts through ``coefs_``/``intercepts_``, persistence, the CLI."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import generic
import olearn
from olearn.base import DivergenceError
from olearn.neural import MLPClassifier, MLPRegressor


# ---------------------------------------------------------------- the reference
ACT = {"identity": (lambda z: z, lambda s: np.ones_like(s)),
       "logistic": (lambda z: 1 / (1 + np.exp(-z)), lambda s: s * (1 - s)),
       "tanh": (np.tanh, lambda s: 1 - s * s),
       "relu": (lambda z: np.maximum(z, 0), lambda s: (s > 0).astype(float))}


class RefStep:
    """scikit-learn's optimiser formulas, per array, written out plainly."""

    def __init__(self, solver, eta, momentum, nesterov, b1, b2, eps, t0):
        self.solver, self.eta, self.mu, self.nesterov = solver, eta, momentum, nesterov
        self.b1, self.b2, self.eps, self.t = b1, b2, eps, t0
        self.m, self.v = {}, {}

    def begin(self):
        if self.solver == "adam":
            self.t += 1
            self.lr = self.eta * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        else:
            self.lr = self.eta

    def __call__(self, key, w, g):
        m = self.m.setdefault(key, np.zeros_like(w))
        v = self.v.setdefault(key, np.zeros_like(w))
        if self.solver == "sgd" and self.mu == 0:
            w -= self.lr * g
        elif self.solver == "sgd":
            m[...] = self.mu * m - self.lr * g
            w += self.mu * m - self.lr * g if self.nesterov else m
        elif self.solver == "adagrad":
            v += g * g
            w -= self.lr * g / (np.sqrt(v) + self.eps)
        else:
            m[...] = self.b1 * m + (1 - self.b1) * g
            v[...] = self.b2 * v + (1 - self.b2) * g * g
            w -= self.lr * m / (np.sqrt(v) + self.eps)


def reference_mlp(coefs, intercepts, X, y, task, activation, opt, alpha, seen=None,
                  sw=None):
    """The seed's box row by row: forward, output errors (softmax/cross-entropy over the
    classes seen, logistic, or squared error), errors top-down from the weights before
    their step, then every weight's step.  Returns the pre-update outputs and the
    final weights."""
    f, df = ACT[activation]
    W = [w.copy() for w in coefs]
    b = [c.copy() for c in intercepts]
    X = X.toarray() if sp.issparse(X) else X
    seen = set() if seen is None else set(seen)
    outs = []
    for i, x in enumerate(X):
        s = [x]
        for l in range(len(W) - 1):
            s.append(f(s[-1] @ W[l] + b[l]))
        out = s[-1] @ W[-1] + b[-1]
        outs.append(out.copy())
        if task == "multiclass":
            seen.add(int(y[i]))
            mask = np.array([k in seen for k in range(out.shape[0])])
            p = np.where(mask, np.exp(out - out[mask].max()), 0.0)
            delta = -p / p.sum()
            delta[int(y[i])] += 1
        elif task == "binary":
            delta = np.array([float(y[i] == 1) - 1 / (1 + np.exp(-out[0]))])
        else:
            delta = np.array([y[i] - out[0]])
        deltas = [delta]
        for l in range(len(W) - 1, 0, -1):
            deltas.insert(0, df(s[l]) * (W[l] @ deltas[0]))
        opt.begin()
        weight = 1.0 if sw is None else sw[i]
        for l in range(len(W)):
            opt(("W", l), W[l], -weight * np.outer(s[l], deltas[l]) + alpha * W[l])
            opt(("b", l), b[l], -weight * deltas[l])
    return np.array(outs), W, b


def random_weights(model, rng, scale=0.5):
    model.coefs_ = [rng.standard_normal(c.shape) * scale for c in model.coefs_]
    model.intercepts_ = [rng.standard_normal(c.shape) * scale for c in model.intercepts_]


def stream(task, n=60, d=6, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    if task == "multiclass":
        y = rng.integers(0, 3, n)
    elif task == "binary":
        y = rng.integers(0, 2, n)
    else:
        y = X @ rng.standard_normal(d) + np.sin(X[:, 0])
    return X, y


SOLVERS = [dict(solver="sgd"), dict(solver="sgd", momentum=0.9),
           dict(solver="sgd", momentum=0.8, nesterovs_momentum=True),
           dict(solver="adagrad"), dict(solver="adam")]


def _start(model, X, y, alpha):
    """A model that has allocated its state (one row of weight 0, alpha 0: no step but
    Adam's count), then random assigned weights and the real alpha: the start of the
    comparison."""
    classes = np.unique(y) if hasattr(model, "predict_proba") else None
    model.partial_fit(X[:1], y[:1], classes=classes, sample_weight=np.zeros(1))
    model.set_params(alpha=alpha)
    random_weights(model, np.random.default_rng(5))
    return model


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("task,activation,solver,alpha", [
    ("binary", "relu", SOLVERS[0], 0.0),
    ("multiclass", "tanh", SOLVERS[1], 0.01),
    ("multiclass", "logistic", SOLVERS[2], 0.0),
    ("regression", "identity", SOLVERS[3], 0.0),
    ("binary", "tanh", SOLVERS[4], 0.001),
    ("regression", "relu", SOLVERS[4], 0.0),
    ("multiclass", "relu", SOLVERS[0], 0.01),
    ("binary", "logistic", SOLVERS[3], 0.01),
])
def test_the_mlp_is_the_reference(task, activation, solver, alpha, dense):
    X, y = stream(task, seed=len(task) + len(activation))
    if not dense:
        X = sp.csr_matrix(X)
    cls = MLPRegressor if task == "regression" else MLPClassifier
    model = _start(cls(hidden_layer_sizes=(5, 4, 3), activation=activation,
                       learning_rate_init=0.05, alpha=0.0, **solver), X, y, alpha)
    opt = RefStep(model.solver, 0.05, model.momentum, model.nesterovs_momentum, 0.9,
                  0.999, 1e-8, t0=1)
    out, W, b = reference_mlp(model.coefs_, model.intercepts_, X, y, task, activation,
                              opt, alpha, seen=[y[0]] if task == "multiclass" else None)
    got = model.predict_learn(X, y, return_scores=True)
    np.testing.assert_allclose(np.asarray(got).reshape(out.shape[0], -1), out, rtol=1e-10,
                               atol=1e-10)
    for u, v in zip(model.coefs_ + model.intercepts_, W + b):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-10)


class RefOptim(RefStep):
    """The other ``olearn.optim`` steps, per array (numpy): SGD's schedules, RMSProp,
    AdamW (Kingma and Ba's Algorithm 1 order, the decay decoupled)."""

    def __init__(self, opt, t0):
        self.o, self.p, self.t, self.m, self.v = opt, opt.get_params(), t0, {}, {}

    def begin(self):
        self.t += 1

    def __call__(self, key, w, g):
        p, t, name = self.p, self.t, self.o.name
        m = self.m.setdefault(key, np.zeros_like(w))
        v = self.v.setdefault(key, np.zeros_like(w))
        if name == "sgd":
            w -= {"constant": p["lr"], "invsqrt": p["lr"] / np.sqrt(t),
                  "power": p["lr"] * t ** -p["power"]}[p["schedule"]] * g
        elif name == "rmsprop":
            v[...] = p["rho"] * v + (1 - p["rho"]) * g * g
            w -= p["lr"] * g / (np.sqrt(v) + p["epsilon"])
        else:
            m[...] = p["beta_1"] * m + (1 - p["beta_1"]) * g
            v[...] = p["beta_2"] * v + (1 - p["beta_2"]) * g * g
            mhat, vhat = m / (1 - p["beta_1"] ** t), v / (1 - p["beta_2"] ** t)
            w -= p["lr"] * mhat / (np.sqrt(vhat) + p["epsilon"]) + p["weight_decay"] * w


def _optimiser_case(task, activation, opt, alpha, dense):
    X, y = stream(task, seed=len(task) + len(activation))
    if not dense:
        X = sp.csr_matrix(X)
    cls = MLPRegressor if task == "regression" else MLPClassifier
    model = _start(cls(hidden_layer_sizes=(5, 4), activation=activation, alpha=0.0,
                       optimizer=opt), X, y, alpha)
    out, W, b = reference_mlp(model.coefs_, model.intercepts_, X, y, task, activation,
                              RefOptim(opt, t0=1), alpha,
                              seen=[y[0]] if task == "multiclass" else None)
    got = model.predict_learn(X, y, return_scores=True)
    np.testing.assert_allclose(np.asarray(got).reshape(out.shape[0], -1), out, rtol=1e-10,
                               atol=1e-10)
    for u, v in zip(model.coefs_ + model.intercepts_, W + b):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dense", [True, False])
def test_an_sgd_schedule_is_the_reference(dense):
    _optimiser_case("binary", "tanh", olearn.optim.SGD(lr=0.2, schedule="power", power=0.6),
                    0.01, dense)


@pytest.mark.full  # (two more compiled networks)
@pytest.mark.parametrize("task,opt", [
    ("multiclass", olearn.optim.RMSProp(lr=0.01, rho=0.8)),
    ("regression", olearn.optim.AdamW(lr=0.02, weight_decay=0.01))])
def test_other_optimisers_are_the_reference(task, opt):
    for dense in (True, False):
        _optimiser_case(task, "relu", opt, 0.001, dense)


@pytest.mark.parametrize("kw", SOLVERS + [dict(solver="adam", beta_1=0.8, epsilon=1e-6)])
def test_the_solver_is_its_optimiser_bit_for_bit(kw):
    """scikit-learn's names are the ``olearn.optim`` optimisers (one compiled step)."""
    from olearn import optim
    lr, eps = 0.05, kw.get("epsilon", 1e-8)
    opt = {"adagrad": optim.AdaGrad(lr=lr, delta=eps),
           "adam": optim.Adam(lr=lr, beta_1=kw.get("beta_1", 0.9), epsilon=eps,
                              reordered=True)}.get(kw["solver"]) or (
        optim.Momentum(lr=lr, momentum=kw["momentum"],
                       nesterov=kw.get("nesterovs_momentum", False))
        if kw.get("momentum") else optim.SGD(lr=lr, schedule="constant"))
    X, y = stream("multiclass" if kw.get("momentum") else "binary", n=80)  # (the kernels
    for data in (X, sp.csr_matrix(X)):                # the reference tests compiled)
        a = MLPClassifier(hidden_layer_sizes=(5, 4), learning_rate_init=lr, alpha=0.001,
                          **kw).fit(data, y)
        b = MLPClassifier(hidden_layer_sizes=(5, 4), alpha=0.001, optimizer=opt).fit(data, y)
        assert a._optimizer() == opt
        for u, v in zip(a.coefs_ + a.intercepts_, b.coefs_ + b.intercepts_):
            np.testing.assert_array_equal(u, v)


def test_optimizer_names_records_and_refusals(tmp_path):
    X, y = stream("binary")
    m = olearn.make("mlp", hidden_layer_sizes=(3,), optimizer="adagrad").fit(X, y)
    assert m._optimizer() == olearn.optim.AdaGrad()
    path = str(tmp_path / "m.olm")
    m.save(path)
    back = olearn.load(path)
    assert back.optimizer == "adagrad"
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    for bad, match in (("cocob", "COCOB"), ("nadam", "optimizer must be"),
                       (olearn.optim.Adam(lr=-1), "lr")):
        with pytest.raises(ValueError, match=match):
            MLPClassifier(optimizer=bad).partial_fit(X, y)


def test_sample_weights_scale_the_gradient():
    X, y = stream("multiclass", seed=3)
    sw = np.random.default_rng(1).random(len(y)) * 2
    model = _start(MLPClassifier(hidden_layer_sizes=(4,), activation="tanh", solver="sgd",
                                 learning_rate_init=0.05), X, y, 0.0)  # (the old default)
    opt = RefStep("sgd", 0.05, 0, False, 0.9, 0.999, 1e-8, 1)
    out, W, b = reference_mlp(model.coefs_, model.intercepts_, X, y, "multiclass", "tanh",
                              opt, 0.0, seen=[y[0]], sw=sw)
    got = model.predict_learn(X, y, return_scores=True, sample_weight=sw)
    np.testing.assert_allclose(got, out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.coefs_[0], W[0], rtol=1e-10, atol=1e-10)


def test_coefs_shapes_and_assignment():
    X, y = stream("binary", d=4)
    m = MLPClassifier(hidden_layer_sizes=(6, 3)).partial_fit(X, y)
    assert [c.shape for c in m.coefs_] == [(4, 6), (6, 3), (3, 1)]
    assert [c.shape for c in m.intercepts_] == [(6,), (3,), (1,)]
    with pytest.raises(ValueError, match="shapes"):
        m.coefs_ = [np.zeros((4, 6))]
    with pytest.raises(ValueError, match="shapes"):
        m.coefs_ = [np.zeros((4, 6)), np.zeros((6, 3)), np.zeros((3, 2))]
    c = [np.ones_like(w) for w in m.coefs_]
    m.coefs_ = c
    assert all((u == 1).all() for u in m.coefs_)
    m.learn_one(X[0], y[0])  # the one-example path sees the assigned weights
    assert not all((u == 1).all() for u in m.coefs_)
    with pytest.raises(ValueError, match="without fit_intercept"):
        n = MLPClassifier(fit_intercept=False).partial_fit(X, y)
        n.intercepts_ = [np.ones_like(b) for b in n.intercepts_]


def test_numpy_predictions_equal_the_compiled_pass():
    X, y = stream("multiclass", n=200)
    m = MLPClassifier(hidden_layer_sizes=(8, 8), activation="logistic").partial_fit(X, y)
    model_scores = m.decision_function(X)
    pl = m.predict_learn(X, y, return_scores=True)  # pre-update: the first row agrees
    np.testing.assert_allclose(pl[0], model_scores[0], rtol=1e-12)
    p = m.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


@pytest.mark.parametrize("est", [MLPClassifier(hidden_layer_sizes=(5, 4)),
                                 MLPRegressor(hidden_layer_sizes=(5,), solver="adam",
                                              learning_rate_init=0.01)],
                         ids=["classifier", "regressor"])
def test_generic_checks(est):
    generic.check_model(est)


def test_classes_appearing_mid_stream_and_dicts():
    rng = np.random.default_rng(0)
    m = MLPClassifier(hidden_layer_sizes=(8,))
    for i in range(300):
        x = {"a": rng.standard_normal(), "b": rng.standard_normal()}
        label = "pos" if x["a"] > 0 else "neg"
        if i >= 100 and x["b"] > 1:
            label = "third"
        if i >= 200:
            x["c"] = 1.0  # a new column mid-stream
        m.learn_one(x, label)
    assert sorted(m.classes_) == ["neg", "pos", "third"]
    assert set(m.predict_proba_one({"a": 1.0, "b": 0.0})) == {"neg", "pos", "third"}
    assert m.coefs_[0].shape == (3, 8) and m.coefs_[-1].shape == (8, 3)


def test_divergence_is_an_error():
    X, y = stream("regression", n=100)
    with pytest.raises(DivergenceError, match="diverged"):
        MLPRegressor(activation="identity", solver="sgd", learning_rate_init=50.0).partial_fit(X * 1e3, y)


def test_bad_parameters():
    X, y = stream("binary")
    for bad in [dict(hidden_layer_sizes=()), dict(hidden_layer_sizes=(3, 0)),
                dict(activation="softplus"), dict(solver="lbfgs"),
                dict(learning_rate_init=0), dict(momentum=1.0), dict(alpha=-1)]:
        with pytest.raises(ValueError):
            MLPClassifier(**bad).partial_fit(X, y)
    m = MLPClassifier(hidden_layer_sizes=(3,)).partial_fit(X, y)
    with pytest.raises(ValueError, match="fit\\(\\) to start afresh"):
        m.set_params(hidden_layer_sizes=(4,)).partial_fit(X, y)
    with pytest.raises(ValueError, match="natively multiclass"):
        MLPClassifier.kernels.reduction("ovr")


def test_save_load_round_trip(tmp_path):
    X, y = stream("multiclass")
    m = MLPClassifier(hidden_layer_sizes=(4, 3), solver="adam").fit(X, y)
    m.save(tmp_path / "m.olearn")
    back = olearn.load(tmp_path / "m.olearn")
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))
    for a, b in zip(back.coefs_, m.coefs_):
        np.testing.assert_array_equal(a, b)
    back.partial_fit(X, y)
    m.partial_fit(X, y)
    np.testing.assert_array_equal(back.decision_function(X), m.decision_function(X))


def test_a_tampered_layout_is_refused():
    X, y = stream("binary")
    m = MLPClassifier(hidden_layer_sizes=(4, 3)).partial_fit(X, y)
    meta, arrays = m.export_state()
    arrays = dict(arrays)
    arrays["state/N"] = arrays["state/N"].copy()
    arrays["state/N"][0, 1] = 40.0
    back = MLPClassifier.from_state(m.get_params(), meta, arrays)
    with pytest.raises(ValueError, match="layout"):
        back.partial_fit(X, y)


def test_the_network_learns_xor():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]] * 500)
    y = np.array([0, 1, 1, 0] * 500)
    m = MLPClassifier(hidden_layer_sizes=(8,), activation="tanh", learning_rate_init=0.1,
                      epochs=5, random_state=1).fit(X, y)
    assert list(m.predict(X[:4])) == [0, 1, 1, 0]


@pytest.mark.skipif(not os.path.exists(os.path.join(
    os.environ.get("OLEARN_DATA_MIRROR", "/nonexistent"), "elec2", "elec.csv")),
    reason="needs the elec2 data (OLEARN_DATA_MIRROR)")
def test_elec2_defaults_beat_a_linear_model():
    path = os.path.join(os.environ["OLEARN_DATA_MIRROR"], "elec2", "elec.csv")
    D = np.loadtxt(path, delimiter=",", skiprows=1)
    X, y = np.ascontiguousarray(D[:, :-1]), D[:, -1].astype(int)
    mlp = (MLPClassifier().predict_learn(X, y) == y).mean()
    lin = (olearn.make("ogd").predict_learn(X, y) == y).mean()
    assert mlp > 0.88 and mlp > lin, (mlp, lin)  # (the constant step 0.05: 0.833)


def test_the_defaults_beat_river_logistic_regression_on_phishing():
    """Issue 44 item 5: the classifier's defaults (AdaGrad, 0.2) beat River's logistic
    regression on River's Phishing, in order, as arrays and one dict at a time (where
    every column starts at 0); the old constant step 0.05 did not, one dict at a time."""
    pytest.importorskip("river")
    from river import datasets, linear_model
    rows = list(datasets.Phishing())
    X = np.array([[float(v) for v in x.values()] for x, _ in rows])
    y = np.array([int(t) for _, t in rows])
    river, hits = linear_model.LogisticRegression(), 0
    for x, t in rows:
        hits += river.predict_one(x) == t
        river.learn_one(x, t)

    def one_at_a_time(model):
        right = 0
        for x, t in rows:
            right += model.predict_one(x) == int(t)
            model.learn_one(x, int(t))
        return right / len(rows)
    arrays = (olearn.make("mlp").predict_learn(X, y) == y).mean()
    dicts = one_at_a_time(olearn.make("mlp"))
    old = one_at_a_time(olearn.make("mlp", solver="sgd", learning_rate_init=0.05))
    assert min(arrays, dicts) > max(hits / len(rows), 0.87) > old, (arrays, dicts, hits, old)


def test_cli_trains_and_lists_the_mlp(tmp_path):
    data = tmp_path / "d.svm"
    X, y = stream("binary", n=50)
    with open(data, "w") as f:
        for xi, yi in zip(X, y):
            f.write(f"{2 * yi - 1} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(xi)
                                                 if v) + "\n")
    run = subprocess.run([sys.executable, "-m", "olearn", "train", str(data), "--algo",
                          "mlp", "--model", str(tmp_path / "m.olearn")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "m.olearn").exists()
    algos = subprocess.run([sys.executable, "-m", "olearn", "algos"], capture_output=True,
                           text=True)
    assert algos.returncode == 0 and "mlp-reg" in algos.stdout


# ---------------------------------------------------------------- Hedge Backpropagation
def _softmax_masked(f, mask):
    e = np.where(mask, np.exp(f - f[mask].max()), 0.0)
    return e / e.sum()


def reference_hbp(Wh, bh, Wt, bt, alpha, X, y, task, eta, beta, s, hedge, seen):
    """Algorithm 1 of Sahoo et al. (2018) row by row: the experts f_0..f_L (f_0 on the
    input), the mixture's log as the score, each head's step eta alpha_l grad, each
    hidden layer's eta sum_{j >= l} alpha_j grad (errors from the weights before their
    step), then alpha <- max(alpha beta^loss, s / L), normalised."""
    Wh, bh = [w.copy() for w in Wh], [b.copy() for b in bh]
    Wt, bt = [w.copy() for w in Wt], [b.copy() for b in bt]
    alpha = alpha.copy()
    L = len(Wh)
    X = X.toarray() if sp.issparse(X) else X
    seen = set(seen)
    outs = []
    for x, yi in zip(X, y):
        h = [x]
        for l in range(L):
            h.append(np.maximum(h[-1] @ Wh[l] + bh[l], 0.0))
        f = [h[l] @ Wt[l] + bt[l] for l in range(L + 1)]
        if task == "binary":
            sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
            p = sum(a * sig(fl[0]) for a, fl in zip(alpha, f))
            q = sum(a * sig(-fl[0]) for a, fl in zip(alpha, f))
            outs.append([np.log(p) - np.log(q)])
            t = 1.0 if yi == 1 else 0.0
            deltas = [np.array([t - sig(fl[0])]) for fl in f]
            sgn = 1.0 if yi == 1 else -1.0
            ces = [np.log1p(np.exp(-sgn * fl[0])) for fl in f]
            zo = [1.0 if sgn * fl[0] < 0 else 0.5 if fl[0] == 0 else 0.0 for fl in f]
        else:
            K = f[0].shape[0]
            before = np.array([k in seen for k in range(K)])
            outs.append(np.log(sum(a * _softmax_masked(fl, before) for a, fl in zip(alpha, f))
                               .clip(1e-300)))
            seen.add(int(yi))
            mask = np.array([k in seen for k in range(K)])
            probs = [_softmax_masked(fl, mask) for fl in f]
            deltas = [np.eye(K)[int(yi)] - p for p in probs]
            ces = [-np.log(p[int(yi)]) for p in probs]
            zo = []
            for fl in f:
                top = fl[mask].max()
                tied = int(((fl == top) & mask).sum())
                zo.append(1.0 - 1.0 / tied if fl[int(yi)] == top else 1.0)
        if hedge == "zero_one":
            loss = np.array(zo)
        elif hedge == "clipped":
            loss = np.minimum(ces, -np.log(1e-4)) / -np.log(1e-4)
        else:
            c = np.array(ces)
            loss = (c - c.min()) / (c.max() - c.min()) if c.max() > c.min() else 0 * c
        g = np.zeros(Wh[-1].shape[1])
        for l in range(L, 0, -1):
            g = (g + alpha[l] * (Wt[l] @ deltas[l])) * (h[l] > 0)
            Wt[l] += eta * alpha[l] * np.outer(h[l], deltas[l])
            bt[l] += eta * alpha[l] * deltas[l]
            below = Wh[l - 1] @ g
            Wh[l - 1] += eta * np.outer(h[l - 1], g)
            bh[l - 1] += eta * g
            g = below
        Wt[0] += eta * alpha[0] * np.outer(x, deltas[0])
        bt[0] += eta * alpha[0] * deltas[0]
        alpha = np.maximum(alpha * beta ** loss, s / L)
        alpha /= alpha.sum()
    return np.array(outs), Wh, bh, Wt, bt, alpha


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("task,hedge", [("binary", "zero_one"), ("multiclass", "zero_one"),
                                        ("multiclass", "clipped"), ("binary", "minmax"),
                                        ("multiclass", "minmax")])
def test_hbp_is_the_reference(task, hedge, dense):
    from olearn.neural import HBPClassifier
    X, y = stream(task, seed=len(hedge))
    if not dense:
        X = sp.csr_matrix(X)
    m = HBPClassifier(n_layers=3, n_hidden=5, eta=0.3, beta=0.8, s=0.2, hedge_loss=hedge)
    m.partial_fit(X[:1], y[:1], classes=np.unique(y), sample_weight=np.zeros(1))
    rng = np.random.default_rng(2)
    for name in ("coefs_", "intercepts_", "head_coefs_", "head_intercepts_"):
        setattr(m, name, [rng.standard_normal(w.shape) * 0.7 for w in getattr(m, name)])
    m.alpha_ = rng.dirichlet(np.ones(4))
    out, Wh, bh, Wt, bt, alpha = reference_hbp(
        m.coefs_, m.intercepts_, m.head_coefs_, m.head_intercepts_, m.alpha_, X, y, task,
        0.3, 0.8, 0.2, hedge, [y[0]])
    got = m.predict_learn(X, y, return_scores=True)
    np.testing.assert_allclose(np.asarray(got).reshape(out.shape), out, rtol=1e-10,
                               atol=1e-10)
    for u, v in zip(m.coefs_ + m.intercepts_ + m.head_coefs_ + m.head_intercepts_,
                    Wh + bh + Wt + bt):
        np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(m.alpha_, alpha, rtol=1e-10)
    assert m.alpha_.min() >= 0.2 / 3 - 1e-12


def test_hbp_generic_checks_and_attributes(tmp_path):
    from olearn.neural import HBPClassifier
    est = HBPClassifier(n_layers=3, n_hidden=6, eta=0.05)
    generic.check_model(est)
    X, y = stream("multiclass")
    m = olearn.make("hbp", n_layers=2, n_hidden=4).fit(X, y)
    assert [w.shape for w in m.coefs_] == [(6, 4), (4, 4)]
    assert [w.shape for w in m.head_coefs_] == [(6, 3), (4, 3), (4, 3)]
    assert m.alpha_.shape == (3,) and abs(m.alpha_.sum() - 1) < 1e-12
    np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="alpha_"):
        m.alpha_ = [1.0, 1.0, 1.0]
    m.save(tmp_path / "h.olearn")
    np.testing.assert_array_equal(olearn.load(tmp_path / "h.olearn").predict_proba(X),
                                  m.predict_proba(X))
    assert HBPClassifier().get_params()["n_layers"] == 20  # the paper's defaults


def test_the_papers_streams():
    from olearn.datasets import make_cd1, make_cd2, make_syn8
    from olearn.datasets.synthetic import _label, _relu_concept
    X, y = make_syn8(3000, random_state=4)
    assert X.shape == (3000, 50) and set(np.unique(y)) == {0, 1} and 0.4 < y.mean() < 0.6
    np.testing.assert_array_equal(make_syn8(3000, random_state=4)[1], y)  # seeded
    assert make_syn8(7)[0].shape == (7, 50)  # any length
    # CD1 is C1 -> C2 -> C1 and CD2 C1 -> C2 (6 layers) -> C3, in thirds
    for make, depths, third_is_first in ((make_cd1, (8, 8), True), (make_cd2, (8, 6, 8), False)):
        X, y = make(3000, random_state=2)
        rng = np.random.default_rng(2)
        concepts = [_relu_concept(rng, 50, d) for d in depths]
        assert len(concepts[1][0]) == depths[1] + 1
        np.testing.assert_array_equal(y[:1000], _label(concepts[0], X[:1000]))
        np.testing.assert_array_equal(y[1000:2000], _label(concepts[1], X[1000:2000]))
        assert (y[1000:2000] != _label(concepts[0], X[1000:2000])).mean() > 0.2
        last = concepts[0] if third_is_first else concepts[2]
        np.testing.assert_array_equal(y[2000:], _label(last, X[2000:]))
    with pytest.raises(ValueError, match="n_samples"):
        make_cd2(0)
