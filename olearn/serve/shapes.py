"""What a served model's rows are, by its ``target`` (``olearn.tags(model).target``):
how a checked request is applied to the model (also what a replay of the log calls),
how its predictions are made, and the shape of the rows it reads (its pipeline).

``"label"``/``"value"``: a dict row by ``learn_one``, rows of numbers by one
``partial_fit``; predictions are labels or numbers (``scores``: ``decision_function``,
``proba``: ``predict_proba``).  ``"none"`` (detectors, clustering): rows learned with no
target; predictions are the model's answers (-1 an outlier, +1 an inlier for a
detector) and ``scores`` its anomaly scores (``score_many``: higher = more anomalous,
River's ``score_one`` of each row).  ``"labels"``: ``y`` a label set,
predictions label sets (lists), ``scores`` the (n, L) ``decision_function`` with the
labels' order in ``labels``.  ``"sequence"``: a row is a list of tokens, ``y`` its tags;
a request's rows learned in one ``partial_fit``, predictions lists of tags.
"""
import numpy as np
import scipy.sparse as sp

from .body import ServeError


def target_of(model):
    """The model's target declaration (``"label"`` for a model that declares none)."""
    return getattr(model, "target", None) or "label"


def count(X):
    """The number of rows of a request (a list or a CSR matrix)."""
    return X.shape[0] if sp.issparse(X) else len(X)


def learned(model):
    """Whether the model has learned anything (its width, state or labels are set)."""
    return any(getattr(model, name, None) is not None
               for name in ("n_features_in_", "state_", "classes_"))


def plain(values):
    """Numpy scalars (and lists of them) as JSON numbers or strings."""
    return [plain(v) if isinstance(v, (list, tuple, np.ndarray)) else
            v.item() if hasattr(v, "item") else v for v in values]


def is_detector(model):
    """An anomaly detector (scikit-learn's outlier-detector kind, ``olearn.anomaly``):
    a model without a target whose ``score_many`` gives anomaly scores (k-means' and
    the decompositions' do not)."""
    tags = getattr(model, "__sklearn_tags__", None)
    return target_of(model) == "none" and tags is not None and \
        getattr(tags(), "estimator_type", None) == "outlier_detector"


def _label_lists(Y, classes):
    """The rows of an (n, L) 0/1 indicator as lists of ``classes``."""
    classes = plain(classes)
    return [[classes[j] for j in np.flatnonzero(row)] for row in np.asarray(Y)]


def _true_labels(answer):
    """River's ``{label: bool}`` as the list of the labels that are true."""
    return plain([label for label, on in answer.items() if on])


def apply_learn(model, req, predict=False):
    """Learn ``req``'s rows in order; with ``predict`` return the answers made before
    each row's update (for a detector ``(answers, anomaly scores)``).  Also what a
    replay of the log calls."""
    target = target_of(model)
    if target == "sequence":
        if predict:
            return model.predict_learn(req.X, req.y)
        model.partial_fit(req.X, req.y)
        return None
    detector = is_detector(model)
    if sp.issparse(req.X):
        if getattr(model, "vocabulary_", None) is not None:  # a model fed {name: value}
            req = req._replace(X=_column_dicts(req.X), dicts=True)
        else:
            req = req._replace(X=_at_width(model, req.X))
    if req.dicts:
        w = req.w or [1.0] * len(req.X)
        out, scores = [], []
        for k, (x, y, sw) in enumerate(zip(req.X, req.y, w)):
            try:
                if target == "none":
                    if predict and detector:
                        scores.append(model.score_one(x))
                    answer = (model.predict_learn_one(x, sample_weight=sw) if predict else
                              model.learn_one(x, sample_weight=sw))
                elif predict:
                    answer = model.predict_learn_one(x, y, sw)
                else:
                    answer = model.learn_one(x, y, sw)
                if predict:
                    out.append(_true_labels(answer) if target == "labels" else answer)
            except Exception as exc:
                exc.rows_done = k
                raise
        return ((out, scores) if detector else out) if predict else None
    X = req.X if sp.issparse(req.X) else \
        np.array(req.X, dtype=np.float64).reshape(len(req.X), -1)
    if target == "none":
        if not predict:
            model.partial_fit(X, sample_weight=req.w)
            return None
        if detector:
            answers, raw = model.predict_learn(X, return_scores="both", sample_weight=req.w)
            return np.asarray(answers).tolist(), np.asarray(raw)[:, 0].tolist()
        return np.asarray(model.predict_learn(X, sample_weight=req.w)).tolist()
    if predict:
        made = model.predict_learn(X, req.y, sample_weight=req.w)
        return (_label_lists(made, model.classes_) if target == "labels" else
                np.asarray(made).tolist())
    model.partial_fit(X, req.y, sample_weight=req.w)
    return None


