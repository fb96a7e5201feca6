"""Request bodies: parsed and checked completely before anything changes.

Every problem is a :class:`ServeError` with an HTTP status and a one-line message:
400 for malformed JSON (NaN and Infinity included), wrong types and non-finite
numbers, 413 for more rows or features than the limits allow.

What a row holds follows the model's ``target`` (its declaration, ``olearn.tags``):
``"label"``/``"value"``: ``{"x": row, "y": label or number}``; ``"none"`` (anomaly
detectors, clustering): ``{"x": row}`` and no ``y``; ``"labels"`` (multilabel):
``{"x": row, "y": [label, ...]}`` (a set, possibly empty); ``"sequence"`` (taggers):
``{"x": [token, ...], "y": [tag, ...]}`` where a token is a string, a list of feature
names or an object ``{feature: number}``, and a predict row is such a list of tokens.

Rows of numbers may also come as one sparse matrix instead of ``rows``: ``{"csr":
{"indptr": [...], "indices": [...], "data": [...], "width": W}, "y": [...], "w":
[...]}`` (compressed sparse rows, column numbers from 0; a request is then one compiled
pass).  Each of the three arrays is a list of numbers or, binary-safe and several times
cheaper to write and read, a base64 string of its little-endian bytes: ``indptr`` int64,
``indices`` int32, ``data`` float64 (what ``olearn train --server`` sends).
"""
import base64
import binascii
import json
import math
import re
from typing import NamedTuple

_ROW_KEYS = {"x", "y", "w"}
_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
MAX_ID = 200
MAX_LABEL = 200
#: targets whose learn rows carry no weight ("w"): a tagger takes none
UNWEIGHTED = ("sequence",)


