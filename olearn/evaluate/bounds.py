"""The Perceptron mistake bound (Novikoff 1962), next to the mistakes actually made.

If some unit vector ``u`` separates the data with margin ``gamma``
(``y_i u.x_i >= gamma`` for every row) and every row has ``||x_i|| <= R``, the
Perceptron (``w += y x`` whenever ``y w.x <= 0``, from ``w = 0``) makes at most
``(R / gamma)^2`` updates on *any* sequence of these rows, however long (CMSC5741
slides, "Perceptron mistake bound").  With ``fit_intercept`` the rows are ``(1, x)``
(the intercept is a weight on a constant feature, as in olearn's Perceptron), so ``R``
and ``gamma`` are those of the augmented rows.

``gamma`` is the largest margin: the hard-margin SVM through the origin,
``min ||u||^2 s.t. y_i u.x_i >= 1``, solved exactly as a least-distance program by
non-negative least squares (Lawson and Hanson, "Solving Least Squares Problems",
ch. 23); the margin reported is the one the returned direction actually achieves on
the rows, so the bound is valid even where the solver is inexact.

Observed: olearn's Perceptron (``eta = 1``, ``margin = 0``) cycles through the rows in
the given order until a whole pass makes no update (or ``max_passes``), and the result
gives the updates of all passes (the quantity the bound covers), the mistakes of all
passes (wrong pre-update predictions; a score of exactly 0 updates but predicts the
negative class, so mistakes <= updates) and the mistakes of the first pass alone.
"""
import numpy as np
import scipy.sparse as sp

__all__ = ["mistake_bound", "MistakeBound", "max_margin"]


def max_margin(Z, y):
    """(u, gamma): the unit direction of largest margin through the origin and its margin
    ``min_i y_i u.z_i`` (``gamma <= 0``: not separable through the origin)."""
    from scipy.optimize import nnls
    G = (sp.diags(y) @ Z).toarray() if sp.issparse(Z) else y[:, None] * Z
    n, p = G.shape
    # least-distance program  min ||u||  s.t.  G u >= 1,  via NNLS (Lawson-Hanson 23.27):
    # E = [G^T; 1^T], f = e_{p+1};  a = argmin_{a >= 0} ||E a - f||,  r = E a - f,
    # u = -r[:p] / r[p]  (r = 0: the constraints are inconsistent)
    E = np.vstack([G.T, np.ones((1, n))])
    f = np.zeros(p + 1)
    f[-1] = 1.0
    a, _ = nnls(E, f, maxiter=50 * (n + p))
    r = E @ a - f
    if not r[-1] < 0:
        return np.zeros(p), 0.0
    u = -r[:p] / r[-1]
    norm = np.linalg.norm(u)
    if norm == 0:
        return u, 0.0
    u = u / norm
    return u, float(np.min(G @ u))


def mistake_bound(X, y, fit_intercept=True, max_passes=1000):
    """The Perceptron bound ``(R / gamma)^2`` and the Perceptron's observed mistakes.

    Parameters
    ----------
    X, y : the rows (dense or CSR), in the order the Perceptron sees them, and two labels.
    fit_intercept : augment the rows with a constant 1 (as olearn's Perceptron does).
    max_passes : stop cycling after this many passes if updates continue.

    Returns
    -------
    MistakeBound (``bound`` is inf when the rows are not linearly separable).
    """
    from sklearn.utils.validation import check_array, column_or_1d

    from ..linear.perceptron import Perceptron
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C")
    y = column_or_1d(np.asarray(y))
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels")
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"mistake_bound needs two classes, found {len(classes)}")
    if not (isinstance(max_passes, (int, np.integer)) and max_passes >= 1):
        raise ValueError(f"max_passes must be an integer >= 1, got {max_passes!r}")
    yk = np.where(y == classes[1], 1.0, -1.0)
    n = X.shape[0]
    if fit_intercept:
        Z = sp.hstack([sp.csr_matrix(np.ones((n, 1))), X], format="csr") if sp.issparse(X) \
            else np.hstack([np.ones((n, 1)), X])
    else:
        Z = X
    sq = np.asarray(Z.multiply(Z).sum(axis=1)).ravel() if sp.issparse(Z) else \
        np.einsum("ij,ij->i", Z, Z)
    R = float(np.sqrt(sq.max()))
    u, gamma = max_margin(Z, yk)
    separable = gamma > 0
    bound = (R / gamma) ** 2 if separable else np.inf

    model = Perceptron(eta=1.0, margin=0.0, fit_intercept=fit_intercept)
    updates = mistakes = first = passes = 0
    converged = False
    for passes in range(1, max_passes + 1):
        before = getattr(model, "n_updates_", 0)
        pred = model.predict_learn(X, y)
        wrong = int(np.sum(pred != y))
        mistakes += wrong
        if passes == 1:
            first = wrong
        if model.n_updates_ == before:
            converged = True
            break
    updates = int(model.n_updates_)
    return MistakeBound(R=R, gamma=gamma, bound=bound, separable=separable, coef=u,
                        updates=updates, mistakes=mistakes, first_pass_mistakes=first,
                        passes=passes, converged=converged, fit_intercept=fit_intercept)


class MistakeBound:
    """``R``, ``gamma`` (largest margin; <= 0 when not separable), ``bound`` =
    ``(R / gamma)^2``, ``coef`` (the unit max-margin direction, intercept first with
    ``fit_intercept``), and the Perceptron's ``updates``, ``mistakes`` (all passes),
    ``first_pass_mistakes``, ``passes`` and ``converged``."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        run = (f"{self.updates} updates and {self.mistakes} mistakes in {self.passes} "
               f"pass{'es' if self.passes != 1 else ''}"
               f"{' (converged)' if self.converged else ' (not converged)'}; "
               f"{self.first_pass_mistakes} mistakes in the first pass")
        if not self.separable:
            return f"<MistakeBound: not linearly separable, no bound; Perceptron: {run}>"
        return (f"<MistakeBound: R = {self.R:.4g}, gamma = {self.gamma:.4g}, "
                f"(R/gamma)^2 = {self.bound:.4g}; Perceptron: {run}>")
