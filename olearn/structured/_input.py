"""Sequences to the kernels' batch: token rows in CSR form, hashed.

A batch is a list of sequences; a sequence a list (or tuple, or 1-D array) of
tokens, all of one kind across the batch:

* strings: raw tokens, through the default template (:mod:`.template`);
* lists (or tuples) of feature names: each name a feature of value 1 (CRFsuite's
  ``xseq`` of attribute strings);
* dicts ``{name: value}``: each name a feature of that value (names hashed the same
  way, so ``["a"]`` and ``{"a": 1.0}`` are one feature, and the two may mix).

Names are hashed with MurmurHash3 (seed 0) to one of the model's ``2**bits`` rows, in
one compiled call per batch; the Python side only joins the strings (a handful of C
calls, no loop per feature).
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


def _byte_spans(strings):
    """The UTF-8 bytes of ``strings`` one after another (uint8) and each one's end."""
    joined = "".join(strings)
    if joined.isascii():
        buf = joined.encode("ascii")
        ends = np.cumsum(np.fromiter(map(len, strings), np.int64, len(strings)))
    else:
        raw = [s.encode("utf-8", "surrogatepass") for s in strings]
        buf = b"".join(raw)
        ends = np.cumsum(np.fromiter(map(len, raw), np.int64, len(raw)))
    return np.frombuffer(buf or b"\0", dtype=np.uint8), ends.astype(np.int64)


def _token_spans(tokens):
    """``(buffer, starts, ends)`` of the UTF-8 bytes of ``tokens`` and of their lower
    case (two triples): the tokens joined by NUL bytes, encoded and lowered in one call
    each (Python's ``lower`` of the joined text is each token's, the separator being no
    letter); tokens that hold a NUL themselves are encoded one by one."""
    joined = "\0".join(tokens)
    out = []
    for text in (joined, joined.lower()):
        buf = np.frombuffer(bytearray(text.encode("utf-8", "surrogatepass") + b"\0"),
                            dtype=np.uint8)   # (writable: the kernel's one buffer type)
        ends = np.flatnonzero(buf == 0)
        if len(ends) != len(tokens):
            break
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        out.append((buf, starts, ends))
    else:
        return out
    out = []
    for strings in (tokens, [t.lower() for t in tokens]):
        buf, ends = _byte_spans(strings)
        buf = buf.copy()
        starts = np.zeros_like(ends)
        starts[1:] = ends[:-1]
        out.append((buf, starts, ends))
    return out


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
        (wbuf, wstarts, wends), (lbuf, lstarts, lends) = _token_spans(tokens)
        idx = np.empty(K.MAX_TEMPLATE * n, dtype=np.int64)
        fptr = np.empty(n + 1, dtype=np.int64)
        m = K.template_features(wbuf, wstarts, wends, lbuf, lstarts, lends, sptr, mask,
                                np.zeros(K.MAX_SHAPE, np.uint8), idx, fptr)
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
        buf, ends = _byte_spans(names)
    except TypeError:  # (join refuses anything but str)
        bad = next(name for name in names if not isinstance(name, str))
        raise ValueError(f"{what}: feature names must be strings, got {bad!r}") from None
    idx = K.hash_names(buf, ends, 0, mask) if names else np.zeros(0, np.int64)
    return Batch(idx, np.ones(len(names)) if val is None else val, fptr, sptr, FEATURES)
