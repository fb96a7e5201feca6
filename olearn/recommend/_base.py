"""What every recommender shares: ids that grow mid-stream, the pairs each user has
rated, ``recommend``, stream validation, and the parts of save/load that are not the
model's own arrays.

A subclass keeps its parameters in arrays with one row per user or item code and
implements ``_grow(n_users, n_items, order)`` (allocate the rows of new ids, ``order``
giving the order in which the new ids appeared: ``(kind, code)``, kind 0 a user, 1 an
item), ``_learn(u, i, r, out)`` (the compiled pass over codes), ``_scores(u, i)``
(vectorised predictions for known-or-unknown codes, -1 meaning unknown) and
``_export_model()`` / ``_import_model(fitted, arrays)``.
"""
import math

import numpy as np
from .._estimator import Estimator
from .._validation import MAX_TARGET

from ._ids import IdMap, first_positions
from .._locking import locked
from ..protocol import Saves


def check_stream(users, items, ratings=None):
    """Lengths and ratings of one call: ratings as a finite float64 array."""
    n = len(users)
    if len(items) != n:
        raise ValueError(f"users has {n} entries but items has {len(items)}")
    if ratings is None:
        return None
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 1 or r.shape[0] != n:
        raise ValueError(f"ratings must be a 1-D sequence of {n} numbers, got shape "
                         f"{r.shape}")
    if not np.all(np.abs(r) <= MAX_TARGET):
        raise ValueError("ratings must be finite numbers" if not np.all(np.isfinite(r)) else
                         f"ratings beyond +-{MAX_TARGET:g}: scale them (their squares "
                         "overflow)")
    return np.ascontiguousarray(r)


def _check_outputs(model, out, start=0):
    """The divergence error naming the first rating whose prediction (made before it was
    learned) is non-finite: latent_lr=1e6 made the factors overflow silently."""
    if not np.isfinite(out).all():
        from ..base import DivergenceError
        row = int(np.argmin(np.isfinite(out)))
        raise DivergenceError(
            f"{type(model).__name__} diverged at rating {start + row}: its predictions "
            "became non-finite (try a smaller learning rate or regularisation; make a "
            "fresh model)", row=start + row, where="batch", learner=type(model).__name__)


