"""Online bagging (Oza and Russell, "Online Bagging and Boosting", AISTATS 2001, fig. 2).

Bootstrap replicates of a stream: each of ``n_models`` copies of ``base`` learns each
row k ~ Poisson(1) times, k drawn per member per row, by presenting the row k times in
a row, as the paper does (not one update weighted k: a second visit meets the margin
the first changed, and a learner's weight is no repeat count).  The prediction is the
members' majority vote (classification; ties: the lowest label; the probabilities,
``predict_proba``, are the shares of the votes, so their arg-max is the vote) or their
mean (regression); a member that has learned nothing yet does not vote.  The draws: one
numpy ``Generator`` seeded by ``random_state``, row after row (any cut of the stream
into batches, or examples one at a time, learns the same).
"""
import numpy as np

from .._validation import check_int
from .._estimator import available_if
from .._locking import locked
from ..wrapper import Wrapper, learn_repeated, vote, vote_shares


class OzaBagging(Wrapper):
    """Online bagging over ``n_models`` copies of ``base`` (``members_``)."""
    members = {"base": "members_"}
    _capabilities = {"multiclass": "members"}

    def __init__(self, base=None, n_models=10, random_state=0):
        self.base, self.n_models, self.random_state = base, n_models, random_state

    def check_params(self):
        check_int("n_models", self.n_models, 1)

    def make_members(self, param, value):
        return [value.clone() for _ in range(self.n_models)]

    def learn_rows(self, X, y, sample_weight, classes, return_scores):
        k = self.rng_.poisson(1.0, (X.shape[0], self.n_models))
        runs = [learn_repeated(m, X, y, k[:, j], sample_weight, classes)
                for j, m in enumerate(self.members_)]
        outs, fresh = (np.column_stack([r[i] for r in runs]) for i in (0, 1))
        return vote(self, outs, fresh, return_scores)

    def predict_rows(self, X, return_scores=False):
        fresh = np.array([[not m.__sklearn_is_fitted__() for m in self.members_]] * len(X))
        outs = np.column_stack([np.zeros(X.shape[0]) if f else m.predict(X)
                                for m, f in zip(self.members_, fresh[0])])
        return vote(self, outs, fresh, return_scores)

    @available_if(lambda self: self._estimator_kind() == "classifier")
    @locked
    def predict_proba(self, X):
        """The shares of the members' votes, (n, K) over ``classes_`` (uniform before
        any member has learned): the vote's arg-max is ``predict``'s label."""
        self._fitted()
        X = self._validate_X(X, reset=False)
        fresh = np.array([[not m.__sklearn_is_fitted__() for m in self.members_]] * len(X))
        outs = np.column_stack([np.full(X.shape[0], self.classes_[0]) if f else m.predict(X)
                                for m, f in zip(self.members_, fresh[0])])
        return vote_shares(self, outs, fresh)

    def predict_proba_example(self, x):
        outs = [m.predict_one(x) for m in self.members_]
        fresh = np.array([[o is None for o in outs]])
        some = next((o for o in outs if o is not None), self.classes_[0])
        p = vote_shares(self, np.array([[some if o is None else o for o in outs]]),
                        fresh)[0]
        return dict(zip(self.classes_.tolist(), p.tolist()))

    def learn_example(self, x, y, sample_weight):
        k = self.rng_.poisson(1.0, self.n_models)
        outs = [m.predict_learn_one(x, y, sample_weight) if kj else m.predict_one(x)
                for m, kj in zip(self.members_, k)]
        for m, kj in zip(self.members_, k):
            for _ in range(kj - 1):
                m.learn_one(x, y, sample_weight)
        return self.predict_example(x, outs)

    def predict_example(self, x, outs=None):
        outs = [m.predict_one(x) for m in self.members_] if outs is None else outs
        fresh = np.array([[o is None for o in outs]])
        if fresh.all():  # (nothing learned: a regressor's members answer 0.0, not None)
            return None
        some = next(o for o in outs if o is not None)
        return vote(self, np.array([[some if o is None else o for o in outs]]), fresh)[0]
