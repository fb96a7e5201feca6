"""Issue 45: every call is atomic, and the parameters and layouts a model is given are
checked before they can break it.

* item 3: a ``learn_one``, ``predict_learn_one``, ``partial_fit``, ``predict_learn`` or
  ``fit`` that raises (extreme values, bad labels, wrong widths) leaves every
  registered learner's state bit for bit as it was (``export_state``), adaptive
  statistics included, and ``save()`` works after it;
* item 3: a parameter that would make the state non-finite is refused by
  ``check_params``; item 4: size parameters have upper bounds, checked before
  allocation;
* item 5: ``save()`` refuses a model whose layout parameters differ from its state's,
  and the MLP's ``activation`` changed after fitting is refused by ``predict``;
* item 6: a number too big for a float (``10**400``) is olearn's one-line error.
"""
import numpy as np
import pytest

import olearn
from olearn import registry
from olearn.base import DivergenceError

RNG = np.random.default_rng(45)
X = RNG.normal(size=(24, 4))
Y = (X[:, 0] > 0).astype(int)
YR = X @ np.array([1.0, -2.0, 0.5, 0.0])
NAMES = registry.names() + registry.unlabelled_names()


def _target(name):
    if name in registry.unlabelled_names():
        return "none"
    return "value" if registry.learner_kind(name) == "regressor" else "label"


def _labels(name):
    return YR if _target(name) == "value" else Y


def _learn(model, x, y, **kw):
    return model.learn_one(x, **kw) if getattr(model, "target", None) == "none" else \
        model.learn_one(x, y, **kw)


def _fitted(name, dicts=False):
    model, y = olearn.make(name), _labels(name)
    if dicts:
        for i in range(12):
            _learn(model, {f"f{j}": X[i, j] for j in range(4)}, y[i])
    elif getattr(model, "target", None) == "none":
        model.partial_fit(X)
    else:
        model.partial_fit(X, y)
    return model


def _state(model):
    meta, arrays = model.export_state()
    return meta, {k: np.array(v, copy=True) for k, v in arrays.items()}


def _same(a, b):
    return a[0] == b[0] and a[1].keys() == b[1].keys() and all(
        a[1][k].dtype == b[1][k].dtype and np.array_equal(a[1][k], b[1][k], equal_nan=True)
        for k in a[1])


def _calls(name):
    """(whether the model learns dicts, the call) for each kind of failing call."""
    y = _labels(name)
    label = y[0]
    new = 7 if _target(name) == "label" else label
    bad = "a" if _target(name) == "label" else float("nan")
    big = X[0] * 1e300

    def batch(model, Xb, yb, **kw):
        return model.partial_fit(Xb, **kw) if _target(name) == "none" else \
            model.partial_fit(Xb, yb, **kw)

    def progressive(model, Xb, yb):
        return model.predict_learn(Xb) if _target(name) == "none" else \
            model.predict_learn(Xb, yb)

    def predict_learn_one(model, x, y):
        return model.predict_learn_one(x) if _target(name) == "none" else \
            model.predict_learn_one(x, y)
    return {
        "learn_one 1e300": (False, lambda m: _learn(m, big, label)),
        "learn_one 1e-200": (False, lambda m: _learn(m, X[0] * 1e-200, label)),
        "predict_learn_one 1e300": (False, lambda m: predict_learn_one(m, big, label)),
        "learn_one 1e300 new label": (False, lambda m: _learn(m, big, new)),
        "learn_one width": (False, lambda m: _learn(m, X[0, :3], label)),
        "learn_one bad label": (False, lambda m: _learn(m, X[0], bad)),
        "learn_one weight": (False, lambda m: _learn(m, X[0], label, sample_weight=-1.0)),
        "learn_one dict 1e300 new features": (
            True, lambda m: _learn(m, {"f0": 1e300, "new": -1e300, "new2": 2.0}, label)),
        "learn_one dict 1e300 new label": (
            True, lambda m: _learn(m, {"f1": 1e300, "other": 1.0}, new)),
        "partial_fit 1e300": (False, lambda m: batch(m, X * 1e300, y)),
        "partial_fit width": (False, lambda m: batch(m, X[:, :3], y)),
        "predict_learn 1e300": (False, lambda m: progressive(m, X * 1e300, y)),
    }