class ServeError(Exception):
    """An answer other than 200: ``status`` and a one-line ``message``."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, " ".join(str(message).split())[:500]


class Limits(NamedTuple):
    body_bytes: int = 32 << 20
    rows: int = 100_000
    features: int = 100_000
    #: bytes of request bodies held at once, over every connection (a 503 beyond,
    #: which clients retry), so that many large requests cannot exhaust the memory
    inflight_bytes: int = 256 << 20


class Learn(NamedTuple):
    id: object
    X: object      # a list of rows, or a scipy CSR matrix (a "csr" body)
    y: list
    w: object      # list of weights, or None when every weight is 1
    dicts: bool    # rows are {name: value} dicts (else lists of numbers)
    pipeline: object = None  # how the client read the rows (see parse_pipeline)


class Predict(NamedTuple):
    X: object      # a list of rows, or a scipy CSR matrix (a "csr" body)
    dicts: bool
    scores: bool
    proba: bool


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(body):
    """The JSON object of ``body`` (bytes), or a 400."""
    try:
        doc = json.loads(body, parse_constant=_no_constant)
    except RecursionError:
        raise ServeError(400, "malformed JSON: nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServeError(400, f"malformed JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ServeError(400, f"the body must be a JSON object, got {type(doc).__name__}")
    if isinstance(body, (bytes, bytearray)) and _SURROGATE.search(body):  # an escape
        try:
            json.dumps(doc, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            raise ServeError(400, "the body holds a lone UTF-16 surrogate (an escape "
                                  "like \\udc80 that is not half of a pair): not text")
    return doc


def _keys(doc, allowed, what):
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise ServeError(400, f"unknown field {unknown[0]!r} in {what}; "
                              f"allowed: {', '.join(sorted(allowed))}")


def _finite(values):
    try:
        return math.isfinite(sum(values))
    except (TypeError, OverflowError):
        return False


def _check_x(x, k, limits, dicts):
    if dicts != isinstance(x, dict) or not isinstance(x, (dict, list)):
        raise ServeError(400, f"row {k}: x must be " + (
            "an object {name: number} like the first row's" if dicts else
            "a list of numbers like the first row's" if dicts is False else
            "an object {name: number} or a list of numbers"))
    if len(x) > limits.features:
        raise ServeError(413, f"row {k} has {len(x)} features; the limit is "
                              f"{limits.features}")
    values = x.values() if dicts else x
    if not _finite(values):
        for v in values:
            if not _finite([v]) or isinstance(v, str):
                raise ServeError(400, f"row {k}: feature value {str(v)[:40]!r} is not a "
                                      "finite number")


def _csr(doc, limits):
    """The ``csr`` object of a body as a scipy CSR matrix, checked whole (a 400 or 413
    naming what is wrong)."""
    import numpy as np
    import scipy.sparse as sp
    csr = doc.get("csr")
    if not isinstance(csr, dict):
        raise ServeError(400, "'csr' must be an object {indptr, indices, data, width}")
    _keys(csr, {"indptr", "indices", "data", "width"}, "'csr'")
    width = csr.get("width")
    if isinstance(width, bool) or not isinstance(width, int) or not 0 < width < 2 ** 31:
        raise ServeError(400, "csr 'width' must be an integer in 1..2^31-1")
    arrays = []
    for key in ("indptr", "indices", "data"):
        values = csr.get(key)
        if isinstance(values, str):
            arrays.append(_binary(key, values))
            continue
        if not isinstance(values, list):
            raise ServeError(400, f"csr '{key}' must be a list of numbers or a base64 "
                                  "string")
        try:
            if key == "data":
                arr = np.array(values, dtype=np.float64)
                ok = bool(np.all(np.isfinite(arr)))
            else:
                arr = np.array(values) if values else np.zeros(0, dtype=np.int64)
                ok = arr.ndim == 1 and arr.dtype.kind in "iu"
                arr = arr.astype(np.int64) if ok else arr
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok or arr.ndim != 1:
            raise ServeError(400, f"csr '{key}' must hold only " +
                             ("finite numbers" if key == "data" else "integers"))
        arrays.append(arr)
    indptr, indices, data = arrays
    n = len(indptr) - 1
    if n < 1:
        raise ServeError(400, "csr 'indptr' must hold at least 2 entries (one row)")
    if n > limits.rows:
        raise ServeError(413, f"{n} rows in one request; the limit is {limits.rows}")
    if indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != len(indices) or \
            len(indices) != len(data):
        raise ServeError(400, "csr 'indptr' must start at 0, never decrease and end at the "
                              "length of 'indices' and 'data' (which must be equal)")
    if len(indices) and (indices.min() < 0 or indices.max() >= width):
        raise ServeError(400, f"csr 'indices' must be column numbers in 0..{width - 1}")
    if np.any(np.diff(indptr) > limits.features):
        raise ServeError(413, f"a row has more than {limits.features} features; the limit "
                              f"is {limits.features}")
    X = sp.csr_matrix((data, indices, indptr), shape=(n, width))
    X.sum_duplicates()
    return X


#: the little-endian type of each array of a "csr" object sent as base64
BINARY = {"indptr": "<i8", "indices": "<i4", "data": "<f8"}


def _binary(key, text):
    """A csr array sent as a base64 string of its little-endian bytes."""
    import numpy as np
    dtype = np.dtype(BINARY[key])
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise ServeError(400, f"csr '{key}' is not valid base64") from None
    if len(raw) % dtype.itemsize:
        raise ServeError(400, f"csr '{key}' must be base64 of little-endian "
                              f"{dtype.name} values ({dtype.itemsize} bytes each)")
    arr = np.frombuffer(raw, dtype=dtype)
    if key == "data":
        if not np.all(np.isfinite(arr)):
            raise ServeError(400, "csr 'data' must hold only finite numbers")
        return arr.astype(np.float64)
    return arr.astype(np.int64)


def _rows(doc, limits):
    rows = doc.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ServeError(400, "'rows' must be a non-empty list")
    if len(rows) > limits.rows:
        raise ServeError(413, f"{len(rows)} rows in one request; the limit is {limits.rows}")
    return rows


#: what a client says of how it read its rows: the file format, the width (columns;
#: ``fixed`` false when a LIBSVM reader grows it as columns come), the hashing bits,
#: and the feature options (quadratic, cubic, ignore, ngram) in one string
PIPELINE_KEYS = {"format": str, "width": int, "fixed": bool, "hash_bits": int,
                 "features": str}


def parse_pipeline(doc):
    """A pipeline object, checked (None when absent)."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise ServeError(400, "'pipeline' must be an object")
    _keys(doc, set(PIPELINE_KEYS), "the pipeline")
    for key, value in doc.items():
        kind = PIPELINE_KEYS[key]
        if value is not None and (not isinstance(value, kind) or
                                  (kind is int and (isinstance(value, bool) or value < 0)) or
                                  (kind is str and len(value) > 200)):
            raise ServeError(400, f"pipeline {key!r} must be "
                                  f"{'an integer >= 0' if kind is int else kind.__name__}")
    return doc


