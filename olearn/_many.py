"""River's mini-batch API on DataFrames: ``learn_many``, ``predict_many``,
``predict_proba_many`` (and ``learn_many``/``score_many`` of a model without a target),
through the compiled batch pass (``partial_fit``, ``predict``, ``predict_proba``).

No DataFrame library is imported by olearn: a frame is recognised by its shape (it has
``columns`` and ``to_numpy``: pandas, polars), and pandas or polars is imported only to
build the answer for a frame of that library.  The answers are River 0.26's: for a pandas
frame a ``Series`` (``predict_many``, ``score_many``) on the frame's index, named as the
label Series of the last ``learn_many`` (River's ``_y_name``), or a ``DataFrame`` of
probabilities (``predict_proba_many``) with one column per class in ``classes_`` order,
on the frame's index; for a polars frame the polars equivalents (no index).

The columns are matched by name, as River matches the keys of ``learn_one``'s dicts, and
how depends on how the model started:

* a fresh model, or one that learned from dicts (``learn_one``), has a vocabulary of
  feature names: a frame's new columns grow it (``learn_many``), unknown columns are
  ignored when predicting (as ``predict_one`` ignores unknown keys), a column the frame
  lacks is an absent feature, and a missing value (NaN, None) is an absent feature too,
  as a key missing from a dict.  So ``learn_many`` of a frame is exactly ``learn_one``
  of its rows as dicts, in order (River's ``check_learn_many_matches_learn_one``), in
  one compiled pass.  (River's linear models instead take one mean-gradient step per
  batch, and skip that check.)
* a model fitted by scikit-learn's calls on a frame (``fit``, ``partial_fit``) keeps
  scikit-learn's ``feature_names_in_``: a frame with the same columns in another order
  is reordered by name (River's matching), a frame with other columns is refused in one
  line naming them (scikit-learn refuses them too); values are checked as ``fit``'s.
* a model fitted on arrays takes the frame's columns by position, its width checked.

The wrappers (``OneVsRest``, ``OzaBagging``, ...) hold learners with their own
vocabularies: they take the frame's rows one by one as dicts (``learn_one``,
``predict_one``): correct, but without the single compiled pass.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def _frame(X: Any, call: str) -> tuple[list[Any], Any]:
    """The column names and float64 values of a DataFrame (duck typed)."""
    columns = getattr(X, "columns", None)
    if columns is None or not callable(getattr(X, "to_numpy", None)) or \
            len(getattr(X, "shape", ())) != 2:
        raise TypeError(f"{call} takes a DataFrame of features (pandas or polars), got "
                        f"{type(X).__name__}; arrays go to partial_fit/predict")
    names = list(columns)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{call}: the DataFrame has the column {dup!r} more than once")
    try:
        if _library(X) == "pandas":
            values = X.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = np.asarray(X.to_numpy(), dtype=np.float64)
    except (TypeError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{call}: every column of X must hold numbers ({reason})") from None
    return names, np.ascontiguousarray(values, dtype=np.float64)


def _library(X: Any) -> str:
    return type(X).__module__.split(".", 1)[0]


def _column(X: Any, values: Any, name: Any = None) -> Any:
    """``values`` (one per row of frame ``X``) as a Series of ``X``'s library."""
    lib = _library(X)
    if lib == "pandas":
        import pandas as pd
        return pd.Series(values, index=X.index, name=name)
    if lib == "polars":
        import polars as pl
        return pl.Series("" if name is None else str(name), list(values))
    return np.asarray(values)


def _table(X: Any, values: Any, columns: list[Any]) -> Any:
    """An (n, K) array as a frame of ``X``'s library, one column per name."""
    lib = _library(X)
    if lib == "pandas":
        import pandas as pd
        return pd.DataFrame(values, index=X.index, columns=columns)
    if lib == "polars":
        import polars as pl
        return pl.DataFrame({str(c): values[:, k] for k, c in enumerate(columns)})
    return values


