"""The LIBOL-style comparison: determinism, tuning kept apart from evaluation, numbers
equal to running each learner by hand, grids, outputs, and the ``olearn compare``
command."""
import csv
import importlib
import io

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli import main
from olearn.evaluate.compare import DEFAULT_GRIDS, compare, tuning_grid
from olearn.linear import PAClassifier


def two_blobs(n=160, d=4, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, 0, 1)
    X = rng.normal(size=(n, d)) * noise + np.outer(2 * y - 1, np.linspace(1, 0.2, d))
    return X, y


# ---------------------------------------------------------------- determinism
def test_same_seed_same_result_other_seed_other_orders():
    X, y = two_blobs()
    a = compare(["pa1", "perceptron"], X, y, permutations=4, random_state=3)
    b = compare(["pa1", "perceptron"], X, y, permutations=4, random_state=3)
    for name in a.names:
        np.testing.assert_array_equal(a.scores[name], b.scores[name])
        np.testing.assert_array_equal(a.updates[name], b.updates[name])
        np.testing.assert_array_equal(a.curves[name], b.curves[name])
    assert a.params == b.params and a.tuning == b.tuning
    np.testing.assert_array_equal(a.orders, b.orders)
    np.testing.assert_array_equal(a.tuning_order, b.tuning_order)
    c = compare(["pa1"], X, y, permutations=4, random_state=4)
    assert not np.array_equal(a.orders, c.orders)
    # every order is a permutation of all rows, and they differ from each other
    for order in np.vstack([a.tuning_order, a.orders]):
        np.testing.assert_array_equal(np.sort(order), np.arange(len(y)))
    assert len({tuple(o) for o in np.vstack([a.tuning_order, a.orders])}) == 5


def test_parallel_run_gives_the_sequential_numbers():
    X, y = two_blobs(120)
    a = compare(["pa1", "pa2"], X, y, permutations=3, random_state=1)
    b = compare(["pa1", "pa2"], X, y, permutations=3, random_state=1, n_jobs=2)
    for name in a.names:
        np.testing.assert_array_equal(a.scores[name], b.scores[name])
        np.testing.assert_array_equal(a.updates[name], b.updates[name])
    assert a.params == b.params


# ---------------------------------------------------------------- tuning apart
class SpyPA(PAClassifier):
    """PA-I that logs (C, the row ids it was shown) for every full pass."""
    log = []

    def predict_learn(self, X, y, return_scores=False):
        ids = np.asarray(X[:, 0] if not sp.issparse(X) else X[:, 0].toarray()).ravel()
        SpyPA.log.append((self.C, tuple(np.rint(ids * 1000).astype(int))))
        return super().predict_learn(X, y, return_scores)


def _with_row_ids(X):
    """Column 0 holds the row number / 1000 (tiny), so a pass reveals the order."""
    return np.hstack([(np.arange(len(X)) / 1000.0)[:, None], X])


def test_tuning_never_sees_the_evaluation_orders():
    X, y = two_blobs(150)
    X = _with_row_ids(X)
    SpyPA.log = []
    res = compare({"spy": SpyPA()}, X, y, permutations=5, random_state=2)
    full = [(c, ids) for c, ids in SpyPA.log if len(ids) == len(y)]
    grid = DEFAULT_GRIDS["C"][0][1]
    tuning = [(c, ids) for c, ids in full if ids == tuple(res.tuning_order)]
    evaluation = [(c, ids) for c, ids in full if ids != tuple(res.tuning_order)]
    # one tuning pass per grid point, all on the tuning order
    assert sorted(c for c, _ in tuning) == sorted(grid)
    assert [p["C"] for p, _ in res.tuning["spy"]] == sorted(grid)
    # the evaluation passes: exactly the evaluation orders, with the chosen C only
    assert sorted(ids for _, ids in evaluation) == sorted(tuple(o) for o in res.orders)
    assert {c for c, _ in evaluation} == {res.params["spy"]["C"]}
    assert tuple(res.tuning_order) not in {tuple(o) for o in res.orders}


