"""The calibrated cut of the reductions (issue 42 item 3, ``threshold="calibrated"`` and
``"scut"`` of BinaryRelevance and ClassifierChain; olearn/multilabel/_threshold.py)
against a plain Python loop of its definition over the scores of the same reduction
without it (``threshold="fixed"``, whose members learn the same), on random rows (dense,
sparse, weighted, labels met late) and on Music; then the generic checks."""
import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.io import read_arff
from olearn.multilabel import BinaryRelevance, ClassifierChain

from conftest import data_path
from generic_multilabel import check_multilabel

CUTS = np.linspace(-1.0, 1.0, 41)


def _best(gain, cuts):
    """The candidate of largest gain; ties: nearest 0, then the lower (a plain loop)."""
    best = None
    for k in sorted(range(len(cuts)), key=lambda k: (abs(cuts[k]), cuts[k])):
        if best is None or gain[k] > gain[best]:
            best = k
    return cuts[best]


def reference(mode, S, Y, late, w, cuts=CUTS):
    """Row by row: each label's cut from the rows before, then the row's counts added.
    Returns the predictions, the scores minus the cuts and the final cuts."""
    n, L = S.shape
    K = len(cuts)
    G = [0.0] * K
    tp = [[0.0] * K for _ in range(L)]
    fp = [[0.0] * K for _ in range(L)]
    fn = [[0.0] * K for _ in range(L)]

    def cuts_now():
        if mode == "calibrated":
            return [_best(G, cuts)] * L
        out = []
        for j in range(L):
            f1 = []
            for k in range(K):
                den = 2.0 * tp[j][k] + fp[j][k] + fn[j][k]
                f1.append(1.0 if den == 0 else 2.0 * tp[j][k] / den)
            out.append(_best(f1, cuts))
        return out

    P, O = np.zeros((n, L), dtype=np.int8), np.zeros((n, L))
    for i in range(n):
        t = cuts_now()
        for j in range(L):
            if not late[i, j]:
                P[i, j] = S[i, j] > t[j]
                O[i, j] = S[i, j] - t[j]
        for k in range(K):
            hit = [not late[i, j] and S[i, j] > cuts[k] for j in range(L)]
            if mode == "calibrated":
                both = sum(1 for j in range(L) if hit[j] and Y[i, j])
                den = sum(hit) + int(sum(Y[i]))
                G[k] += (1.0 if den == 0 else 2.0 * both / den) * w[i]
            else:
                for j in range(L):
                    tp[j][k] += (hit[j] and Y[i, j] == 1) * w[i]
                    fp[j][k] += (hit[j] and Y[i, j] == 0) * w[i]
                    fn[j][k] += (not hit[j] and Y[i, j] == 1) * w[i]
    return P, O, np.array(cuts_now())


