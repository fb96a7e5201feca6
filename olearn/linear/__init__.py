"""First-order linear learners: Perceptron, Passive-Aggressive, and (later) OGD family."""
from .pa import PAClassifier
from .pa_regressor import PARegressor
from .perceptron import Perceptron

__all__ = ["Perceptron", "PAClassifier", "PARegressor"]
