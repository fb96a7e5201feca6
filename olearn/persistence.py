"""Saving and loading models in a safe format: no pickle, no code executed on load.

A model file is a numpy ``.npz`` archive holding the learner's state arrays and one
JSON document (``__meta__``): format name and version, olearn and numpy versions, the
learner's class (which must be a registered olearn learner), its hyper-parameters, and
its fitted scalars, labels and vocabulary.  Files are written to a temporary name in
the target folder and renamed into place, so a crash never leaves half a model; they get
the user's default permissions (the umask), like any file the user writes.
Plain ``pickle``/``joblib`` also work, as for any scikit-learn estimator.

What a model holds is its own business: ``save`` asks it through the protocol's
``model.export_state()`` (JSON-able metadata and named arrays) and ``load`` rebuilds it
with ``cls.from_state(params, metadata, arrays)`` (``olearn.protocol``); a persistable
class outside the protocol (portfolio strategies, recommenders ...) answers the same two
hooks (round 2's ``_export()`` / ``_import(...)``, which only olearn's own classes could
define, as only they are saved, are gone from them).

The metadata may also hold the model's input pipeline (``pipeline``: how its rows were
read, e.g. ``{"format": "vw", "bits": 20, "quadratic": ["ab"], ...}``), written by
``olearn train`` (``olearn/cli/_pipeline.py``) and by a saved
:class:`olearn.io.TextPipeline` (which ``load`` gives back as one); a file without one
loads as before.
"""
from __future__ import annotations

import importlib
import json
import os
import secrets
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ._typing import Path, State

_C = TypeVar("_C", bound=type)

import numpy as np

from ._internals import internals

FORMAT = "olearn-model"
FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A model file that cannot be read: missing, corrupt, or not an olearn model."""


#: classes that are not registered learners but save and load through this format
#: (portfolio strategies, recommenders, detectors ...): qualified name -> class
_PERSISTABLE: dict[str, type] = {}

#: the modules outside olearn's learner packages that hold them (portfolio
#: strategies, recommenders, detectors, decompositions, two wrappers): with the modules
#: of ``olearn.registry.LEARNER_PACKAGES`` (every one of which ``tests/test_registry.py``
#: imports), the only modules ``load`` may import for a class a file names
#: (:func:`loadable_module`); a file naming any other module (``olearn.__main__``, which
#: runs the command line) is refused without importing it.  A new wrapper in a learner
#: package (``olearn.ensemble``, ``olearn.multiclass``, ...) needs no line here.
PERSISTABLE_MODULES = frozenset({
    "olearn._nested", "olearn.preprocessing", "olearn.drift.on_drift",
    "olearn.decomposition.incremental_svd", "olearn.decomposition.online_pca",
    "olearn.drift.adwin", "olearn.drift.ddm", "olearn.drift.eddm", "olearn.drift.page_hinkley",
    "olearn.recommend.pmf", "olearn.recommend.brand_svd", "olearn.recommend.mf",
    *(f"olearn.portfolio.{m}" for m in ("anticor", "bcrp", "best_stock", "crp", "cwmr",
                                        "eg", "olmar", "ons", "pamr", "rmr", "ubah", "up")),
})


def loadable_module(module: str) -> bool:
    """Whether ``load`` may import ``module`` to find a class a file names: a module of
    the static table, or a module (a plain dotted name, no ``__main__``) of one of
    olearn's learner packages, which define classes and run nothing when imported."""
    if module in PERSISTABLE_MODULES:
        return True
    from .registry import LEARNER_PACKAGES, MULTILABEL_PACKAGES
    parts = module.split(".") if isinstance(module, str) else []
    return len(parts) >= 3 and all(p.isidentifier() and not p.startswith("__")
                                   for p in parts) and \
        any(module.startswith(package + ".")
            for package in LEARNER_PACKAGES + MULTILABEL_PACKAGES)


