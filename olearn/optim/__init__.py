"""Optimisers as parts: the step rule of a gradient learner, chosen by a parameter
(``OGDClassifier(optimizer=olearn.optim.Adam(lr=0.01))``, ``olearn.make("ogd",
optimizer="adam")``).

Each optimiser is a holder of hyper-parameters (this package, no numba) whose
per-coordinate step is written once, compiled, in ``olearn._compiled.steps``:

=========  ===========================================  ==========================
name       step                                         sparse rows
=========  ===========================================  ==========================
sgd        ``w -= lr_t g`` (constant, 1/sqrt(t), t^-p)   lazy, O(non-zeros), exact
momentum   Polyak 1964; Sutskever et al. 2013           every coordinate, O(d)
adagrad    Duchi et al. 2011, diagonal                  lazy, O(non-zeros), exact
rmsprop    Tieleman and Hinton 2012                     every coordinate, O(d)
adam       Kingma and Ba 2015, Algorithm 1              every coordinate, O(d)
adamw      Loshchilov and Hutter 2019, Algorithm 2      every coordinate, O(d)
cocob      Orabona and Tommasi 2017, Algorithm 2        lazy, O(non-zeros), exact
nag        Ross, Mineiro and Langford 2013, Alg. 2      lazy, O(non-zeros), exact
=========  ===========================================  ==========================

A new optimiser: its ``step`` (and a ``prepare`` for what is the same for every
coordinate of a round) in ``olearn/_compiled/steps.py`` with its entry in ``STEPS``
(``"row"``, ``"lazy"`` or ``"dense"``: how it meets a zero gradient); a holder class
in a file here (``name``, ``mode``, ``slots``, ``kernel_params`` under names that are not
OGD's own, ``check``) and its entry in :data:`OPTIMIZERS`.  OGD declares kernels for
every entry; ``tests/test_optim.py`` wants a line in its ``OPTIMIZERS`` and the numpy
update in its ``Ref``.

:func:`resolve` turns a parameter value (None, a name, an optimiser, or a model file's
record) into an optimiser; :func:`encode_params` / :func:`decode_params` put optimisers
into a model file's JSON parameters and back.
"""
from ._base import Optimizer
from .adagrad import AdaGrad
from .adam import Adam
from .adamw import AdamW
from .cocob import COCOB
from .momentum import Momentum
from .nag import NAG
from .rmsprop import RMSProp
from .sgd import SGD

OPTIMIZERS = {cls.name: cls for cls in (SGD, Momentum, AdaGrad, RMSProp, Adam, AdamW, COCOB,
                                        NAG)}

__all__ = ["Optimizer", "SGD", "Momentum", "AdaGrad", "RMSProp", "Adam", "AdamW", "COCOB",
           "NAG",
           "OPTIMIZERS", "resolve", "encode_params", "decode_params"]


def resolve(value, default=None):
    """An optimiser from a parameter value: an :class:`Optimizer` (itself), a name of
    :data:`OPTIMIZERS` (its defaults), a record ``{"optimizer": name, **params}``, or
    None (``default``)."""
    if value is None:
        return default
    if isinstance(value, Optimizer):
        return value
    if isinstance(value, str) and value in OPTIMIZERS:
        return OPTIMIZERS[value]()
    if isinstance(value, dict) and value.get("optimizer") in OPTIMIZERS:
        params = {k: v for k, v in value.items() if k != "optimizer"}
        return OPTIMIZERS[value["optimizer"]](**params)
    raise ValueError(f"optimizer must be None, an olearn.optim optimiser or one of "
                     f"{', '.join(OPTIMIZERS)}; got {value!r}")


def encode_params(params):
    """A model's parameters with each optimiser as its record (JSON-able)."""
    return {k: v.to_record() if isinstance(v, Optimizer) else v for k, v in params.items()}


def decode_params(params):
    """:func:`encode_params` undone: each optimiser record made an optimiser again."""
    return {k: resolve(v) if isinstance(v, dict) and "optimizer" in v else v
            for k, v in params.items()}
