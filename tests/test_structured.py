"""Sequence labelling (``olearn.structured``): Viterbi against brute force, one round
of each algorithm against a plain numpy loop of its equation, the default template
against its plain-Python twin, the CoNLL-U reader, files, bad input, and a small
real-data check on Universal Dependencies (skipped without the data)."""
import bz2
import copy
import gzip
import itertools
import math

import numpy as np
import pytest

import olearn
from olearn.io import read_conllu, write_conllu
from olearn.io.errors import DataFormatError
from olearn.io.hashing import murmurhash3_32
from olearn.persistence import ModelFileError
from olearn.structured import SequenceTagger, token_features

from conftest import data_path

BITS = 4  # 16 rows: the names below collide, which the rules must sum


# ---------------------------------------------------------------- the reference
def rows(token, bits=BITS):
    """A token's (rows, values): names hashed as the tagger hashes them."""
    items = token.items() if isinstance(token, dict) else ((n, 1.0) for n in token)
    return [(murmurhash3_32(n, positive=True) & ((1 << bits) - 1), v) for n, v in items]


def phi(seq, tags, K, D):
    """The joint feature vector: emissions (D, K) then transitions (K+1, K+1), the
    boundary at index K."""
    e, t = np.zeros((D, K)), np.zeros((K + 1, K + 1))
    prev = K
    for token, tag in zip(seq, tags):
        for i, v in rows(token, D.bit_length() - 1):
            e[i, tag] += v
        t[prev, tag] += 1
        prev = tag
    t[prev, K] += 1
    return np.concatenate([e.ravel(), t.ravel()])


def brute_force(seq, W, T):
    """The best tag sequence by enumeration (and its score)."""
    D, K = W.shape
    w = np.concatenate([W.ravel(), T.ravel()])
    best = max(itertools.product(range(K), repeat=len(seq)),
               key=lambda s: w @ phi(seq, s, K, D))
    return list(best), w @ phi(seq, best, K, D)


def random_sequence(rng, n, names=8):
    """n tokens, each a dict of 1-4 of ``names`` features with random values."""
    return [{f"f{j}": float(rng.uniform(-2, 2))
             for j in rng.choice(names, size=rng.integers(1, 5), replace=False)}
            for _ in range(n)]


def tagger_with_weights(rng, K, **params):
    """A tagger over the integer tags 0..K-1 whose weights are drawn at random."""
    model = SequenceTagger(bits=BITS, **params)
    model.partial_fit([[{"z": 1.0}] * K], [list(range(K))])
    st = model.state_
    for name, a in st.items():
        a[...] = rng.uniform(0.3, 2.0, a.shape) if name in ("S", "ST") else \
            rng.normal(0, 1, a.shape)
    model.t_ = 7
    return model


# ---------------------------------------------------------------- decoding
def test_viterbi_equals_brute_force_over_all_tag_sequences():
    rng = np.random.default_rng(0)
    for K in (1, 2, 3, 4):
        for n in (1, 2, 3, 5):
            model = tagger_with_weights(rng, K, average=False)
            seqs = [random_sequence(rng, n) for _ in range(3)]
            got = model.predict(seqs)
            for seq, tags in zip(seqs, got):
                assert tags == brute_force(seq, model.state_["W"], model.state_["T"])[0]


def test_averaged_model_decodes_with_the_mean_weights():
    rng = np.random.default_rng(1)
    model = tagger_with_weights(rng, 3, average=True)
    st = model.state_
    W, T = st["W"] - st["U"] / model.t_, st["T"] - st["UT"] / model.t_
    for seq in (random_sequence(rng, n) for n in (1, 3, 4)):
        assert model.predict_one(seq) == brute_force(seq, W, T)[0]
    explicit = model.explicit_state()
    np.testing.assert_allclose(explicit["W"], W, atol=1e-12)
    np.testing.assert_allclose(explicit["T"], T, atol=1e-12)


def test_cost_augmented_viterbi_equals_brute_force():
    """PA's max-loss sequence: argmax of score(s) + sqrt(Hamming(y, s)) by enumeration."""
    from olearn.structured._kernels import cost_viterbi
    rng = np.random.default_rng(5)
    for K in (1, 2, 3, 4):
        for n in (1, 2, 3, 5):
            E, T = rng.normal(0, 1, (n, K)), rng.normal(0, 1, (K + 1, K + 1))
            y = np.concatenate([[9, 9], rng.integers(0, K, n)]).astype(np.int64)
            V, back = np.empty((n, K, n + 1)), np.zeros((n, K, n + 1), dtype=np.int64)
            path = np.empty(n, dtype=np.int64)
            got = cost_viterbi(E, T, n, K, y, 2, V, back, path)

            def value(s):
                v = T[K, s[0]] + T[s[-1], K] + sum(E[t, k] for t, k in enumerate(s))
                v += sum(T[a, b] for a, b in zip(s, s[1:]))
                return v + math.sqrt(sum(a != b for a, b in zip(s, y[2:])))
            best = max(itertools.product(range(K), repeat=n), key=value)
            assert list(path) == list(best) and got == pytest.approx(value(best), abs=1e-12)


