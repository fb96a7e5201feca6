"""Reliability, round 3: issue 33's reproductions kept as regression tests.

Each test names the item of issue 33 it covers.  Cases that crashed the interpreter
run in a child process (a crash is then a failed test, not a lost run).
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import olearn
from olearn.registry import LEARNERS

RNG = np.random.default_rng(33)
X = RNG.normal(size=(40, 5))
Y = (X[:, 0] > 0).astype(int)
YR = X[:, 0] + 0.1 * RNG.normal(size=40)


def _y(name):
    return YR if olearn.tags(olearn.make(name)).task == "regression" else Y


def _child(code, timeout=120, env=None):
    """Run ``code`` in a fresh interpreter; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


# ----------------------------------------------------------- item 1: layout params
LAYOUT = [n for n in LEARNERS if n not in ("auto", "auto-reg")]


@pytest.mark.parametrize("name", LAYOUT)
def test_fit_intercept_set_on_a_fitted_model_is_refused(name):
    """Item 1: fit_intercept turned on after learning made the kernels index W past its
    width (out-of-bounds writes); every call but fit() now refuses, naming the change."""
    y = _y(name)
    m = olearn.make(name, fit_intercept=False).partial_fit(X, y)
    before = m.predict(X)
    m.set_params(fit_intercept=True)
    for call in (lambda: m.partial_fit(X, y), lambda: m.learn_one(X[0], y[0]),
                 lambda: m.predict(X), lambda: m.predict_one(X[0]),
                 lambda: m.predict_learn(X, y)):
        with pytest.raises(ValueError, match=r"fit_intercept False -> True"):
            call()
    m.set_params(fit_intercept=False)  # set back: the model is as it was
    np.testing.assert_array_equal(m.predict(X), before)
    m.set_params(fit_intercept=True).fit(X, y)  # fit() starts afresh in the new layout
    assert m.predict(X).shape == (40,)


