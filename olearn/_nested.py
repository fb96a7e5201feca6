"""Saving models whose parameters are olearn models (an :class:`ExpertAdvice` over given
learners, :class:`~olearn.drift.OnDrift` around a learner and a detector) in the safe
format of :mod:`olearn.persistence` (npz + JSON, no pickle, no code run on load).

A parameter that is an olearn model (or a list of them) is written as its class name and
its own parameters, ``{"__model__": "olearn.linear.pa.PAClassifier", "params": {...}}``,
recursively; on load a class is accepted only if it is a registered learner, a
``@persistable`` olearn class, or a registered meta-model (:func:`register`: every
:class:`olearn.wrapper.Wrapper` subclass of a module that ``load`` may import, done when
the class is made), and it is looked up, never imported from outside olearn's model
packages (``olearn.persistence.loadable_module``).  A fitted member is stored the same
way with its ``export_state()`` metadata, its arrays under a prefix of the archive.

The model file names :class:`Nested` as its class: ``Nested.get_params`` gives the encoded
parameters and ``Nested.from_state`` rebuilds the meta-model, so ``olearn.load`` returns the
ExpertAdvice or OnDrift itself.
"""
import json

from . import persistence
from .persistence import persistable
from .protocol import NotMixable, Saves

#: meta-models saved through :class:`Nested`: qualified name -> class
_NESTED = {}


def register(cls):
    """Make the meta-model ``cls`` loadable when its module is one ``load`` may import
    (``olearn.persistence.loadable_module``: the static table, or a module of olearn's
    learner packages); a class defined anywhere else is not registered, and saving one
    is refused (its file could not be loaded).  Returns whether it was registered."""
    from .persistence import loadable_module
    if not loadable_module(cls.__module__):
        return False
    _NESTED[_qualname(cls)] = cls
    return True


def _qualname(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_model(v):
    return hasattr(v, "get_params") and hasattr(v, "export_state") and \
        type(v).__module__.startswith("olearn.")


def encode(value):
    """A parameter value as JSON-able data (models as class name + parameters)."""
    if _is_model(value):
        return {"__model__": _qualname(type(value)),
                "params": {k: encode(v) for k, v in value.get_params(deep=False).items()}}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    value = persistence.parameter_record(value)     # an optimiser: its record
    try:
        json.dumps(value, allow_nan=True)
    except TypeError:
        raise TypeError(f"cannot save a parameter of type {type(value).__name__}: only "
                        "numbers, text, None and olearn models are saved") from None
    return value


def model_class(name):
    """The class named in a model file: a registered learner, a persistable olearn class
    or a meta-model here; anything else is a ValueError."""
    from . import persistence
    cls = _NESTED.get(name) if isinstance(name, str) else None
    if cls is None:
        cls = persistence.known_class(name)
        if cls is None and isinstance(name, str):
            cls = _NESTED.get(name)          # its module was imported just now
    if cls is None:
        raise ValueError(f"unknown model class {str(name)[:80]!r}")
    return cls


def decode(value):
    """The inverse of :func:`encode`: fresh, unfitted models."""
    if isinstance(value, dict) and "__model__" in value:
        cls = model_class(value["__model__"])
        return cls(**{k: decode(v) for k, v in value.get("params", {}).items()})
    if isinstance(value, dict) and "optimizer" in value:
        return persistence.parameter_value(value)
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def decode_params(params):
    return {k: decode(v) for k, v in params.items()}


def export_model(model, prefix, arrays):
    """JSON-able description of a (maybe fitted) model; its arrays go into ``arrays``
    under ``prefix``."""
    info = encode(model)
    fitted = None
    if _fitted(model):
        fitted, own = persistence.exported(model)
        for k, v in own.items():
            arrays[prefix + k] = v
    info["fitted"] = fitted
    return info


def _fitted(model):
    """Whether ``model`` has learned: the protocol's ``__sklearn_is_fitted__``."""
    return bool(model.__sklearn_is_fitted__())


def import_model(info, prefix, arrays, like=None):
    """The model :func:`export_model` described, fitted as it was; with ``like`` (the
    meta-model's parameter it was copied from), a model of another class is refused."""
    cls = model_class(info["__model__"])
    if like is not None and cls is not type(like):
        raise ValueError(f"the saved {cls.__name__} does not match the parameter's "
                         f"{type(like).__name__}")
    params = decode_params(info.get("params", {}))
    if info.get("fitted") is None:
        return cls(**params)
    sub = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
    return persistence.imported(cls, params, info["fitted"], sub)


@persistable
class Nested:
    """What a model file holds for a meta-model (see the module docstring)."""

    def __init__(self, model=None):
        self.model = model

    def get_params(self, deep=False):
        return {"class": _qualname(type(self.model)),
                "params": encode(self.model).get("params", {})}

    def export_state(self):
        return persistence.exported(self.model)

    @classmethod
    def from_state(cls, params, meta, arrays):
        kind = model_class(params["class"])
        if _qualname(kind) not in _NESTED and not hasattr(kind, "from_state"):
            raise ValueError(f"{params['class']} is not a model that saves this way")
        return persistence.imported(kind, decode_params(params["params"]), meta, arrays)


class SavesNested(Saves, NotMixable):
    """Mixin of the meta-models: the protocol's ``save(path)`` writes the model through
    :class:`Nested` (``olearn.persistence.save`` asks ``_saved_form()`` for what to
    write: its parameters, nested models and states); they cannot be mixed (the
    protocol's default)."""

    def _saved_form(self):
        name = _qualname(type(self))
        if _NESTED.get(name) is not type(self) and \
                persistence.known_class(name) is not type(self):
            raise TypeError(f"{name} is not defined in olearn's model "
                            "packages: olearn.load would refuse its file")
        return Nested(self)

    # round 2's names of the protocol's ``export_state`` / ``from_state``
    def _export(self):
        return self.export_state()

    @classmethod
    def _import(cls, params, meta, arrays):
        return cls.from_state(params, meta, arrays)