def persistable(cls: _C) -> _C:
    """Class decorator: ``save``/``load`` accept instances of ``cls`` (an olearn class
    with ``get_params``, ``export_state()`` and ``cls.from_state(params, metadata, arrays)``)."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    if not loadable_module(cls.__module__):
        raise TypeError(f"{name}: only olearn's own classes, of the modules load may "
                        "import (olearn.persistence.loadable_module), can be made "
                        "persistable")
    _PERSISTABLE[name] = cls
    return cls


def exported(model: Any) -> State:
    """``model.export_state()``: (metadata, arrays)."""
    return model.export_state()


def imported(cls: Any, params: dict[str, Any], meta: dict[str, Any],
             arrays: dict[str, Any]) -> Any:
    """``cls.from_state(params, meta, arrays)``."""
    return cls.from_state(params, meta, arrays)


def known_class(name: Any) -> Any:
    """The class a model file names, or None: a registered learner (its own module
    imported, no other learner's) or a persistable class or meta-model, whose module is
    imported on demand, but only a module :func:`loadable_module` allows."""
    from .registry import learner_class
    if not isinstance(name, str):
        return None
    learner = learner_class(name)
    if learner is not None:
        return learner
    module = name.rpartition(".")[0]
    if name not in _PERSISTABLE and loadable_module(module):
        try:
            importlib.import_module(module)
        except ImportError:
            return None
    return _PERSISTABLE.get(name)


_known_class = known_class  # the name before round 4


def parameter_record(value: Any) -> Any:
    """A parameter value as a model file holds it: an optimiser as its record, anything
    else as it is (the nested models of a wrapper go through the same rule)."""
    from .optim import encode_params
    return encode_params({"p": value})["p"]


def parameter_value(value: Any) -> Any:
    """:func:`parameter_record` undone: an optimiser's record made an optimiser again."""
    from .optim import decode_params
    return decode_params({"p": value})["p"]


def save(model: Any, path: Path, pipeline: dict[str, Any] | None = None) -> None:
    """Write ``model`` to ``path`` atomically; ``pipeline`` (a JSON-able dict: how the
    model's input is read) goes into the metadata.  A model with a ``_saved_pipeline()``
    (a :class:`~olearn.io.TextPipeline`) saves its learner and its own pipeline."""
    from . import __version__
    from .registry import learner_class
    split = internals(model).saved_pipeline  # (a TextPipeline's)
    if callable(split):
        model, pipeline = split()
    form = internals(model).saved_form  # (a meta-model's)
    if callable(form):  # a meta-model (its parameters hold models): see olearn._nested
        model = form()
    cls_name = f"{type(model).__module__}.{type(model).__qualname__}"
    learner = learner_class(cls_name) is type(model)
    if not learner and cls_name not in _PERSISTABLE:
        raise TypeError(f"{cls_name} is not a registered olearn learner")
    if learner and not hasattr(model, "state_"):
        raise ValueError("cannot save a model that has not learned anything yet")
    from .optim import encode_params  # (an optimiser parameter, as its record)
    params = encode_params(model.get_params(deep=False))
    try:
        json.dumps(params, allow_nan=True)
    except TypeError as exc:
        raise TypeError(f"cannot save parameters of {cls_name}: {exc}") from None
    fitted, arrays = exported(model)
    infinite = internals(model).saves_infinity  # (a drift detector's running minimum)
    for name, a in arrays.items():  # (load refuses such a file: the model would be lost)
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc" and not (
                ~np.isnan(a) if infinite else np.isfinite(a)).all():
            raise ValueError(f"cannot save {type(model).__name__}: its state "
                             f"{name.rpartition('/')[2]} holds NaN or infinity (the model "
                             "diverged; fit it afresh)")
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "olearn_version": __version__,
            "numpy_version": np.__version__, "class": cls_name, "params": params,
            "fitted": fitted}
    if pipeline is not None:
        try:
            meta["pipeline"] = json.loads(json.dumps(pipeline))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"cannot save the input pipeline of {cls_name}: {exc}") from None
    arrays["__meta__"] = np.array(json.dumps(meta))
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        raise ValueError(f"cannot save to {path}: not a regular file (a device, FIFO or "
                         "socket would be replaced by the model)")
    path = os.path.realpath(path)  # (a symbolic link's target is replaced, the link kept)
    folder = os.path.dirname(os.path.abspath(path))
    _remove_stale(folder)
    tmp = os.path.join(folder, f".olearn-{os.getpid()}-{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _remove_stale(folder):
    """Remove the temporary files of saves killed before their rename: those whose
    process (named in the file) no longer runs on this machine."""
    try:
        names = [n for n in os.listdir(folder)
                 if n.startswith(".olearn-") and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(".olearn-"):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # still running: maybe saving right now
        except ProcessLookupError:
            pass
        except (OSError, ValueError, OverflowError):
            continue  # not ours to judge (another user's process, say)
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def _inflated_size(path):
    """The sizes the members of the archive at ``path`` declare, summed, read from its
    directory before any member is (a 4 MB file with a 4 GB zero-filled member took
    105 s to inflate before it was refused); 0 for a file that is no zip archive (what
    then reads it refuses it).  A member is never read past its declared size."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as zf:
            return sum(info.file_size for info in zf.infolist())
    except Exception:
        return 0


def load(path: Path, pipeline: bool = False) -> Any:
    """Read a model written by ``save``; raises ModelFileError on anything else.  A
    saved :class:`~olearn.io.TextPipeline` comes back as one.  With ``pipeline``:
    ``(model, record)``, the input pipeline recorded in the file (None if none) beside
    the bare model."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ModelFileError(f"{path}: no such model file")
    inflated = _inflated_size(path)
    if inflated > 2 * os.path.getsize(path) + (1 << 20):
        raise ModelFileError(f"{path}: not an olearn model file (its members would inflate "
                             f"to {inflated:,} bytes; olearn writes them uncompressed)")
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            meta = None  # a .npy array or some other file: not a model
        else:
            with z:
                meta = json.loads(str(z["__meta__"])) if "__meta__" in z.files else None
                arrays = {k: z[k] for k in z.files if k != "__meta__"}
    except Exception:  # whatever a damaged archive raises (zip, zlib, json, numpy ...)
        meta = None  # (never repeat numpy's hint to allow pickles)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not an olearn model file")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelFileError(f"{path}: model format version {meta.get('format_version')!r} "
                             f"is not supported (this olearn reads version {FORMAT_VERSION})")
    try:
        cls = known_class(meta.get("class"))
    except Exception:
        cls = None
    if cls is None:
        raise ModelFileError(f"{path}: unknown learner class {str(meta.get('class'))[:80]!r}")
    from ._state import StateLayoutError
    try:
        from .optim import decode_params
        model = imported(cls, decode_params(meta["params"]), meta["fitted"], arrays)
        record = meta.get("pipeline")
        if pipeline:
            return model, (record if isinstance(record, dict) else None)
        if isinstance(record, dict) and record.get("api") == "TextPipeline":
            from .io.text import TextPipeline
            return TextPipeline.from_record(model, record)
        return model
    except StateLayoutError as exc:
        raise ModelFileError(
            f"{path}: written by an olearn (version {str(meta.get('olearn_version'))[:20]}) "
            f"whose {cls.__name__} kept other state ({str(exc)[:200]}); this olearn "
            "cannot read it: train the model again") from None
    except Exception as exc:  # every check of _import, and anything a tampered file causes
        raise ModelFileError(f"{path}: corrupt olearn model file "
                             f"({type(exc).__name__}: {str(exc)[:200]})") from None