# ----------------------------------------------------------- item 2 and 7: VW rows
def test_vw_interactions_are_bounded_per_line(tmp_path):
    """Items 2 and 7: --cubic aaa on a line of 2^21 features overflowed the row-size
    count (c0*c1*c2 past int64) and wrote past the buffer (exit 139); -q aa on a few
    thousand features ran for minutes.  Now a clear error naming the line, before any
    interaction is made (in a child: a crash fails the test)."""
    path = tmp_path / "c.vw"
    path.write_bytes(b"0 |a b\n1 |a " + b"x " * 2 ** 21 + b"\n")
    q = tmp_path / "q.vw"
    q.write_text("1 |a " + " ".join(f"f{i}" for i in range(4000)) + "\n")
    r = _child(f"""
        from olearn.io import read_vw
        from olearn.io.errors import DataFormatError
        for path, kw in (({str(path)!r}, dict(cubic="aaa")), ({str(q)!r}, dict(quadratic="aa"))):
            try:
                list(read_vw(path, **kw))
            except DataFormatError as e:
                print("refused:", e)
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.count("refused:") == 2, r.stdout
    assert "c.vw:2: the interactions make more than 4,194,304 features" in r.stdout
    assert "q.vw:1:" in r.stdout


def test_vw_interaction_limit_and_counts(tmp_path):
    """The limit counts exactly what the interactions make: -q aa on n features makes
    n(n+1)/2, --cubic aaa n(n+1)(n+2)/6."""
    from olearn.io import read_vw
    from olearn.io.errors import DataFormatError
    path = tmp_path / "s.vw"
    path.write_text("1 |a x y z |b u v\n")
    for kw, size in ((dict(quadratic="aa"), 5 + 6), (dict(cubic="aaa"), 5 + 10),
                     (dict(quadratic="ab"), 5 + 6), (dict(cubic="aab"), 5 + 12)):
        X, _ = next(iter(read_vw(str(path), n_bits=20, max_row_features=size, **kw)))
        assert X.nnz <= size  # (hash collisions may merge columns)
        with pytest.raises(DataFormatError, match=r"s\.vw:1: the interactions make more "
                           r"than"):
            list(read_vw(str(path), n_bits=20, max_row_features=size - 1, **kw))
    with pytest.raises(ValueError, match="max_row_features"):
        read_vw(str(path), max_row_features=0)


def test_vw_interaction_values_overflowing_are_refused(tmp_path):
    """Item 9: x:1e300 y:1e300 with -q gave infinite feature values silently."""
    from olearn.io import read_vw
    from olearn.io.errors import DataFormatError
    path = tmp_path / "big.vw"
    path.write_text("0 |a u:2\n1 |a x:1e300 y:1e300\n")
    with pytest.raises(DataFormatError, match=r"big\.vw:2: an interaction .* not finite"):
        list(read_vw(str(path), quadratic="aa"))


# ----------------------------------------------------------- item 2: portfolio windows
@pytest.mark.parametrize("name", ["olmar", "rmr", "anticor"])
def test_portfolio_window_set_on_a_fitted_strategy_is_refused(name):
    """Item 2: window=50000 set on a fitted strategy indexed the old history (SIGSEGV);
    window=0 gave ZeroDivisionError.  Both now refused; set back, it goes on."""
    from olearn import portfolio
    X = np.random.default_rng(1).uniform(0.9, 1.1, size=(12, 3))
    s = portfolio.make(name)
    for x in X:
        s.learn_one(x)
    b = s.predict_one()
    s.set_params(window=50000)
    with pytest.raises(ValueError, match="window"):
        s.learn_one(X[0])
    s.set_params(window=0)
    with pytest.raises(ValueError, match="window must be an integer >= 2"):
        s.learn_one(X[0])
    s.set_params(window=portfolio.make(name).window)
    np.testing.assert_array_equal(s.predict_one(), b)
    s.learn_one(X[0])
    with pytest.raises(ValueError, match="n_assets must be a positive integer"):
        portfolio.make(name).predict_one(n_assets=0)


# ----------------------------------------------------------- item 4: no import by name
@pytest.mark.parametrize("cls", ["olearn.__main__.X", "olearn.cli.train.X",
                                 "olearn.cli.__init__.main", "olearn.datasets.registry.X"])
def test_load_imports_no_module_a_file_names(tmp_path, cls):
    """Item 4: a file whose class is ``olearn.__main__.X`` made load import
    olearn.__main__, which ran the command line (SystemExit 2).  Classes are looked up in
    static tables; the child checks that the module was never imported."""
    path = tmp_path / "m.npz"
    r = _child(f"""
        import json, sys, numpy as np
        meta = {{"format": "olearn-model", "format_version": 1, "class": {cls!r},
                "params": {{}}, "fitted": {{}}}}
        with open({str(path)!r}, "wb") as f:
            np.savez(f, __meta__=np.array(json.dumps(meta)))
        from olearn.persistence import ModelFileError, load
        try:
            load({str(path)!r})
        except ModelFileError as e:
            print("refused:", e)
        print(sorted(m for m in sys.modules if m.startswith(("olearn.__main__", "olearn.cli",
                                                             "olearn.datasets"))))
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "refused:" in r.stdout and "unknown learner class" in r.stdout
    assert r.stdout.strip().endswith("[]"), r.stdout


def test_every_persistable_class_is_in_a_module_load_may_import():
    """The decorators (and the wrapper base) refuse a class of a module ``load`` may not
    import: importing every module of the static table registers its classes, each
    registered class's module is one ``load`` may import, and each loads by its name."""
    import importlib
    from olearn import _nested, persistence
    for module in sorted(persistence.PERSISTABLE_MODULES):
        importlib.import_module(module)
    names = {*persistence._PERSISTABLE, *_nested._NESTED}
    modules = {n.rpartition(".")[0] for n in names}
    assert set(persistence.PERSISTABLE_MODULES) <= modules
    assert all(persistence.loadable_module(m) for m in modules)
    for name in persistence._PERSISTABLE:
        assert persistence._known_class(name) is persistence._PERSISTABLE[name]
    for name, cls in _nested._NESTED.items():
        assert _nested.model_class(name) is cls


# ----------------------------------------------------------- item 6: files destroyed
def _olearn(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "olearn", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def _svm(path, n=60):
    rng = np.random.default_rng(0)
    path.write_text("".join(f"{1 if rng.random() > 0.5 else -1} 1:{rng.random():.3f} "
                            f"3:{rng.random():.3f}\n" for _ in range(n)))
    return path


def test_outputs_equal_to_inputs_are_refused_before_any_work(tmp_path):
    """Item 6: --model equal to the data replaced the data with the model; --cache equal
    to the data overwrote it; predict --output equal to the data or the model replaced
    it.  Refused before any work (any name of the same file), nothing changed."""
    data = _svm(tmp_path / "d.svm")
    alias = tmp_path / "alias.svm"
    os.link(data, alias)
    model = tmp_path / "m.olm"
    assert _olearn("train", data, "--algo", "pa", "--model", model).returncode == 0
    before = {p: p.read_bytes() for p in (data, model)}
    runs = [("train", data, "--algo", "pa", "--model", data),
            ("train", data, "--algo", "pa", "--model", alias),
            ("train", data, "--algo", "pa", "--model", f"{tmp_path}/./d.svm"),
            ("train", data, "--algo", "pa", "--passes", "2", "--cache", data),
            ("train", data, "--init", model, "--model", model, "--passes", "2",
             "--cache", model),
            ("predict", data, "--model", model, "--output", data),
            ("predict", data, "--model", model, "--output", model)]
    for run in runs:
        r = _olearn(*run)
        assert r.returncode == 2, (run, r.stderr)
        assert "would destroy" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in (data, model)} == before


def test_outputs_that_are_not_regular_files_are_never_replaced(tmp_path):
    """Item 6: as root, --model /dev/full replaced the device node with a regular file.
    A model or cache on a device or FIFO is refused; predictions are written through
    (in place); the node stays what it was."""
    import stat
    data = _svm(tmp_path / "d.svm")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    model = tmp_path / "m.olm"
    assert _olearn("train", data, "--algo", "pa", "--model", model).returncode == 0
    for run in (("train", data, "--algo", "pa", "--model", fifo),
                ("train", data, "--algo", "pa", "--passes", "2", "--cache", fifo)):
        r = _olearn(*run)
        assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    r = _olearn("predict", data, "--model", model, "--output", os.devnull)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    m = olearn.make("pa").partial_fit(X, Y)
    with pytest.raises(ValueError, match="not a regular file"):
        m.save(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_terminated_passes_run_leaves_no_temporary_file(tmp_path):
    """Item 6: a killed --passes run left x.cache.NNNN.tmp behind.  SIGTERM (and SIGINT)
    now unwind the command, removing it; one left by SIGKILL is removed by the next run.
    (The data comes from a pipe that stays open, so the signal lands mid-pass.)"""
    import signal
    import time
    proc = subprocess.Popen([sys.executable, "-m", "olearn", "train", "-", "--algo", "pa",
                             "--passes", "2"], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    proc.stdin.write("".join(f"{i % 2 * 2 - 1} 1:{i % 7}\n" for i in range(20000)))
    proc.stdin.flush()
    deadline = time.time() + 90
    while not list(tmp_path.glob("olearn-*.tmp")) and time.time() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob("olearn-*.tmp")), "the first pass wrote no cache"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())
    stale = tmp_path / "y.cache.999999999.tmp"  # (no such process)
    stale.write_bytes(b"half")
    data = _svm(tmp_path / "d.svm")
    r = _olearn("train", data, "--algo", "pa", "--passes", "2", "--cache",
                tmp_path / "y.cache")
    assert r.returncode == 0, r.stderr
    assert not stale.exists()


# ----------------------------------------------------------- item 9: silent non-finite
@pytest.mark.parametrize("name,scale", [("adagrad", 1e300), ("ada-fobos", 1e300),
                                        ("ada-rda", 1e300), ("ftrl", 1e300),
                                        ("ndag", 1e300), ("nogd", 1e300), ("ndag", 1e-160)])
def test_one_example_divergence_is_an_error(name, scale):
    """Item 9: at feature scale 1e300 (1e-160 for NDAG) the batch path raised the
    divergence error, the one-example path left a non-finite state silently."""
    from olearn.base import DivergenceError
    x = RNG.normal(size=(20, 4)) * scale
    y = (x[:, 0] > 0).astype(int)
    with pytest.raises(DivergenceError):
        olearn.make(name).partial_fit(x, y)
    m = olearn.make(name)
    with pytest.raises(DivergenceError, match=r"diverged at example \d+ of the stream"):
        for row, label in zip(x, y):
            m.learn_one(row, label)


def test_save_refuses_a_non_finite_model(tmp_path):
    """Item 9: save() wrote a diverged model that load() then refused: the model was
    lost.  save() now refuses it, and any earlier file of that name stays."""
    path = tmp_path / "m.olm"
    m = olearn.make("pa").partial_fit(X, Y)
    m.save(path)
    before = path.read_bytes()
    m.state_["W"][0, 1] = np.nan  # (a diverged model, as a fuzzer left it)
    with pytest.raises(ValueError, match="holds NaN or infinity"):
        m.save(path)
    assert path.read_bytes() == before
    from olearn import portfolio
    s = portfolio.make("eg")
    s.learn_one([1.0, 1.1])
    s.state_["b"][0] = np.inf
    with pytest.raises(ValueError, match="holds NaN or infinity"):
        s.save(tmp_path / "s.olm")


def test_kernel_learners_before_fitting_raise_not_fitted():
    """Item 8 (already so after Core 3.0): coef_ of an unfitted kernel learner is
    scikit-learn's NotFittedError (with a non-linear kernel, AttributeError as
    scikit-learn's SVC)."""
    from sklearn.exceptions import NotFittedError
    for name in ("kernel-pa", "kernel-perceptron", "norma", "kernel-lms", "kernel-rls"):
        with pytest.raises(NotFittedError):
            olearn.make(name, kernel="linear").coef_


def test_every_family_round_trips_fresh_and_fitted(tmp_path):
    """The checks of items 3 and 9 refuse only damage: a fresh and a fitted model of
    every family (DDM's running minimum starts at infinity) save and load."""
    from olearn import drift, portfolio
    from olearn.persistence import load
    rel = RNG.uniform(0.9, 1.1, size=(12, 3))
    for name in drift.DETECTORS:
        for det in (drift.make(name), drift.make(name)):
            det.update_many(RNG.random(50) > 0.7)
            det.save(tmp_path / "d.olm")
            assert load(tmp_path / "d.olm").n_ == det.n_
        drift.make(name).save(tmp_path / "f.olm")
        load(tmp_path / "f.olm")
    for name in portfolio.STRATEGIES:
        s = portfolio.make(name)
        s.save(tmp_path / "p.olm")
        load(tmp_path / "p.olm")
        if name in ("bcrp", "best"):
            s.fit(rel)
        else:
            for x in rel:
                s.learn_one(x)
        s.save(tmp_path / "p.olm")
        np.testing.assert_array_equal(load(tmp_path / "p.olm").predict_one(), s.predict_one())


@pytest.mark.parametrize("name", ["funk-mf", "biased-mf", "baseline"])
def test_recommender_divergence_and_extreme_ratings_are_errors(name):
    """Item 9: ratings of 1e300 or latent_lr=1e6 gave RMSE nan with exit 0; NaN user ids
    each became a new user; ids past int64 raised OverflowError (item 8)."""
    from olearn.base import DivergenceError
    from olearn.recommend import make_recommender
    rng = np.random.default_rng(0)
    u, i = rng.integers(0, 20, 500), rng.integers(0, 20, 500)
    r = rng.integers(1, 6, 500).astype(float)
    m = make_recommender(name)
    m.set_params(**{k: 1e6 for k in m.get_params() if k.endswith("lr")})
    with pytest.raises(DivergenceError, match="diverged at rating"):
        m.partial_fit(u, i, r)
    with pytest.raises(ValueError, match="within"):
        make_recommender(name).learn_one(1, 2, 1e300)
    with pytest.raises(ValueError, match="beyond"):
        make_recommender(name).partial_fit([1], [2], [1e300])
    for bad in (float("nan"), 2 ** 63):
        with pytest.raises(ValueError, match="ids"):
            make_recommender(name).learn_one(bad, 2, 3.0)
        m = make_recommender(name).partial_fit([1], [2], [3.0])
        with pytest.raises(ValueError, match="ids"):
            ids = np.array([bad, 1], dtype=np.float64 if bad != bad else np.uint64)
            m.partial_fit(ids, [2, 2], [3.0, 3.0])


def _tampered(tmp_path, model, change):
    """``model`` saved, one part of its file changed by ``change(meta, arrays)``."""
    import json
    path = tmp_path / "t.olm"
    model.save(path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    change(meta, arrays)
    with open(path, "wb") as f:
        np.savez(f, __meta__=np.array(json.dumps(meta)), **arrays)
    return path


def test_crafted_files_named_in_the_issue_are_refused(tmp_path):
    """Items 3 and 7: BrandSVD with n_users 1e7, ADWIN with a huge or negative state,
    OLMAR/RMR/Anticor windows past their history (SIGSEGV, SIGABRT), OnlinePCA with
    s = inf (np.linalg.svd looped forever), weights off the simplex: one
    ModelFileError each, in a child so that a crash fails the test."""
    from olearn import drift, portfolio
    from olearn.decomposition import OnlinePCA
    from olearn.recommend import make_recommender
    rel = RNG.uniform(0.9, 1.1, size=(12, 3))
    svd = make_recommender("brand-svd").partial_fit([1, 2, 3], [1, 2, 1], [3.0, 4.0, 5.0])
    adwin = drift.make("adwin")
    adwin.update_many(RNG.normal(size=300))
    pca = OnlinePCA(2).partial_fit(RNG.normal(size=(30, 4)))

    def stats(meta, arrays):
        meta["fitted"]["stats"][3] = 1e7

    def arr(name, value, index=0):
        def change(meta, arrays):
            a = arrays[name].reshape(-1)
            a[index] = value
        return change

    def window(meta, arrays):
        meta["params"]["window"] = 500
    cases = [("brand-svd n_users 1e7", svd, stats),
             ("adwin huge", adwin, arr("state/cnt", 10**9)),
             ("adwin negative", adwin, arr("state/cnt", -5)),
             ("adwin width", adwin, arr("state/s", 1e300)),
             ("pca s inf", pca, arr("state/s", np.inf))]
    for name in ("olmar", "rmr", "anticor"):
        s = portfolio.make(name)
        for x in rel:
            s.learn_one(x)
        cases.append((f"{name} window past history", s, window))
        cases.append((f"{name} weights negative", s, arr("b", -0.5)))
        cases.append((f"{name} weights NaN", s, arr("b", np.nan)))
    paths = []
    for i, (what, model, change) in enumerate(cases):
        path = _tampered(tmp_path, model, change)
        paths.append((what, str(path.rename(tmp_path / f"t{i}.olm"))))
    r = _child(f"""
        from olearn.persistence import ModelFileError, load
        for what, path in {paths!r}:
            try:
                load(path)
                print("LOADED", what)
            except ModelFileError as e:
                print("refused", what)
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "LOADED" not in r.stdout and r.stdout.count("refused") == len(cases), r.stdout