def _labels(y: Any, n: int, call: str) -> tuple[Any, Any]:
    """The labels as an array, and the Series' name (River keeps it for predict_many)."""
    name = getattr(y, "name", None)
    to_numpy = getattr(y, "to_numpy", None)
    labels = to_numpy() if callable(to_numpy) else np.asarray(y)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"{call}: y has shape {labels.shape}, expected one label for each "
                         f"of the {n} rows of X")
    return labels, name


def _weights(w: Any, n: int) -> Any:
    """River's ``w`` (a number or a Series) as ``sample_weight`` (None for 1)."""
    if np.ndim(w) == 0:
        return None if float(w) == 1.0 else np.full(n, float(w))
    to_numpy = getattr(w, "to_numpy", None)
    return np.asarray(to_numpy() if callable(to_numpy) else w, dtype=np.float64)


def _is_learner(model: Any) -> bool:
    """Whether the model has the base's vocabulary and compiled pass (not a wrapper)."""
    return hasattr(model, "_row_lists") and hasattr(model, "_partial")


def _matrix(model: Any, X: Any, call: str, grow: bool) -> Any:
    """The frame as what the model's batch calls take (see the module docstring)."""
    d = model.__dict__
    names = d.get("feature_names_in_")
    if names is not None:
        names = [str(n) for n in names]
        given = [str(c) for c in getattr(X, "columns")]
        if given != names:
            missing = [n for n in names if n not in given]
            extra = [c for c in given if c not in names]
            if missing or extra:
                what = "; ".join(p for p in (
                    f"missing {', '.join(map(repr, missing[:5]))}" if missing else "",
                    f"not seen in fit {', '.join(map(repr, extra[:5]))}" if extra else "")
                    if p)
                raise ValueError(f"{call}: X's columns are not those the model was fitted "
                                 f"with ({what})")
            return X[list(names)]
        return X
    cols, values = _frame(X, call)
    if model._is_fresh() and grow or d.get("vocabulary_") is not None:
        return _by_vocabulary(model, cols, values, grow)
    return values


def _by_vocabulary(model: Any, cols: list[Any], values: Any, grow: bool) -> Any:
    """The values placed in the vocabulary's columns (grown by new names when
    ``grow``); missing values are absent features (zeros)."""
    if grow:
        model._row_lists(dict.fromkeys(cols, 1.0), grow=True)  # (starts, grows the state)
    index = model.vocabulary_._index
    where = [index.get(c) for c in cols]
    width = max(int(model.n_features_in_), 1)
    if where == list(range(width)):  # the vocabulary's columns in its order: no copy
        out = values
    else:
        keep = [k for k, j in enumerate(where) if j is not None]
        out = np.zeros((values.shape[0], width))
        if keep:
            out[:, [where[k] for k in keep]] = values[:, keep]
    missing = np.isnan(out)
    if missing.any():
        out = np.where(missing, 0.0, out)
    return out


def learn_many(model: Any, X: Any, y: Any = None, w: Any = 1.0) -> None:
    """River's ``learn_many``: the frame's rows learned in order, in one compiled pass."""
    supervised = bool(model._supervised)
    n = getattr(X, "shape", (0,))[0]
    if supervised:
        if y is None:
            raise ValueError("learn_many needs the labels y (a Series) of the rows of X")
        labels, name = _labels(y, n, "learn_many")
    sample_weight = _weights(w, n)
    if not _is_learner(model):
        cols, values = _frame(X, "learn_many")
        for i, row in enumerate(_dict_rows(cols, values)):
            sw = 1.0 if sample_weight is None else float(sample_weight[i])
            if supervised:
                model.learn_one(row, labels[i], sample_weight=sw)
            else:
                model.learn_one(row, sample_weight=sw)
    else:
        from ._locking import lock_of
        with lock_of(model):
            _learn_compiled(model, X, labels if supervised else None, sample_weight)
    if supervised:
        model.__dict__["_y_name"] = name


