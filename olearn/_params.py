"""The body of every learner's ``__init__``.

scikit-learn's rule: ``__init__`` stores each parameter unchanged under its own name
and validates nothing (validation runs once per call, ``_check_params``).  Every
learner's ``__init__`` is its signature (names, defaults: what ``get_params``,
``olearn algos`` and ``--help`` show) and one line, ``store_params(self, locals())``.
"""


def store_params(estimator, params):
    """Set each ``__init__`` argument of ``params`` (its ``locals()``) on ``estimator``."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)
