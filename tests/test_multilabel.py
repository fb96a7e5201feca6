"""Multilabel models (``olearn.multilabel``): the native label-ranking learners against a
plain numpy loop of the JMLR 2006 section 6 equations, binary relevance against L
separate binary passes, the chain against its definition, the label-set targets, the
ARFF reader, persistence and bad input."""
import gzip
import importlib
import inspect
import pkgutil
import threading

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn import registry
from olearn.io import DataFormatError, read_arff
from olearn.multilabel import (BinaryRelevance, ClassifierChain, MultilabelPA,
                               MultilabelPerceptron)

from conftest import data_path

NATIVE = {"ml-pa": "PA", "ml-pa1": "PA-I", "ml-pa2": "PA-II", "ml-perceptron": "P"}


# ---------------------------------------------------------------- the numpy reference
def _tau(m, variant, C, sq):
    """A pair's step (0: not violated)."""
    if variant == "P":
        return 1.0 if m <= 0 else 0.0
    loss = max(0.0, 1.0 - m)
    if loss == 0.0:
        return 0.0
    return {"PA": loss / (2 * sq), "PA-I": min(C, loss / (2 * sq)),
            "PA-II": loss / (2 * sq + 1 / (2 * C))}[variant]


def reference(X, Y, variant, C=1.0, constant=1.0, W=None, first=None, sw=None,
              pairs="worst"):
    """The paper's equations, row by row: (W after, pre-update scores s_j - s_v)."""
    X = X.toarray() if sp.issparse(X) else X
    n, d = X.shape
    L = Y.shape[1]
    W = np.zeros((L + 1, d + 1)) if W is None else W.copy()
    first = np.full(L, -1) if first is None else first
    out = np.zeros((n, L))
    for i in range(n):
        z = np.r_[constant, X[i]]
        s = W @ z
        known = first <= i
        out[i] = np.where(first < i, s[1:] - s[0], 0.0)
        R = np.flatnonzero(known & (Y[i] == 1))
        S = np.flatnonzero(known & (Y[i] == 0))
        weight = 1.0 if sw is None else sw[i]
        if pairs == "all":  # every violated pair, its step over their number
            every = [(r + 1, q + 1) for r in R for q in S] + [(r + 1, 0) for r in R] + \
                [(0, q + 1) for q in S]
            taus = [(a, b, _tau(s[a] - s[b], variant, C, z @ z)) for a, b in every]
            taus = [t for t in taus if t[2] > 0]
            for a, b, tau in taus:
                W[a] += tau * weight / len(taus) * z
                W[b] -= tau * weight / len(taus) * z
            continue
        pairs_ = []   # (a, b): rows of W, label j is row j + 1, the threshold row 0
        if len(R) and len(S):
            pairs_.append((R[np.argmin(s[R + 1])] + 1, S[np.argmax(s[S + 1])] + 1))
        if len(R):
            pairs_.append((R[np.argmin(s[R + 1])] + 1, 0))
        if len(S):
            pairs_.append((0, S[np.argmax(s[S + 1])] + 1))
        if not pairs_:
            continue
        a, b = min(pairs_, key=lambda p: s[p[0]] - s[p[1]])
        m = s[a] - s[b]
        sq = z @ z
        if variant == "P":
            if m > 0:
                continue
            tau = 1.0
        else:
            loss = max(0.0, 1.0 - m)
            if loss == 0.0:
                continue
            tau = {"PA": loss / (2 * sq), "PA-I": min(C, loss / (2 * sq)),
                   "PA-II": loss / (2 * sq + 1 / (2 * C))}[variant]
        tau *= weight
        W[a] += tau * z
        W[b] -= tau * z
    return W, out


def _data(n=80, d=6, L=4, seed=0, density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) > density] = 0.0
    Y = (rng.random((n, L)) < 0.35).astype(np.int8)
    return X, Y


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_passes_equal_the_numpy_loop(name, sparse):
    X, Y = _data()
    C = 0.3
    W, out = reference(X, Y, NATIVE[name], C=C)
    model = olearn.make(name) if name == "ml-perceptron" else olearn.make(name, C=C)
    scores = model.predict_learn(sp.csr_matrix(X) if sparse else X, Y, return_scores=True)
    np.testing.assert_allclose(model.W_, W, atol=1e-10, rtol=0)
    np.testing.assert_allclose(scores, out, atol=1e-10, rtol=0)
    assert model.n_updates_ > 0
    np.testing.assert_array_equal(model.predict(X), (model.decision_function(X) > 0))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", sorted(NATIVE))