def test_holdout_keeps_tuning_rows_out_of_evaluation():
    X, y = two_blobs(200)
    X = _with_row_ids(X)
    SpyPA.log = []
    res = compare({"spy": SpyPA()}, X, y, permutations=3, random_state=5, holdout=0.25)
    assert len(res.tuning_order) == 50 and res.orders.shape == (3, 150)
    tuned = {ids for _, ids in SpyPA.log if len(ids) == 50}
    evaluated = {ids for _, ids in SpyPA.log if len(ids) == 150}
    assert tuned == {tuple(res.tuning_order)} and len(evaluated) == 3
    seen_in_tuning = set(res.tuning_order)
    assert all(seen_in_tuning.isdisjoint(o) for o in res.orders)
    assert res.n_samples == 200 and "held out" in str(res)


# ---------------------------------------------------------------- by hand
def test_numbers_agree_with_running_the_learners_by_hand():
    X, y = two_blobs(140, seed=4)
    res = compare(["pa1", "perceptron", "pa"], X, y, permutations=3, random_state=7)
    for name in res.names:
        # tuning: each grid point scored on the tuning order; the best one kept
        for params, score in res.tuning[name]:
            m = olearn.make(name, **params)
            pred = m.predict_learn(X[res.tuning_order], y[res.tuning_order])
            assert score == np.mean(pred != y[res.tuning_order])
        if res.tuning[name]:
            chosen = [s for p, s in res.tuning[name] if p == res.params[name]]
            assert chosen == [min(s for _, s in res.tuning[name])]
        # evaluation: mistake rate, updates and curve of each order
        for k, order in enumerate(res.orders):
            m = olearn.make(name, **res.params[name])
            pred = m.predict_learn(X[order], y[order])
            wrong = pred != y[order]
            assert res.scores[name][k] == wrong.mean()
            assert res.updates[name][k] == m.n_updates_
            t = res.checkpoints
            np.testing.assert_allclose(res.curves[name][k], np.cumsum(wrong)[t - 1] / t)
        assert res.seconds[name].shape == (3,) and np.all(res.seconds[name] > 0)
    rows = res.rows()
    assert [r["score_mean"] for r in rows] == sorted(r["score_mean"] for r in rows)
    r = next(r for r in rows if r["learner"] == "pa1")
    assert r["score_mean"] == pytest.approx(res.scores["pa1"].mean())
    assert r["updates_std"] == pytest.approx(res.updates["pa1"].std())


def test_regressors_are_compared_on_squared_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X @ np.array([1.0, -0.5, 2.0]) + 0.1 * rng.normal(size=120)
    res = compare(["pa1-reg", "pa-reg"], X, y, permutations=2, random_state=0)
    assert res.metric == "mean squared error"
    for name in res.names:
        for k, order in enumerate(res.orders):
            m = olearn.make(name, **res.params[name])
            pred = m.predict_learn(X[order], y[order])
            assert res.scores[name][k] == pytest.approx(np.mean((pred - y[order]) ** 2),
                                                        rel=1e-12)


def test_sparse_input_gives_the_dense_numbers():
    X, y = two_blobs(100)
    a = compare(["pa1"], X, y, permutations=2, random_state=0)
    b = compare(["pa1"], sp.csr_matrix(X), y, permutations=2, random_state=0)
    np.testing.assert_array_equal(a.scores["pa1"], b.scores["pa1"])
    assert a.params == b.params


def test_a_learners_figures_do_not_depend_on_the_others_compared():
    """The orders come from the seed alone: the default comparison's figures are those
    of the full one for the same learners."""
    X, y = two_blobs(100, seed=5)
    alone = compare(["pa1"], X, y, permutations=3, random_state=2)
    among = compare(["perceptron", "pa1", "arow"], X, y, permutations=3, random_state=2)
    np.testing.assert_array_equal(alone.scores["pa1"], among.scores["pa1"])
    np.testing.assert_array_equal(alone.orders, among.orders)
    assert alone.params["pa1"] == among.params["pa1"]


# ---------------------------------------------------------------- learners and grids
def test_every_registered_binary_classifier_takes_part_by_default():
    X, y = two_blobs(60)
    res = compare(None, X, y, permutations=1, tune=False)
    assert set(res.names) == set(olearn.available("classifier"))
    assert res.params == {name: {} for name in res.names}