# ---------------------------------------------------------------- one round of each rule
def reference_round(model, seq, gold):
    """The state after one round of ``model``'s rule, as a numpy loop of its equation
    (max-loss: ``s`` the sequence of the largest loss, by enumeration)."""
    st = {k: v.copy() for k, v in model.state_.items()}
    D, K = st["W"].shape
    s, sv = brute_force(seq, st["W"], st["T"])
    w = np.concatenate([st["W"].ravel(), st["T"].ravel()])
    cost = (lambda d: d) if model.algorithm == "arow" else math.sqrt
    if model.update == "max-loss" or model.update is None and model.algorithm == "arow":
        s = list(max(itertools.product(range(K), repeat=len(seq)),
                     key=lambda z: w @ phi(seq, z, K, D) +
                     cost(sum(a != b for a, b in zip(z, gold)))))
        sv = w @ phi(seq, s, K, D)
    d = sum(a != b for a, b in zip(s, gold))
    delta = phi(seq, gold, K, D) - phi(seq, s, K, D)
    sc = w @ phi(seq, gold, K, D)
    assert d > 0 and math.isclose(sc, w @ phi(seq, gold, K, D))
    algo, C, r = model.algorithm, model.C, model.r
    if algo == "arow":
        S = np.concatenate([st["S"].ravel(), st["ST"].ravel()])
        alpha = (sv - sc + d) / (r + np.sum(S * delta ** 2))
        step = alpha * S * delta
        S_new = 1.0 / (1.0 / S + delta ** 2 / r)
        st["S"], st["ST"] = S_new[:D * K].reshape(D, K), S_new[D * K:].reshape(K + 1, K + 1)
    else:
        loss = sv - sc + math.sqrt(d)
        norm2 = delta @ delta
        tau = {"perceptron": 1.0, "pa": loss / norm2, "pa1": min(C, loss / norm2),
               "pa2": loss / (norm2 + 1 / (2 * C))}[algo]
        step = tau * delta
    st["W"] = st["W"] + step[:D * K].reshape(D, K)
    st["T"] = st["T"] + step[D * K:].reshape(K + 1, K + 1)
    if model.average:   # round j adds (j - 1) times its change
        st["U"] = st["U"] + model.t_ * step[:D * K].reshape(D, K)
        st["UT"] = st["UT"] + model.t_ * step[D * K:].reshape(K + 1, K + 1)
    return st, s


@pytest.mark.parametrize("algorithm,average,update", [
    ("perceptron", False, "prediction"), ("perceptron", True, "prediction"),
    ("pa", False, None), ("pa1", True, "prediction"), ("pa2", False, "prediction"),
    ("arow", False, "prediction"), ("arow", True, "prediction"), ("pa", False, "max-loss"),
    ("pa1", True, "max-loss"), ("pa2", False, "max-loss"), ("arow", False, None),
    ("arow", True, "max-loss")])
def test_one_round_equals_the_equation(algorithm, average, update):
    rng = np.random.default_rng(2)
    for trial in range(4):
        model = tagger_with_weights(rng, 3, algorithm=algorithm, average=average, C=0.3,
                                    r=0.7, update=update)
        seq = random_sequence(rng, 4)
        seq[2] = ["f1", "f1", "f5"]  # a name twice: its value adds up
        W, T = model.state_["W"], model.state_["T"]
        s = brute_force(seq, W, T)[0]
        gold = [(t + 1 + trial % 2) % 3 if i % 2 == 0 else t for i, t in enumerate(s)]
        if trial == 3 and (update == "max-loss" or update is None and algorithm == "arow"):
            W *= 0.05   # decoded right, by a margin under sqrt(1): max-loss still updates
            T *= 0.05
            gold = s = brute_force(seq, W, T)[0]
        expected, decoded = reference_round(model, seq, gold)
        t, n = model.t_, model.n_updates_
        model.learn_one(seq, gold)
        assert model.t_ == t + 1 and model.n_updates_ == n + 1
        for name, a in expected.items():
            np.testing.assert_allclose(model.state_[name], a, rtol=0, atol=1e-10,
                                       err_msg=name)


