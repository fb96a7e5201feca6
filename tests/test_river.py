"""River's own tools on olearn models (issue 32): ``progressive_val_score`` with River's
metrics, a ``StandardScaler() |`` pipeline, ``BaggingClassifier``, ``w=``, and River's
own estimator checks where they apply; each gives the predictions of the bare loop.
olearn never imports River (``olearn._river``): these tests skip when River is absent.
"""
import random
import subprocess
import sys

import numpy as np
import pytest

import olearn

river = pytest.importorskip("river", reason="River is an optional peer (the bench extra)")
from river import datasets, ensemble, evaluate, metrics, preprocessing  # noqa: E402
from river import utils  # noqa: E402

N = 300


@pytest.fixture(scope="module")
def phishing():
    """River's bundled binary stream (bool labels), first N rows."""
    return list(datasets.Phishing())[:N]


def bare(model, stream, proba=False):
    """The bare loop: each row's prediction (or probabilities) before learning it."""
    out = []
    for x, y in stream:
        out.append(model.predict_proba_one(x) if proba else model.predict_one(x))
        model.learn_one(x, y)
    return out


def through_river(model, stream, metric):
    """progressive_val_score's predictions, one per row, and its final metric."""
    steps = list(evaluate.iter_progressive_val_score(stream, model, metric, step=1,
                                                     yield_predictions=True))
    return [s["Prediction"] for s in steps], metric


@pytest.mark.parametrize("name, metric, proba", [
    ("pa1", metrics.Accuracy, False), ("arow", metrics.ROCAUC, True),
    ("ftrl", metrics.LogLoss, True)])
def test_progressive_val_score_gives_the_bare_loop(phishing, name, metric, proba):
    preds, m = through_river(olearn.make(name), phishing, metric())
    ref = bare(olearn.make(name), phishing, proba)
    assert preds == ref
    again = metric()
    for (_, y), p in zip(phishing, ref):
        if p is not None and p != {}:  # (River scores no answer before any class)
            again.update(y, p)
    assert m.get() == again.get()
    if proba:
        assert all(set(p) <= {True, False} for p in ref) and any(ref)


@pytest.mark.parametrize("wrap", ["OneVsRest", "Scaled"])
def test_wrappers_in_progressive_val_score(phishing, wrap):
    from olearn.multiclass import OneVsRest
    from olearn.preprocessing import Scaled
    make = {"OneVsRest": OneVsRest, "Scaled": Scaled}[wrap]
    preds, _ = through_river(make(olearn.make("pa1")), phishing, metrics.Accuracy())
    assert preds == bare(make(olearn.make("pa1")), phishing)


def test_regressor_with_a_regression_metric(phishing):
    stream = [(x, float(y) + x["empty_server_form_handler"]) for x, y in phishing]
    preds, _ = through_river(olearn.make("pa1-reg"), stream, metrics.MAE())
    assert preds == bare(olearn.make("pa1-reg"), stream)


def test_river_isinstance_and_attributes():
    pa, reg = olearn.make("pa1"), olearn.make("ftrl-reg")
    assert isinstance(pa, river.base.Classifier)
    assert not isinstance(pa, river.base.Regressor)
    assert not isinstance(pa, river.base.Transformer)
    assert isinstance(reg, river.base.Regressor)
    assert not isinstance(reg, river.base.Classifier)
    assert pa._supervised and pa._multiclass and not reg._multiclass
    copy = pa.clone({"C": 0.5})
    assert type(copy) is type(pa) and copy.C == 0.5 and pa.C != 0.5
    assert pa._get_params() == pa.get_params(deep=False)


def test_standard_scaler_pipeline_gives_the_bare_loop(phishing):
    pipe = preprocessing.StandardScaler() | olearn.make("pa1")
    preds = []
    for x, y in phishing:
        preds.append(pipe.predict_one(x))
        pipe.learn_one(x, y)
    scaler, model, ref = preprocessing.StandardScaler(), olearn.make("pa1"), []
    for x, y in phishing:
        ref.append(model.predict_one(scaler.transform_one(x)))
        scaler.learn_one(x)
        model.learn_one(scaler.transform_one(x), y)
    assert preds == ref
    assert len(set(preds[10:])) == 2


