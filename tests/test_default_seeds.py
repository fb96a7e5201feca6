"""Every randomised model has a default seed (issue 32): two fresh models with their
defaults, on the same small data, give the same results.

Every registered learner's ``random_state`` defaults to a number; the learners that draw
at random (``fit``, whose default ``shuffle=True`` draws an order, then their predictions
and decision function), every recommender (``predict_learn`` on a rating stream) and
online PCA (Oja's random start) repeat exactly."""
import numpy as np
import pytest

import olearn
from olearn.registry import available, lookup


def _data(task):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 6))
    if task == "regressor":
        return X, X @ rng.normal(size=6) + 0.1 * rng.normal(size=120)
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)


def _outputs(model, X, y):
    model.fit(X, y)
    out = [np.asarray(model.predict(X), dtype=float)]
    if hasattr(model, "decision_function"):
        out.append(np.asarray(model.decision_function(X), dtype=float))
    return out


def test_every_registered_learner_has_a_fixed_default_seed():
    for name in available():
        cls, defaults = lookup(name)
        params = cls(**defaults).get_params()
        assert params.get("random_state", 0) is not None, \
            f"{name}: random_state defaults to None (a fresh draw each run)"


#: the learners that draw at random beyond fit()'s shuffle (budget removals, random
#: features, landmarks, exploration, initial weights, Hedge's draws), and one that only
#: shuffles
RANDOMISED = ("kernel-perceptron", "kernel-pa", "norma", "fogd", "nogd", "ofs", "mlp",
              "hbp", "auto", "pa1")


@pytest.mark.parametrize("name", RANDOMISED)
def test_a_randomised_learner_with_its_defaults_gives_the_same_results_twice(name):
    from olearn.registry import learner_kind
    X, y = _data(learner_kind(name))
    first, second = (_outputs(olearn.make(name), X, y) for _ in range(2))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}: two runs differ")


def test_recommenders_and_online_pca_with_their_defaults_repeat():
    from olearn.decomposition import OnlinePCA
    from olearn.recommend.evaluate import RECOMMENDERS, make_recommender
    rng = np.random.default_rng(0)
    users, items = rng.integers(0, 30, 400), rng.integers(0, 40, 400)
    ratings = rng.integers(1, 6, 400).astype(float)
    for name in RECOMMENDERS:
        a, b = (make_recommender(name).predict_learn(users, items, ratings)
                for _ in range(2))
        np.testing.assert_array_equal(a, b, err_msg=f"{name}: two runs differ")
    X = rng.normal(size=(100, 8))
    a, b = (OnlinePCA(n_components=2, method="oja").fit(X).transform(X) for _ in range(2))
    np.testing.assert_array_equal(a, b)