def _label(label, k, what="y"):
    if isinstance(label, str):
        if len(label) > MAX_LABEL:
            raise ServeError(400, f"row {k}: label longer than {MAX_LABEL} characters")
    elif isinstance(label, bool) or not _finite([label]):
        raise ServeError(400, f"row {k}: {what} must be a finite number or a string")
    return label


def _label_set(labels, k, limits):
    if not isinstance(labels, list):
        raise ServeError(400, f"row {k}: y must be a list of labels (the row's label set, "
                              "[] for none)")
    if len(labels) > limits.features:
        raise ServeError(413, f"row {k} has {len(labels)} labels; the limit is "
                              f"{limits.features}")
    for label in labels:
        _label(label, k, "each label")
    return labels


def _sequence(x, k, limits):
    """A sequence of tokens: strings, lists of feature names, or {feature: number}."""
    if not isinstance(x, list):
        raise ServeError(400, f"row {k}: x must be a list of tokens (a sequence)")
    if len(x) > limits.features:
        raise ServeError(413, f"row {k} has {len(x)} tokens; the limit is "
                              f"{limits.features}")
    for token in x:
        if isinstance(token, str):
            ok = len(token) <= MAX_LABEL
        elif isinstance(token, list):
            ok = len(token) <= limits.features and all(
                isinstance(f, str) and len(f) <= MAX_LABEL for f in token)
        elif isinstance(token, dict):
            ok = len(token) <= limits.features and all(
                len(f) <= MAX_LABEL for f in token) and _finite(token.values()) and not any(
                isinstance(v, (str, bool)) for v in token.values())
        else:
            ok = False
        if not ok:
            raise ServeError(400, f"row {k}: token {str(token)[:40]!r} is not a string (of at "
                                  f"most {MAX_LABEL} characters), a list of feature names or "
                                  "an object {feature: number}")
    return x


def parse_learn(body, limits, target="label"):
    """A learn or predict_learn body: ``{"rows": [{"x": ..., "y": ..., "w": ...}],
    "id": "..."}``, the rows as the model's ``target`` takes them (module docstring)."""
    doc = parse_json(body)
    _keys(doc, {"rows", "id", "pipeline", "csr", "y", "w"}, "the body")
    pipeline = parse_pipeline(doc.get("pipeline"))
    rid = doc.get("id")
    if rid is not None and not (isinstance(rid, str) and 0 < len(rid) <= MAX_ID):
        raise ServeError(400, f"'id' must be a string of 1 to {MAX_ID} characters")
    if "csr" in doc or "y" in doc or "w" in doc:
        return _learn_csr(doc, limits, target, rid, pipeline)
    rows = _rows(doc, limits)
    sequences = target == "sequence"
    dicts = not sequences and isinstance(rows[0], dict) and isinstance(rows[0].get("x"), dict)
    X, y, w, width = [], [], [], None
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or "x" not in row:
            raise ServeError(400, f"row {k} must be an object with 'x'" +
                             ("" if target == "none" else " and 'y'"))
        if target == "none":
            if "y" in row:
                raise ServeError(400, f"row {k}: this model learns from rows without a "
                                      "target; send no 'y'")
        elif "y" not in row:
            raise ServeError(400, f"row {k} must be an object with 'x' and 'y'")
        if len(row) > 2:
            _keys(row, _ROW_KEYS, f"row {k}")
        x, label, weight = row["x"], row.get("y"), row.get("w", 1.0)
        if sequences:
            _sequence(x, k, limits)
            if not isinstance(label, list) or len(label) != len(x):
                raise ServeError(400, f"row {k}: y must be a list of tags, one per token "
                                      f"({len(x)})")
            for tag in label:
                _label(tag, k, "each tag")
        else:
            _check_x(x, k, limits, dicts)
            if not dicts:
                width = len(x) if width is None else width
                if len(x) != width:
                    raise ServeError(400, f"row {k} has {len(x)} values, row 0 has {width}")
            if target == "labels":
                _label_set(label, k, limits)
            elif target != "none":
                _label(label, k)
        if isinstance(weight, bool) or not _finite([weight]) or weight < 0:
            raise ServeError(400, f"row {k}: w must be a finite number >= 0")
        if target in UNWEIGHTED and weight != 1.0:
            raise ServeError(400, f"row {k}: this model takes no weights ('w')")
        X.append(x)
        y.append(label)
        w.append(weight)
    if all(v == 1.0 for v in w):
        w = None
    return Learn(rid, X, y, w, dicts, pipeline)


