"""River's tools take olearn models, without olearn importing River.

River's evaluation loop, pipelines, ensembles and metrics read a few attributes of a
model (``_supervised``, ``_multiclass``, ``clone``, ``_get_params``, a ``w=`` keyword of
``learn_one``) and ask its kind with ``isinstance(model, river.base.Classifier)``.
:class:`RiverTools`, a mixin of every model of the protocol (through
``olearn.protocol.Progressive``), answers them:

* ``_supervised`` is True; ``_multiclass`` is whether the model takes more than two
  classes (every olearn classifier does);
* ``clone(new_params=None, include_attributes=False)``: an unfitted copy (scikit-learn's
  ``clone``), then ``set_params(**new_params)``; with ``include_attributes`` a deep copy
  of the fitted model instead; ``_get_params()`` is ``get_params(deep=False)``;
* the kind: River's ``isinstance`` falls back, for an object that is not one of its
  classes, on the object's ``_last_step`` (how a pipeline answers for its last step).
  Here ``_last_step`` registers the model's class as a virtual subclass of River's
  ``base.Classifier`` or ``base.Regressor`` (``abc.ABCMeta.register``: no River
  class is derived from) and answers with a stand-in of that kind, so the first
  ``isinstance`` and every later one say what the model is.  It reads River from
  ``sys.modules``: only River asks, so River is loaded whenever the question comes.

The one-example calls take River's weight keyword: ``learn_one(x, y, w=2.0)`` is
``learn_one(x, y, sample_weight=2.0)`` (:func:`weight`).
"""
import copy
import gc
import sys
import threading
import types
import weakref

#: River's base class per olearn task, and the stand-ins registered with them
#: (the mini-batch kinds: every model has ``learn_many``/``predict_many``, olearn._many)
_KINDS = {"classifier": "MiniBatchClassifier", "regressor": "MiniBatchRegressor"}
_STAND_INS = {}
_registering = threading.local()


def weight(sample_weight, w):
    """The example's weight from ``sample_weight`` or River's ``w`` (one of them)."""
    if w is None:
        return sample_weight
    if sample_weight != 1.0 and sample_weight != w:
        raise ValueError("give the example's weight once: sample_weight or w (River's name)")
    return w


#: weak proxies: never walked (one whose object is gone raises at any use)
_PROXIES = (weakref.ProxyType, weakref.CallableProxyType)


def raw_memory_usage(obj):
    """Bytes reachable from ``obj`` (River's ``Base._raw_memory_usage`` walk)."""
    import numpy as np
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
            types.MethodType)
    seen, size, pending = set(), 0, [obj]
    while pending:
        nxt = []
        for o in pending:
            t = type(o)  # (not isinstance: a dead weak proxy raises ReferenceError there)
            if t in _PROXIES or issubclass(t, skip) or id(o) in seen:
                continue
            seen.add(id(o))
            size += sys.getsizeof(o)
            if isinstance(o, np.ndarray) and o.base is None:
                size += o.nbytes
            nxt.append(o)
        pending = gc.get_referents(*nxt)
    return size


def _river_kind(model):
    """River's base class for ``model``'s task (None: River not loaded, or no task)."""
    river_base = sys.modules.get("river.base")
    name = _KINDS.get(model._estimator_kind())
    if river_base is None or name is None:
        return None
    return getattr(river_base, name, None)


class RiverTools:
    """Mixin: the attributes River's tools read (see the module docstring)."""

    @property
    def _supervised(self):
        return True

    @property
    def _multiclass(self):
        return self._estimator_kind() == "classifier"

    def _get_params(self):
        return self.get_params(deep=False)

    # River's estimator hooks (``river.base.Base`` and ``river.base.Estimator``), as plain
    # attributes: River's check suite, ``progressive_val_score(show_memory=True)`` and
    # its ensembles read them.

    @property
    def _tags(self):
        """River's tags: a set of strings (``river.base.tags``); olearn's own capability
        tags are ``olearn.tags(model)`` (declared as ``_capabilities``).  None of
        River's tags applies; no ``_more_tags`` either (scikit-learn reads that name as
        its old tag API)."""
        return set()

    @classmethod
    def _unit_test_params(cls):
        """Parameters River's checks build the class with: the defaults."""
        yield {}

    def _unit_test_skips(self):
        """River's checks this model skips: none."""
        return set()

    @property
    def _mutable_attributes(self):
        """The parameters ``mutate`` may change: none (``set_params`` changes them)."""
        return set()

    def mutate(self, new_attrs):
        """River's in-place change of the ``_mutable_attributes`` (none here): an empty
        dict changes nothing; any other name is refused as River refuses it."""
        for name in new_attrs:
            if name not in self._mutable_attributes:
                raise ValueError(f"'{name}' is not a mutable attribute of "
                                 f"{type(self).__name__}")

    @property
    def _is_stochastic(self):
        """River's question: is a ``seed`` parameter left unset?  olearn's randomness
        is ``random_state``, seeded by default: never."""
        return False

    @property
    def _raw_memory_usage(self):
        """The model's size in bytes, as River counts it: the objects it references
        (``gc.get_referents``), numpy arrays with their buffers; classes, modules and
        functions (the compiled kernels) are not counted."""
        return raw_memory_usage(self)

    @property
    def _memory_usage(self):
        size = float(self._raw_memory_usage)
        for unit in ("B", "KiB", "MiB", "GiB"):
            if size < 1024 or unit == "GiB":
                return f"{size:.2f} {unit}"
            size /= 1024

    def clone(self, new_params=None, include_attributes=False):
        """A copy for River's ensembles: unfitted (with the same parameters, updated by
        ``new_params``), or with ``include_attributes`` the fitted model copied."""
        from ._estimator import clone
        model = copy.deepcopy(self) if include_attributes else clone(self)
        if new_params:
            model.set_params(**new_params)
        return model

    # River's mini-batch API on DataFrames (olearn._many: pandas never imported here)
    def learn_many(self, X, y=None, w=1.0):
        """Learn the rows of DataFrame ``X`` (labels: Series ``y``; River's weight ``w``,
        a number or a Series) in order, in one compiled pass: exactly ``learn_one`` of
        each row as a dict.  Columns match by name (see :mod:`olearn._many`)."""
        from ._many import learn_many
        learn_many(self, X, y, w)

    def predict_many(self, X):
        """A Series of predictions, one per row of DataFrame ``X``, on its index."""
        from ._many import predict_many
        return predict_many(self, X)

    def predict_proba_many(self, X):
        """A DataFrame of probabilities, one column per class, on ``X``'s index."""
        from ._many import predict_proba_many
        return predict_proba_many(self, X)

    @property
    def _last_step(self):
        kind = _river_kind(self)
        if kind is None or getattr(_registering, "on", False):
            raise AttributeError("_last_step")
        _registering.on = True
        try:
            if not issubclass(type(self), kind):
                kind.register(type(self))
            stand_in = _STAND_INS.get(kind)
            if stand_in is None:
                stand_in = _STAND_INS[kind] = type(f"Olearn{kind.__name__}", (), {})
                kind.register(stand_in)
            return stand_in()
        finally:
            _registering.on = False