def test_default_grids_by_parameter_name_and_value():
    pow2 = [2.0 ** k for k in range(-4, 5)]
    assert tuning_grid(olearn.make("pa1")) == {"C": pow2}
    assert tuning_grid(olearn.make("pa")) == {}          # C does not reach plain PA
    if "cw" in olearn.available():                       # eta a confidence level
        assert tuning_grid(olearn.make("cw"))["eta"] == \
            [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    if "ogd" in olearn.available():                      # eta a step size: relative
        assert tuning_grid(olearn.make("ogd", eta=0.5))["eta"] == [0.5 * v for v in pow2]
    if "arow" in olearn.available():
        assert tuning_grid(olearn.make("arow"))["r"] == pow2

    class Fixed(PAClassifier):
        _tune_grid = {"C": None}

    class Own(PAClassifier):
        _tune_grid = {"C": [0.5, 2.0]}

    assert tuning_grid(Fixed()) == {}
    assert tuning_grid(Own()) == {"C": [0.5, 2.0]}


def test_tune_argument_overrides_and_switches_off():
    X, y = two_blobs(80)
    res = compare(["pa1", "pa2"], X, y, permutations=1, tune={"pa1": {"C": [0.25, 4.0]}})
    assert [p for p, _ in res.tuning["pa1"]] == [{"C": 0.25}, {"C": 4.0}]
    assert len(res.tuning["pa2"]) == 9
    off = compare(["pa1"], X, y, permutations=1, tune=False)
    assert off.tuning["pa1"] == [] and off.estimators["pa1"].C == 1.0


def test_ties_keep_the_learners_own_value():
    # Perceptron predictions do not depend on eta (w starts at 0): all grid points tie
    X, y = two_blobs(80)
    res = compare(["perceptron"], X, y, permutations=1)
    scores = [s for _, s in res.tuning["perceptron"]]
    assert len(set(scores)) == 1
    assert res.params["perceptron"] == {"eta": 1.0}


def test_instances_and_named_dicts():
    X, y = two_blobs(80)
    res = compare({"mine": PAClassifier(C=0.5), "pa1": "pa1"}, X, y, permutations=1,
                  tune=False)
    assert res.names == ["mine", "pa1"] and res.estimators["mine"].C == 0.5
    res = compare([PAClassifier(), PAClassifier()], X, y, permutations=1, tune=False)
    assert res.names == ["PAClassifier", "PAClassifier#2"]


def test_bad_input():
    X, y = two_blobs(40)
    with pytest.raises(ValueError, match="permutations"):
        compare(["pa1"], X, y, permutations=0)
    with pytest.raises(KeyError, match="unknown algorithm"):
        compare(["nope"], X, y)
    with pytest.raises(ValueError, match="all classifiers or all regressors"):
        compare(["pa1", "pa1-reg"], X, y)
    with pytest.raises(ValueError, match="holdout"):
        compare(["pa1"], X, y, holdout=1.5)
    with pytest.raises(ValueError, match="rows"):
        compare(["pa1"], X, y[:10])
    with pytest.raises(ValueError, match="tune"):
        compare(["pa1"], X, y, tune="yes")


# ---------------------------------------------------------------- outputs
def test_table_markdown_csv_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    X, y = two_blobs(100)
    res = compare(["pa1", "perceptron"], X, y, permutations=3, dataset="blobs")
    text = str(res)
    assert "blobs" in text and "pa1" in text and "mistake rate" in text and "±" in text
    md = res.to_markdown().splitlines()
    assert md[2].startswith("| learner |") and len(md) == 4 + 2
    rows = list(csv.DictReader(io.StringIO(res.to_csv(tmp_path / "t.csv"))))
    assert (tmp_path / "t.csv").read_text() == res.to_csv()
    by = {r["learner"]: r for r in rows}
    assert float(by["pa1"]["score_mean"]) == pytest.approx(res.scores["pa1"].mean())
    assert float(by["perceptron"]["updates_mean"]) == res.updates["perceptron"].mean()
    fig = res.plot(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 5000
    assert len(fig.axes[0].lines) == 2 and len(fig.axes[0].collections) == 2  # bands
    fig = res.plot_bars(tmp_path / "b.png")
    assert len(fig.axes) == 2 and (tmp_path / "b.png").exists()


def test_a_plot_of_many_learners_shows_every_legend_entry_inside_the_figure():
    """The default comparison has about 30 learners: the legend beside the axes takes
    as many columns as it needs, and every entry lies inside the saved figure (one
    column of 33 entries was cut off at the figure's bottom)."""
    pytest.importorskip("matplotlib")
    X, y = two_blobs(60)
    res = compare(["pa1"], X, y, permutations=2, dataset="blobs")
    for i in range(32):  # the same curves under 32 more names
        name = f"copy{i}"
        res.names = list(res.names) + [name]
        for table in (res.scores, res.updates, res.seconds, res.params, res.curves):
            table[name] = table["pa1"]
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = res.plot()
    legend = fig.axes[0].get_legend()
    assert len(legend.get_texts()) == 33
    FigureCanvasAgg(fig).draw()  # (laid out and drawn at the figure's own dpi)
    box = fig.bbox
    for text in legend.get_texts():
        extent = text.get_window_extent()
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1
        assert box.y0 <= extent.y0 and extent.y1 <= box.y1


# ---------------------------------------------------------------- the command
def test_olearn_compare_on_a_file(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    X, y = two_blobs(90)
    path = tmp_path / "blobs.svm"
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{2 * label - 1} " + " ".join(f"{j + 1}:{v:.6f}"
                                                    for j, v in enumerate(row)) + "\n")
    monkeypatch.chdir(tmp_path)
    code = main(["compare", str(path), "--algos", "pa1,perceptron", "--permutations", "2",
                 "--markdown", "t.md", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "blobs.svm: 90 rows, 4 features" in out and "pa1" in out
    assert (tmp_path / "olearn-compare-blobs.svm.png").stat().st_size > 5000
    assert (tmp_path / "t.md").read_text().count("\n| ") == 3


def test_olearn_compare_without_arguments_uses_the_embedded_data(tmp_path, capsys,
                                                                  monkeypatch):
    pytest.importorskip("matplotlib")
    from olearn.cli.compare import DEFAULT_CLASSIFIERS
    monkeypatch.chdir(tmp_path)
    code = main(["compare", "--permutations", "1", "--no-tune", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "breast_cancer: 569 rows, 30 features" in out
    shown = {line.split()[0] for line in out.splitlines()[3:] if " ± " in line}
    assert shown == set(DEFAULT_CLASSIFIERS)
    assert (tmp_path / "olearn-compare-breast_cancer.png").exists()


def test_the_default_comparison_has_every_family_and_all_has_every_learner(capsys):
    """The README's main job shows a learner of every family of its table (issue 28:
    a first run in seconds, not every learner); --all still compares every one."""
    from olearn.cli.compare import DEFAULT_CLASSIFIERS, DEFAULT_REGRESSORS
    from olearn.datasets.embedded import load_embedded
    from olearn.evaluate._compare_grids import resolve_learners
    from olearn.registry import lookup
    for names, kind in ((DEFAULT_CLASSIFIERS, "classifier"),
                        (DEFAULT_REGRESSORS, "regressor")):
        assert set(names) <= set(olearn.available(kind))
        packages = {lookup(n)[0].__module__.split(".")[1] for n in names}
        assert packages == {"linear", "second_order", "sparse", "kernel", "ensemble"}
    assert main(["compare", "--all", "--permutations", "1", "--no-tune", "--no-plot",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    shown = {line.split()[0] for line in out.splitlines()[3:] if " ± " in line}
    assert shown == set(olearn.available("classifier"))
    _, y = load_embedded("iris")                     # every default learner: multiclass
    assert set(DEFAULT_CLASSIFIERS) <= {n for n, _ in resolve_learners(None, y)}
    assert main(["compare", "--all", "--algos", "pa1"]) == 2
    assert "--all" in capsys.readouterr().err


def test_olearn_compare_errors_are_one_line(tmp_path, capsys):
    assert main(["compare", "--algos", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("olearn: error:") and "nope" in err and "\n" not in err
    assert main(["compare", str(tmp_path / "missing.svm")]) == 2
    err = capsys.readouterr().err.strip()
    assert "no such file, registered dataset" in err and "\n" not in err
    assert main(["compare", "--permutations", "0"]) == 2


def test_olearn_compare_on_an_embedded_regression_set(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["compare", "diabetes", "--permutations", "1", "--no-tune", "--no-plot",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "mean squared error" in out and "diabetes: 442 rows" in out
    from olearn.cli.compare import DEFAULT_REGRESSORS
    for name in DEFAULT_REGRESSORS:
        assert f"\n{name} " in out
    assert list(tmp_path.iterdir()) == []


def test_sparse_learners_get_a_density_column():
    """Issue 13: the fraction of non-zero weights of each sparse learner, '-' for others."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 20))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    res = olearn.evaluate.compare(["pa1", "fobos"], X, y, permutations=2, tune=False)
    rows = {r["learner"]: r for r in res.rows()}
    assert rows["pa1"]["density_mean"] is None
    model = olearn.make("fobos").fit(X, y)
    assert 0.0 <= rows["fobos"]["density_mean"] <= 1.0
    assert model.n_nonzero_ <= model.coef_.size
    head = res.to_markdown().splitlines()[2]
    assert head.endswith("| density |")
    assert "density_mean" in res.to_csv().splitlines()[0]


def test_the_progress_line_is_drawn_when_asked_and_ends_its_line(capsys):
    from olearn.evaluate.compare import _Progress
    bar = _Progress(3, True, label="runs")
    for _ in range(3):
        bar.step()
    bar.close()
    err = capsys.readouterr().err
    assert err.endswith("\n") and "runs  [" in err and "3/3" in err.rsplit("\r", 1)[-1]
    quiet = _Progress(3, False)
    quiet.step(3)
    quiet.close()
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- compiling up front
@pytest.fixture
def no_stamps(tmp_path, monkeypatch):
    """An empty record of compiled kernels: stamps in tmp_path, nothing loaded here."""
    mod = importlib.import_module("olearn.evaluate._compare_compile")
    monkeypatch.setattr(mod, "_WARMED", set())
    monkeypatch.setattr(mod, "_stamp", lambda key: str(tmp_path / "stamps" /
                                                        str(abs(hash(repr(key))))))
    return tmp_path / "stamps"


def test_precompile_says_a_line_per_learner_then_is_silent(no_stamps):
    from olearn.evaluate.compare import precompile
    X, y = two_blobs(60)
    lines = []
    done = precompile(["auto", "pa1", "pa2"], X, y, jobs=1, say=lines.append)
    assert set(done) == {"auto", "pa1", "pa2"} and all(s >= 0 for s in done.values())
    assert lines[0].startswith("compiling the kernels of 3 learners not yet in the cache")
    # one line per learner; the ensemble after the learners it is made of
    assert [line.split()[0] for line in lines[1:]] == ["pa1", "pa2", "auto"]
    assert len(list(no_stamps.iterdir())) == 3
    # stamped: a later run (another process, say) compiles nothing and says nothing
    mod = importlib.import_module("olearn.evaluate._compare_compile")
    mod._WARMED.clear()
    assert precompile(["pa1", "auto"], X, y, jobs=1, say=lines.append) == {}
    assert len(lines) == 4
    # another layout or number of labels is another set of kernels
    assert set(precompile(["pa1"], sp.csr_matrix(X), y, jobs=1)) == {"pa1"}
    assert set(precompile(["pa1"], X, np.arange(len(y)) % 3, jobs=1)) == {"pa1"}


class FailsOnFewRows(PAClassifier):
    def predict_learn(self, X, y, return_scores=False):
        if len(y) < 10:
            raise ValueError("needs 10 rows\nat least")
        return super().predict_learn(X, y, return_scores)


def test_a_learner_that_fails_to_compile_is_said_and_left_to_the_runs(no_stamps):
    from olearn.evaluate.compare import precompile
    X, y = two_blobs(60)
    lines = []
    done = precompile({"bad": FailsOnFewRows(), "pa1": "pa1"}, X, y, jobs=1,
                      say=lines.append)
    assert set(done) == {"pa1"}
    assert "  bad not compiled (ValueError: needs 10 rows)" in lines
    assert len(list(no_stamps.iterdir())) == 1
    with pytest.raises(ValueError, match="needs 10 rows"):   # the runs say it in full
        compare({"bad": FailsOnFewRows()}, X, y, permutations=2, tune=False,
                compile_jobs=1, progress=False)


def test_compiling_in_worker_processes_gives_the_same_comparison(no_stamps, capsys):
    X, y = two_blobs(90, seed=2)
    b = compare(["pa1", "perceptron", "arow"], X, y, permutations=2, random_state=3,
                compile_jobs=2)
    err = capsys.readouterr().err
    a = compare(["pa1", "perceptron", "arow"], X, y, permutations=2, random_state=3,
                progress=False)
    assert "compiling the kernels of 3 learners not yet in the cache, 2 processes" in err
    assert {line.split()[1] for line in err.splitlines()[1:]} == \
        {"pa1", "perceptron", "arow"}
    assert len(list(no_stamps.iterdir())) == 3
    for name in a.names:
        np.testing.assert_array_equal(a.scores[name], b.scores[name])
    assert a.params == b.params


def test_olearn_compare_says_what_it_compiles(no_stamps, tmp_path, capsys):
    X, y = two_blobs(50)
    path = tmp_path / "b.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.6f")
    assert main(["compare", str(path), "--algos", "pa1,perceptron", "--n-jobs", "1",
                 "--permutations", "1", "--no-plot", "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert "compiling the kernels of 2 learners not yet in the cache, in this process" \
        in err[1]
    assert [line.split()[2] for line in err[2:4]] == ["pa1", "perceptron"]
    assert main(["compare", str(path), "--algos", "pa1,perceptron", "--n-jobs", "1",
                 "--permutations", "1", "--no-plot", "--quiet"]) == 0
    assert "compiling" not in capsys.readouterr().err


def test_learners_that_share_kernels_compile_in_one_task():
    """Two workers compiling the same kernels at once would pay twice (the kernel
    expansions' support pass: about 12 s)."""
    from olearn.evaluate._compare_compile import _holds_learners, _shared_kernels
    key = {n: _shared_kernels(olearn.make(n)) for n in
           ("pa1", "pa2", "ogd", "adagrad", "arow", "scw", "scw2", "kernel-pa",
            "kernel-perceptron", "norma", "fogd", "auto")}
    # adagrad is ogd's rule composed with the AdaGrad optimiser (olearn.optim): its own
    # compiled specialisation, so its own key; pa1 and pa2 share one kernel
    assert key["pa1"] == key["pa2"] and key["ogd"] != key["adagrad"]
    assert key["adagrad"].startswith(key["ogd"])
    assert key["scw"] == key["scw2"] != key["arow"]
    assert key["kernel-pa"] == key["kernel-perceptron"] == key["norma"] != key["fogd"]
    assert len({key[n] for n in ("pa1", "ogd", "arow", "scw", "kernel-pa", "fogd",
                                 "auto")}) == 7
    assert _holds_learners(olearn.make("auto")) and not _holds_learners(olearn.make("pa1"))


def _detector_stream(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    y = np.zeros(600, dtype=int)
    y[400:430] = 1
    X[400:430] += 6.0  # a run of anomalies, as attacks come
    path = tmp_path / "stream.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,label",
               comments="", fmt="%.6f")
    return X, y, path


def test_detectors_are_compared_by_their_progressive_roc_auc(tmp_path):
    from sklearn.metrics import roc_auc_score

    from olearn.evaluate.detectors import compare_detectors
    X, y, _ = _detector_stream(tmp_path)
    res = compare_detectors({"loda": olearn.make("loda"), "uniclass": olearn.make(
        "uniclass", epsilon=3.0)}, X, y, dataset="stream")
    for name, auc, ap, updates, seconds in res.rows:
        want = olearn.make(name, **({"epsilon": 3.0} if name == "uniclass" else {}))
        assert auc == pytest.approx(roc_auc_score(y, want.score_learn(X)), abs=1e-12)
        assert 0 < ap <= 1 and seconds >= 0
    assert [r[1] for r in res.rows] == sorted((r[1] for r in res.rows), reverse=True)
    assert res.to_markdown().count("\n| ") == 2 and res.to_csv().count("\n") == 3
    with pytest.raises(ValueError, match="both anomalies"):
        compare_detectors({"loda": olearn.make("loda")}, X, np.zeros(600))
    with pytest.raises(ValueError, match="at row 2"):
        compare_detectors({"loda": olearn.make("loda")}, X, np.r_[0, 2, np.zeros(598)])


def test_olearn_compare_draws_the_detectors_roc_curves(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    _, _, path = _detector_stream(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = main(["compare", str(path), "--algos", "hst,loda,ocsvm", "--plot", "roc.png",
                 "--csv", "t.csv"])
    out = capsys.readouterr().out
    assert code == 0 and "600 rows, 30 anomalies" in out and "ocsvm" in out
    assert (tmp_path / "roc.png").stat().st_size > 5000
    assert (tmp_path / "t.csv").read_text().count("\n") == 4
    assert main(["compare", str(path), "--algos", "hst,pa1"]) == 2
    assert "not both: pa1 is not a detector" in capsys.readouterr().err
    assert main(["compare", str(path), "--algos", "loda", "--metric", "auc"]) == 2
