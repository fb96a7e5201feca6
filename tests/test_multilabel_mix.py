"""olearn.mix of models of label sets (issue 42 item 6; olearn/multilabel/mixing.py):
labels aligned by name, binary relevance label by label by the binary learners' own
rules, the ranking learners' weight rows as the count-weighted mean (against a numpy
reference), refusals with a reason."""
import numpy as np
import pytest

import olearn
from olearn.protocol import CannotMixError
from olearn.registry import MULTILABEL_MODELS

from conftest import data_path

RNG = np.random.default_rng(11)
X = RNG.normal(size=(90, 6))
Y = (X[:, :4] + 0.3 * RNG.normal(size=(90, 4)) > 0.2).astype(np.int8)


@pytest.mark.parametrize("name", sorted(MULTILABEL_MODELS))
def test_mix_of_one_is_the_model(name):
    m = olearn.make(name).partial_fit(X, Y)
    mixed = olearn.mix([m])
    assert mixed is not m and mixed.t_ == m.t_ and mixed.n_updates_ == m.n_updates_
    np.testing.assert_array_equal(mixed.predict(X), m.predict(X))
    np.testing.assert_allclose(mixed.decision_function(X), m.decision_function(X),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["ml-br", "ml-pa1", "ml-pa2", "ml-perceptron"])
def test_halves_mix_to_the_count_weighted_mean_of_their_scores(name):
    """Scores are linear in the weights (PA's binary mix and the ranking rows: the mean),
    so the mix's scores are the members' scores weighted by the rows each learned."""
    a = olearn.make(name).partial_fit(X[:60], Y[:60])
    b = olearn.make(name).partial_fit(X[60:], Y[60:])
    mixed = olearn.mix([a, b])
    want = (60 * a.decision_function(X) + 30 * b.decision_function(X)) / 90
    np.testing.assert_allclose(mixed.decision_function(X), want, rtol=1e-10, atol=1e-12)
    assert mixed.t_ == 90 and mixed.n_updates_ == a.n_updates_ + b.n_updates_
    given = olearn.mix([a, b], weights=[1, 3])
    np.testing.assert_allclose(given.decision_function(X),
                               (a.decision_function(X) + 3 * b.decision_function(X)) / 4,
                               rtol=1e-10, atol=1e-12)


def test_labels_are_aligned_by_name():
    sa = [["x", "y"] if r[0] else ["y"] for r in Y[:50]]
    sb = [["z"] if r[1] else ["y", "z"] for r in Y[50:]]
    a = olearn.make("ml-br").partial_fit(X[:50], sa)
    b = olearn.make("ml-br").partial_fit(X[50:], sb)
    mixed = olearn.mix([a, b])
    assert mixed.classes_.tolist() == ["x", "y", "z"]
    # x: only a's model; z: only b's; y: both, by the binary rule
    np.testing.assert_allclose(mixed.decision_function(X)[:, 0], a.decision_function(X)[:, 0])
    np.testing.assert_allclose(mixed.decision_function(X)[:, 2], b.decision_function(X)[:, 1])
    y = olearn.mix([a.models_[1], b.models_[0]])
    np.testing.assert_allclose(mixed.decision_function(X)[:, 1], y.decision_function(X))
    mixed.partial_fit(X[:5], [["w"]] * 5)      # learns on, a new label included
    assert mixed.classes_.tolist() == ["w", "x", "y", "z"]


def test_ranking_rows_on_the_union_of_labels_and_names():
    """A label a member never met is its initial row (zeros) there; dict columns are
    joined by name (numpy reference of the mean)."""
    a, b = olearn.make("ml-pa1"), olearn.make("ml-pa1")
    for i in range(40):
        a.learn_one({"p": X[i, 0], "q": X[i, 1]}, ["u"] if Y[i, 0] else ["v"])
        b.learn_one({"q": X[i, 1], "r": X[i, 2]}, ["v", "w"] if Y[i, 1] else ["w"])
    mixed = olearn.mix([a, b])
    assert mixed.classes_.tolist() == ["u", "v", "w"]
    Wa, Wb = np.zeros((4, 4)), np.zeros((4, 4))  # rows: v0 u v w; columns: 1 p q r
    Wa[np.ix_([0, 1, 2], [0, 1, 2])] = a.W_
    Wb[np.ix_([0, 2, 3], [0, 2, 3])] = b.W_
    np.testing.assert_allclose(mixed.W_, (Wa + Wb) / 2, rtol=1e-12, atol=1e-14)
    x = {"p": 0.3, "r": -1.0}
    s = mixed.W_ @ np.array([1.0, 0.3, 0.0, -1.0])
    assert mixed.predict_one(x) == {k: bool(v > s[0]) for k, v in zip("uvw", s[1:])}


def test_refusals_say_why():
    a = olearn.make("ml-cc").partial_fit(X[:40], [[1, 2]] * 40)
    b = olearn.make("ml-cc").partial_fit(X[40:], [[2], [1, 2]] * 25)
    with pytest.raises(CannotMixError, match="chains differ"):
        olearn.mix([a, b])
    c = olearn.make("ml-cc", order=[1, 2]).partial_fit(X[40:], [[2], [1, 2]] * 25)
    d = olearn.make("ml-cc", order=[1, 2]).partial_fit(X[:40], [[1, 2]] * 40)
    assert olearn.mix([c, d]).order_ == [1, 2]
    with pytest.raises(ValueError, match="cannot mix a BinaryRelevance with a"):
        olearn.mix([olearn.make("ml-br").fit(X, Y), olearn.make("ml-pa1").fit(X, Y)])
    with pytest.raises(ValueError, match="C=0.5 differs"):
        olearn.mix([olearn.make("ml-pa1").fit(X, Y), olearn.make("ml-pa1", C=0.5).fit(X, Y)])


def test_parameter_mixing_rounds_count_the_base_once():
    base = olearn.make("ml-br").partial_fit(X[:30], Y[:30])
    a = olearn.mix([base]).partial_fit(X[30:60], Y[30:60])
    b = olearn.mix([base]).partial_fit(X[60:], Y[60:])
    mixed = olearn.mix([a, b], base=base)
    assert mixed.t_ == 90 and mixed.models_[0].t_ == 90


def test_halves_of_yeast_mix_near_one_model():
    from olearn.io import read_arff
    Xy, Yy, _ = read_arff(data_path("multilabel", "Yeast.arff.bz2"))
    n = Xy.shape[0] // 2
    whole = olearn.make("ml-br").fit(Xy, Yy)
    a = olearn.make("ml-br").fit(Xy[:n], Yy[:n])
    b = olearn.make("ml-br").fit(Xy[n:], Yy[n:])
    mixed = olearn.mix([a, b])
    loss = [float((m.predict(Xy) != Yy).mean()) for m in (whole, mixed, a, b)]
    assert loss[1] <= loss[0] + 0.01, loss
    assert loss[1] <= max(loss[2:]), loss
