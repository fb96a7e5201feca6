"""River's own check suite, as shipped, on olearn models (issue 44): River's hooks are
plain attributes of every model (``olearn._river.RiverTools``: ``_tags`` a set of
strings, ``_unit_test_params``, ``_unit_test_skips``, ``_mutable_attributes``,
``mutate``, ``_raw_memory_usage``), so ``river.checks.check_estimator`` runs unmodified;
River's progressive validation with ``ROCAUC`` and ``show_memory=True``, and River's
bagging and boosting ensembles, run on the margin learners (whose probabilities are the
logistic link of the margin).  olearn never imports River: these tests skip without it.
"""
import itertools

import pytest

import olearn

river = pytest.importorskip(
    "river", reason="River is an optional peer (the test extra installs it): its check "
    "suite and tools are what these tests run")
from river import checks, datasets, ensemble, evaluate, metrics  # noqa: E402


def _make(name):
    if name == "OneVsRest":
        from olearn.multiclass import OneVsRest
        return OneVsRest(olearn.make("pa1"))
    if name == "OzaBagging":
        from olearn.ensemble import OzaBagging
        return OzaBagging(olearn.make("pa1"), n_models=3)
    return olearn.make(name)


MODELS = ["pa1", "perceptron", "arow", "ftrl", "mlp", "hbp", "pa1-reg", "OneVsRest",
          "OzaBagging"]


@pytest.mark.parametrize("name", MODELS)
def test_check_estimator_passes_as_shipped(name):
    model = _make(name)
    assert model._unit_test_skips() == set()      # (no check is skipped)
    checks.check_estimator(model)


def test_river_hooks_are_river_s_and_olearn_tags_are_apart():
    m = olearn.make("pa1")
    assert m._tags == set() and isinstance(m._tags, set)
    assert olearn.tags(m).linear and olearn.tags(m).probabilistic
    assert list(m._unit_test_params()) == [{}]
    assert m._mutable_attributes == set() and not m._is_stochastic
    before = m._get_params()
    m.mutate({})
    assert m._get_params() == before
    with pytest.raises(ValueError, match="not a mutable attribute"):
        m.mutate({"C": 2.0})
    fresh = m._raw_memory_usage
    for x, y in itertools.islice(datasets.Phishing(), 50):
        m.learn_one(x, y)
    assert m._raw_memory_usage > fresh > 0
    assert m._memory_usage.endswith("B")


@pytest.mark.parametrize("name", ["pa1", "perceptron"])
def test_progressive_val_score_with_rocauc_and_memory(name, capsys):
    metric = metrics.ROCAUC()
    evaluate.progressive_val_score(datasets.Phishing(), olearn.make(name), metric,
                                   print_every=500, show_memory=True)
    out = capsys.readouterr().out
    assert "ROCAUC" in out and "B" in out.splitlines()[-1]
    assert metric.get() > 0.8


ENSEMBLES = {
    "BaggingClassifier": lambda m: ensemble.BaggingClassifier(m, n_models=3, seed=1),
    "ADWINBaggingClassifier": lambda m: ensemble.ADWINBaggingClassifier(m, n_models=3,
                                                                        seed=1),
    "LeveragingBaggingClassifier": lambda m: ensemble.LeveragingBaggingClassifier(
        m, n_models=3, seed=1),
    "AdaBoostClassifier": lambda m: ensemble.AdaBoostClassifier(m, n_models=3, seed=1),
    "ADWINBoostingClassifier": lambda m: ensemble.ADWINBoostingClassifier(m, n_models=3,
                                                                          seed=1),
    "BOLEClassifier": lambda m: ensemble.BOLEClassifier(m, n_models=3, seed=1),
    "SRPClassifier": lambda m: ensemble.SRPClassifier(m, n_models=3, seed=1),
    "VotingClassifier": lambda m: ensemble.VotingClassifier([m, m.clone()]),
    "OneVsRestClassifier": lambda m: __import__(
        "river.multiclass", fromlist=["x"]).OneVsRestClassifier(m),
}


@pytest.mark.parametrize("kind", sorted(ENSEMBLES))
@pytest.mark.parametrize("name", ["pa1", "perceptron"])
def test_river_ensembles_run_on_margin_learners(kind, name):
    model = ENSEMBLES[kind](olearn.make(name))
    metric = metrics.Accuracy()
    evaluate.progressive_val_score(itertools.islice(datasets.Phishing(), 400), model,
                                   metric)
    assert metric.get() > 0.6
