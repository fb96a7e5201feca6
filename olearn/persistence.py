"""Saving and loading models in a safe format: no pickle, no code executed on load.

A model file is a numpy ``.npz`` archive holding the learner's state arrays and one
JSON document (``__meta__``): format name and version, olearn and numpy versions, the
learner's class (which must be a registered olearn learner), its hyper-parameters, and
its fitted scalars, labels and vocabulary.  Files are written to a temporary name in
the target folder and renamed into place, so a crash never leaves half a model.
Plain ``pickle``/``joblib`` also work, as for any scikit-learn estimator.
"""
import json
import os
import tempfile
import zipfile

import numpy as np

FORMAT = "olearn-model"
FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A model file that cannot be read: missing, corrupt, or not an olearn model."""


def _encode_label(v):
    v = v.item() if isinstance(v, np.generic) else v
    for kind in (bool, int, float, str):
        if type(v) is kind:
            return [kind.__name__, v]
    raise TypeError(f"cannot save a class label of type {type(v).__name__}: labels must be "
                    "bool, int, float or str")


_DECODE = {"bool": bool, "int": int, "float": float, "str": str}


def save(model, path):
    """Write ``model`` to ``path`` atomically."""
    from . import __version__
    from .registry import registered_classes
    cls_name = f"{type(model).__module__}.{type(model).__qualname__}"
    if cls_name not in registered_classes():
        raise TypeError(f"{cls_name} is not a registered olearn learner")
    if not hasattr(model, "state_"):
        raise ValueError("cannot save a model that has not learned anything yet")
    params = model.get_params(deep=False)
    try:
        json.dumps(params, allow_nan=True)
    except TypeError as exc:
        raise TypeError(f"cannot save parameters of {cls_name}: {exc}") from None
    fitted = {"n_features_in_": int(model.n_features_in_), "t_": int(model.t_),
              "n_updates_": int(model.n_updates_)}
    arrays = {f"state/{k}": v for k, v in model.state_.items()}
    if hasattr(model, "classes_"):
        fitted["classes_"] = [_encode_label(c) for c in model.classes_]
        fitted["classes_dtype"] = model.classes_.dtype.str if model.classes_.dtype.kind != "O" \
            else "object"
        fitted["classes_given"] = bool(model._classes_given)
        arrays["seen_"] = model.seen_
    if model.vocabulary_ is not None:
        fitted["vocabulary"] = model.vocabulary_.to_list()
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "olearn_version": __version__,
            "numpy_version": np.__version__, "class": cls_name, "params": params,
            "fitted": fitted}
    arrays["__meta__"] = np.array(json.dumps(meta))
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".olearn-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load(path):
    """Read a model written by ``save``; raises ModelFileError on anything else."""
    from .registry import registered_classes
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ModelFileError(f"{path}: no such model file")
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["__meta__"]))
            arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelFileError(f"{path}: not a readable olearn model file ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not an olearn model file")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: model format version {meta.get('format_version')} is "
                             f"not supported (this olearn reads version {FORMAT_VERSION})")
    classes = registered_classes()
    if meta.get("class") not in classes:
        raise ModelFileError(f"{path}: unknown learner class {meta.get('class')!r}")
    try:
        model = classes[meta["class"]](**meta["params"])
        fitted = meta["fitted"]
        model.state_ = {k.split("/", 1)[1]: np.ascontiguousarray(v, dtype=np.float64)
                        for k, v in arrays.items() if k.startswith("state/")}
        missing = {s.name for s in model._slots} - set(model.state_)
        if missing:
            raise ValueError(f"missing state arrays {sorted(missing)}")
        model.n_features_in_ = fitted["n_features_in_"]
        model.t_ = fitted["t_"]
        model.n_updates_ = fitted["n_updates_"]
        model.vocabulary_ = None
        if "vocabulary" in fitted:
            from .io.dicts import Vocabulary
            model.vocabulary_ = Vocabulary.from_list(fitted["vocabulary"])
        if "classes_" in fitted:
            labels = [_DECODE[t](v) for t, v in fitted["classes_"]]
            dtype = object if fitted["classes_dtype"] == "object" else np.dtype(fitted["classes_dtype"])
            model.classes_ = np.array(labels, dtype=dtype)
            model._class_index = {c: i for i, c in enumerate(labels)}
            model._classes_given = fitted["classes_given"]
            model.seen_ = np.ascontiguousarray(arrays["seen_"], dtype=np.uint8)
    except (TypeError, ValueError, KeyError) as exc:
        raise ModelFileError(f"{path}: corrupt olearn model file ({exc})") from None
    return model
