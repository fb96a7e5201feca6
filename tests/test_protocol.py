"""The model protocol (``olearn.protocol``), proved on a model the library does not have.

``TinyNet`` below is a one-hidden-layer network (tanh hidden units, a logistic or
softmax output, online backpropagation as in the seed text's "Online BackPropagation":
the output's error ``delta = target - p``, the hidden units' ``delta_j = (1 - s_j^2)
sum_k delta_k v_kj``, each weight moved by ``eta delta s``).  It is written only on the
public extension points of the protocol base (``slots``, ``kernels``,
``kernel_params``, ``check_params``, ``init_state``) and the public feature-map base
(``features``), overrides no private hook, imports nothing private, and passes the
generic checks every registered learner passes (``generic.check_model``).
"""
import math

import numpy as np
import pytest
from numba import njit

import generic
from olearn.base import OnlineClassifier
from olearn.feature_map import FeatureMapModel
from olearn.protocol import CannotMixError, Model, Slot, declare


# ---------------------------------------------------------------- the network
@njit(inline="always")
def _score(state, idx, val, out):
    """``Z = (tanh(W x + B), 1)`` (the hidden layer, then the output's bias unit) and
    ``out[k] = V_k . Z``."""
    V, W, Z, B = state[0], state[1], state[2][0], state[3][0]
    H = W.shape[0]
    for j in range(H):
        a = B[j]
        for q in range(idx.shape[0]):
            a += W[j, idx[q]] * val[q]
        Z[j] = math.tanh(a)
    Z[H] = 1.0
    for k in range(V.shape[0]):
        a = 0.0
        for j in range(H + 1):
            a += V[k, j] * Z[j]
        out[k] = a


@njit(inline="always")
def _backprop(state, step, idx, val, delta):
    """One step of online backpropagation for the output errors ``delta`` (K,)."""
    V, W, Z, B = state[0], state[1], state[2][0], state[3][0]
    H = W.shape[0]
    for j in range(H):  # the hidden errors, from the output weights before their step
        back = 0.0
        for k in range(V.shape[0]):
            back += delta[k] * V[k, j]
        g = step * (1.0 - Z[j] * Z[j]) * back
        B[j] += g
        for q in range(idx.shape[0]):
            W[j, idx[q]] += g * val[q]
    for k in range(V.shape[0]):
        for j in range(H + 1):
            V[k, j] += step * delta[k] * Z[j]


@njit(inline="always")
def _binary(state, params, idx, val, y, sw, out, seen):
    """Logistic loss, ``y`` in {-1, +1}: ``delta = y sigma(-y f)``."""
    delta = np.empty(1)
    delta[0] = y / (1.0 + math.exp(y * out[0]))
    _backprop(state, params.eta * sw, idx, val, delta)
    return 1


@njit(inline="always")
def _multiclass(state, params, idx, val, y, sw, out, seen):
    """Softmax over the classes seen so far: ``delta_k = [k = y] - p_k``."""
    K = out.shape[0]
    top = -np.inf
    for k in range(K):
        if seen[k] and out[k] > top:
            top = out[k]
    delta = np.zeros(K)
    total = 0.0
    for k in range(K):
        if seen[k]:
            delta[k] = math.exp(out[k] - top)
            total += delta[k]
    for k in range(K):
        delta[k] = -delta[k] / total
    delta[int(y)] += 1.0
    _backprop(state, params.eta * sw, idx, val, delta)
    return 1


class TinyNet(FeatureMapModel, OnlineClassifier):
    """A one-hidden-layer network classifier.

    Parameters
    ----------
    hidden : int, hidden tanh units (>= 1).
    eta : float, step size (> 0).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner`` (random_state also seeds the initial hidden weights).
    """

    kernels = declare("tests.tiny_net", params=("eta",), scratch=("Z",), score=_score,
                      binary=_binary, multiclass=_multiclass)

    def __init__(self, hidden=8, eta=0.5, fit_intercept=True, intercept_scaling=1.0,
                 epochs=1, shuffle=True, random_state=0):
        self.hidden = hidden
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.epochs = epochs
        self.shuffle = shuffle
        self.random_state = random_state

    @property
    def slots(self):
        H = int(self.hidden)
        return (Slot("V", ("K", H + 1), 0.0, signed=True),  # output layer (+ bias)
                Slot("W", (H, "d")),                         # hidden layer's weights
                Slot("Z", (1, H + 1)),                       # the row's hidden units
                Slot("B", (1, H)))                           # hidden layer's biases

    def check_params(self):
        if not (isinstance(self.hidden, (int, np.integer)) and self.hidden >= 1):
            raise ValueError(f"hidden must be a positive integer, got {self.hidden!r}")
        if not (isinstance(self.eta, (int, float)) and self.eta > 0):
            raise ValueError(f"eta must be a number > 0, got {self.eta!r}")
        state = getattr(self, "state_", None)
        if state is not None and state["W"].shape[0] != self.hidden:
            raise ValueError("hidden changed after learning started; call fit() to start "
                             "afresh")

    def kernel_params(self):
        return {"eta": self.eta}

    def init_state(self, name, array, start):
        """Hidden biases ~ N(0, 1), seeded by ``random_state``: they make the hidden
        units differ.  The input weights start at 0 (the declared fill), so a feature
        first met changes no score until the model learns from it (``predict_one``
        drops unknown features), and the output weights at 0, so that swapping the
        two binary labels negates the model exactly."""
        if name == "B":
            seed = None if self.random_state is None else int(self.random_state)
            array[:] = np.random.default_rng(seed).standard_normal(array.shape)

    def features(self, X):
        W = self.state_["W"]
        b = int(self.fit_intercept)
        a = np.asarray(X @ W[:, b:b + X.shape[1]].T) + self.state_["B"][0]
        if b:
            a = a + self.intercept_scaling * W[:, 0]
        return np.hstack([np.tanh(a), np.ones((a.shape[0], 1))])


