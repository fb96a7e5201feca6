"""Ensembles of online learners: prediction with expert advice over many learners in one
pass (:class:`ExpertAdvice`), and :class:`AutoClassifier` / :class:`AutoRegressor`,
which need no tuning (``olearn.make("auto")``, ``olearn.make("auto-reg")``)."""
from .auto import AutoClassifier, AutoRegressor
from .expert_advice import ExpertAdvice

Auto = AutoClassifier

__all__ = ["ExpertAdvice", "AutoClassifier", "AutoRegressor", "Auto"]