def test_all_pairs_variant_equals_the_numpy_loop(name, sparse):
    X, Y = _data(seed=9)
    sw = np.random.default_rng(3).uniform(0.5, 1.5, len(X))
    W, out = reference(X, Y, NATIVE[name], C=0.3, pairs="all", sw=sw)
    kw = {} if name == "ml-perceptron" else {"C": 0.3}
    model = olearn.make(name, pairs="all", **kw)
    scores = model.predict_learn(sp.csr_matrix(X) if sparse else X, Y, return_scores=True,
                                 sample_weight=sw)
    np.testing.assert_allclose(model.W_, W, atol=1e-10, rtol=0)
    np.testing.assert_allclose(scores[1:], out[1:], atol=1e-10, rtol=0)
    with pytest.raises(ValueError, match="pairs must be"):
        olearn.make(name, pairs="some").fit(X, Y)


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_one_step_from_a_learned_state(name):
    X, Y = _data(seed=3)
    model = olearn.make(name)
    model.partial_fit(X[:-1], Y[:-1])
    W0 = model.W_.copy()
    model.learn_one(X[-1], set(np.flatnonzero(Y[-1]).tolist()))
    W, _ = reference(X[-1:], Y[-1:], NATIVE[name], W=W0)
    np.testing.assert_allclose(model.W_, W, atol=1e-10, rtol=0)


def test_native_labels_met_late_and_intercept_scaling():
    X, Y = _data(seed=5)
    sets = [set(np.flatnonzero(y).tolist()) for y in Y]
    model = MultilabelPA(variant="PA-II", C=0.5, intercept_scaling=2.0)
    scores = model.predict_learn(X, sets, return_scores=True)
    first = np.array([next(i for i, s in enumerate(sets) if j in s) for j in range(4)])
    W, out = reference(X, Y, "PA-II", C=0.5, constant=2.0, first=first)
    np.testing.assert_allclose(model.W_, W, atol=1e-10)
    np.testing.assert_allclose(scores, out, atol=1e-10)


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_sample_weights_scale_the_step(name):
    X, Y = _data(seed=8)
    sw = np.random.default_rng(1).uniform(0.0, 2.0, len(X))
    model = olearn.make(name)
    model.partial_fit(sp.csr_matrix(X), Y, sample_weight=sw)
    W, _ = reference(X, Y, NATIVE[name], sw=sw)
    np.testing.assert_allclose(model.W_, W, atol=1e-10, rtol=0)


def test_one_example_calls_and_their_errors():
    model = olearn.make("ml-br")
    assert model.predict_one({"a": 1.0}) == {}
    model.learn_one({"a": 1.0}, {"x": True, "y": False})
    assert set(model.classes_.tolist()) == {"x", "y"}
    for bad, match in [("x", "not a label set"), (3, "not a label set"),
                       ({1.5}, "integers or strings"), ({"x", 2}, "mix")]:
        with pytest.raises(ValueError, match=match):
            model.learn_one({"a": 1.0}, bad)
    assert model.t_ == 1
    native = olearn.make("ml-pa1").fit(np.eye(3), [{0}, {1}, {2}])
    assert native.predict_one({0: 1.0}) == native.predict_one(np.array([1.0, 0, 0]))
    with pytest.raises(ValueError, match="column indices"):
        native.predict_one({"a": 1.0})
    assert native.widen(5) == 5 and native.predict(np.ones((2, 5))).shape == (2, 3)


def test_the_threshold_predicts_an_empty_set():
    X = np.array([[1.0, 0.0], [0.0, 1.0]] * 20)
    Y = np.array([[1, 0], [0, 0]] * 20)
    model = olearn.make("ml-pa1").fit(X, Y)
    np.testing.assert_array_equal(model.predict(np.eye(2)), [[1, 0], [0, 0]])
    assert model.predict_one({0: 0.0, 1: 1.0}) == {0: False, 1: False}


