"""What the support-set kernel learners share on the Python side.

:class:`SupportModel` goes before ``OnlineClassifier`` / ``OnlineRegressor``: it keeps
the facade (labels, validation, ``fit``/``partial_fit``/``predict_learn``, the
one-example protocol, persistence) and replaces what assumes a weight matrix ``W``:
the state (a growing support set, see ``olearn.kernel._support``), the pass, the
decision function and the one-example scores.
"""
import numpy as np
import scipy.sparse as sp
from .._estimator import check_is_fitted, is_regressor

from .._compiled.driver import BINARY, MULTICLASS
from .._rows import kernel_rows, run_chunks
from .._state import Slot
from .._validation import check_choice, check_number, check_size, check_weight
from . import _support as S

KERNEL_NAMES = ("linear", "poly", "rbf")
POLICY_CODES = {"random": S.RANDOM, "forgetron": S.FORGETRON, "projectron": S.PROJECTRON,
                "truncate": S.TRUNCATE, "projectron++": S.PROJECTRON_PP, "bpa-s": S.BPA_S,
                "bogd": S.BOGD}
_INITIAL = 16  # support vectors preallocated (doubled when full)


# their lines in a learner's "Parameters" (``__doc__ = f"""..."""``)
KERNEL_DOC = """kernel : "rbf", "poly" or "linear" (see ``KernelPerceptron``).
    gamma : float, kernel width (rbf) or scale (poly) (> 0).
    coef0 : float, poly kernel's constant.
    degree : int, poly kernel's degree (>= 1)."""


def check_kernel(model):
    """Validate ``kernel``, ``gamma``, ``coef0``, ``degree``; return their float codes."""
    check_choice("kernel", model.kernel, KERNEL_NAMES)
    gamma = check_number("gamma", model.gamma, low=0.0, low_open=True)
    coef0 = check_number("coef0", model.coef0)
    degree = check_number("degree", model.degree, low=1.0)
    if degree != int(degree):
        raise ValueError(f"degree must be a positive integer, got {model.degree!r}")
    return (float(KERNEL_NAMES.index(model.kernel)), gamma, coef0, degree)


def seed_of(random_state):
    """A start value of the compiled generator from ``random_state``; 0 for None (the
    compiled code then seeds itself on first use, so that a model that never draws
    has the same state whatever the input path)."""
    if random_state is None:
        return 0
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(1, S.RNG_MOD))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(1, S.RNG_MOD))
    return int(random_state) % (S.RNG_MOD - 1) + 1


class _Call:
    """Reused buffers of one-example calls (dropped whenever the state or a
    hyper-parameter changes, like the base's one-example call)."""
    __slots__ = ("task", "params", "K", "scores", "out", "pred", "sw", "y", "work",
                 "views")

    def __init__(self, task, params, K, dim):
        self.task, self.params, self.K = task, params, K
        self.scores = np.zeros((1, K))
        self.out = self.scores[0]
        self.pred = np.zeros(1, dtype=np.int64)
        self.sw = np.ones(1)
        self.y = np.zeros(1)
        self.work = np.zeros(max(dim, 1))
        self.views = (None, None, memoryview(self.out))  # (the base reads the scores)