def test_a_correct_sequence_changes_nothing_and_rounds_count():
    rng = np.random.default_rng(3)
    model = tagger_with_weights(rng, 3, algorithm="pa1", average=False)
    seq = random_sequence(rng, 3)
    tags = model.predict_one(seq)
    before = {k: v.copy() for k, v in model.state_.items()}
    n = model.n_updates_
    assert model.predict_learn_one(seq, tags) == tags
    assert model.t_ == 8 and model.n_updates_ == n
    for name, a in before.items():
        np.testing.assert_array_equal(model.state_[name], a)


# ---------------------------------------------------------------- the protocol
SENTENCES = [["The", "dog", "barks", "."], ["A", "cat", "sleeps", "on", "the", "mat", "."],
             ["Dogs", "bark", "!"], ["The", "old", "cat", "saw", "3", "dogs", "."]]
TAGS = [["DET", "NOUN", "VERB", "PUNCT"], ["DET", "NOUN", "VERB", "ADP", "DET", "NOUN",
                                           "PUNCT"],
        ["NOUN", "VERB", "PUNCT"], ["DET", "ADJ", "NOUN", "VERB", "NUM", "NOUN", "PUNCT"]]


@pytest.mark.parametrize("name", olearn.registry.sequence_names())
def test_each_registered_tagger_learns_the_toy_sentences(name):
    model = olearn.make(name, bits=12, epochs=4)
    assert olearn.tags(model).target == "sequence"
    model.fit(SENTENCES, TAGS)
    assert model.score(SENTENCES, TAGS) == 1.0
    assert list(model.classes_) == ["DET", "NOUN", "VERB", "PUNCT", "ADP", "ADJ", "NUM"]
    assert model.t_ == 16 and model.input_ == "tokens"


def test_predict_learn_is_predict_one_then_learn_one_and_chunks_do_not_matter():
    for average in (False, True):
        a = SequenceTagger(bits=10, average=average)
        b = SequenceTagger(bits=10, average=average)
        c = SequenceTagger(bits=10, average=average)
        data = SENTENCES * 3
        tags = TAGS * 3
        progressive = a.predict_learn(data, tags)
        for i, (x, y) in enumerate(zip(data, tags)):
            # (before any tag is known, predict_one has nothing to say)
            assert progressive[i] == (b.predict_one(x) if i else progressive[0])
            b.learn_one(x, y)
        c.partial_fit(data[:5], tags[:5]).partial_fit(data[5:], tags[5:])
        for name in a.state_:
            np.testing.assert_array_equal(a.state_[name], b.state_[name])
            np.testing.assert_array_equal(a.state_[name], c.state_[name])


def test_fit_starts_afresh_and_without_shuffle_is_partial_fit_repeated():
    a = SequenceTagger(bits=10, epochs=3, shuffle=False).fit(SENTENCES, TAGS)
    b = SequenceTagger(bits=10)
    for _ in range(3):
        b.partial_fit(SENTENCES, TAGS)
    for name in a.state_:
        np.testing.assert_array_equal(a.state_[name], b.state_[name])
    a.fit(SENTENCES[:1], TAGS[:1])
    assert a.t_ == 3 and list(a.classes_) == ["DET", "NOUN", "VERB", "PUNCT"]
    s1 = SequenceTagger(bits=10, epochs=2, random_state=5).fit(SENTENCES, TAGS)
    s2 = SequenceTagger(bits=10, epochs=2, random_state=5).fit(SENTENCES, TAGS)
    np.testing.assert_array_equal(s1.state_["W"], s2.state_["W"])


def test_feature_lists_and_dicts_are_one_feature_space():
    feats = [token_features(s) for s in SENTENCES]
    dicts = [[dict.fromkeys(f, 1.0) for f in s] for s in feats]
    a = SequenceTagger(bits=12).partial_fit(feats, TAGS)
    b = SequenceTagger(bits=12).partial_fit(dicts, TAGS)
    np.testing.assert_array_equal(a.state_["W"], b.state_["W"])
    assert a.input_ == "features" and a.predict(dicts) == a.predict(feats)


def test_int_tags_and_empty_sequences():
    model = SequenceTagger(bits=8, epochs=5).fit([[], ["a", "b"], []], [[], [1, 2], []])
    assert model.predict([[], ["a"], ["b", "a"]])[0] == []
    assert model.predict_one(["a", "b"]) == [1, 2]
    assert all(type(t) is int for t in model.predict_one(["b", "b"]))