def _column_dicts(X):
    """A CSR matrix's rows as ``{column number: value}`` dicts (names as strings: what a
    client sends for a sparse row)."""
    X = X.tocsr()
    indptr, indices, data = X.indptr, X.indices.tolist(), X.data.tolist()
    return [{str(indices[k]): data[k] for k in range(indptr[i], indptr[i + 1])}
            for i in range(X.shape[0])]


def _at_width(model, X):
    """A CSR matrix as wide as the model: the model widened to it (a LIBSVM stream whose
    width grows) or the matrix padded with empty columns (a narrower one)."""
    from .._estimator import widen
    width = widen(model, X.shape[1]) if learned(model) else None
    if width is not None and width > X.shape[1]:
        X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
    return X


def predict_rows(model, req):
    """``{"predictions": [...]}`` (and ``scores``/``proba`` when asked)."""
    target = target_of(model)
    if target == "sequence":
        if req.scores or req.proba:
            raise ServeError(400, "a tagger gives tags only: no scores or proba")
        if not learned(model):
            raise ServeError(409, "the model has not learned anything yet")
        return {"predictions": plain(model.predict(req.X))}
    if target == "labels" and req.dicts and getattr(model, "vocabulary_", None) is None:
        return _labels_one_by_one(model, req)
    X = _matrix(model, req)
    out = {}
    predictions = model.predict(X)
    out["predictions"] = (_label_lists(predictions, model.classes_) if target == "labels"
                          else np.asarray(predictions).tolist())
    if target == "labels":
        out["labels"] = plain(model.classes_)
    if req.scores:
        if target == "none":
            if not is_detector(model):
                raise ServeError(400, "this model gives no anomaly scores")
            out["scores"] = np.asarray(model.score_many(X)).tolist()
        else:
            out["scores"] = _call(model, "decision_function", X, "scores")
    if req.proba:
        out["proba"] = _call(model, "predict_proba", X, "proba")
    return out


def _call(model, name, X, flag):
    method = getattr(model, name, None)
    try:
        if method is None:
            raise AttributeError
        return np.asarray(method(X)).tolist()
    except (AttributeError, NotImplementedError):
        raise ServeError(400, f"this model gives no {flag}") from None


def _matrix(model, req):
    """The request's rows as the matrix the model reads (dicts through its
    vocabulary), or a 409 before the model learned anything."""
    if not learned(model):
        raise ServeError(409, "the model has not learned anything yet")
    vocabulary = getattr(model, "vocabulary_", None)
    width = model.n_features_in_
    if sp.issparse(req.X):
        if vocabulary is not None:
            req = req._replace(X=_column_dicts(req.X), dicts=True)
        elif req.X.shape[1] > width:
            raise ServeError(409, f"the model reads {width} columns; these rows have "
                                  f"{req.X.shape[1]}")
        else:
            return sp.csr_matrix((req.X.data, req.X.indices, req.X.indptr),
                                 shape=(req.X.shape[0], width))
    if req.dicts:
        if vocabulary is None:
            return _numbered(req.X, width)
        from ..io.dicts import dicts_to_csr
        return dicts_to_csr(req.X, vocabulary, grow=False)
    if vocabulary is not None:
        raise ServeError(400, "this model learned from {name: value} objects: send "
                              "rows as objects")
    return np.array(req.X, dtype=np.float64).reshape(len(req.X), -1)


