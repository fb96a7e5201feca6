"""What the learners trained on a loss of ``olearn._compiled.losses`` share (OGD, COCOB,
NDAG and the sparse learners): the ``loss`` parameter, one set of compiled kernels per
loss (the module declares its rule with ``losses=``; ``KERNELS.loss(name)`` gives that
loss's kernels), and ``epsilon``, the width of the "epsilon_insensitive" and "huber"
regression losses (0 for the classifiers, which have no such parameter)."""
from .._estimator import RegressorMixin

from .._compiled.losses import CLASSIFICATION_LOSSES, REGRESSION_LOSSES
from .._validation import check_choice, check_number


class LossModel:
    """Mixin: ``_declared`` is the module's declaration (``KERNELS``); ``_kernels`` are
    its kernels for ``self.loss``, one of ``_losses``."""
    _declared = None
    epsilon = 0.0

    @property
    def _losses(self):
        """The losses of the estimator's task."""
        if isinstance(self, RegressorMixin):
            return REGRESSION_LOSSES
        return CLASSIFICATION_LOSSES

    @property
    def _kernels(self):
        return self._declared.loss(self.loss)

    def _check_loss(self):
        """Validate ``loss`` and ``epsilon`` (call from ``_check_hyper``)."""
        check_choice("loss", self.loss, self._losses)
        check_number("epsilon", self.epsilon, low=0.0)


# lines of the estimators' "Parameters" sections (``__doc__ = f"""..."""``)
EPSILON_DOC = ('epsilon : float, width of the "epsilon_insensitive" and "huber" losses '
               '(>= 0).')
AVERAGE_DOC = """average : bool, predict with the average of the iterates (Polyak-Ruppert).
    fit_intercept, intercept_scaling, epochs, shuffle, random_state : see
        ``OnlineLearner``."""
