"""What every optimiser of ``olearn.optim`` is: a holder of hyper-parameters (no state,
no numba: its per-coordinate step is compiled in ``olearn._compiled.steps`` under
its ``name``).

An optimiser says

* ``name``: its step in ``olearn._compiled.steps.STEPS`` (and its name as a string
  parameter: ``optimizer="adam"``);
* ``slots(axes)``: the per-coordinate state the step keeps, as :class:`~olearn.Slot`
  declarations over the weights' axes (``("K", "d")`` for a linear model);
* ``kernel_params()``: the hyper-parameters its step reads, by the names it reads them
  (``params.beta_1``), which must not clash with the learner's own;
* ``rate()``: ``(lr, schedule, power)``, the base rate of each round (only SGD
  decays it);
* ``check()``: one-line ``ValueError`` for a bad value (a learner calls it once per
  call, as scikit-learn validates).

``get_params``/``set_params``/``clone``/``repr`` are scikit-learn's; two optimisers are
equal when they are of one class with equal parameters; a model file keeps an
optimiser as its :meth:`to_record` (``{"optimizer": name, **params}``).
"""
from .._estimator import Estimator
from .._state import Slot
from .._validation import check_number


class Optimizer(Estimator):
    """Base of the optimisers (see the module docstring)."""

    name = ""
    #: ``"row"``, ``"lazy"`` or ``"dense"``: how the step treats a zero gradient
    #: (``olearn._compiled.steps``)
    mode = "lazy"

    def slots(self, axes=("K", "d")):
        """The per-coordinate state, one :class:`Slot` per array."""
        return ()

    def kernel_params(self):
        """The step's hyper-parameters, by the names the step reads."""
        return {}

    def rate(self):
        """``(lr, schedule name, power)`` of the rounds' base rate."""
        return float(self.lr), "constant", 0.5

    def check(self):
        """Raise ``ValueError`` (one line) for a bad hyper-parameter."""
        if hasattr(self, "lr"):
            check_number("lr", self.lr, low=0.0, low_open=True)

    def to_record(self):
        """The optimiser as JSON-able data (what a model file keeps)."""
        return {"optimizer": self.name, **self.get_params(deep=False)}

    def __eq__(self, other):
        return type(other) is type(self) and \
            other.get_params(deep=False) == self.get_params(deep=False)

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(self.get_params(deep=False).items()))))


def scratch(axes):
    """The dense steps' row buffer: the row's values spread over the ``"d"`` axis (a
    scratch the rule fills and clears each round, zero between rounds)."""
    return Slot("X", tuple(a for a in axes if a != "K"), 0.0, mix="reset")