def grown(a, n_rows, fill):
    """``a`` with at least ``n_rows`` rows (capacity doubled), new rows ``fill``."""
    if a.shape[0] >= n_rows:
        return a
    cap = max(n_rows, 2 * a.shape[0], 16)
    b = np.full((cap,) + a.shape[1:], fill, dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


class Recommender(Saves, Estimator):
    """Base of the recommenders: not an estimator to use directly."""

    # -- state -------------------------------------------------------------------
    def _started(self):
        return hasattr(self, "_users")

    def _validated(self):
        """Check the hyper-parameters when they changed since the last check (once per
        call otherwise); returns the kernel's parameter array."""
        names = type(self).__dict__.get("_names")
        if names is None:
            names = type(self)._names = tuple(self._get_param_names())
        key = tuple(getattr(self, n) for n in names)
        if self.__dict__.get("_params_key") != key:
            self._check_params()
            self._params_key, self._params_array = key, self._kernel_params()
        return self._params_array

    def _start(self):
        self.__dict__.pop("_params_key", None)
        self._validated()
        self._users, self._items = IdMap(), IdMap()
        self._pairs = np.zeros((0, 2), dtype=np.int64)
        self._n_pairs = 0
        self.n_seen_ = 0
        self._init_model()

    @property
    def user_ids_(self):
        """The users seen so far, in order of first appearance."""
        return list(self._users.ids) if self._started() else []

    @property
    def item_ids_(self):
        """The items seen so far, in order of first appearance."""
        return list(self._items.ids) if self._started() else []

    @property
    def n_users_(self):
        return len(self._users) if self._started() else 0

    @property
    def n_items_(self):
        return len(self._items) if self._started() else 0

    def _encode_growing(self, users, items):
        """Codes of a stream's ids, new ids allocated (in order of first appearance)."""
        if isinstance(users, np.ndarray) and isinstance(items, np.ndarray):
            ut, it = self._users.int_table(users), self._items.int_table(items)
            if ut is not None and it is not None:
                return self._encode_ints(users, items, ut, it)
        nu0, ni0 = len(self._users), len(self._items)
        u = self._users.encode(users, grow=True)
        i = self._items.encode(items, grow=True)
        nu, ni = len(self._users), len(self._items)
        if nu > nu0 or ni > ni0:
            # event index of each new id's first appearance; users before items
            fu = first_positions(np.maximum(u - nu0, -1) + 1, nu - nu0 + 1)[1:]
            fi = first_positions(np.maximum(i - ni0, -1) + 1, ni - ni0 + 1)[1:]
            keys = np.concatenate([2 * fu, 2 * fi + 1])
            codes = np.concatenate([np.arange(nu0, nu), np.arange(ni0, ni)])
            kinds = np.concatenate([np.zeros(len(fu), np.int64), np.ones(len(fi), np.int64)])
            o = np.argsort(keys, kind="stable")
            self._grow(nu, ni, kinds[o], codes[o])
        return u, i

    def _encode_ints(self, users, items, ut, it):
        """The compiled one-pass coder for small non-negative integer ids."""
        from ._kernels import code_stream
        n = len(users)
        u, i = np.empty(n, np.int64), np.empty(n, np.int64)
        kinds, codes, values = (np.empty(2 * n, np.int64) for _ in range(3))
        nu, ni, k = code_stream(users.astype(np.int64, copy=False),
                                items.astype(np.int64, copy=False), ut, it,
                                len(self._users), len(self._items), u, i, kinds, codes, values)
        if k:
            kinds, codes, values = kinds[:k], codes[:k], values[:k]
            self._users.add_coded(values[kinds == 0].tolist())
            self._items.add_coded(values[kinds == 1].tolist())
            self._grow(nu, ni, kinds, codes)
        return u, i

    def _remember(self, u, i):
        n = self._n_pairs + len(u)
        self._pairs = grown(self._pairs, n, 0)
        self._pairs[self._n_pairs:n, 0] = u
        self._pairs[self._n_pairs:n, 1] = i
        self._n_pairs = n
        self.n_seen_ += len(u)

    # -- the online protocol ----------------------------------------------------
    @locked
    def predict_learn(self, users, items, ratings):
        """Progressive predictions of a whole stream: each rating is predicted by the
        model of the events before it, then learned.  Returns a float64 array."""
        r = check_stream(users, items, ratings)
        if not self._started():
            self._start()
        else:
            self._validated()
        out = np.empty(len(r))
        if len(r) == 0:
            return out
        u, i = self._encode_growing(users, items)
        self._learn(u, i, r, out)
        self._remember(u, i)
        _check_outputs(self, out)
        return out

    @locked
    def partial_fit(self, users, items, ratings):
        """Learn a stream of ratings, in order.  Returns self."""
        self.predict_learn(users, items, ratings)
        return self

    @locked
    def learn_one(self, user, item, rating):
        """Learn one rating.  Returns self."""
        self.predict_learn_one(user, item, rating)
        return self

    @locked
    def predict_learn_one(self, user, item, rating):
        """The prediction of one rating before learning it (one compiled call)."""
        try:
            r = float(rating)
        except (TypeError, ValueError, OverflowError):  # (an int beyond the floats)
            r = math.nan
        if not abs(r) <= MAX_TARGET:
            shown = repr(rating)
            raise ValueError(f"ratings must be finite numbers within +-{MAX_TARGET:g}, got "
                             f"{shown if len(shown) <= 40 else shown[:30] + '...'}")
        if not self._started():
            self._start()
        else:
            self._validated()
        nu0, ni0 = len(self._users), len(self._items)
        u = self._users.code(user, grow=True)
        i = self._items.code(item, grow=True)
        if u >= nu0 or i >= ni0:
            kinds = [k for k, new in ((0, u >= nu0), (1, i >= ni0)) if new]
            codes = [c for c, new in ((u, u >= nu0), (i, i >= ni0)) if new]
            self._grow(len(self._users), len(self._items), np.array(kinds, dtype=np.int64),
                       np.array(codes, dtype=np.int64))
        one = self.__dict__.get("_one")
        if one is None:
            one = self._one = (np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1),
                               np.zeros(1))
        one[0][0], one[1][0], one[2][0] = u, i, r
        self._learn(one[0], one[1], one[2], one[3])
        self._remember(one[0], one[1])
        _check_outputs(self, one[3])
        return float(one[3][0])

    @locked
    def predict(self, users, items):
        """Predicted ratings of pairs (unknown users or items get the prior's value)."""
        check_stream(users, items)
        if not self._started():  # nothing learned: every pair gets the prior's value
            return self._clip(self._scores_fresh(len(users)))
        u = self._users.encode(users, grow=False)
        i = self._items.encode(items, grow=False)
        return self._clip(self._scores(u, i))

    @locked
    def predict_one(self, user, item):
        """The predicted rating of one pair, as a float."""
        return float(self.predict([user], [item])[0])

    def _scores_fresh(self, n):
        return np.full(n, 0.0)

    def _clip(self, p):
        low = -math.inf if self.min_rating is None else self.min_rating
        high = math.inf if self.max_rating is None else self.max_rating
        return np.clip(p, low, high)

    @locked
    def rated_items(self, user):
        """The items ``user`` has rated (ids, in order of first rating)."""
        if not self._started():
            return []
        c = self._users.code(user, grow=False)
        if c < 0:
            return []
        codes = self._pairs[:self._n_pairs]
        mine = codes[codes[:, 0] == c, 1]
        _, first = np.unique(mine, return_index=True)
        return [self._items.ids[j] for j in mine[np.sort(first)]]

    @locked
    def recommend(self, user, k=10, exclude_rated=True):
        """The ``k`` items of highest predicted rating for ``user`` (ids, best first),
        leaving out the items the user has already rated.  Ties keep the order in which
        the items first appeared.  An unknown user gets the items best for the prior."""
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if not self._started() or len(self._items) == 0:
            return []
        c = self._users.code(user, grow=False)
        n_items = len(self._items)
        scores = self._scores(np.full(n_items, c, dtype=np.int64), np.arange(n_items))
        if exclude_rated and c >= 0:
            codes = self._pairs[:self._n_pairs]
            scores[codes[codes[:, 0] == c, 1]] = -np.inf
            n_items -= np.count_nonzero(np.isneginf(scores))
        k = min(int(k), n_items)
        if k <= 0:
            return []
        top = np.argsort(-scores, kind="stable")[:k]
        return [self._items.ids[j] for j in top]

    # -- persistence ---------------------------------------------------------------
    def export_state(self):
        if not self._started():
            return {"started": False}, {}
        self._users.check_saveable("user")
        self._items.check_saveable("item")
        fitted, arrays = self._export_model()
        fitted.update(started=True, users=self._users.ids, items=self._items.ids,
                      n_seen=self.n_seen_)
        arrays["pairs"] = self._pairs[:self._n_pairs].copy()
        return fitted, arrays

    @classmethod
    def from_state(cls, params, fitted, arrays):
        """A model from a file, checked before a compiled pass may index it: ids (no
        duplicates, NaN or out-of-range integers), the (user, item) pairs within the id
        tables, the counters, then the model's own arrays (``_import_model``: each
        reshaped to the tables' sizes) finite."""
        if not isinstance(params, dict) or not isinstance(fitted, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        model = cls(**params)
        if not fitted.get("started"):
            return model
        model._start()
        for key in ("users", "items"):
            if not isinstance(fitted.get(key), list):
                raise ValueError(f"{key} must be a list of ids")
        model._users, model._items = IdMap(fitted["users"]), IdMap(fitted["items"])
        pairs = arrays.get("pairs")
        if not isinstance(pairs, np.ndarray) or pairs.dtype.kind not in "iu" \
                or pairs.ndim != 2 or pairs.shape[1] != 2:
            raise ValueError("pairs must be an integer (n, 2) array")
        if pairs.size and (pairs.min() < 0 or pairs[:, 0].max() >= len(model._users)
                           or pairs[:, 1].max() >= len(model._items)):
            raise ValueError("pairs name a user or item code outside the id tables")
        pairs = pairs.astype(np.int64)
        model._pairs, model._n_pairs = pairs.copy(), len(pairs)
        if type(fitted.get("n_seen")) is not int or fitted["n_seen"] < 0:
            raise ValueError("n_seen must be a non-negative integer")
        model.n_seen_ = fitted["n_seen"]
        for name, v in arrays.items():
            if not isinstance(v, np.ndarray) or v.dtype.kind not in "fiu":
                raise ValueError(f"array {name} is not numeric")
            if v.dtype.kind == "f" and not np.isfinite(v).all():
                raise ValueError(f"array {name} holds NaN or infinity")
        model._import_model(fitted, arrays)
        return model