# ---------------------------------------------------------------- the reductions
@pytest.mark.parametrize("sparse", [False, True])
def test_binary_relevance_is_L_binary_passes(sparse):
    X, Y = _data(n=120, L=5, seed=1)
    Xs = sp.csr_matrix(X) if sparse else X
    model = BinaryRelevance(olearn.make("pa1", C=0.5))
    pred = model.predict_learn(Xs, Y)
    for j in range(Y.shape[1]):
        one = olearn.make("pa1", C=0.5)
        p = one.predict_learn(Xs, Y[:, j], classes=[0, 1])
        np.testing.assert_allclose(model.models_[j].coef_, one.coef_, atol=1e-12, rtol=0)
        np.testing.assert_allclose(model.decision_function(Xs)[:, j],
                                   one.decision_function(Xs), atol=1e-12, rtol=0)
        np.testing.assert_array_equal(pred[1:, j], p[1:])
    assert model.n_updates_ == sum(m.n_updates_ for m in model.models_)


def test_chain_members_see_the_previous_labels():
    X, Y = _data(n=60, L=3, seed=2)
    chain = ClassifierChain(olearn.make("pa1"), order=[2, 0, 1]).fit(X, Y)
    assert chain.order_ == [2, 0, 1]
    ref = []
    for p, j in enumerate([2, 0, 1]):
        m = olearn.make("pa1")
        m.partial_fit(np.hstack([Y[:, [2, 0, 1][:p]], X]), Y[:, j], classes=[0, 1])
        ref.append(m)
    pred = np.zeros((len(X), 3), dtype=int)
    for p, j in enumerate([2, 0, 1]):
        pred[:, j] = ref[p].predict(np.hstack([pred[:, [2, 0, 1][:p]], X]))
    np.testing.assert_array_equal(chain.predict(X), pred)


@pytest.mark.parametrize("make", [lambda: BinaryRelevance(olearn.make("pa1")),
                                  lambda: ClassifierChain(olearn.make("pa1")),
                                  lambda: olearn.make("ml-pa1"),
                                  lambda: olearn.make("ml-perceptron")])
def test_batch_chunks_and_one_at_a_time_agree(make):
    X, Y = _data(n=50, seed=4)
    sets = [set(np.flatnonzero(y).tolist()) for y in Y]
    whole = make()
    p_whole = whole.predict_learn(X, sets)
    chunks = make()
    for a in range(0, 50, 7):
        chunks.predict_learn(X[a:a + 7], sets[a:a + 7])
    one = make()
    p_one = [one.predict_learn_one(x, s) for x, s in zip(X, sets)]
    np.testing.assert_allclose(whole.decision_function(X), one.decision_function(X),
                               atol=1e-12)
    np.testing.assert_allclose(whole.decision_function(X), chunks.decision_function(X),
                               atol=1e-12)
    labels = whole.classes_.tolist()
    for i, d in enumerate(p_one):
        assert all(d.get(v, False) == bool(p_whole[i, j]) for j, v in enumerate(labels))
    assert p_whole.shape == (50, 4)


# ---------------------------------------------------------------- targets
def test_target_forms_give_the_same_model():
    X, Y = _data(n=30, L=3, seed=6)
    a = olearn.make("ml-pa1").fit(X, Y)
    b = olearn.make("ml-pa1").fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    c = olearn.make("ml-pa1", fit_intercept=True)
    c.partial_fit(X, [{j: bool(v) for j, v in enumerate(row)} for row in Y])
    for m in (b, c):
        np.testing.assert_allclose(m.decision_function(X), a.decision_function(X))
    assert olearn.tags(a).target == "labels"
    pred, scores = olearn.make("ml-pa1").predict_learn(X, Y, return_scores="both")
    np.testing.assert_array_equal(pred, scores > 0)
    assert a.predict(X).shape == (30, 3)


def test_string_labels_are_sorted_and_grow():
    model = olearn.make("ml-pa1")
    model.learn_one({"w": 1.0}, {"sport"})
    model.learn_one({"v": 1.0}, ["news", "tech"])
    assert model.classes_.tolist() == ["news", "sport", "tech"]
    assert set(model.predict_one({"w": 1.0})) == {"news", "sport", "tech"}
    assert model.predict(np.array([[1.0, 0.0]])).shape == (1, 3)
    assert model.score(np.array([[1.0, 0.0]]), [{"sport"}]) in (0.0, 1.0)


