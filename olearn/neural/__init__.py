"""Neural networks trained online, one example at a time (the seed text's chapter 7,
"Other online learning techniques").

* ``MLPClassifier`` / ``MLPRegressor``: multilayer perceptrons, online
  backpropagation as the seed's box (any number of hidden layers; relu, tanh,
  logistic, identity units; softmax and cross-entropy, or the squared error), steps
  "sgd" (the seed's constant step, momentum, Nesterov), "adagrad", "adam"; scikit-
  learn's ``coefs_`` / ``intercepts_``, assignable.
* ``HBPClassifier``: Hedge Backpropagation (Sahoo et al., IJCAI 2018), a deep relu
  network with a softmax expert on every depth (the input included) mixed by Hedge
  weights ``alpha_``.

Each network is one declared compiled pass over the model protocol
(``olearn.feature_map.FeatureMapModel``); ``_layers.py`` holds the inlined pieces
they share (activations, a dense layer forward and back, one coordinate's step).
"""
from .._lazy import lazy_names
from ..registry import exports

#: public name -> submodule, imported on first use (importing the package loads no
#: learner): the classes of this package in ``olearn.registry`` (LEARNERS, UNNAMED)
_WHERE = {**exports(__name__)}

__all__ = sorted(_WHERE)

__getattr__, __dir__ = lazy_names(__name__, _WHERE)