def _numbered(rows, width):
    """``{column number: value}`` rows for a model that learned rows of numbers (sparse
    rows a client sends as objects keyed by the column number from 0), as a CSR."""
    indptr, columns, values = [0], [], []
    for k, x in enumerate(rows):
        for key, value in x.items():
            if not key.isdigit() or int(key) >= width:
                raise ServeError(400, f"row {k}: this model learned rows of {width} numbers: "
                                      "send lists, or objects keyed by column numbers "
                                      f"0..{width - 1} (got {key[:40]!r})")
            columns.append(int(key))
            values.append(float(value))
        indptr.append(len(columns))
    X = sp.csr_matrix((values, columns, indptr), shape=(len(rows), width))
    X.sum_duplicates()
    return X


def _labels_one_by_one(model, req):
    """A multilabel wrapper's dict rows, each through ``predict_one`` (its members hold
    the vocabularies); scores are not offered on this path."""
    if req.scores or req.proba:
        raise ServeError(400, "this model gives scores for rows of numbers only: send "
                              "rows as lists")
    if not learned(model):
        raise ServeError(409, "the model has not learned anything yet")
    return {"predictions": [_true_labels(model.predict_one(x)) for x in req.X],
            "labels": plain(model.classes_)}


def shape_of(pipe):
    """A pipeline in words: ``libsvm rows of 123 columns``, ``vw rows hashed to 2^18
    columns (-q ab)``."""
    if not pipe:
        return "rows of no stated shape"
    fmt, width, bits = pipe.get("format") or "rows", pipe.get("width"), pipe.get("hash_bits")
    text = f"{fmt} rows" if fmt != "rows" else "rows"
    if bits is not None:
        text += f" hashed to 2^{bits} columns"
    elif width is not None:
        text += (f" of {width} columns" if pipe.get("fixed", True)
                 else f" of {width} columns so far (growing)")
    if pipe.get("features"):
        text += f" ({pipe['features']})"
    return text


def merge_pipeline(have, new, name):
    """The model's pipeline once a request that read its rows as ``new`` is learned, or
    a 409 naming both.  The format, the hashing bits and the feature options must be
    the model's; a fixed width must be the model's width; a growing (LIBSVM without
    --n-features) width is at most a fixed model's width and widens a growing one."""
    if new is None:
        return have
    if not have:
        return dict(new)
    merged = dict(have)
    for key in ("format", "hash_bits", "features"):
        if have.get(key) != new.get(key) and (key in have or new.get(key) is not None):
            refuse(have, new, name)
    w, nw = have.get("width"), new.get("width")
    if nw is not None:
        if w is None:
            merged["width"], merged["fixed"] = nw, new.get("fixed", True)
        elif have.get("fixed", True):
            if nw > w or (new.get("fixed", True) and nw != w):
                refuse(have, new, name)
        elif new.get("fixed", True):
            if nw != w:
                refuse(have, new, name)
            merged["fixed"] = True
        else:
            merged["width"] = max(w, nw)
    return merged


def refuse(have, new, name):
    raise ServeError(409, f"model {name!r} reads {shape_of(have)}; these are "
                          f"{shape_of(new)}")


def check_columns(pipe, X, dicts, name):
    """Rows of a fixed-width model's shape: lists of its width, or objects whose
    column-number names are below it (a 409 naming both)."""
    if not pipe or pipe.get("width") is None or not pipe.get("fixed", True):
        return
    width = pipe["width"]
    if sp.issparse(X):
        if X.shape[1] > width:
            raise ServeError(409, f"model {name!r} reads {shape_of(pipe)}; these rows have "
                                  f"{X.shape[1]} columns")
        return
    for k, x in enumerate(X):
        if dicts:
            for key in x:
                if key.isdigit() and int(key) >= width:
                    raise ServeError(409, f"model {name!r} reads {shape_of(pipe)}; row {k} "
                                          f"has column {key}")
        elif len(x) != width:
            raise ServeError(409, f"model {name!r} reads {shape_of(pipe)}; row {k} has "
                                  f"{len(x)} values")