def test_bagging_gives_the_bare_loop(phishing):
    bag = ensemble.BaggingClassifier(olearn.make("ftrl"), n_models=3, seed=7)
    preds, _ = through_river(bag, phishing, metrics.Accuracy())
    members, rng, ref = [olearn.make("ftrl") for _ in range(3)], random.Random(7), []
    for x, y in phishing:
        votes = {}
        for m in members:
            for k, p in m.predict_proba_one(x).items():
                votes[k] = votes.get(k, 0.0) + p
        ref.append(max(votes, key=votes.get) if votes else None)
        for m in members:
            for _ in range(utils.random.poisson(1, rng)):
                m.learn_one(x, y)
    assert preds == ref


def test_w_is_sample_weight(phishing):
    a, b, c = olearn.make("ftrl"), olearn.make("ftrl"), olearn.make("ftrl")
    for x, y in phishing[:50]:
        a.learn_one(x, y, w=2.0)
        b.learn_one(x, y, sample_weight=2.0)
        c.learn_one(x, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)
    with pytest.raises(ValueError, match="sample_weight or w"):
        a.learn_one(phishing[0][0], phishing[0][1], sample_weight=3.0, w=2.0)
    ovr = olearn.multiclass.OneVsRest(olearn.make("pa1"))
    ovr.learn_one(phishing[0][0], phishing[0][1], w=2.0)


#: River's checks that apply to a model with no ``_unit_test_params``/River tags: the
#: cloning ones, and those that learn River's datasets; the probability ones only
#: where ``predict_proba_one`` exists (PA has none: River's checks then call it anyway)
CHECKS = ["check_clone_same_class", "check_clone_is_idempotent",
          "check_clone_changes_memory_addresses", "check_clone_with_new_params_applies",
          "check_get_params_matches_signature", "check_learn_one",
          "check_predict_one_pure", "check_predict_one_before_any_learn",
          "check_no_state_aliasing_with_input", "check_clone_is_independent"]
PROBA_CHECKS = ["check_pickling", "check_shuffle_features_no_impact",
                "check_emerging_features", "check_disappearing_features",
                "check_radically_disappearing_features", "check_predict_proba_one",
                "check_classifier_tracks_seen_labels"]


@pytest.mark.parametrize("name", ["pa1", "ftrl"])
def test_river_estimator_checks(name):
    import inspect
    from river.checks import _yield_datasets, clf, common
    model = olearn.make(name)
    for check in CHECKS + (PROBA_CHECKS if hasattr(model, "predict_proba_one") else []):
        fn = getattr(common, check, None) or getattr(clf, check)
        if "dataset" in inspect.signature(fn).parameters:
            for dataset in _yield_datasets(model):
                fn(model.clone(), dataset=dataset)
        else:
            fn(model.clone())


def test_olearn_does_not_import_river():
    code = ("import sys, olearn; m = olearn.make('pa1'); m.learn_one({'a': 1.0}, 1); "
            "m.predict_one({'a': 1.0}); hasattr(m, '_last_step'); "
            "assert 'river' not in sys.modules, 'river imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_oza_bagging_in_river_gives_the_bare_loop(phishing):
    """``OzaBagging`` (online bagging, as River's ``BaggingClassifier``) in River's
    progressive validation: River's predictions are the bare loop's; ``w=`` is its weight."""
    from olearn.ensemble import OzaBagging
    preds, _ = through_river(OzaBagging(olearn.make("ftrl"), n_models=3, random_state=7),
                             phishing, metrics.Accuracy())
    assert preds == bare(OzaBagging(olearn.make("ftrl"), n_models=3, random_state=7),
                         phishing)
    a = OzaBagging(olearn.make("pa1"), n_models=3)
    b = OzaBagging(olearn.make("pa1"), n_models=3)
    for x, y in phishing[:40]:
        a.learn_one(x, y, w=2.0)
        b.learn_one(x, y, sample_weight=2.0)
    assert [a.predict_one(x) for x, _ in phishing[40:80]] == \
        [b.predict_one(x) for x, _ in phishing[40:80]]
