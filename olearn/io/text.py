"""Raw text to hashed features: ``label<TAB>text`` files and a streaming vectorizer.

Tokens.  The text is read as UTF-8 bytes; a token is a maximal run of ASCII
letters, digits and ``_`` and of non-ASCII characters (every byte >= 0x80, so a
UTF-8 character is never split); everything else (blanks, punctuation, symbols)
separates tokens.  ASCII letters are lower-cased; other characters are kept as
they are.  For ASCII text these are exactly the tokens of the regular
expression ``\\w+`` on the lower-cased text (scikit-learn's token pattern
without its two-character minimum).

Features.  Each token, and with ``ngram=n`` each run of 2..n consecutive tokens
joined by one space, is hashed with MurmurHash3 (x86 32-bit, ``seed``) into
``2**n_bits`` columns as scikit-learn's ``HashingVectorizer`` does (column
``abs(h) mod 2**n_bits`` of the signed hash ``h``; with ``signed`` the count is
multiplied by the sign of ``h``); a row holds each feature's count.  On ASCII
text ``TextHasher(n_bits, ngram, signed)`` equals ``HashingVectorizer(
n_features=2**n_bits, ngram_range=(1, ngram), alternate_sign=signed, norm=None,
token_pattern=r"(?u)\\b\\w+\\b")`` (tested).

``read_text(path)`` streams ``label<TAB>text`` lines (the SMS Spam Collection
as distributed) in ``(X, y)`` chunks; labels are numbers when the first one is
a number, else strings (e.g. ``"ham"``/``"spam"``).  Blank lines are skipped; a
line without a tab is a ``DataFormatError`` naming ``path:line``.
"""
import numpy as np

from ._source import Source, check_chunk_size, show
from .errors import DataFormatError
from .libsvm import _to_csr

__all__ = ["read_text", "TextReader", "TextHasher", "TextPipeline"]


def _check(n_bits, ngram, seed):
    from .hashing import _check_seed, check_n_bits
    n_bits = check_n_bits(n_bits)
    if isinstance(ngram, bool) or not isinstance(ngram, (int, np.integer)) \
            or not 1 <= ngram <= 8:
        raise ValueError(f"ngram must be an integer from 1 to 8, got {ngram!r}")
    return n_bits, int(ngram), _check_seed(seed)


def _hash_block(buf, labelled, n_bits, ngram, signed, seed):
    from ._textparse import hash_text_block
    return hash_text_block(np.frombuffer(buf, dtype=np.uint8), labelled, n_bits, ngram,
                           bool(signed), seed)


class TextHasher:
    """Texts to hashed token counts (a stateless, streaming vectorizer).

    Parameters
    ----------
    n_bits : int, default=18
        Features are hashed into ``2**n_bits`` columns.
    ngram : int, default=1
        Also hash runs of 2..ngram consecutive tokens.
    signed : bool, default=False
        Multiply each count by the sign of its hash (collisions then cancel on
        average).
    seed : int, default=0
        MurmurHash3 seed.

    See ``olearn.io.text`` for the tokens.  ``transform(texts)`` gives a CSR
    matrix with one row per text; ``transform_one(text)`` a one-row one.
    """

    def __init__(self, n_bits=18, ngram=1, signed=False, seed=0):
        self.n_bits, self.ngram, self.seed = _check(n_bits, ngram, seed)
        self.signed = bool(signed)

    @property
    def n_features(self):
        return 1 << self.n_bits

    def transform(self, texts):
        if isinstance(texts, (str, bytes)):
            raise TypeError("transform takes a list of texts (transform_one takes one)")
        raw = []
        for t in texts:
            if isinstance(t, str):
                t = t.encode("utf-8", "surrogatepass")
            elif not isinstance(t, (bytes, bytearray)):
                raise TypeError(f"a text must be str or bytes, got {type(t).__name__}")
            raw.append(bytes(t).replace(b"\n", b" ") or b" ")
        buf = b"\n".join(raw) + b"\n" if raw else b""
        out = _hash_block(buf, False, self.n_bits, self.ngram, self.signed, self.seed)
        counts = np.zeros(len(raw), dtype=np.int64)
        counts[out[4]] = out[5]  # blank texts have no row of their own
        return _to_csr(counts, out[6], out[7], self.n_features, np.float64)

    def transform_one(self, text):
        return self.transform([text])