@pytest.mark.parametrize("y, match", [
    (np.array([0, 1, 1]), "shape"),
    (np.array([[0, 2], [1, 0], [0, 0]]), "0 or 1"),
    ([{"a"}, "b", {"c"}], "not a label set"),
    ([{"a"}, {1}, set()], "mix"),
    ([{1.5}, set(), set()], "integers or strings"),
    ([{1}, {2}], "3 rows"),
])
def test_bad_targets_are_one_line_errors(y, match):
    model = olearn.make("ml-pa1")
    with pytest.raises(ValueError, match=match) as info:
        model.partial_fit(np.ones((3, 2)), y)
    assert "\n" not in str(info.value)
    assert not model.__sklearn_is_fitted__()


def test_a_failed_batch_changes_nothing():
    X, Y = _data(n=20, L=3)
    model = BinaryRelevance(olearn.make("pa1")).fit(X, Y)
    before = model.decision_function(X)
    with pytest.raises(ValueError):
        model.partial_fit(X, [{0}] * 19 + ["x"])
    np.testing.assert_array_equal(model.decision_function(X), before)
    with pytest.raises(TypeError, match="base must be"):
        BinaryRelevance(base=3).fit(X, Y)


# ---------------------------------------------------------------- persistence
@pytest.mark.parametrize("make", [lambda: BinaryRelevance(olearn.make("pa1")),
                                  lambda: ClassifierChain(olearn.make("arow"), order=[1]),
                                  lambda: olearn.make("ml-pa2"),
                                  lambda: MultilabelPerceptron()])
def test_round_trip(make, tmp_path):
    X, Y = _data(n=40, seed=7)
    model = make()
    model.partial_fit(X[:30], Y[:30])
    path = tmp_path / "m.olm"
    olearn.save(model, path)
    back = olearn.load(path)
    assert type(back) is type(model)
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))
    back.partial_fit(X[30:], Y[30:])
    model.partial_fit(X[30:], Y[30:])
    np.testing.assert_array_equal(back.decision_function(X), model.decision_function(X))


def test_round_trip_of_a_dict_model_and_a_fresh_one(tmp_path):
    model = olearn.make("ml-pa1")
    olearn.save(model, tmp_path / "fresh.olm")
    assert not olearn.load(tmp_path / "fresh.olm").__sklearn_is_fitted__()
    model.learn_one({"a": 1.0, "b": 2.0}, {"x", "y"})
    model.learn_one({"c": 1.0}, {"z"})
    olearn.save(model, tmp_path / "m.olm")
    assert olearn.load(tmp_path / "m.olm").predict_one({"c": 1.0}) == \
        model.predict_one({"c": 1.0})


def test_a_damaged_file_is_refused(tmp_path):
    X, Y = _data(n=20, L=3)
    model = olearn.make("ml-pa1").fit(X, Y)
    meta, arrays = model.export_state()
    arrays["W"] = arrays["W"][:, :-1]
    with pytest.raises(ValueError, match="state array W"):
        type(model).from_state(model.get_params(deep=False), meta, arrays)
    arrays["W"] = np.full((4, 7), np.nan)
    with pytest.raises(ValueError, match="NaN"):
        type(model).from_state(model.get_params(deep=False), meta, arrays)
    br = BinaryRelevance(olearn.make("pa1")).fit(X, Y)
    meta, arrays = br.export_state()
    meta["models"] = meta["models"][:2]
    with pytest.raises(ValueError, match="3 saved models"):
        BinaryRelevance.from_state(br.get_params(deep=False), meta, arrays)


# ---------------------------------------------------------------- registry
def test_every_multilabel_class_is_registered():
    found = set()
    for package in registry.MULTILABEL_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__, package + "."):
            if info.name.rpartition(".")[2].startswith("_"):
                continue
            module = importlib.import_module(info.name)
            for attr, obj in vars(module).items():
                if inspect.isclass(obj) and obj.__module__ == info.name \
                        and not attr.startswith("_"):
                    found.add(f"{info.name}:{attr}")
    table = {w for w, _ in registry.MULTILABEL_MODELS.values()} | \
        set(registry.MULTILABEL_UNNAMED)
    assert found == table
    for name in registry.multilabel_names():
        model = olearn.make(name)
        assert olearn.tags(model).target == "labels"
        assert name not in registry.names()