def _learn_compiled(model: Any, X: Any, labels: Any, sample_weight: Any) -> None:
    vocabulary = model.__dict__.get("vocabulary_")
    known = None if vocabulary is None else len(vocabulary)
    try:
        with model._atomic():
            M = _matrix(model, X, "learn_many", grow=True)
            if labels is None:
                model.partial_fit(M, sample_weight=sample_weight)
                return
            cuts = _new_class_rows(model, labels)
            for a, b in zip(cuts, cuts[1:]):
                sw = None if sample_weight is None else sample_weight[a:b]
                model.partial_fit(M[a:b], labels[a:b], sample_weight=sw)
    except BaseException:
        if known is not None and len(model.vocabulary_) > known:
            model.vocabulary_._truncate(known)
            model.__dict__.pop("_row_buf", None)
        raise


def _new_class_rows(model: Any, labels: Any) -> list[int]:
    """Where the batch is cut: at each row whose label the classifier meets for the
    first time, so that classes are added in the order they come and a row is learned
    with the classes seen before it, as ``learn_one`` does (a batch call adds a batch's
    new labels at once, sorted).  ``[0, n]`` for a regressor or no new label."""
    n = len(labels)
    if model._estimator_kind() != "classifier":
        return [0, n]
    known = model.__dict__.get("_class_index", {})
    try:
        values, first = np.unique(labels, return_index=True)
        firsts = [int(i) for v, i in zip(values.tolist(), first.tolist()) if v not in known]
    except TypeError:  # (labels numpy cannot sort: mixed kinds, refused by the pass)
        firsts = []
    inner = sorted(i for i in firsts if i > 0)
    return [0] + inner + [n]


def _dict_rows(cols: list[Any], values: Any) -> Any:
    for row in values.tolist():
        yield {c: v for c, v in zip(cols, row) if v == v}  # (NaN: absent)


def _rows_out(model: Any, X: Any, call: str, one: str) -> Any:
    """The fitted model's answer for each row through ``one`` (``predict_one``, ...):
    a wrapper's path, and a fresh model's (its ``predict_one`` answer for every row)."""
    cols, values = _frame(X, call)
    method = getattr(model, one)
    return [method(row) for row in _dict_rows(cols, values)]


def predict_many(model: Any, X: Any) -> Any:
    """River's ``predict_many``: a Series of predictions on ``X``'s index."""
    name = model.__dict__.get("_y_name")
    if not _is_learner(model) or model._is_fresh():
        return _column(X, _rows_out(model, X, "predict_many", "predict_one"), name)
    return _column(X, model.predict(_matrix(model, X, "predict_many", grow=False)), name)


def predict_proba_many(model: Any, X: Any) -> Any:
    """River's ``predict_proba_many``: a DataFrame of probabilities, a column per class."""
    if model._estimator_kind() != "classifier":
        raise AttributeError(f"{type(model).__name__} is not a classifier: no "
                             "predict_proba_many")
    if not _is_learner(model) or model._is_fresh():
        rows = _rows_out(model, X, "predict_proba_many", "predict_proba_one")
        classes = list(dict.fromkeys(c for r in rows for c in r))
        table = np.array([[r.get(c, 0.0) for c in classes] for r in rows]).reshape(
            len(rows), len(classes))
        return _table(X, table, classes)
    P = model.predict_proba(_matrix(model, X, "predict_proba_many", grow=False))
    return _table(X, np.asarray(P), list(model.classes_.tolist()))


def score_many(model: Any, X: Any) -> Any:
    """``score_one`` for each row (a model without a target), as a Series."""
    if not _is_learner(model) or model._is_fresh():
        return _column(X, _rows_out(model, X, "score_many", "score_one"))
    scores = model._scores(_matrix(model, X, "score_many", grow=False))
    return _column(X, [model._score_from_scores(s) for s in scores])
