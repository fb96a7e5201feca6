"""Request bodies: parsed and checked completely before anything changes.

Every problem is a :class:`ServeError` with an HTTP status and a one-line message:
400 for malformed JSON (NaN and Infinity included), wrong types and non-finite
numbers, 413 for more rows or features than the limits allow.
"""
import json
import math
import re
from typing import NamedTuple

_ROW_KEYS = {"x", "y", "w"}
_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
MAX_ID = 200
MAX_LABEL = 200


class ServeError(Exception):
    """An answer other than 200: ``status`` and a one-line ``message``."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, " ".join(str(message).split())[:500]


class Limits(NamedTuple):
    body_bytes: int = 32 << 20
    rows: int = 100_000
    features: int = 100_000


class Learn(NamedTuple):
    id: object
    X: list
    y: list
    w: object      # list of weights, or None when every weight is 1
    dicts: bool    # rows are {name: value} dicts (else lists of numbers)
    pipeline: object = None  # how the client read the rows (see parse_pipeline)


class Predict(NamedTuple):
    X: list
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


def parse_learn(body, limits):
    """A learn or predict_learn body: ``{"rows": [{"x": ..., "y": ..., "w": ...}],
    "id": "..."}``."""
    doc = parse_json(body)
    _keys(doc, {"rows", "id", "pipeline"}, "the body")
    pipeline = parse_pipeline(doc.get("pipeline"))
    rid = doc.get("id")
    if rid is not None and not (isinstance(rid, str) and 0 < len(rid) <= MAX_ID):
        raise ServeError(400, f"'id' must be a string of 1 to {MAX_ID} characters")
    rows = _rows(doc, limits)
    dicts = isinstance(rows[0], dict) and isinstance(rows[0].get("x"), dict)
    X, y, w, width = [], [], [], None
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or "x" not in row or "y" not in row:
            raise ServeError(400, f"row {k} must be an object with 'x' and 'y'")
        if len(row) > 2:
            _keys(row, _ROW_KEYS, f"row {k}")
        x, label, weight = row["x"], row["y"], row.get("w", 1.0)
        _check_x(x, k, limits, dicts)
        if not dicts:
            width = len(x) if width is None else width
            if len(x) != width:
                raise ServeError(400, f"row {k} has {len(x)} values, row 0 has {width}")
        if isinstance(label, str):
            if len(label) > MAX_LABEL:
                raise ServeError(400, f"row {k}: label longer than {MAX_LABEL} characters")
        elif isinstance(label, bool) or not _finite([label]):
            raise ServeError(400, f"row {k}: y must be a finite number or a string")
        if isinstance(weight, bool) or not _finite([weight]) or weight < 0:
            raise ServeError(400, f"row {k}: w must be a finite number >= 0")
        X.append(x)
        y.append(label)
        w.append(weight)
    if all(v == 1.0 for v in w):
        w = None
    return Learn(rid, X, y, w, dicts, pipeline)


def parse_predict(body, limits):
    """A predict body: ``{"rows": [x, ...], "scores": bool, "proba": bool}``."""
    doc = parse_json(body)
    _keys(doc, {"rows", "scores", "proba"}, "the body")
    for flag in ("scores", "proba"):
        if not isinstance(doc.get(flag, False), bool):
            raise ServeError(400, f"'{flag}' must be true or false")
    rows = _rows(doc, limits)
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