class SupportModel:
    """Mixin: a kernel expansion over a support set that grows in the compiled pass."""

    _capabilities = {"kernel": "support"}

    _expansion = None       # the learner's declared expansion (``S.declare_expansion``)
    _policies = ()          # budget policies a learner supports
    _binary_policies = ("forgetron", "projectron", "projectron++")

    # ------------------------------------------------------------ parameters
    def _rule_params(self):
        """The rule's own parameters by their declared names (override)."""
        return {}

    def _bound(self):
        """The budget policy's bound: the Projectron's threshold, BOGD's largest
        coefficient (override; 0: none)."""
        return 0.0

    def _check_params(self):
        self._kernel_codes = check_kernel(self)
        budget = getattr(self, "budget", None)
        policy = S.NONE
        if budget is not None:
            check_size("budget", budget)
            check_choice("budget_policy", self.budget_policy, self._policies)
            policy = POLICY_CODES[self.budget_policy]
        self._policy = policy
        self._rule = self._rule_params()
        self._kbound = float(self._bound())

    def _params(self):
        """The pass's named parameters: the kernel's and the budget's
        (``S.KernelParams``), and the rule's, checked against its declaration by name."""
        budget = getattr(self, "budget", None)
        kparams = S.KernelParams(*self._kernel_codes, float(self._policy), float(budget or 0),
                                 self._kbound)
        return kparams, self._expansion.pack(self, self._rule)

    # ------------------------------------------------------------ state
    def _new_state(self, K, d):
        self.state_ = {
            "alpha": np.zeros((K, _INITIAL)),
            "sv_ptr": np.zeros(_INITIAL + 1, dtype=np.int64),
            "sv_idx": np.zeros(8 * _INITIAL, dtype=np.int64),
            "sv_val": np.zeros(8 * _INITIAL),
            "sv_sq": np.zeros(_INITIAL),
            "ints": np.array([0, seed_of(getattr(self, "random_state", None)), 0, 0],
                             dtype=np.int64),
            "floats": np.zeros(S.N_FLOATS),
            "kinv": np.zeros((0, 0)),
            "pmat": np.zeros((0, 0)),
        }
        self._record_layout()  # (its columns are shifted past the constant feature)
        self._state_changed()

    def _resize_state(self, K, d):
        alpha = self.state_["alpha"]
        if K > alpha.shape[0]:
            grown = np.zeros((K, alpha.shape[1]))
            grown[:alpha.shape[0]] = alpha
            self.state_["alpha"] = grown
        self._state_changed()

    def _to_multiclass(self, old_n, n):
        alpha = self.state_["alpha"]
        new = np.zeros((n, alpha.shape[1]))
        new[0] = -0.5 * alpha[0]
        if old_n == 2:
            new[1] = 0.5 * alpha[0]
        self.state_["alpha"] = new
        self._state_changed()

    def _negate_signed(self):
        self.state_["alpha"] *= -1.0

    @property
    def _n_rows(self):
        return self.state_["alpha"].shape[0]

    @property
    def _d(self):
        return 1 << 62  # the support set never needs resizing for new features

    def _import_state(self, arrays, K=None, d=None):
        """The support set from saved arrays, checked before any compiled code may index
        them: dtypes, shapes, ``ptr`` non-decreasing from 0, column indices below ``d``,
        the counters within the capacity, finite values."""
        given = {k.split("/", 1)[1]: v for k, v in arrays.items() if k.startswith("state/")}
        names = {"alpha", "sv_ptr", "sv_idx", "sv_val", "sv_sq", "ints", "floats", "kinv",
                 "pmat"}
        if set(given) != names:
            raise ValueError(f"state arrays {sorted(given)} do not match {sorted(names)}")
        ints = {"sv_ptr", "sv_idx", "ints"}
        st = {}
        for name, v in given.items():
            if not isinstance(v, np.ndarray) or v.dtype.kind != ("i" if name in ints else "f"):
                raise ValueError(f"state array {name} has the wrong type")
            if name not in ints and not np.isfinite(v).all():
                raise ValueError(f"state array {name} holds NaN or infinity")
            st[name] = np.array(v, dtype=np.int64 if name in ints else np.float64, order="C")
        alpha, ptr, idx = st["alpha"], st["sv_ptr"], st["sv_idx"]
        cap = alpha.shape[1] if alpha.ndim == 2 else -1
        n = int(st["ints"][0]) if st["ints"].shape == (S.N_INTS,) else -1
        kinv = st["kinv"]
        ok = (alpha.ndim == 2 and cap >= 1 and (K is None or alpha.shape[0] == K)
              and ptr.shape == (cap + 1,) and st["sv_sq"].shape == (cap,)
              and idx.ndim == 1 and st["sv_val"].shape == idx.shape
              and st["floats"].shape == (S.N_FLOATS,) and 0 <= n <= cap
              and 0 <= st["ints"][1] < S.RNG_MOD and ptr[0] == 0
              and np.all(np.diff(ptr[:n + 1]) >= 0) and ptr[n] <= idx.shape[0]
              and kinv.ndim == 2 and kinv.shape[0] == kinv.shape[1]
              and kinv.shape[0] in (0, cap) and np.all(st["sv_sq"] >= 0)
              and st["pmat"].shape in ((0, 0), (cap, cap)))
        if not ok:
            raise ValueError("the saved support set is inconsistent")
        self.state_ = st
        self._record_layout()
        self._state_changed()

    @classmethod
    def from_state(cls, params, meta, arrays):
        model = super().from_state(params, meta, arrays)
        st = model.state_
        used = st["sv_idx"][:st["sv_ptr"][int(st["ints"][0])]]
        if used.size and (used.min() < 0 or used.max() >= model._dim()):
            raise ValueError("the saved support set is inconsistent (a column index "
                             "outside the model's features)")
        return model

    def _weights_finite(self):
        st = self.state_
        return bool(np.isfinite(st["alpha"]).all() and np.isfinite(st["kinv"]).all()
                    and np.isfinite(st["pmat"]).all())

    # ------------------------------------------------------------ the pass
    def _dim(self):
        return int(self.n_features_in_) + int(self.fit_intercept)

    def _check_task(self, task):
        if task == MULTICLASS and self._policy in (S.FORGETRON, S.PROJECTRON,
                                                   S.PROJECTRON_PP):
            raise ValueError(f"budget_policy {self.budget_policy!r} is defined for binary "
                             "classification only (more than two classes were seen)")

    def _pass(self, rows, y, sw, scores, pred, task, params, work):
        st = self.state_
        n_up, alpha, ptr, idx, val, sq, kinv, pmat = self._expansion.entry(
            rows, y, sw, st["alpha"], st["sv_ptr"], st["sv_idx"], st["sv_val"], st["sv_sq"],
            st["ints"], st["floats"], st["kinv"], st["pmat"], work, *params, task,
            self._seen(), scores, pred)
        st["alpha"], st["sv_ptr"], st["sv_idx"], st["sv_val"] = alpha, ptr, idx, val
        st["sv_sq"], st["kinv"], st["pmat"] = sq, kinv, pmat
        return int(n_up)

    def _run(self, X, y, sample_weight, order=None):
        rows, sw, scores, pred = self._pass_arrays(X, sample_weight)
        task = self._task()
        self._check_task(task)
        params, work = self._params(), np.zeros(self._dim())
        self.n_updates_ += run_chunks(
            rows, lambda part, lo, hi: self._pass(part, y[lo:hi], sw[lo:hi], scores[lo:hi],
                                                  pred[lo:hi], task, params, work), scores)
        self.t_ += X.shape[0]
        self._check_finite(scores, order)
        return scores, pred

    def _one_call(self):
        call = self.__dict__.get("_one_cache")
        if call is None:
            self.check_params()
            task = self._task()
            self._check_task(task)
            call = self._one_cache = _Call(task, self._params(), self._n_rows, self._dim())
        return call

    def _learn_row(self, row, y, sample_weight):
        if sample_weight != 1.0:
            sample_weight = check_weight(sample_weight)
        label = self._one_label(y)  # (after the weight's check, as the base's)
        call = self._one_call()
        if call.work.shape[0] < self._dim():
            call.work = np.zeros(2 * self._dim())
        call.y[0] = label
        call.sw[0] = sample_weight
        d = self.__dict__
        n = self._pass(row, call.y, call.sw, call.scores, call.pred, call.task, call.params,
                       call.work)
        if not np.isfinite(call.out).all():  # (the pass did not update)
            raise self._diverged(d["t_"], "stream")
        d["n_updates_"] += n
        d["t_"] += 1
        return call

    # ------------------------------------------------------------ predictions
    def _scores_of(self, rows, n, work=None):
        st = self.state_
        out = np.zeros((n, self._n_rows))
        if work is None:
            work = np.zeros(self._dim())
        args = (st["alpha"], st["sv_ptr"], st["sv_idx"], st["sv_val"], st["sv_sq"],
                int(st["ints"][0]), work, self._kernel_params_now())
        run_chunks(rows, lambda part, lo, hi:
                   S.score_rows(part, *args, out[lo:hi]) or hi - lo)
        return out

    def _kernel_params_now(self):
        return S.KernelParams(*check_kernel(self), 0.0, 0.0, 0.0)

    def batch_scores(self, X):
        """(n, K) scores ``sum_i alpha[k, i] K(x, x_i)`` of validated rows."""
        return self._scores_of(kernel_rows(X, self.fit_intercept, self._constant()),
                               X.shape[0])

    def _row_scores(self, row, n):
        call = self._one_call()
        if call.work.shape[0] < self._dim():
            call.work = np.zeros(2 * self._dim())
        return self._scores_of(row, 1, call.work)[0]

    # ------------------------------------------------------------ mixing
    #: why several models of a learner whose rule keeps matrices of its own stream
    #: cannot be merged (a class attribute of that learner: kernel RLS)
    _keeps_matrices = None

    @property
    def _mix_refusal(self):
        """Why ``olearn.mix`` cannot merge several of these models (None: it can)."""
        if self._keeps_matrices:
            return self._keeps_matrices
        policy = getattr(self, "budget_policy", None) if getattr(self, "budget", None) \
            else None
        if policy in ("forgetron", "projectron", "projectron++"):
            return (f"budget_policy={policy!r} keeps running quantities of its own "
                    "stream (the Forgetron's Q and M, the Projectron's inverse Gram "
                    "matrix)")
        return None

    def _merge_supports(self, members, lam):
        """This model's support set becomes ``sum_m lam_m f_m`` (``olearn.mix``): the
        members' support vectors one after the other, each member's coefficients times
        its weight; with a ``budget``, the ``budget`` vectors of largest ``sum_k
        |alpha_k|`` are kept, in their order.  The members' class rows and columns are
        already this model's."""
        parts = []
        for m, w in zip(members, lam):
            st = m.state_
            n = int(st["ints"][0])
            ptr = st["sv_ptr"][:n + 1]
            for s in range(n):
                lo, hi = ptr[s], ptr[s + 1]
                parts.append((w * st["alpha"][:, s], st["sv_idx"][lo:hi],
                              st["sv_val"][lo:hi], st["sv_sq"][s]))
        budget = getattr(self, "budget", None)
        if budget is not None and len(parts) > int(budget):
            size = np.array([np.abs(p[0]).sum() for p in parts])
            keep = np.sort(np.argsort(-size, kind="stable")[:int(budget)])
            parts = [parts[i] for i in keep]
        n, K = len(parts), self._n_rows
        cap = max(n, _INITIAL)
        st = self.state_
        st["alpha"] = np.zeros((K, cap))
        ptr = np.zeros(cap + 1, dtype=np.int64)
        for s, p in enumerate(parts):
            st["alpha"][:, s] = p[0]
            ptr[s + 1] = ptr[s] + len(p[1])
        st["sv_ptr"] = ptr
        nnz = max(int(ptr[n]), 8 * _INITIAL)
        st["sv_idx"] = np.zeros(nnz, dtype=np.int64)
        st["sv_val"] = np.zeros(nnz)
        if n:
            st["sv_idx"][:ptr[n]] = np.concatenate([p[1] for p in parts])
            st["sv_val"][:ptr[n]] = np.concatenate([p[2] for p in parts])
        st["sv_sq"] = np.zeros(cap)
        st["sv_sq"][:n] = [p[3] for p in parts]
        st["ints"][0] = n
        if st["kinv"].size or st["pmat"].size:
            raise ValueError(f"{type(self).__name__} cannot be mixed: "
                             f"{self._mix_refusal or 'it keeps a Gram matrix'}")
        self._state_changed()

    # ------------------------------------------------------------ the public model
    @property
    def n_support_(self):
        """Number of support vectors."""
        check_is_fitted(self, "state_")
        return int(self.state_["ints"][0])

    @property
    def dual_coef_(self):
        """(K, n_support_) coefficients ``alpha``: ``f_k(x) = sum_i alpha[k, i] K(x, x_i)``
        (K = 1 for binary classification and regression)."""
        check_is_fitted(self, "state_")
        return self.state_["alpha"][:, :self.n_support_].copy()

    @property
    def support_vectors_(self):
        """The support vectors, a CSR matrix (n_support_, n_features_in_), oldest first."""
        check_is_fitted(self, "state_")
        st = self.state_
        n = self.n_support_
        ptr = st["sv_ptr"][:n + 1]
        idx = st["sv_idx"][:ptr[-1]]
        val = st["sv_val"][:ptr[-1]]
        b = int(self.fit_intercept)
        if b:
            keep = idx >= 1
            rows = np.repeat(np.arange(n), np.diff(ptr))[keep]
            return sp.csr_matrix((val[keep], (rows, idx[keep] - 1)),
                                 shape=(n, self.n_features_in_))
        return sp.csr_matrix((val.copy(), idx.copy(), ptr.copy()),
                             shape=(n, self.n_features_in_))

    def _linear_weights(self):
        """(K, d) weights of a linear-kernel model (intercept column first)."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available with kernel='linear'")
        check_is_fitted(self, "state_")
        st = self.state_
        n = self.n_support_
        W = np.zeros((self._n_rows, self._dim()))
        for s in range(n):
            lo, hi = st["sv_ptr"][s], st["sv_ptr"][s + 1]
            W[:, st["sv_idx"][lo:hi]] += np.outer(st["alpha"][:, s], st["sv_val"][lo:hi])
        return W

    @property
    def coef_(self):
        """Primal weights, only for ``kernel='linear'``."""
        W = self._linear_weights()
        coef = W[:, int(self.fit_intercept):]
        return coef[0] if self._is_regressor() else coef

    @property
    def intercept_(self):
        """Intercept, only for ``kernel='linear'``."""
        W = self._linear_weights()
        b = self._constant() * W[:, 0] if self.fit_intercept else np.zeros(W.shape[0])
        return b

    def _is_regressor(self):
        return is_regressor(self)


class SupportClassifier(SupportModel):
    """The class-row count comes from ``alpha`` (the base reads ``W``)."""

    _slots = (Slot("alpha", ("K", 0)),)  # only its name is read (class-row lookups)

    def _task(self):
        return MULTICLASS if self.state_["alpha"].shape[0] > 1 else BINARY
