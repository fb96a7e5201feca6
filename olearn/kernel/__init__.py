"""Online kernel learning: ``f(x) = sum_i alpha_i K(x_i, x)`` over a support set that
grows as the stream is read, on a budget, or approximated by random features.

* Support-set learners: ``KernelPerceptron`` (budgets "random", "forgetron",
  "projectron"), ``KernelPAClassifier`` / ``KernelPARegressor`` and
  ``KernelLMSRegressor``, ``KernelRLSRegressor`` (ALD sparsification),
  ``NORMAClassifier`` / ``NORMARegressor`` (budget
  "truncate"); kernels ``rbf``, ``poly``, ``linear`` on dense or CSR rows,
  the squared norms of the support vectors cached; ``support_vectors_``,
  ``dual_coef_``, ``n_support_``.
* ``FOGDClassifier`` / ``FOGDRegressor``: Fourier online gradient descent (random
  Fourier features, seeded, constant memory), and ``NOGDClassifier`` /
  ``NOGDRegressor``: Nystrom online gradient descent (B landmarks, rank k), both on
  the ordinary declared linear core (``_features.py``: the shared rules).
* Budget policies ``"projectron++"`` (KernelPerceptron), ``"bpa-s"``
  (KernelPAClassifier) and ``"bogd"`` (NORMA).

Why the support-set learners have their own compiled pass (``_support.py``) instead of
the declared linear core: the core's state is a fixed tuple of arrays over the axes K
(classes) and d (weights), and a rule may change them only in place; a support set is
a third axis that grows (and shrinks, on a budget) while the pass runs, and a row's
cost is a kernel evaluation against every support vector, not a dot product with one
weight row.  So one compiled pass (one entry point for every rule, policy and kernel,
a branch on constant arguments) owns the support set: it preallocates, doubles the
arrays when full and returns them; it reuses the core's row layouts (``get_row``, the
intercept's constant column) and class helpers, and the learners reuse the facade
(labels, validation, ``fit``/``partial_fit``/``predict_learn``, the one-example
protocol, persistence, the scikit-learn contract) unchanged.  FOGD's state has fixed
size (D random directions, 2D weights), so it is an ordinary declared learner.
"""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