@pytest.mark.parametrize("name", NAMES)
def test_a_failed_call_leaves_the_state_bit_for_bit(name, tmp_path):
    """Item 3: after each kind of failed call, the state is exactly what it was and
    the model saves.  (A call the model takes without an error must leave it finite:
    ``save`` refuses any other.)"""
    failed = []
    for what, (dicts, call) in _calls(name).items():
        model = _fitted(name, dicts)
        before = _state(model)
        try:
            call(model)
        except ValueError:
            failed.append(what)
            assert _same(_state(model), before), f"{name}: {what} changed the state"
        model.save(tmp_path / "m.olm")  # (a diverged state is refused here)
        before = _state(model)
        try:  # (a model that took an extreme example may diverge on the next one)
            _learn(model, X[1] if not dicts else {"f0": 0.5}, _labels(name)[1])
        except DivergenceError:
            assert _same(_state(model), before), f"{name}: after {what}"
    assert "learn_one width" in failed and "partial_fit width" in failed


@pytest.mark.parametrize("name", ["adagrad", "ftrl", "ada-fobos", "ada-rda", "ndag",
                                  "nogd", "auto", "mlp-reg", "ogd-reg", "lms"])
def test_the_adaptive_statistics_of_a_failed_example_are_put_back(name, tmp_path):
    """Item 3 (the issue's case): learn_one with 1e300 features raised and left
    G/R/C (or the weights) infinite, and save() then refused the model."""
    model = _fitted(name)
    before = _state(model)
    for _ in range(3):
        try:
            _learn(model, X[2] * 1e300, _labels(name)[2])
        except ValueError:
            pass
        assert _same(_state(model), before) or np.isfinite(
            np.concatenate([a.ravel() for a in _state(model)[1].values()
                            if a.dtype.kind == "f"])).all()
    model.save(tmp_path / "m.olm")


def test_a_fresh_model_whose_first_example_fails_stays_fresh():
    for name in ("ogd-reg", "mlp-reg", "auto-reg"):
        model = olearn.make(name)
        with pytest.raises(ValueError):
            model.learn_one(X[0] * 1e300, 1e300)
        assert not model.__sklearn_is_fitted__(), name


# ----------------------------------------------------------- parameters (items 3, 4)
@pytest.mark.parametrize("name,params,words", [
    ("mlp-reg", {"alpha": 1e308}, "alpha"),
    ("mlp", {"learning_rate_init": 1e300}, "learning_rate_init"),
    ("pa", {"C": -1}, "C must be"), ("pa", {"C": "x"}, "C must be"),
    ("pa", {"C": True}, "C must be"), ("pa", {"C": None}, "C must be"),
    ("fogd", {"D": 10**9}, "D must be an integer from 1 to 16777216"),
    ("fogd", {"D": 0}, "D must be"),
    ("nogd", {"B": 10**6}, "B must be an integer from 1 to 4096"),
    ("mlp", {"hidden_layer_sizes": (10**5, 10**5)}, "hidden_layer_sizes"),
    ("mlp", {"hidden_layer_sizes": (4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000,
                                    4000)}, "hidden_layer_sizes gives"),
    ("hbp", {"n_layers": 10**6}, "n_layers must be an integer from 1 to 1000"),
    ("hbp", {"n_hidden": 10**9}, "n_hidden must be"),
    ("hbp", {"n_layers": 1000, "n_hidden": 1000}, r"n_layers \* n_hidden\^2"),
    ("kernel-pa", {"budget": 10**12}, "budget must be"),
    ("ofs", {"n_selected": 10**12}, "n_selected must be"),
    ("ogd", {"intercept_scaling": 1e300}, "intercept_scaling"),
])
def test_parameters_that_would_break_the_state_are_refused(name, params, words):
    """Item 3: a value that would make the state non-finite (``alpha=1e308``: Adam's
    moments became inf with no error); item 4: sizes bounded before allocation (D=1e9
    grew a server past 5.8 GB; (10^5, 10^5) and n_layers=10^6 raised MemoryError).
    One line, naming the parameter, before anything is allocated."""
    model = olearn.make(name, **params)
    with pytest.raises(ValueError, match=words) as err:
        model.check_params()
        model.learn_one(X[0], _labels(name)[0])
    assert "\n" not in str(err.value)
    assert not model.__sklearn_is_fitted__()