def _learn_csr(doc, limits, target, rid, pipeline):
    """A learn body of one sparse matrix: ``{"csr": {...}, "y": [...], "w": [...]}``."""
    if "rows" in doc or "csr" not in doc:
        raise ServeError(400, "a body holds 'rows', or 'csr' with its 'y' (and 'w'), not "
                              "both")
    if target not in ("label", "value", "none"):
        raise ServeError(400, "'csr' bodies are for rows of numbers with one label, a "
                              "number or no target; this model takes 'rows'")
    X = _csr(doc, limits)
    n = X.shape[0]
    y = doc.get("y")
    if target == "none":
        if y is not None:
            raise ServeError(400, "this model learns from rows without a target; send no "
                                  "'y'")
        y = [None] * n
    elif not isinstance(y, list) or len(y) != n:
        raise ServeError(400, f"'y' must be a list of {n} labels, one per row of 'csr'")
    else:
        if not ({type(label) for label in y} <= {int, float} and _finite(y)):
            for k, label in enumerate(y):
                _label(label, k)
    w = doc.get("w")
    if w is not None:
        if not isinstance(w, list) or len(w) != n:
            raise ServeError(400, f"'w' must be a list of {n} weights, one per row")
        for k, weight in enumerate(w):
            if isinstance(weight, bool) or not _finite([weight]) or weight < 0:
                raise ServeError(400, f"row {k}: w must be a finite number >= 0")
        if all(v == 1.0 for v in w):
            w = None
    return Learn(rid, X, y, w, False, pipeline)


def parse_predict(body, limits, target="label"):
    """A predict body: ``{"rows": [x, ...], "scores": bool, "proba": bool}`` (for a
    tagger each x a list of tokens)."""
    doc = parse_json(body)
    _keys(doc, {"rows", "scores", "proba", "csr"}, "the body")
    for flag in ("scores", "proba"):
        if not isinstance(doc.get(flag, False), bool):
            raise ServeError(400, f"'{flag}' must be true or false")
    if "csr" in doc:
        if "rows" in doc or target not in ("label", "value", "none"):
            raise ServeError(400, "a body holds 'rows' or 'csr' (rows of numbers), not both")
        return Predict(_csr(doc, limits), False, doc.get("scores", False),
                       doc.get("proba", False))
    rows = _rows(doc, limits)
    if target == "sequence":
        for k, x in enumerate(rows):
            _sequence(x, k, limits)
        return Predict(rows, False, doc.get("scores", False), doc.get("proba", False))
    dicts = isinstance(rows[0], dict)
    width = None if dicts else len(rows[0]) if isinstance(rows[0], list) else None
    for k, x in enumerate(rows):
        _check_x(x, k, limits, dicts)
        if not dicts and len(x) != width:
            raise ServeError(400, f"row {k} has {len(x)} values, row 0 has {width}")
    return Predict(rows, dicts, doc.get("scores", False), doc.get("proba", False))


def parse_create(body):
    """``{"algo": NAME, "params": {...}}``."""
    doc = parse_json(body)
    _keys(doc, {"algo", "params", "pipeline"}, "the body")
    parse_pipeline(doc.get("pipeline"))
    algo, params = doc.get("algo"), doc.get("params", {})
    if not isinstance(algo, str) or not algo:
        raise ServeError(400, "'algo' must be a learner's name (see 'olearn algos')")
    if not isinstance(params, dict):
        raise ServeError(400, "'params' must be an object {name: value}")
    for key, value in params.items():
        if isinstance(value, (dict, list)) or (isinstance(value, float)
                                               and not math.isfinite(value)):
            raise ServeError(400, f"parameter {key!r} must be a number, string, "
                                  "true/false or null")
    return algo, params
