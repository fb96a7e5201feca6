"""Sequences to the kernels' batch: token rows in CSR form, hashed.

A batch is a list of sequences; a sequence a list (or tuple, or 1-D array) of
tokens, all of one kind across the batch:

* strings: raw tokens, through the default template (:mod:`.template`);
* lists (or tuples) of feature names: each name a feature of value 1 (CRFsuite's
  ``xseq`` of attribute strings);
* dicts ``{name: value}``: each name a feature of that value (names hashed the same
  way, so ``["a"]`` and ``{"a": 1.0}`` are one feature, and the two may mix).

Names are hashed with MurmurHash3 (seed 0, their UTF-8 bytes; a NUL inside a name or a
token is read as U+FFFD) to one of the model's ``2**bits`` rows, in one compiled call
per batch; the Python side only joins the strings (a handful of C calls, no loop per
feature).
"""
from __future__ import annotations

from itertools import chain, repeat
from typing import Any, NamedTuple

import numpy as np

TOKENS, FEATURES = "tokens", "features"
#: the version of the default template (``template.py``): model files of raw tokens
#: record it, and a file of another version is refused (its rows would mean other
#: features); a change to the template's features must change it
TEMPLATE_VERSION = 1
_SEQUENCE_TYPES = (list, tuple, np.ndarray)


class Batch(NamedTuple):
    idx: Any      # int64 [nnz]: the hashed row of each feature
    val: Any      # float64 [nnz]
    fptr: Any     # int64 [n_tokens + 1]: token -> its features
    sptr: Any     # int64 [n_sequences + 1]: sequence -> its tokens
    kind: str | None   # TOKENS, FEATURES, or None (no token at all)


def sequence_list(X: Any, what: str = "X") -> list:
    """``X`` as a list of sequences, or a one-line ValueError saying what it is."""
    if isinstance(X, (str, bytes, dict)) or not hasattr(X, "__iter__"):
        raise ValueError(f"{what} must be a list of sequences (each a list of tokens), "
                         f"got {type(X).__name__}")
    seqs = X if isinstance(X, list) else list(X)
    types = set(map(type, seqs))
    if not all(issubclass(t, _SEQUENCE_TYPES) for t in types):
        i, bad = next((i, s) for i, s in enumerate(seqs)
                      if not isinstance(s, _SEQUENCE_TYPES))
        hint = " (split the sentence into tokens first)" if isinstance(bad, str) else ""
        raise ValueError(f"{what}[{i}] must be a sequence (a list of tokens), got "
                         f"{type(bad).__name__}{hint}")
    return seqs


def _offsets(lengths, n):
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


def _joined(strings):
    """``strings`` joined by NUL bytes (a NUL inside one read as U+FFFD: the template's
    twin in ``template.py`` does the same), as text; TypeError for a non-str."""
    joined = "\0".join(strings)
    if joined.count("\0") != len(strings) - 1:
        joined = "\0".join(t.replace("\0", "\ufffd") for t in strings)
    return joined


def _nul_ended(text):
    """The UTF-8 bytes of ``text`` and a final NUL, as a writable uint8 array (the
    kernels find the strings' spans at the NULs)."""
    return np.frombuffer(bytearray(text.encode("utf-8", "surrogatepass") + b"\0"),
                         dtype=np.uint8)


def _token_bytes(tokens):
    """The NUL-ended bytes of ``tokens`` and of their lower case: two calls each to
    join, lower and encode the whole text (Python's ``lower`` of the joined text is each
    token's, the separator being no letter)."""
    joined = _joined(tokens)
    return _nul_ended(joined), _nul_ended(joined.lower())


def encode(X: Any, bits: int, what: str = "X") -> Batch:
    """The batch of sequences ``X`` hashed to ``2**bits`` rows."""
    from . import _kernels as K
    seqs = sequence_list(X, what)
    lengths = np.fromiter(map(len, seqs), np.int64, len(seqs))
    sptr = _offsets(lengths, len(seqs))
    tokens = list(chain.from_iterable(seqs))
    n = len(tokens)
    mask = (1 << bits) - 1
    if n == 0:
        return Batch(np.zeros(0, np.int64), np.zeros(0), np.zeros(1, np.int64), sptr, None)
    types = set(map(type, tokens))
    if all(issubclass(t, str) for t in types):
        wbuf, lbuf = _token_bytes(tokens)
        idx = np.empty(K.MAX_TEMPLATE * n, dtype=np.int64)
        fptr = np.empty(n + 1, dtype=np.int64)
        m = K.template_features(wbuf, lbuf, sptr, mask, idx, fptr)
        return Batch(idx[:m].copy(), np.ones(m), fptr, sptr, TOKENS)
    if not all(issubclass(t, (list, tuple, dict)) for t in types):
        kinds = sorted(t.__name__ for t in types)
        raise ValueError(f"{what}: the tokens must all be strings (raw tokens), or lists "
                         f"of feature names and feature dicts, got {', '.join(kinds)}")
    names = list(chain.from_iterable(tokens))
    val = None
    if any(issubclass(t, dict) for t in types):
        values = chain.from_iterable(t.values() if isinstance(t, dict) else repeat(1.0, len(t))
                                     for t in tokens)
        try:
            val = np.fromiter(values, np.float64, len(names))
        except (TypeError, ValueError):
            raise ValueError(f"{what}: a feature dict holds a value that is not a "
                             "number") from None
        if not np.isfinite(val).all():
            raise ValueError(f"{what}: a feature dict holds NaN or infinity")
    counts = np.fromiter(map(len, tokens), np.int64, n)
    fptr = _offsets(counts, n)
    try:
        buf = _nul_ended(_joined(names))
    except TypeError:  # (join refuses anything but str)
        bad = next(name for name in names if not isinstance(name, str))
        raise ValueError(f"{what}: feature names must be strings, got {bad!r}") from None
    idx = K.hash_names(buf, len(names), 0, mask)
    return Batch(idx, np.ones(len(names)) if val is None else val, fptr, sptr, FEATURES)