# ----------------------------------------------------------- layouts (item 5)
@pytest.mark.parametrize("name,param,value", [
    ("pa", "fit_intercept", False), ("arow", "fit_intercept", False),
    ("mlp", "fit_intercept", False), ("mlp-reg", "hidden_layer_sizes", (7,)),
    ("ogd", "average", True), ("fogd", "D", 64)])
def test_save_refuses_a_layout_set_after_learning(name, param, value, tmp_path):
    """Item 5: save() accepted it and load() returned a model whose intercept column was
    dropped (W (1, 7) -> (1, 6)), with other decisions."""
    model = _fitted(name)
    path = tmp_path / "m.olm"
    model.save(path)
    kept = path.read_bytes()
    model.set_params(**{param: value})
    with pytest.raises(ValueError, match=param) as err:
        model.save(path)
    assert "\n" not in str(err.value) and path.read_bytes() == kept
    model.set_params(**{param: olearn.make(name).get_params()[param]})
    model.save(path)  # (set back: saved as before)
    assert olearn.load(path).predict(X).tolist() == model.predict(X).tolist()


@pytest.mark.parametrize("name", ["mlp", "mlp-reg"])
def test_predict_refuses_another_activation(name):
    """Item 5: set_params(activation="tanh") on a relu-trained MLP was refused by
    learning, but predict applied tanh to the relu weights (decisions moved by 5.2)."""
    model = _fitted(name)
    before = model.predict(X)
    model.set_params(activation="tanh")
    for call in (lambda: model.predict(X), lambda: model.predict_one(X[0]),
                 lambda: model.export_state()):
        with pytest.raises(ValueError, match="activation changed .*'relu' -> 'tanh'"):
            call()
    model.set_params(activation="relu")
    assert model.predict(X).tolist() == before.tolist()


# ----------------------------------------------------------- overflow (item 6)
@pytest.mark.parametrize("call", [
    lambda m: m.learn_one({"a": 10**400}, 1),
    lambda m: m.learn_one({"a": 1.0, "b": -(10**400)}, 1),
    lambda m: m.predict_one({"a": 10**400}),
    lambda m: m.learn_one(np.array([1.0, 10**400], dtype=object), 1),
    lambda m: m.partial_fit(np.array([[1.0, 10**400]], dtype=object), [1]),
    lambda m: m.predict_learn(np.array([[1.0, 10**400]], dtype=object), [1]),
])
def test_an_int_beyond_the_floats_is_a_one_line_error(call):
    """Item 6: learn_one({"a": 10**400}, y) raised OverflowError."""
    for model in (olearn.make("pa1"), olearn.make("pa1").fit(X[:4, :2], Y[:4])):
        try:
            call(model)
        except ValueError as err:
            assert not isinstance(err, OverflowError)
            assert "\n" not in str(err) and len(str(err)) < 300
            continue
        assert "predict_one" in repr(call.__code__.co_names), "no error"


def test_the_command_line_reads_ids_and_values_beyond_the_floats(tmp_path):
    """Item 6: a ratings id of 1e20 written out gave a traceback from ``olearn evaluate
    --format ratings`` (OverflowError); an id is text then, and a rating beyond the
    floats is one error line with a non-zero exit."""
    import subprocess
    import sys
    ok = tmp_path / "ids.tsv"
    ok.write_text("1 2 3.0\n100000000000000000000 3 4.0\n2 3 1.0\n")
    bad = tmp_path / "ratings.tsv"
    bad.write_text("1 2 3.0\n2 3 1" + "0" * 400 + "\n")
    run = [sys.executable, "-m", "olearn", "evaluate", "--format", "ratings",
           "--algo", "biased-mf"]
    r = subprocess.run(run + [str(ok)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    r = subprocess.run(run + [str(bad)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("olearn: error:")