class TextPipeline:
    """A learner fed by a hashing vectorizer: learn from strings (or, with a
    ``DictHasher``, from feature dicts), one or many, in a fixed width.

    ``olearn.save(pipeline, path)`` writes the learner with the hasher's settings in the
    model file's input pipeline; ``olearn.load(path)`` gives the pipeline back,
    predicting from raw texts (or dicts) as before.

    Parameters
    ----------
    learner : estimator
        Any olearn learner (``partial_fit``, ``predict``, ``predict_learn``).
    hasher : TextHasher or DictHasher, default=None
        The vectorizer (default ``TextHasher()``): ``transform(examples)`` and
        ``transform_one(example)``.
    """

    def __init__(self, learner, hasher=None):
        self.learner = learner
        self.hasher = hasher if hasher is not None else TextHasher()

    def learn_one(self, text, y):
        self.learner.partial_fit(self.hasher.transform_one(text), np.array([y]))
        return self

    def predict_one(self, text):
        return self.learner.predict(self.hasher.transform_one(text))[0]

    def partial_fit(self, texts, y, **kw):
        self.learner.partial_fit(self.hasher.transform(texts), np.asarray(y), **kw)
        return self

    def predict(self, texts):
        return self.learner.predict(self.hasher.transform(texts))

    def predict_learn(self, texts, y, **kwargs):
        return self.learner.predict_learn(self.hasher.transform(texts), np.asarray(y),
                                          **kwargs)

    def _saved_pipeline(self):
        """(the learner, the input pipeline record) that ``olearn.persistence.save`` writes."""
        from .hashing import DictHasher
        h = self.hasher
        if not isinstance(h, (TextHasher, DictHasher)):
            raise TypeError(f"cannot save a TextPipeline over a {type(h).__name__}: only "
                            "TextHasher and DictHasher settings are saved")
        record = {"api": "TextPipeline", "format": "text" if isinstance(h, TextHasher)
                  else "dicts", "bits": h.n_bits, "signed": h.signed, "seed": h.seed}
        if isinstance(h, TextHasher):
            record["ngram"] = h.ngram
        return self.learner, record

    @classmethod
    def from_record(cls, learner, record):
        """The pipeline ``_saved_pipeline`` described, around the loaded ``learner``."""
        from .hashing import DictHasher
        kw = dict(n_bits=record["bits"], signed=record["signed"], seed=record["seed"])
        if record.get("format") == "text":
            return cls(learner, TextHasher(ngram=record["ngram"], **kw))
        if record.get("format") == "dicts":
            return cls(learner, DictHasher(**kw))
        raise ValueError(f"unknown TextPipeline format {str(record.get('format'))[:40]!r}")


class TextReader:
    """Iterable of ``(X_chunk, y_chunk)`` over a ``label<TAB>text`` file; see ``read_text``."""

    def __init__(self, path, n_bits=18, ngram=1, signed=False, seed=0, chunk_size=10000):
        self.n_bits, self.ngram, self.seed = _check(n_bits, ngram, seed)
        self.signed = bool(signed)
        self.n_features = 1 << self.n_bits
        self.chunk_size = check_chunk_size(chunk_size)
        self._source = Source(path)
        self.name = self._source.name

    @property
    def source(self):
        """The file being read: its ``size`` in bytes (None for a stream) and the bytes
        ``done`` so far (what a progress line shows)."""
        return self._source

    def __iter__(self):
        self._source.claim()
        numeric = None
        for lineno, buf in self._source.line_blocks(self.chunk_size):
            status, fault, ls, le, rows, counts, idx, vals = _hash_block(
                buf, True, self.n_bits, self.ngram, self.signed, self.seed)
            if status:
                raise DataFormatError(self.name, lineno + int(fault),
                                      "no tab: a line is label<TAB>text")
            if len(counts) == 0:
                continue
            labels = [buf[s:e].strip() for s, e in zip(ls.tolist(), le.tolist())]
            if numeric is None:
                numeric = _is_number(labels[0])
            y = self._labels(labels, rows, lineno, numeric)
            yield _to_csr(counts, idx, vals, self.n_features, np.float64), y

    def _labels(self, labels, rows, lineno, numeric):
        if numeric:
            try:
                return np.array([float(t) for t in labels])
            except ValueError:
                k = next(k for k, t in enumerate(labels) if not _is_number(t))
                raise DataFormatError(self.name, lineno + int(rows[k]),
                                      f"label {show(labels[k])} is not a number (the "
                                      "first label was one)") from None
        out = np.empty(len(labels), dtype=object)
        for k, t in enumerate(labels):
            if not t:
                raise DataFormatError(self.name, lineno + int(rows[k]), "empty label")
            out[k] = t.decode("utf-8", "backslashreplace")
        return out


def _is_number(token):
    try:
        float(token)
    except ValueError:
        return False
    return True


def read_text(path, n_bits=18, ngram=1, signed=False, seed=0, chunk_size=10000):
    """Stream a ``label<TAB>text`` file as ``(X_chunk, y_chunk)`` pairs of hashed
    token counts; see the module documentation.  ``path``: a path (plain,
    ``.gz``, ``.bz2``, ``.xz``), ``"-"`` for stdin, or a binary file object."""
    return TextReader(path, n_bits, ngram, signed, seed, chunk_size)
