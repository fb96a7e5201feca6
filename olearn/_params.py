"""The body of every learner's ``__init__``, and the parameters every learner shares.

scikit-learn's rule: ``__init__`` stores each parameter unchanged under its own name
and validates nothing (validation runs once per call, ``_check_params``).  Every
learner's ``__init__`` is its signature (names, defaults: what ``get_params``,
``olearn algos`` and ``--help`` show) and one line, ``store_params(self, locals())``.

scikit-learn reads each learner's own signature, so the common parameters (``epochs``,
``shuffle``, ``random_state``, ``fit_intercept``, ``intercept_scaling``) are written in
every signature; what they mean, their defaults (and the families whose default
differs, with why), their validation and their docstring text are declared once, in
:data:`COMMON`: ``registry.common_parameters()`` reads the meanings from it, every
learner's ``check_params`` runs :func:`check_common`, and ``tests/test_params.py``
fails when a registered learner's signature disagrees with it (a default, or a name
another library uses for one of them: ``n_epochs``, ``seed``, ...).
"""
import numbers
from typing import Any, Callable, NamedTuple

# (no numpy here: ``olearn.registry`` reads the meanings without importing numpy)


def store_params(estimator, params):
    """Set each ``__init__`` argument of ``params`` (its ``locals()``) on ``estimator``."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)


def _epochs(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {value!r}")


def _seed(value: Any) -> None:
    import numpy as np
    if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError("random_state must be None, an integer >= 0 or a numpy random "
                         f"generator, got {value!r}")


def _flag(name: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        from ._validation import check_bool
        check_bool(name, value)
    return check


def _scaling(value: Any) -> None:
    from ._validation import MAX_CONSTANT, check_number
    check_number("intercept_scaling", value, low=0.0, low_open=True, high=MAX_CONSTANT)


class Common(NamedTuple):
    """One common parameter: its default, what it means (the docstrings' and ``--help``'s
    text), its check (raises a one-line ``ValueError``), the other defaults some
    families have (``{value: (module or class prefixes, why)}``) and the names other
    libraries give it, which no olearn signature may use."""
    default: Any
    meaning: str
    check: Callable[[Any], Any]
    others: dict[Any, tuple[tuple[str, ...], str]]
    aliases: tuple[str, ...]

    def default_for(self, cls: type) -> Any:
        """The default a learner class must have (its family's, else the common one)."""
        where = f"{cls.__module__}.{cls.__qualname__}"
        for value, (prefixes, _) in self.others.items():
            if any(where == p or where.startswith(p + ".") for p in prefixes):
                return value
        return self.default


#: the parameters every learner takes (``OnlineLearner``'s), declared once
COMMON: dict[str, Common] = {
    "fit_intercept": Common(
        True, "bool, learn an intercept (a constant feature in the weights).",
        _flag("fit_intercept"),
        {False: (("olearn.kernel",), "a kernel expansion's bias is the kernel's: the "
                 "seed's kernel learners have none")},
        ("intercept", "use_intercept", "fit_bias", "bias")),
    "intercept_scaling": Common(
        1.0, "float > 0, value of that constant feature (1: the seed texts' convention; "
        "smaller: the intercept weighs less in norms and steps).",
        _scaling,
        {0.1: (("olearn.linear.pa.PAClassifier", "olearn.linear.ogd.OGDClassifier",
                "olearn.linear.cocob.COCOBClassifier"),
               "on normalised sparse rows the constant must not weigh as much as the whole "
               "row in ||x||^2 (docs/guide/linear.md)")},
        ("bias_scale", "intercept_scale")),
    "epochs": Common(
        1, "int, passes over the data in fit() (the command line makes one).", _epochs, {},
        ("n_epochs", "passes", "n_passes", "n_iter", "max_iter", "epoch")),
    "shuffle": Common(
        True, "bool, shuffle the rows before each epoch of fit().",
        _flag("shuffle"),
        {False: (("olearn.anomaly", "olearn.cluster"), "a detector's or a clustering's "
                 "state follows the stream's order (windows, running quantiles, "
                 "MacQueen's means)")},
        ("shuffle_rows", "permute")),
    "random_state": Common(
        0, "int (default 0: the same run gives the same numbers) or None (a fresh draw), "
        "seed of the shuffle and of the learner's own random draws.", _seed, {},
        ("seed", "random_seed", "rng")),
}


def check_common(model: Any) -> None:
    """Validate each common parameter ``model`` has (once per call, with its own)."""
    for name, common in COMMON.items():
        if name in model.__dict__:
            common.check(model.__dict__[name])
