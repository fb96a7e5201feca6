"""The registry's table is true, names cost no import, ``make`` and ``load`` import the
one learner they need, and the capability tags agree with the classes."""
import importlib
import inspect
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import olearn
from olearn import registry
from olearn._estimator import Estimator
from olearn._tags import Tags, declared, tags
from olearn.linear import PAClassifier


def _where(cls):
    return f"{cls.__module__}:{cls.__qualname__}"


def _learner_classes():
    """Every public estimator class defined in a module of the learner packages."""
    found = {}
    for package in registry.LEARNER_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__, package + "."):
            module = importlib.import_module(info.name)
            for attr, obj in vars(module).items():
                if inspect.isclass(obj) and obj.__module__ == info.name \
                        and not attr.startswith("_") and issubclass(obj, Estimator):
                    found[_where(obj)] = obj
    return found


def _python(code):
    """Run ``code`` in a fresh interpreter; its stdout."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_learner_class_is_in_the_table():
    table = {where for where, _ in registry.LEARNERS.values()}
    found = _learner_classes()
    for where, cls in sorted(found.items()):
        name = cls.__name__.lower()
        assert where in table or where in registry.UNNAMED, (
            f"{where} is a learner class that olearn.registry does not know: add a line "
            f'"{name}": ("{where}", {{}}), to LEARNERS in olearn/registry.py (or put it '
            "in UNNAMED, saying why it has no name)")
    assert not (table | set(registry.UNNAMED)) - set(found), \
        f"LEARNERS or UNNAMED names classes that do not exist: " \
        f"{sorted((table | set(registry.UNNAMED)) - set(found))}"


def test_the_learner_packages_exist():
    for package in registry.LEARNER_PACKAGES:
        importlib.import_module(package)  # a missing one fails here (no silent skip)


@pytest.mark.parametrize("name", registry.names())
def test_each_name_makes_its_class_with_its_parameters(name):
    where, defaults = registry.LEARNERS[name]
    model = olearn.make(name)
    assert _where(type(model)) == where
    params = model.get_params()
    for key, value in defaults.items():
        assert params[key] == value
    assert registry.lookup(name) == (type(model), defaults)


def test_every_named_class_is_exported_from_its_package():
    for where in sorted({w for w, _ in registry.LEARNERS.values()} | set(registry.UNNAMED)):
        module, _, attr = where.partition(":")
        package = importlib.import_module(module.rpartition(".")[0])
        assert getattr(package, attr) is getattr(importlib.import_module(module), attr), where
        assert attr in package.__all__ and attr in dir(package), where


def test_names_cost_no_import():
    out = _python("import sys; from olearn import registry; registry.check_name('pa1'); "
                  "print(len(registry.names())); "
                  "print(sorted(m for m in sys.modules if m in ('numpy', 'numba', 'scipy') "
                  "or m.startswith('olearn.') and m != 'olearn.registry'))")
    count, imported = out.split("\n")[:2]
    assert int(count) == len(registry.LEARNERS) and imported == "[]"
    with pytest.raises(KeyError, match="did you mean .*'pa2'"):
        registry.check_name("pa3")


LEARNER_MODULES = sorted({w.partition(":")[0] for w, _ in registry.LEARNERS.values()})


@pytest.mark.parametrize("name", ["pa1", "arow", "ftrl"])
def test_make_imports_only_the_module_of_its_learner(name):
    out = _python(f"import sys, olearn; olearn.make({name!r}); "
                  f"print(sorted(m for m in sys.modules if m in {LEARNER_MODULES!r}))")
    assert out.strip() == repr([registry.LEARNERS[name][0].partition(":")[0]])


def test_load_imports_only_the_module_of_the_saved_learner(tmp_path):
    path = tmp_path / "m.olm"
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    model = olearn.make("pa1").fit(X, [0, 1, 1])
    model.save(path)
    out = _python(f"import sys, olearn; m = olearn.load({str(path)!r}); "
                  f"print(type(m).__name__, m.predict([[1.0, 0.0]])[0]); "
                  f"print(sorted(m for m in sys.modules if m in {LEARNER_MODULES!r}))")
    first, imported = out.split("\n")[:2]
    assert first == f"PAClassifier {model.predict(X[:1])[0]}"
    assert imported == "['olearn.linear.pa']"


class MyPA(PAClassifier):
    """A learner declared outside olearn, registered at run time."""


def test_a_users_learner_registers_at_run_time(tmp_path):
    registry.register("my-pa", MyPA, C=0.25)
    try:
        assert "my-pa" in registry.names() and "my-pa" in registry.available("classifier")
        model = olearn.make("my-pa")
        assert type(model) is MyPA and model.C == 0.25
        model.fit(np.array([[1.0, 0.0], [0.0, 1.0]]), [0, 1])
        olearn.persistence.save(model, tmp_path / "m.olm")
        back = olearn.load(tmp_path / "m.olm")
        assert type(back) is MyPA and back.C == 0.25
        np.testing.assert_array_equal(back.coef_, model.coef_)
    finally:
        registry._REGISTRY.pop("my-pa", None)
    assert "my-pa" not in registry.names()
    with pytest.raises(olearn.persistence.ModelFileError, match="unknown learner class"):
        olearn.load(tmp_path / "m.olm")  # no longer registered: refused, not imported
    with pytest.raises(TypeError, match="takes a class"):
        registry.register("bad", MyPA())


def test_other_kinds_make_their_models():
    others = registry.other_models()
    assert set(others) == {"recommender", "portfolio", "detector",
                           "model without a target", "multilabel", "sequence tagger"}
    from olearn import drift, portfolio, recommend
    makers = {"recommender": recommend.make_recommender, "portfolio": portfolio.make,
              "detector": drift.make, "model without a target": olearn.make,
              "multilabel": olearn.make, "sequence tagger": olearn.make}
    for kind, (_, names, _) in others.items():
        assert names
        for name in names:
            assert makers[kind](name) is not None
    text = subprocess.run([sys.executable, "-m", "olearn", "algos"], capture_output=True,
                          text=True, timeout=300).stdout
    assert "drift detectors: adwin, ddm, eddm, page-hinkley" in text


# ------------------------------------------------------------------ tags
def test_tags_merge_along_the_bases_and_refuse_unknown_names():
    class Base(Estimator):
        _capabilities = {"linear": True, "kernel": "support"}

    class Child(Base):
        _capabilities = {"kernel": None}

    assert declared(Child) == {"linear": True, "kernel": None}
    assert tags(Child) == Tags(linear=True)

    class Wrong(Estimator):
        _capabilities = {"lineer": True}

    with pytest.raises(TypeError, match="unknown tag 'lineer'"):
        tags(Wrong)
    assert olearn.tags is tags


def test_tags_of_a_model_follow_its_parameters():
    assert tags(olearn.make("ogd", loss="hinge")).probabilistic  # (the margin's link)
    assert tags(olearn.make("ogd", loss="logistic")).probabilistic
    assert tags(olearn.make("ofs-partial")).width_dependent
    assert not tags(olearn.make("ofs")).width_dependent
    from olearn.multiclass import OneVsRest
    from olearn.preprocessing import Scaled
    assert tags(OneVsRest(olearn.make("pa1"))) == Tags(
        task="classifier", linear=True, multiclass="ovr", wrapper=True)
    assert not tags(OneVsRest(olearn.make("kernel-perceptron"))).linear
    assert tags(Scaled(olearn.make("pa1-reg"))).task == "regressor"
    assert tags(olearn.make("auto")).multiclass == "members"


@pytest.mark.parametrize("name", registry.names())
def test_tags_agree_with_the_class(name):
    cls = registry.lookup(name)[0]
    t = tags(cls)
    assert t.task in ("classifier", "regressor")
    assert (t.multiclass is not None) == (t.task == "classifier")
    assert t.probabilistic == hasattr(cls, "predict_proba")
    assert not (t.linear and t.kernel)
    if t.kernel == "support":
        assert hasattr(cls, "support_vectors_")
    if t.one_example:
        assert all(hasattr(cls, m) for m in ("learn_one", "predict_one", "predict_learn_one"))
    if t.closed_form:
        assert t.linear