# ---------------------------------------------------------------- the default template
def test_the_compiled_template_is_its_python_twin():
    from olearn.io.hashing import hash_many
    from olearn.structured import _kernels
    from olearn.structured._input import encode
    sentences = [["Paris", "is", "in", "FRANCE", ",", "3.14", "km", "well-known", "!"],
                 ["Émile", "ÉCOLE", "naïve", "ΟΔΟΣ", "İstanbul", "a\u0000b", "x"],
                 ["one"], ["", "Ab1-"]]
    bits = 18
    batch = encode(sentences, bits)
    got = [batch.idx[batch.fptr[a]:batch.fptr[a + 1]].tolist()
           for a in range(len(batch.fptr) - 1)]
    want = []
    for s in sentences:
        for feats in token_features(s, pairs=True):
            want.append([int(hash_many([v], _kernels.SEED_BASE + k)[0]) & ((1 << bits) - 1)
                         for k, v in feats])
    assert got == want
    names = token_features(["Paris", "is", "3"])
    assert names[0][:6] == ["bias", "w=Paris", "l=paris", "p1=p", "p2=pa", "p3=par"]
    assert "shape=Xx" in names[0] and "init-upper" in names[0] and "l-1=<s>" in names[0]
    assert {"all-digit", "has-digit", "l+1=</s>", "s3-1=is"} <= set(names[2])


# ---------------------------------------------------------------- files
def test_save_and_load_round_trip(tmp_path):
    for name in ("tagger-ap", "tagger-arow"):
        model = olearn.make(name, bits=12, epochs=2).fit(SENTENCES, TAGS)
        path = tmp_path / f"{name}.olm"
        olearn.save(model, path)
        back = olearn.load(path)
        assert type(back) is SequenceTagger and back.get_params() == model.get_params()
        assert back.predict(SENTENCES) == model.predict(SENTENCES)
        assert list(back.classes_) == list(model.classes_) and back.t_ == model.t_
        for a in (model, back):
            a.learn_one(["A", "dog", "sleeps"], ["DET", "NOUN", "VERB"])
        for key in model.state_:
            np.testing.assert_array_equal(back.state_[key], model.state_[key])


def test_a_damaged_file_is_refused(tmp_path):
    model = olearn.make("tagger-arow", bits=10).fit(SENTENCES, TAGS)
    meta, arrays = model.export_state()
    params = model.get_params()
    SequenceTagger.from_state(params, meta, arrays)
    bad = [("rows", arrays["rows"][::-1].copy(), "increasing"),
           ("rows", arrays["rows"] + (1 << 10), "below"),
           ("S", -arrays["S"], "positive"),
           ("W", arrays["W"][:, :2].copy(), "float64"),
           ("T", np.full_like(arrays["T"], np.nan), "NaN")]
    for key, value, message in bad:
        with pytest.raises(ValueError, match=message):
            SequenceTagger.from_state(params, meta, {**arrays, key: value})
    with pytest.raises(ValueError, match="classes"):
        SequenceTagger.from_state(params, {**meta, "classes": ["A", 1]}, arrays)
    assert meta["input"] == "tokens" and meta["template"] == 1
    with pytest.raises(ValueError, match="version 0 of the default template"):
        SequenceTagger.from_state(params, {**meta, "template": 0}, arrays)
    with pytest.raises(ValueError, match="arrays must be"):
        SequenceTagger.from_state({**params, "average": True}, meta, arrays)
    path = tmp_path / "m.olm"
    model.save(path)
    raw = dict(np.load(path))
    raw["S"] = -raw["S"]
    with open(tmp_path / "bad.olm", "wb") as f:
        np.savez(f, **raw)
    with pytest.raises(ModelFileError, match="positive"):
        olearn.load(tmp_path / "bad.olm")
    with pytest.raises(ValueError, match="not learned anything"):
        olearn.save(SequenceTagger(), tmp_path / "x.olm")


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,message", [
    (lambda m: m.fit("The dog", [["DET"]]), "list of sequences"),
    (lambda m: m.fit(["The dog barks"], [["DET"]]), r"X\[0\] must be a sequence.*split"),
    (lambda m: m.fit([["a", "b"]], [["A"]]), "sequence 0 has 2 tokens but 1 tags"),
    (lambda m: m.fit([["a"], ["b"]], [["A"]]), "2 sequences but y has 1"),
    (lambda m: m.fit([["a", ["f"]]], [["A", "B"]]), "all be strings"),
    (lambda m: m.fit([[3]], [["A"]]), "all be strings"),
    (lambda m: m.fit([[["f", 3]]], [["A"]]), "feature names must be strings"),
    (lambda m: m.fit([[{"f": "x"}]], [["A"]]), "not a number"),
    (lambda m: m.fit([[{"f": np.inf}]], [["A"]]), "NaN or infinity"),
    (lambda m: m.fit([["a", "b"]], [["A", 1]]), "all be strings or all be integers"),
    (lambda m: m.fit([["a"]], [[["A"]]]), "a tag must be a str or an int"),
    (lambda m: m.fit([["a"]], [[1.5]]), "a tag must be a str or an int"),
    (lambda m: m.learn_one("a b", ["A", "B"]), "split it first"),
    (lambda m: m.set_params(update="max-loss").learn_one(["a"], ["A"]),
     "max-loss' is for PA and AROW"),
    (lambda m: m.set_params(update="max").learn_one(["a"], ["A"]), "update"),
    (lambda m: m.set_params(algorithm="crf").fit([["a"]], [["A"]]), "algorithm must be"),
    (lambda m: m.set_params(bits=40).fit([["a"]], [["A"]]), "bits must be"),
    (lambda m: m.set_params(C=0).fit([["a"]], [["A"]]), "C must be"),
    (lambda m: m.set_params(epochs=0).fit([["a"]], [["A"]]), "epochs must be"),
])
def test_bad_input_is_one_line_error(call, message):
    model = SequenceTagger(bits=8)
    with pytest.raises(ValueError, match=message) as info:
        call(model)
    assert "\n" not in str(info.value)
    assert "state_" not in vars(model)  # nothing half learned