# ---------------------------------------------------------------- ARFF
def test_arff_dense_sparse_and_meka_convention(tmp_path):
    head = "@relation 'toy: -C -2'\n@attribute f1 numeric\n@attribute f2 {a,b,c}\n" \
           "@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n"
    (tmp_path / "d.arff").write_text(head + "1.5,b,1,0\n% note\n0,c,0,1\n")
    X, Y, names = read_arff(tmp_path / "d.arff")
    np.testing.assert_array_equal(X, [[1.5, 1.0], [0.0, 2.0]])
    np.testing.assert_array_equal(Y, [[1, 0], [0, 1]])
    assert names == ["l1", "l2"]
    sparse = "@relation 'toy: -C 2'\n@attribute l0 {0,1}\n@attribute l1 {0,1}\n" \
             "@attribute f1 numeric\n@attribute f2 {a,b,c}\n@data\n"
    (tmp_path / "s.arff.gz").write_bytes(gzip.compress(
        (sparse + "{0 1,2 1.5,3 c}\n{}\n{1 1}\n").encode()))
    X, Y, names = read_arff(tmp_path / "s.arff.gz")
    assert sp.issparse(X) and X.toarray().tolist() == [[1.5, 2.0], [0, 0], [0, 0]]
    assert Y.tolist() == [[1, 0], [0, 0], [0, 1]] and names == ["l0", "l1"]


@pytest.mark.parametrize("body, match", [
    ("1,a,1\n", r"d.arff:7: 3 values, expected 4"),
    ("1,z,1,0\n", r"d.arff:7: .*'z' is not one of its values"),
    ("?,a,1,0\n", r"d.arff:7: .*missing value"),
    ("{3 1,1 a}\n", r"d.arff:7: attribute index 1 out of order"),
])
def test_arff_errors_name_file_and_line(tmp_path, body, match):
    (tmp_path / "d.arff").write_text("@relation 'toy: -C -2'\n@attribute f1 numeric\n"
                                     "@attribute f2 {a,b}\n@attribute l1 {0,1}\n"
                                     "@attribute l2 {0,1}\n@data\n" + body)
    with pytest.raises(DataFormatError, match=match) as info:
        read_arff(tmp_path / "d.arff")
    assert "\n" not in str(info.value)


def test_arff_without_labels_named(tmp_path):
    (tmp_path / "d.arff").write_text("@relation toy\n@attribute a numeric\n@data\n1\n")
    with pytest.raises(DataFormatError, match="labels=N"):
        read_arff(tmp_path / "d.arff")


@pytest.mark.parametrize("name, shape, L, card", [
    ("Music.arff", (592, 71), 6, 1.87), ("Yeast.arff.bz2", (2417, 103), 14, 4.24),
    ("Enron.arff.bz2", (1702, 1001), 53, 3.38)])
def test_real_sets_read_and_learn(name, shape, L, card):
    X, Y, names = read_arff(data_path("multilabel", name))
    assert X.shape == shape and Y.shape == (shape[0], L) and len(names) == L
    assert abs(Y.sum(axis=1).mean() - card) < 0.01
    n = 300
    model = olearn.make("ml-pa1")
    scores = model.predict_learn(X[:n], Y[:n], return_scores=True)
    W, out = reference(X[:n], Y[:n], "PA-I")
    np.testing.assert_allclose(scores, out, atol=1e-10)
    br = BinaryRelevance(olearn.make("pa1")).fit(X, Y)
    assert (br.predict(X) != Y).mean() < 0.5 * Y.mean() + 0.2


def test_threads_share_a_model():
    X, Y = _data(n=40, L=3, seed=11)
    model = olearn.make("ml-br")
    threads = [threading.Thread(target=lambda: [model.partial_fit(X, Y) for _ in range(3)])
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone = olearn.make("ml-br")
    for _ in range(9):
        alone.partial_fit(X, Y)
    assert model.t_ == 9 * len(X)
    np.testing.assert_allclose(model.decision_function(X), alone.decision_function(X))
