"""AROW on label ranking for multilabel classification: the worst-pair reduction of
Crammer, Dekel, Keshet, Shalev-Shwartz and Singer ("Online Passive-Aggressive
Algorithms", JMLR 7, 2006, section 6) with the confidence-weighted update of AROW
(Crammer, Kulesza and Dredze, "Adaptive Regularization of Weight Vectors", NIPS 2009,
Fig. 1 and its diagonal form, section 5), in the single-constraint multiclass form of
Crammer, Dredze and Kulesza ("Multi-Class Confidence Weighted Algorithms", EMNLP 2009)
that ``olearn.make("arow")`` uses for several classes.

The state is the label-ranking one of :class:`~olearn.multilabel.MultilabelPA` (a weight
row per label and one for the virtual threshold label, which is ranked between the
relevant and the irrelevant labels and decides the predicted set), and beside it a
diagonal covariance per row, ``Sigma_k = diag(V[k])`` (ones at start).  A row's
constraint is its worst-violating pair (a, b) (least margin among the lowest relevant
label, the threshold and the highest irrelevant label; the choice of
``olearn.multilabel._ranking``), whose joint feature vector ``Phi(x, a) - Phi(x, b)``
is ``z = (constant, x)`` in row a and ``-z`` in row b; so with the margin
``m = W[a].z - W[b].z`` and its variance ``v = z'Sigma_a z + z'Sigma_b z``, when
``m < 1`` (AROW's squared-hinge loss ``max(0, 1 - m)`` is positive)::

    alpha = (1 - m) / (v + r)                      beta = 1 / (v + r)
    W[a] += alpha Sigma_a z,   W[b] -= alpha Sigma_b z
    Sigma_k^-1 += z z' / r  for k in {a, b}, kept diagonal:
        V[k, i] = 1 / (1 / V[k, i] + z_i^2 / r)

(the mean step is AROW's ``alpha Sigma y x`` on the pair's block-diagonal covariance;
the precision update is AROW's ``Sigma^-1 += x x' / r`` restricted to the diagonal, as
olearn's binary and multiclass AROW keep it, variances floored at 1e-300).  A sample
weight ``h`` weights the loss: ``r`` becomes ``r / h`` (a zero weight: no step).  The
compiled pass: ``olearn.multilabel._ranking.arow_pass``.
"""
import numpy as np

from .._params import store_params
from .._validation import check_number, check_saved_array
from ._native import RankingModel
from ._ranking import arow_pass


class MultilabelAROW(RankingModel):
    """AROW multilabel classifier on label ranking with a learned threshold.

    Parameters
    ----------
    r : float > 0, AROW's regularization (larger: smaller, more cautious steps).
    fit_intercept : bool, a constant feature (each label's bias against the threshold).
    intercept_scaling : float > 0, the value of that constant feature.

    The fitted ``W_`` holds the mean rows and ``V_`` their diagonal variances; ``coef_``
    and ``intercept_`` are as ``MultilabelPA``'s.
    """

    #: the pairs a row moves: its worst-violating pair only (AROW's single constraint)
    pairs = "worst"

    def __init__(self, r=1.0, fit_intercept=True, intercept_scaling=1.0):
        store_params(self, locals())

    def step(self):
        check_number("r", self.r, low=0.0, low_open=True)
        return 0.0, 0.0

    def start(self):
        super().start()
        self.V_ = np.ones_like(self.W_)

    def add_labels(self, new, first):
        at = new - np.arange(len(new)) + 1
        self.W_ = np.insert(self.W_, at, 0.0, axis=0)
        self.V_ = np.insert(self.V_, at, 1.0, axis=0)

    def _fit_width(self, d):
        grow = d + 1 - self.W_.shape[1]
        super()._fit_width(d)
        if grow > 0:
            self.V_ = np.hstack([self.V_, np.ones((self.V_.shape[0], grow))])

    def _pass(self, rows, Y, sw, first, learn):
        n, L = Y.shape[0], self.W_.shape[0] - 1
        scores, pred = np.empty((n, L)), np.empty((n, L), dtype=np.int8)
        steps = arow_pass(*rows, Y, first, sw, self.W_, self.V_, float(self.r),
                          self._constant(), learn, scores, pred)
        if learn:
            if not np.isfinite(scores).all() or not np.isfinite(self.W_).all():
                raise ValueError(f"{type(self).__name__} diverged (non-finite scores or "
                                 "weights): scale the features")
            self.steps_ += int(steps)
        return pred, scores

    def own_state(self):
        meta, arrays = super().own_state()
        arrays["V"] = self.V_
        return meta, arrays

    def load_own_state(self, meta, arrays):
        super().load_own_state(meta, arrays)
        V = check_saved_array("V", arrays.get("V"), self.W_.shape, np.float64)
        if not (V > 0).all():
            raise ValueError("V: the variances must be positive")
        self.V_ = V
