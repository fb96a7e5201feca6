"""Raw text: tokens and hashed counts against scikit-learn's HashingVectorizer and a
plain-Python reference; the label<TAB>text reader on the SMS Spam Collection."""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.utils import murmurhash3_32

from conftest import data_path

from olearn.io import DataFormatError
from olearn.io.text import TextHasher, TextPipeline, read_text

WORD = re.compile(rb"[A-Za-z0-9_\x80-\xff]+")


def ref_row(text, n_bits, ngram, signed):
    """{column: count} of one text: the stated token rule, n-grams joined by a space."""
    tokens = [t.lower() for t in WORD.findall(text.encode("utf-8"))]  # bytes.lower: ASCII
    feats = [b" ".join(tokens[i:i + n]) for n in range(1, ngram + 1)
             for i in range(len(tokens) - n + 1)]
    row = {}
    for f in feats:
        h = murmurhash3_32(f, seed=0)
        col = abs(h) % 2**n_bits
        row[col] = row.get(col, 0.0) + (-1.0 if signed and h < 0 else 1.0)
    return {k: v for k, v in row.items() if v != 0}


def random_texts(rng, n):
    words = ["Free", "WIN", "call", "now", "u", "r", "£1000", "naïve", "日本", "x_y", "42",
             "ok", "OK!", "don't", "e-mail", "www.site.com", "a"]
    return [" ".join(rng.choice(words, int(rng.integers(0, 12)))) + rng.choice(["", "?", " "])
            for _ in range(n)]


def as_dicts(X):
    return [dict(zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                     X.data[X.indptr[i]:X.indptr[i + 1]].tolist())) for i in range(X.shape[0])]


@pytest.mark.parametrize("n_bits, ngram, signed", [(18, 1, False), (6, 2, True), (12, 3, False)])
def test_equals_reference_and_hashing_vectorizer(n_bits, ngram, signed):
    rng = np.random.default_rng(n_bits)
    texts = random_texts(rng, 300)
    X = TextHasher(n_bits, ngram, signed).transform(texts)
    assert X.shape == (300, 2**n_bits)
    assert as_dicts(X) == [ref_row(t, n_bits, ngram, signed) for t in texts]
    ascii_texts = [t for t in texts if t.isascii()]
    hv = HashingVectorizer(n_features=2**n_bits, ngram_range=(1, ngram), alternate_sign=signed,
                           norm=None, token_pattern=r"(?u)\b\w+\b")
    Y = hv.transform(ascii_texts)
    Y.eliminate_zeros()
    Z = TextHasher(n_bits, ngram, signed).transform(ascii_texts)
    assert len(ascii_texts) > 50 and (Z != Y).nnz == 0


def test_reader_on_sms_spam():
    path = data_path("sms_spam/SMSSpamCollection")
    parts = list(read_text(str(path), n_bits=16, ngram=2, chunk_size=1000))
    X = sp.vstack([p[0] for p in parts]).tocsr()
    y = np.concatenate([p[1] for p in parts])
    lines = path.read_bytes().decode("utf-8").splitlines()
    assert X.shape == (5574, 2**16) and len(lines) == 5574
    assert set(y) == {"ham", "spam"} and (y == "spam").sum() == 747
    texts = [line.split("\t", 1)[1] for line in lines]
    assert as_dicts(X[:400]) == [ref_row(t, 16, 2, False) for t in texts[:400]]


def test_reader_labels_errors_and_stdin(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"1\tHello World\n\n-1\thello\r\n0.5\t\n")
    (X, y), = list(read_text(str(path), n_bits=10))
    assert y.tolist() == [1.0, -1.0, 0.5] and X.shape == (3, 1024)
    assert X[0].sum() == 2 and X[1].sum() == 1 and X[2].nnz == 0
    assert (X[1] != X[0].multiply(X[1])).nnz == 0  # 'hello' lands on the same column
    path.write_bytes(b"ham\tok\nspam\tWIN\nno tab here\n")
    with pytest.raises(DataFormatError, match=r"t\.txt:3: no tab"):
        list(read_text(str(path)))
    path.write_bytes(b"1\tok\nspam\tWIN\n")
    with pytest.raises(DataFormatError, match=r"t\.txt:2: label 'spam' is not a number"):
        list(read_text(str(path)))
    with pytest.raises(ValueError, match="ngram"):
        read_text(str(path), ngram=0)
    with pytest.raises(TypeError, match="list of texts"):
        TextHasher().transform("one text")


def test_pipeline_learns_from_strings():
    from olearn.linear.pa import PAClassifier
    pipe = TextPipeline(PAClassifier(), TextHasher(12))
    for _ in range(3):
        pipe.learn_one("win free money now", "spam")
        pipe.learn_one("see you at lunch", "ham")
    assert pipe.predict_one("free money") == "spam"
    assert pipe.predict(["lunch at noon?", "WIN now"]).tolist() == ["ham", "spam"]


def test_pipeline_learns_from_hashed_dicts():
    from olearn.io.hashing import DictHasher
    from olearn.linear.pa import PAClassifier
    pipe = TextPipeline(PAClassifier(), DictHasher(10))
    for _ in range(3):
        pipe.learn_one({"word=free": 1.0, "len": 0.5}, 1)
        pipe.learn_one({"word=lunch": 1.0, "len": 0.3}, -1)
    assert pipe.learner.n_features_in_ == 1024
    assert pipe.predict_one({"word=free": 1.0}) == 1
    assert pipe.predict_one({"word=lunch": 2.0}) == -1