XOR_X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
XOR_Y = np.array([0, 1, 1, 0])


# ---------------------------------------------------------------- tests
def test_the_network_overrides_no_private_hook():
    """Only public names: the proof that the extension points are enough."""
    own = {n for n in vars(TinyNet) if not (n.startswith("__") and n.endswith("__"))}
    assert own and not any(n.startswith("_") for n in own), own


@pytest.mark.parametrize("seed", range(5))
def test_the_network_learns_xor(seed):
    net = TinyNet(hidden=8, eta=0.05, epochs=5000, random_state=seed).fit(XOR_X, XOR_Y)
    assert list(net.predict(XOR_X)) == [0, 1, 1, 0]
    assert [net.predict_one(x) for x in XOR_X] == [0, 1, 1, 0]


def test_a_linear_learner_cannot_learn_xor():
    import olearn
    lin = olearn.make("perceptron", epochs=500).fit(XOR_X, XOR_Y)
    assert (lin.predict(XOR_X) != XOR_Y).any()


def test_the_network_learns_xor_one_example_at_a_time():
    net = TinyNet(hidden=8, eta=0.05, random_state=0)
    for _ in range(5000):
        for (a, b), y in zip(XOR_X, ["no", "yes", "yes", "no"]):
            net.learn_one({"a": a, "b": b}, y)
    assert [net.predict_one({"a": a, "b": b}) for a, b in XOR_X] == ["no", "yes", "yes", "no"]


def test_the_network_is_a_model_of_the_protocol():
    net = TinyNet()
    assert isinstance(net, Model)
    net.fit(XOR_X, XOR_Y)
    explicit = net.explicit_state()           # what olearn.mix combines, a copy
    assert set(explicit) == {s.name for s in net.slots}
    explicit[next(iter(explicit))][...] = 7.0
    assert not (net.state_[next(iter(explicit))] == 7.0).all()
    import olearn
    mixed = olearn.mix([net, net])            # one model mixed with itself is itself
    np.testing.assert_allclose(mixed.decision_function(XOR_X), net.decision_function(XOR_X))
    with pytest.raises(AttributeError, match="see weights_"):
        net.coef_
    assert net.weights_.shape == (1, 9)


def test_every_learner_and_wrapper_offers_the_protocol():
    import olearn
    from olearn.drift import OnDrift
    from olearn.ensemble import ExpertAdvice
    from olearn.multiclass import OneVsRest
    from olearn.preprocessing import Scaled
    from olearn.registry import available
    models = [olearn.make(name) for name in available()]
    models += [OneVsRest(olearn.make("pa1")), Scaled(olearn.make("pa1")),
               OnDrift(olearn.make("pa1")), ExpertAdvice([olearn.make("pa1")])]
    assert [type(m).__name__ for m in models if not isinstance(m, Model)] == []
    wrapper = Scaled(olearn.make("pa1")).fit(XOR_X, XOR_Y)
    with pytest.raises(CannotMixError, match="Scaled cannot be mixed"):
        wrapper.explicit_state()


def test_predict_learn_and_save_are_written_once_and_fitted_is_asked():
    """Every learner and wrapper takes ``predict_learn`` from ``Progressive`` and ``save``
    from ``Saves`` (one implementation each), and answers ``__sklearn_is_fitted__``:
    False fresh, True once it has learned (what the command line and the model files
    ask)."""
    import olearn
    from olearn.drift import DDM, OnDrift
    from olearn.ensemble import ExpertAdvice
    from olearn.multiclass import OneVsRest
    from olearn.preprocessing import Scaled
    from olearn.protocol import Progressive, Saves
    from olearn.registry import available
    models = [olearn.make(name) for name in available()]
    models += [OneVsRest(olearn.make("pa1")), Scaled(olearn.make("pa1")),
               OnDrift(olearn.make("pa1"), DDM()), ExpertAdvice([olearn.make("pa1")])]
    for m in models:
        assert type(m).predict_learn is Progressive.predict_learn, type(m).__name__
        assert type(m).save is Saves.save, type(m).__name__
        assert not m.__sklearn_is_fitted__(), type(m).__name__
    for m in models[-4:]:
        m.partial_fit(XOR_X, XOR_Y)
        assert m.__sklearn_is_fitted__(), type(m).__name__


def test_the_network_passes_the_generic_checks():
    generic.check_model(TinyNet(hidden=6, eta=0.3))