def test_a_learned_model_refuses_another_input_or_state():
    model = SequenceTagger(bits=8).fit([["a", "b"]], [["A", "B"]])
    before = model.state_["W"].copy()
    for call, message in [
            (lambda: model.predict([[["w=a"]]]), "learned from raw tokens"),
            (lambda: model.partial_fit([[{"w": 1.0}]], [["A"]]), "learned from raw tokens"),
            (lambda: model.partial_fit([["a"]], [[1]]), "all be strings"),
            (lambda: model.set_params(bits=9).predict([["a"]]), "bits=9 but"),
            (lambda: model.set_params(bits=8, average=False).predict([["a"]]),
             "average=False needs another state"),
            (lambda: model.set_params(average=True, algorithm="arow").partial_fit(
                [["a"]], [["A"]]), "algorithm='arow' needs another state")]:
        with pytest.raises(ValueError, match=message):
            call()
    model.set_params(algorithm="pa2")   # same state: fine
    model.partial_fit([["b", "a"]], [["B", "A"]])
    assert not np.array_equal(model.state_["W"], before)
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        SequenceTagger().predict([["a"]])


# ---------------------------------------------------------------- CoNLL-U
CONLLU = """# sent_id = 1
# text = Don't stop.
1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3\tstop\tstop\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No
3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t0:root\t_
4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# sent_id = 2
1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_
"""