def _rows(n=120, d=6, L=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    Y = (X @ rng.normal(size=(d, L)) + 0.3 * rng.normal(size=(n, L)) > 0.6).astype(np.int8)
    return X, Y


def _compare(make, X, Y, mode, w=None):
    """The reduction with the cut against the reference over the fixed one's scores."""
    fixed = make("fixed")
    S = fixed.predict_learn(X, Y, return_scores=True, sample_weight=w)
    late = np.zeros(Y.shape, dtype=bool)
    late[0] = True                          # (an indicator: every label known at row 0)
    wr = np.ones(len(Y)) if w is None else w
    P, O, T = reference(mode, S, Y, late, wr)
    m = make(mode)
    got_p, got_s = m.predict_learn(X, Y, return_scores="both", sample_weight=w)
    np.testing.assert_array_equal(got_p, P)
    np.testing.assert_allclose(got_s, O, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(m.thresholds_, T)
    now = fixed.decision_function(X)
    np.testing.assert_array_equal(m.predict(X), (now > T).astype(np.int8))
    np.testing.assert_allclose(m.decision_function(X), now - T, rtol=0, atol=1e-12)
    return m, P


@pytest.mark.parametrize("mode", ["calibrated", "scut"])
def test_binary_relevance_cut_is_the_reference(mode):
    X, Y = _rows()
    rng = np.random.default_rng(1)
    _compare(lambda t: BinaryRelevance(threshold=t), X, Y, mode)
    _compare(lambda t: BinaryRelevance(threshold=t), sp.csr_matrix(X), Y, mode)
    _compare(lambda t: BinaryRelevance(olearn.make("pa1"), threshold=t), X, Y, mode,
             w=rng.uniform(0.2, 2.0, len(Y)))


@pytest.mark.parametrize("mode", ["calibrated", "scut"])
def test_chain_cut_is_the_reference(mode):
    X, Y = _rows(seed=2)
    m, P = _compare(lambda t: ClassifierChain(threshold=t), X, Y, mode)
    learned = ClassifierChain(threshold=mode).partial_fit(X, Y)  # (row by row as well)
    np.testing.assert_array_equal(learned.thresholds_, m.thresholds_)
    fixed = ClassifierChain().partial_fit(X, Y)
    for a, b in zip(learned.models_, fixed.models_):
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-12)


def test_labels_met_late_and_one_example_at_a_time():
    """Label sets whose labels appear at later rows: a label is not cut (nor counted)
    before it is predictable; learn_one gives the batch's predictions (from a first
    example with no label, which ``predict_learn_one`` answered with an AttributeError
    before)."""
    X, Y = _rows(n=80, seed=4)
    Y[0] = 0                                # (an empty first set: no label known yet)
    Y[:30, 2] = 0
    Y[:50, 3] = 0
    sets = [np.flatnonzero(r).tolist() for r in Y]
    for mode in ("calibrated", "scut"):
        fixed = BinaryRelevance()
        S = fixed.predict_learn(X, sets, return_scores=True)
        classes = fixed.classes_.tolist()
        Yc = np.array([[int(c in s) for c in classes] for s in sets], dtype=np.int8)
        first = np.array([min(i for i, s in enumerate(sets) if c in s) for c in classes])
        late = np.arange(len(X))[:, None] <= first[None, :]
        P, _, T = reference(mode, S, Yc, late, np.ones(len(X)))
        m = BinaryRelevance(threshold=mode)
        np.testing.assert_array_equal(m.predict_learn(X, sets), P)
        one = BinaryRelevance(threshold=mode)
        got = [one.predict_learn_one(x, s) for x, s in zip(X, sets)]
        want = [{c: bool(P[i, classes.index(c)]) for c in d} for i, d in enumerate(got)]
        assert got == want
        np.testing.assert_array_equal(one.thresholds_, T)


@pytest.mark.parametrize("mode", ["calibrated", "scut"])
def test_music_against_the_reference(mode):
    X, Y, _ = read_arff(data_path("multilabel", "Music.arff"))
    _compare(lambda t: BinaryRelevance(threshold=t), X, Y, mode)


def test_bad_settings_are_refused():
    X, Y = _rows(n=5)
    for kwargs, needle in (({"threshold": "best"}, "threshold"),
                           ({"threshold": "scut", "cuts": [0.1, 0.1]}, "cuts"),
                           ({"threshold": "scut", "cuts": []}, "cuts"),
                           ({"threshold": "scut", "cuts": [0, np.nan]}, "cuts")):
        with pytest.raises(ValueError, match=needle):
            BinaryRelevance(**kwargs).partial_fit(X, Y)


RNG = np.random.default_rng(5)
GX = RNG.normal(size=(60, 5)) * (RNG.random((60, 5)) < 0.7)
GY = (GX[:, :3] + 0.4 * RNG.normal(size=(60, 3)) > 0.1).astype(np.int8)


@pytest.mark.parametrize("name, mode", [("ml-br", "calibrated"), ("ml-br", "scut"),
                                        ("ml-cc", "scut")])
def test_the_generic_checks_with_a_cut(name, mode, tmp_path):
    check_multilabel(lambda: olearn.make(name, threshold=mode), GX, GY, tmp_path)


def test_mix_adds_the_counts_label_by_label():
    X, Y = _rows(n=90, seed=6)
    sets = [np.flatnonzero(r).tolist() for r in Y]
    a = BinaryRelevance(threshold="scut").partial_fit(X[:45], [[v for v in s if v != 3]
                                                               for s in sets[:45]])
    b = BinaryRelevance(threshold="scut").partial_fit(X[45:], sets[45:])
    mixed = olearn.mix([a, b])
    assert mixed.classes_.tolist() == b.classes_.tolist() == [0, 1, 2, 3]
    want = b.cut_counts_.copy()
    want[np.searchsorted(b.classes_, a.classes_)] += a.cut_counts_
    np.testing.assert_array_equal(mixed.cut_counts_, want)
    g = olearn.mix([BinaryRelevance(threshold="calibrated").partial_fit(X[:45], Y[:45]),
                    BinaryRelevance(threshold="calibrated").partial_fit(X[45:], Y[45:])])
    assert g.cut_counts_.shape == (41,) and g.cut_counts_.max() <= 90