def test_read_conllu_skips_comments_ranges_and_empty_nodes(tmp_path):
    plain = tmp_path / "a.conllu"
    plain.write_text(CONLLU, encoding="utf-8")
    (tmp_path / "a.conllu.gz").write_bytes(gzip.compress(CONLLU.encode()))
    (tmp_path / "a.conllu.bz2").write_bytes(bz2.compress(CONLLU.encode()))
    for path in ("a.conllu", "a.conllu.gz", "a.conllu.bz2"):
        X, y = read_conllu(tmp_path / path)
        assert X == [["Do", "n't", "stop", "."], ["Yes"]]
        assert y == [["AUX", "PART", "VERB", "PUNCT"], ["INTJ"]]
    assert read_conllu(plain, column="xpos")[1][0] == ["VBP", "RB", "VB", "."]
    crlf = tmp_path / "crlf.conllu"
    crlf.write_bytes(CONLLU.replace("\n", "\r\n").encode())
    assert read_conllu(crlf) == read_conllu(plain)
    assert read_conllu(plain, column=7)[1][1] == ["root"]
    out = tmp_path / "out.conllu"
    assert write_conllu(plain, [["A", "B", "C", "D"], ["E"]], out) == 2
    text = out.read_text()
    assert "1\tDo\tdo\tA\tVBP" in text and "1\tYes\tyes\tE\tUH" in text
    assert "3.1\tgo\tgo\tVERB" in text and text.count("\n") == CONLLU.count("\n")
    bad = tmp_path / "bad.conllu"
    bad.write_text("# c\n1\tA\tb\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"bad.conllu:2: a word line has 10"):
        read_conllu(bad)
    bad.write_text("x\tA\t_\t_\t_\t_\t_\t_\t_\t_\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=":1: ID 'x'"):
        read_conllu(bad)
    with pytest.raises(ValueError, match="column must be"):
        read_conllu(plain, column="pos")
    (tmp_path / "t.conllu.bz2").write_bytes(bz2.compress(CONLLU.encode())[:-20])
    with pytest.raises(DataFormatError, match="cannot decompress"):
        read_conllu(tmp_path / "t.conllu.bz2")


CONLL2000 = """-DOCSTART- -X- O

Confidence NN B-NP
in IN B-PP
the DT B-NP
pound NN I-NP

Chancellor NNP O
 	
Rockwell NNP B-NP
said VBD B-VP
"""


def test_read_conll_columns(tmp_path):
    """CoNLL-2000 columns: tokens from one column (raw) or several (feature names)."""
    from olearn.io import read_conll
    plain = tmp_path / "train.txt"
    plain.write_text(CONLL2000, encoding="utf-8")
    (tmp_path / "train.txt.gz").write_bytes(gzip.compress(CONLL2000.encode()))
    X, y = read_conll(tmp_path / "train.txt.gz")
    assert X == [["Confidence", "in", "the", "pound"], ["Chancellor"], ["Rockwell", "said"]]
    assert y == [["B-NP", "B-PP", "B-NP", "I-NP"], ["O"], ["B-NP", "B-VP"]]
    X, y = read_conll(plain, tokens=["word", "pos"], tags="pos")
    assert X[2] == [["word=Rockwell", "pos=NNP"], ["word=said", "pos=VBD"]]
    assert y[0] == ["NN", "IN", "DT", "NN"]
    assert read_conll(plain, columns=3, tokens=[1], tags=0)[0][1] == [["1=NNP"]]
    model = SequenceTagger(bits=10).fit(*read_conll(plain, tokens=["word", "pos"]))
    assert model.classes_.tolist() == ["B-NP", "B-PP", "I-NP", "O", "B-VP"]
    with pytest.raises(DataFormatError, match=r"train.txt:3: a token line has 4 columns, "
                                              "this one 3"):
        read_conll(plain, columns=("a", "b", "c", "d"))
    with pytest.raises(ValueError, match="'lemma' is not one of word, pos, chunk"):
        read_conll(plain, tags="lemma")
    with pytest.raises(ValueError, match="index from -3 to 2, got 5"):
        read_conll(plain, tokens=5)
    with pytest.raises(ValueError, match="distinct names"):
        read_conll(plain, columns=("a", "a"))


# ---------------------------------------------------------------- real data
def test_universal_dependencies_slice():
    """UD English EWT: 2,000 training sentences, 2 passes; UPOS on 500 dev sentences."""
    train = data_path("ud_english_ewt", "en_ewt-ud-train.conllu.bz2")
    dev = data_path("ud_english_ewt", "en_ewt-ud-dev.conllu")
    X, y = read_conllu(train)
    Xd, yd = read_conllu(dev)
    assert len(X) == 12544 and sum(map(len, X)) == 204577
    model = olearn.make("tagger-ap", epochs=2).fit(X[:2000], y[:2000])
    accuracy = model.score(Xd[:500], yd[:500])
    assert accuracy > 0.88, accuracy
    pa = olearn.make("tagger-pa1")
    progressive = pa.predict_learn(X[:2000], y[:2000])
    hits = sum(p == g for ps, gs in zip(progressive, y) for p, g in zip(ps, gs))
    assert hits / sum(map(len, y[:2000])) > 0.8


# ---------------------------------------------------------------- mixing
def test_mix_of_one_is_the_model_and_two_mix_on_the_union_of_their_tags():
    a = SequenceTagger(bits=10).fit(SENTENCES[:2], TAGS[:2])          # no ADJ, NUM
    b = SequenceTagger(bits=10).fit(SENTENCES[2:], TAGS[2:])          # no ADP
    one = olearn.mix([a])
    assert one is not a and one.predict(SENTENCES) == a.predict(SENTENCES)
    for key in a.state_:
        np.testing.assert_allclose(one.state_[key], a.state_[key], rtol=0, atol=1e-9)
    m = olearn.mix([a, b], weights=[1, 3])
    assert list(m.classes_) == ["DET", "NOUN", "VERB", "PUNCT", "ADP", "ADJ", "NUM"]
    assert m.t_ == a.t_ + b.t_ and m.n_updates_ == a.n_updates_ + b.n_updates_
    ea, eb, em = a.explicit_state(), b.explicit_state(), m.explicit_state()
    order_b = [list(b.classes_).index(t) if t in b.classes_ else None for t in m.classes_]
    for k, t in enumerate(m.classes_):   # the averaged weights: the mean of all iterates
        wa = ea["W"][:, k] if k < len(a.classes_) else 0.0
        wb = eb["W"][:, order_b[k]] if order_b[k] is not None else 0.0
        np.testing.assert_allclose(em["W"][:, k], (a.t_ * wa + b.t_ * wb) / m.t_,
                                   atol=1e-12)
    m2 = olearn.mix([a, b], weights=[1, 3], rules={"Wbar": "mean"}).explicit_state()
    np.testing.assert_allclose(m2["W"][:, 0], 0.25 * ea["W"][:, 0]
                               + 0.75 * eb["W"][:, order_b[0]], atol=1e-12)
    # the raw weights too: the mixed model learns on from their mean
    j = list(b.classes_).index("NOUN")
    np.testing.assert_allclose(m.state_["W"][:, 1], 0.25 * a.state_["W"][:, 1]
                               + 0.75 * b.state_["W"][:, j], atol=1e-12)
    m.learn_one(["The", "mat"], ["DET", "NOUN"])
    arow = [SequenceTagger(algorithm="arow", average=False, bits=10).fit(x, t)
            for x, t in ((SENTENCES[:2], TAGS[:2]), (SENTENCES[1:], TAGS[1:]))]
    mixed = olearn.mix(arow)
    s0, s1 = (x._aligned_state(list(mixed.classes_))["S"] for x in arow)
    np.testing.assert_array_equal(mixed.state_["S"], np.minimum(s0, s1))
    mean = olearn.mix(arow, weights=[1, 1], rules={"S": "mean"}).state_["S"]
    np.testing.assert_allclose(mean, (s0 + s1) / 2, atol=1e-12)
    assert (mean > mixed.state_["S"]).any()


def test_mix_refuses_what_cannot_be_mixed():
    a = SequenceTagger(bits=10).fit(SENTENCES, TAGS)
    feats = SequenceTagger(bits=10).fit([token_features(s) for s in SENTENCES], TAGS)
    with pytest.raises(ValueError, match="different inputs"):
        olearn.mix([a, feats])
    with pytest.raises(ValueError, match="bits=12 differs"):
        olearn.mix([a, SequenceTagger(bits=12).fit(SENTENCES, TAGS)])
    with pytest.raises(ValueError, match="no array 'Z'"):
        olearn.mix([a, a], rules={"Z": "mean"})
    with pytest.raises(ValueError, match="not 'sum'"):
        olearn.mix([a, a], rules={"W": "sum"})
    with pytest.raises(ValueError, match="not 'iterates'"):
        olearn.mix([a, a], rules={"W": "iterates"})


def test_iterative_parameter_mixing_of_sequence_shards():
    from olearn.distributed import simulate
    data, tags = SENTENCES * 4, TAGS * 4
    serial = SequenceTagger(bits=10, shuffle=False, epochs=2).fit(data, tags)
    one = simulate(SequenceTagger(bits=10, shuffle=False), [(data, tags)], mixing="ipm",
                   epochs=2).model
    for key in serial.state_:
        np.testing.assert_array_equal(one.state_[key], serial.state_[key])
    # with shuffle (the default), each epoch of a member is fit's pass in a new order
    one = simulate(SequenceTagger(bits=10), [(data, tags)], mixing="ipm", epochs=2).model
    by_hand = SequenceTagger(bits=10).fit_pass(data, tags, seed=(0, 0, 0))
    by_hand.fit_pass(data, tags, seed=(1, 0, 0))
    orders = [np.random.default_rng([0, e, 0, 0]).permutation(len(data)) for e in (0, 1)]
    assert not (orders[0] == orders[1]).all()
    in_order = SequenceTagger(bits=10, shuffle=False)
    for o in orders:
        in_order.partial_fit([data[i] for i in o], [tags[i] for i in o])
    for key in serial.state_:
        np.testing.assert_array_equal(one.state_[key], by_hand.state_[key])
        np.testing.assert_array_equal(one.state_[key], in_order.state_[key])
    shards = [(data[i::2], tags[i::2]) for i in range(2)]
    for weights in ("count", "uniform"):
        result = simulate(SequenceTagger(bits=10), shards, mixing="ipm", epochs=3,
                          weights=weights)
        assert result.rounds == 3 and result.model.t_ == 3 * len(data)
        assert result.model.score(SENTENCES, TAGS) == 1.0
    # by hand: the members' mean, then their iterates averaged with the base's
    first = [SequenceTagger(bits=10, shuffle=False).partial_fit(x, t) for x, t in shards]
    mixed = simulate(SequenceTagger(bits=10, shuffle=False), shards, mixing="ipm",
                     epochs=1).model
    np.testing.assert_allclose(mixed.state_["W"], olearn.mix(first).state_["W"], atol=1e-12)
    second = [copy.deepcopy(mixed).partial_fit(x, t) for x, t in shards]
    again = simulate(SequenceTagger(bits=10, shuffle=False), shards, mixing="ipm",
                     epochs=2).model
    W = sum(m.state_["W"] for m in second) / 2
    sums = [m.t_ * m.explicit_state()["W"] for m in second]
    before = mixed.t_ * mixed.explicit_state()["W"]
    Wbar = (before + sum(x - before for x in sums)) / again.t_
    np.testing.assert_allclose(again.state_["W"], W, atol=1e-12)
    np.testing.assert_allclose(again.explicit_state()["W"], Wbar, atol=1e-12)


# ---------------------------------------------------------------- the command line
def _conllu(sentences, tags):
    blocks = []
    for k, (words, seq) in enumerate(zip(sentences, tags)):
        lines = [f"# sent_id = {k}"]
        lines += [f"{i}\t{w}\t_\t{t}\tX{t}\t_\t0\tdep\t_\t_"
                  for i, (w, t) in enumerate(zip(words, seq), 1)]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def test_command_line_train_and_predict(tmp_path, capsys):
    from olearn.cli import main as run

    def main(argv):
        return run([str(a) for a in argv])

    def errors():   # stderr, less the notice a cold kernel cache prints
        return "".join(line + "\n" for line in capsys.readouterr().err.splitlines()
                       if not line.startswith("olearn: compiling"))
    data = tmp_path / "train.conllu"
    data.write_text(_conllu(SENTENCES * 3, TAGS * 3), encoding="utf-8")
    model = tmp_path / "pos.olm"
    assert main(["train", data, "--task", "tag", "--algo", "tagger-pa1", "--passes", "3",
                 "--param", "bits=12", "-f", model]) == 0
    err = errors()
    assert "progressive token accuracy" in err and "pass 3: token accuracy 1.000000" in err
    assert "sentences = 12, tokens = 63, tags = 7 (upos)" in err
    out = tmp_path / "out.conllu"
    assert main(["predict", data, "-i", model, "-p", out]) == 0
    assert "token accuracy 1.000000" in errors()
    assert out.read_text(encoding="utf-8") == data.read_text(encoding="utf-8")
    saved, record = olearn.load(model, pipeline=True)
    assert record["format"] == "conllu" and record["column"] == "upos"
    assert saved.algorithm == "pa1" and saved.bits == 12 and saved.t_ == 36
    # another column; a .conllu DATA needs no --task; --init continues
    assert main(["train", data, "--algo", "tagger-ap", "--column", "xpos", "--quiet",
                 "-f", tmp_path / "x.olm"]) == 0
    assert main(["predict", data, "-i", tmp_path / "x.olm", "--quiet", "-p", out]) == 0
    assert "\tXNOUN\t" in out.read_text() and errors() == ""
    assert main(["train", data, "-i", model, "--quiet", "-f", tmp_path / "more.olm"]) == 0
    assert olearn.load(tmp_path / "more.olm").t_ == 48
    # evaluate: one progressive pass, nothing saved; --init continues a saved tagger
    assert main(["evaluate", data, "--algo", "tagger-pa1", "--param", "bits=12"]) == 0
    err = errors()
    assert "progressive validation: tagger-pa1 on" in err and "updates = " in err
    assert "sentences = 12, tokens = 63, tags = 7 (upos)" in err
    token = float(err.split("progressive token accuracy = ")[1].split()[0])
    fresh = SequenceTagger(algorithm="pa1", bits=12)
    pred = fresh.predict_learn(SENTENCES * 3, TAGS * 3)
    hits = sum(a == b for p, g in zip(pred, TAGS * 3) for a, b in zip(p, g))
    assert token == pytest.approx(hits / 63, abs=1e-6) and token < 1
    assert main(["evaluate", data, "--init", model]) == 0
    assert "progressive token accuracy = 1.000000" in errors()
    for argv, message in [
            (["train", data, "--task", "tag", "--algo", "pa1"], "not a sequence tagger"),
            (["train", data, "--task", "tag"], "needs --algo NAME, a sequence tagger"),
            (["train", data, "--algo", "tagger-ap", "--holdout", "3"], "--holdout is not"),
            (["predict", data, "-i", model, "--column", "xpos"], "--column xpos"),
            (["train", tmp_path / "none.conllu", "--algo", "tagger-ap"], "no such file"),
            (["evaluate", data, "--algo", "tagger-ap", "--metric", "f1"], "--metric is not"),
            (["evaluate", "--task", "tag", "--algo", "tagger-ap"], "needs DATA"),
            (["evaluate", data, "--algo", "pa"], "not a sequence tagger")]:
        assert main(argv) == 2
        err = errors()
        assert message in err and err.count("\n") == 1, err


def test_threads_share_one_tagger():
    """The calls take the model's lock: threads learning one tagger lose no round."""
    import threading
    model = SequenceTagger(bits=10)
    model.learn_one(SENTENCES[0], TAGS[0])
    errors = []

    def work(k):
        try:
            for _ in range(20):
                x, t = SENTENCES[k % 4], TAGS[k % 4]
                model.learn_one(x, t)
                assert len(model.predict_one(x)) == len(x)
        except Exception as exc:   # pragma: no cover (reported below)
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and model.t_ == 81
