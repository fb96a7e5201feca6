"""``SequenceTagger``: a linear-chain model trained online, one sequence at a time.

One class with ``algorithm=``, not a class per algorithm: the algorithms share the
model (emission weights over hashed token features, tag-to-tag transitions with a
start and an end), its decoding, its input, its files and its mixing, and differ only
in the step of one round (``_kernels.learn_pass``, one compiled entry point with the
algorithm as a branch on a constant: one compilation serves them all).  The registry
names the usual settings (``olearn.make("tagger-pa1")``):
``olearn.registry.SEQUENCE_MODELS``.

The rules, exact to their papers, are written out in ``_kernels``' docstring:

* ``perceptron``: the structured Perceptron (Collins, "Discriminative training methods
  for hidden Markov models", EMNLP 2002), with ``average=True`` his averaged form;
* ``pa``, ``pa1``, ``pa2``: PA, PA-I and PA-II for sequences with the Hamming cost
  (Crammer, Dekel, Keshet, Shalev-Shwartz, Singer, "Online passive-aggressive
  algorithms", JMLR 7, 2006, sequence prediction: the prediction-based loss
  ``w.Phi(x, s) - w.Phi(x, y) + sqrt(cost(y, s))`` of the decoded ``s``, as CRFsuite's
  ``pa``); with ``update="max-loss"`` the paper's max-loss update instead: ``s`` the
  sequence of the largest such loss, by a cost-augmented Viterbi whose states count
  the mistakes so far (the square root of the Hamming cost does not decompose over the
  tokens; ``_kernels.cost_viterbi``, exact, ``O(n^2 K^2)`` for n tokens and K tags);
* ``arow``: AROW with a diagonal covariance (Crammer, Kulesza, Dredze, "Adaptive
  regularization of weight vectors", NIPS 2009, Fig. 1, the precision's diagonal
  updated; for sequences as in Mejer and Crammer, "Confidence in structured-prediction
  using confidence-weighted models", EMNLP 2010, and CRFsuite's ``arow``) with the
  loss ``w.Phi(x, s) - w.Phi(x, y) + cost(y, s)``, the Hamming cost.  AROW's rule
  updates whenever that hinge loss is positive (the paper's ``m_t < 1``, a correct
  prediction with too small a margin included), so by default (``update=None``) ``s``
  is the sequence of the largest loss, found by Viterbi on the emissions plus the
  cost (it decomposes over the tokens).  CRFsuite departs from the paper there: its
  ``arow`` takes ``s`` the decoded sequence and updates only on a mistake;
  ``update="prediction"`` is that rule (UD English EWT, the same features: 93.1%
  against the paper's 94.5%, ``benchmarks/structured.md``).

CRFsuite's ``pa`` averages by default (``averaging=1``), its ``arow`` does not: the
registered names follow it.  Departures from CRFsuite: every (feature, tag) pair and
every transition is a weight from the start (CRFsuite keeps only the pairs seen in
training unless ``feature.possible_states=1``), feature names are hashed to
``2**bits`` rows (CRFsuite keeps a dictionary), and averaging is over the iterates
after rounds 1..t (CRFsuite's counter starts at 1 and divides by t + 1).
"""
from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from .._estimator import Estimator, check_is_fitted
from .._locking import locked
from .._params import store_params
from .._validation import check_bool, check_choice, check_int, check_number
from .._validation import check_random_state
from ..protocol import Saves
from ._input import FEATURES, TEMPLATE_VERSION, TOKENS, encode, sequence_list

__all__ = ["SequenceTagger", "ALGORITHMS"]

#: ``algorithm=`` -> the kernel's code (``_kernels.PERCEPTRON`` ...)
ALGORITHMS = {"perceptron": 0, "pa": 1, "pa1": 2, "pa2": 3, "arow": 4}
#: ``update=``: the algorithm's own, prediction-based and max-loss updates
UPDATES = (None, "prediction", "max-loss")

_KINDS = {TOKENS: "raw tokens (strings)", FEATURES: "feature lists or dicts"}
_EMPTY = np.zeros((0, 0))   # a slot not in use (it has no element to write)


class SequenceTagger(Saves, Estimator):
    """Linear-chain sequence tagger (structured Perceptron, PA, AROW), Viterbi-decoded.

    A sequence is a list of tokens, each a string (through the default template,
    :mod:`olearn.structured.template`), a list of feature names or a dict
    ``{name: value}``; its tags a list of labels (str or int) of the same length.
    Fitted attributes: ``classes_`` (the tags, in order of first appearance), ``t_``
    (rounds, the sequences learned), ``n_updates_`` (rounds that changed the weights),
    ``input_`` (``"tokens"`` or ``"features"``), ``state_`` (the arrays).

    Parameters
    ----------
    algorithm : {"perceptron", "pa", "pa1", "pa2", "arow"}, the online rule of a round
        (see the module docstring).
    average : bool, predict with the mean of the weights after each round (Collins's
        averaged perceptron; CRFsuite's ``pa`` averages too).
    C : float > 0, the aggressiveness of PA-I and PA-II.
    update : {None, "prediction", "max-loss"}, the sequence a PA or AROW round updates
        against: the decoded one, or the one of the largest loss (cost-augmented
        decoding; it also updates a correctly tagged sequence whose margin is under the
        cost of another).  None: the algorithm's own, ``"prediction"`` for the
        perceptron and PA, ``"max-loss"`` for AROW (see the module docstring).
    r : float > 0, AROW's regularisation (CRFsuite's ``gamma``).
    variance : float > 0, AROW's initial variance of every weight.
    bits : int in 1..28, token features are hashed to ``2**bits`` rows of emission
        weights (the model holds ``2**bits`` x tags numbers per array).
    epochs : int >= 1, passes of ``fit``.
    shuffle : bool, ``fit`` visits the sequences in a new random order each pass.
    random_state : int or None, seed of that order.
    """

    #: what the model learns from (``olearn.protocol.TARGETS``)
    target = "sequence"
    _tags = {"sparse_input": False}

    def __init__(self, algorithm: str = "perceptron", average: bool = True, C: float = 1.0,
                 r: float = 1.0, variance: float = 1.0, bits: int = 18, epochs: int = 1,
                 shuffle: bool = True, random_state: Any = 0,
                 update: str | None = None) -> None:
        store_params(self, locals())

    # ------------------------------------------------------------ parameters, state
    def check_params(self) -> int:
        """Validate the hyper-parameters (once per call, and only when they or the
        state's layout changed since the last check); returns the algorithm's code."""
        st = self.__dict__.get("state_")
        key = (self.algorithm, self.average, self.C, self.r, self.variance, self.bits,
               self.epochs, self.shuffle, self.update,
               None if st is None else (st["W"].shape[0], "U" in st, "S" in st))
        if self.__dict__.get("_checked") == key:
            return ALGORITHMS[self.algorithm]
        self._check_params()
        self._checked = key
        return ALGORITHMS[self.algorithm]

    def _check_params(self):
        check_choice("algorithm", self.algorithm, tuple(ALGORITHMS))
        check_bool("average", self.average)
        check_choice("update", self.update, UPDATES)
        if self.update == "max-loss" and self.algorithm == "perceptron":
            raise ValueError("update='max-loss' is for PA and AROW (their loss), not the "
                             "perceptron")
        check_number("C", self.C, 0, low_open=True)
        check_number("r", self.r, 0, low_open=True)
        check_number("variance", self.variance, 0, low_open=True)
        bits = check_int("bits", self.bits, 1)
        if bits > 28:
            raise ValueError(f"bits must be an integer from 1 to 28, got {bits!r}")
        check_int("epochs", self.epochs, 1)
        check_bool("shuffle", self.shuffle)
        st = self.__dict__.get("state_")
        if st is not None:
            rows = st["W"].shape[0]
            if rows != 1 << bits:
                raise ValueError(f"bits={bits} but the model learned with bits="
                                 f"{rows.bit_length() - 1}: call fit() to start afresh")
            for name, wanted, has in (("average", self.average, "U" in st),
                                      ("algorithm", self.algorithm == "arow", "S" in st)):
                if wanted != has:
                    raise ValueError(f"{name}={getattr(self, name)!r} needs another state "
                                     "than the model learned with: call fit() to start "
                                     "afresh (or set it back)")

    def _max_loss(self) -> bool:
        """Whether a round updates against the sequence of the largest loss."""
        if self.update is None:
            return self.algorithm == "arow"
        return self.update == "max-loss"

    def _slot_names(self):
        names = ["W", "T"]
        if self.average:
            names += ["U", "UT"]
        if self.algorithm == "arow":
            names += ["S", "ST"]
        return names

    def _fresh(self):
        """The state before any tag: every array with 0 tags."""
        D = 1 << self.bits
        self.state_ = {}
        for name in self._slot_names():
            boundary = name in ("T", "UT", "ST")
            shape = (1, 1) if boundary else (D, 0)
            fill = self.variance if name in ("S", "ST") else 0.0
            self.state_[name] = np.full(shape, fill)
        self.classes_ = np.array([])
        self._index: dict[Any, int] = {}
        self.t_ = 0
        self.n_updates_ = 0
        self.input_ = None

    def _grow(self, K):
        """Make room for ``K`` tags (new columns at their initial value; the boundary
        of the transitions moves to index ``K``)."""
        st = self.state_
        K0 = st["W"].shape[1]
        if K == K0:
            return
        for name, a in st.items():
            fill = self.variance if name in ("S", "ST") else 0.0
            if name in ("T", "UT", "ST"):
                b = np.full((K + 1, K + 1), fill)
                b[:K0, :K0] = a[:K0, :K0]
                b[K, :K0] = a[K0, :K0]
                b[:K0, K] = a[:K0, K0]
                b[K, K] = a[K0, K0]
            else:
                b = np.full((a.shape[0], K), fill)
                b[:, :K0] = a
            st[name] = b

    def _arrays(self):
        """The kernels' arrays: ``W, T, U, UT, S, ST`` (an empty array for a slot the
        settings do not use: the kernels read none of it)."""
        st = self.state_
        return (st["W"], st["T"], st.get("U", _EMPTY), st.get("UT", _EMPTY),
                st.get("S", _EMPTY), st.get("ST", _EMPTY))

    def __sklearn_is_fitted__(self) -> bool:
        return "state_" in self.__dict__

    # ------------------------------------------------------------ input
    def _batch(self, X):
        """The hashed batch of ``X``, its kind checked against what the model learned."""
        batch = encode(X, self.bits)
        learned = self.__dict__.get("input_")
        if batch.kind is not None and learned is not None and batch.kind != learned:
            raise ValueError(f"this tagger learned from {_KINDS[learned]}, got "
                             f"{_KINDS[batch.kind]}")
        return batch

    def _codes(self, y, batch, index):
        """The tag codes of ``y`` (a list of tag sequences matching the batch) and the
        labels new to ``index``, in order of first appearance; changes nothing."""
        ys = sequence_list(y, "y")
        lengths = batch.sptr[1:] - batch.sptr[:-1]
        if len(ys) != len(lengths):
            raise ValueError(f"X has {len(lengths)} sequences but y has {len(ys)}")
        ylens = np.fromiter(map(len, ys), np.int64, len(ys))
        if (ylens != lengths).any():
            i = int(np.argmax(ylens != lengths))
            raise ValueError(f"sequence {i} has {lengths[i]} tokens but {ylens[i]} tags")
        flat = list(chain.from_iterable(ys))
        try:
            codes = list(map(index.get, flat))
        except TypeError:
            bad = next(t for t in flat if not _is_label(t))
            raise ValueError(f"a tag must be a str or an int, got {bad!r}") from None
        new: dict[Any, int] = {}
        if None in codes:
            kinds = {type(label) for label in index}
            for i, c in enumerate(codes):
                if c is None:
                    label = flat[i]
                    if not _is_label(label):
                        raise ValueError(f"a tag must be a str or an int, got {label!r}")
                    label = str(label) if isinstance(label, str) else int(label)
                    code = index.get(label, new.get(label))
                    if code is None:
                        code = new[label] = len(index) + len(new)
                        kinds.add(type(label))
                        if len(kinds) > 1:
                            raise ValueError("the tags must all be strings or all be "
                                             f"integers, got {label!r} among "
                                             f"{next(iter(index), flat[0])!r}")
                    codes[i] = code
        return np.array(codes, dtype=np.int64), list(new)

    def _learned_labels(self, labels, kind):
        """Take on the new ``labels`` and the input's ``kind`` (validation is done)."""
        if labels:
            for label in labels:
                self._index[label] = len(self._index)
            self.classes_ = np.array(list(self._index))
            self._grow(len(self._index))
        if kind is not None and self.input_ is None:
            self.input_ = kind

    def _labels(self, codes, sptr):
        labels = self.classes_[codes].tolist()
        bounds = sptr.tolist()
        return [labels[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    # ------------------------------------------------------------ learning
    def _run(self, algo, batch, codes, order, want_pred):
        from ._kernels import learn_pass
        W, T, U, UT, S, ST = self._arrays()
        counts = np.array([float(self.t_), float(self.n_updates_), 0.0])
        pred = np.zeros(len(codes) if want_pred else 0, dtype=np.int64)
        learn_pass(W, T, U, UT, S, ST, counts, batch.idx, batch.val, batch.fptr,
                   batch.sptr, codes, order, algo, float(self.C), float(self.r),
                   self._max_loss(), want_pred, pred)
        self.t_, self.n_updates_ = int(counts[0]), int(counts[1])
        if counts[2]:
            from ..base import DivergenceError
            raise DivergenceError(f"SequenceTagger diverged at sequence {int(counts[2]) - 1} "
                                  "of this batch: a score became non-finite (scale the "
                                  "feature values down; call fit() to start afresh)",
                                  row=int(counts[2]) - 1, where="batch",
                                  learner="SequenceTagger")
        return pred

    def _learn(self, X, y, want_pred):
        algo = self.check_params()
        fresh = "state_" not in self.__dict__
        batch = self._batch(X)
        codes, new = self._codes(y, batch, {} if fresh else self._index)
        if fresh:   # (after the checks: a call that fails leaves the model as it was)
            self._fresh()
        self._learned_labels(new, batch.kind)
        order = np.arange(len(batch.sptr) - 1, dtype=np.int64)
        pred = self._run(algo, batch, codes, order, want_pred)
        return self._labels(pred, batch.sptr) if want_pred else None

    @locked
    def partial_fit(self, X: Any, y: Any, sample_weight: None = None) -> SequenceTagger:
        """Learn the sequences ``X`` with tags ``y``, in order, one round each
        (``sample_weight``: None; the protocol's keyword, no weights are taken)."""
        if sample_weight is not None:
            raise ValueError("SequenceTagger takes no sample weights (sample_weight=None)")
        self._learn(X, y, False)
        return self

    @locked
    def predict_learn(self, X: Any, y: Any) -> list[list[Any]]:
        """The progressive protocol: each sequence's tags as the model predicts them
        before learning it (a list of lists), the model then updated."""
        return self._learn(X, y, True)

    @locked
    def fit(self, X: Any, y: Any) -> SequenceTagger:
        """Start afresh and learn ``X`` with tags ``y`` in ``epochs`` passes (each in a
        new random order with ``shuffle``)."""
        algo = self.check_params()
        batch = encode(X, self.bits)
        codes, labels = self._codes(y, batch, {})
        self.__dict__.pop("state_", None)
        self._fresh()
        self._learned_labels(labels, batch.kind)
        rng = check_random_state(self.random_state)
        n = len(batch.sptr) - 1
        for _ in range(int(self.epochs)):
            order = rng.permutation(n).astype(np.int64) if self.shuffle else \
                np.arange(n, dtype=np.int64)
            self._run(algo, batch, codes, order, False)
        return self

    @locked
    def fit_pass(self, X: Any, y: Any, seed: Any = 0) -> SequenceTagger:
        """One more pass over ``X`` as ``fit`` makes each of its passes: with ``shuffle``
        in a random order drawn from ``random_state`` (an int, else 0) and ``seed`` (ints:
        the epoch, ...), else in order.  Iterative parameter mixing's members make
        their epochs with it (``olearn.distributed``: ``seed`` the epoch, the pass and
        the chunk of the shard; a shard read from files is shuffled within each chunk
        it is read in), as the serial ``fit`` does."""
        if not self.shuffle:
            self._learn(X, y, False)
            return self
        n = len(sequence_list(X))
        base = self.random_state if isinstance(self.random_state, (int, np.integer)) \
            and not isinstance(self.random_state, bool) else 0
        seeds = [abs(int(base)), *np.abs(np.ravel(seed)).astype(np.int64).tolist()]
        order = np.random.default_rng(seeds).permutation(n)
        Xs, ys = sequence_list(X), sequence_list(y, "y")
        if len(ys) != n:
            raise ValueError(f"X has {n} sequences but y has {len(ys)}")
        self._learn([Xs[i] for i in order], [ys[i] for i in order], False)
        return self

    @locked
    def learn_one(self, tokens: Any, tags: Any) -> SequenceTagger:
        """Learn one sequence (a list of tokens) with its tags."""
        self._learn([_one(tokens)], [tags], False)
        return self

    @locked
    def predict_learn_one(self, tokens: Any, tags: Any) -> list[Any]:
        """``predict_one(tokens)``'s answer, then ``learn_one(tokens, tags)``."""
        return self._learn([_one(tokens)], [tags], True)[0]

    # ------------------------------------------------------------ predicting
    @locked
    def predict(self, X: Any) -> list[list[Any]]:
        """The tags of each sequence of ``X`` (a list of lists), by Viterbi decoding with
        the current model (the averaged one with ``average``)."""
        from ._kernels import decode_pass
        check_is_fitted(self, "state_")
        self.check_params()
        batch = self._batch(X)
        W, T, U, UT, _, _ = self._arrays()
        n = len(batch.fptr) - 1
        if n and W.shape[1] == 0:
            raise ValueError("this tagger has learned no tag yet: nothing to predict")
        pred = np.zeros(n, dtype=np.int64)
        decode_pass(W, T, U, UT, float(self.t_), batch.idx, batch.val, batch.fptr,
                    batch.sptr, pred)
        return self._labels(pred, batch.sptr)

    @locked
    def predict_one(self, tokens: Any) -> list[Any]:
        """The tags of one sequence (a list)."""
        return self.predict([_one(tokens)])[0]

    @locked
    def score(self, X: Any, y: Any) -> float:
        """Token accuracy of the predicted tags against ``y``."""
        pred = self.predict(X)
        ys = sequence_list(y, "y")
        if len(ys) != len(pred) or any(len(a) != len(b) for a, b in zip(pred, ys)):
            raise ValueError("y must have one tag per token of X")
        flat = list(chain.from_iterable(ys))
        hits = sum(map(_equal, chain.from_iterable(pred), flat))
        return hits / len(flat) if flat else 0.0

    # ------------------------------------------------------------ state
    @locked
    def explicit_state(self) -> dict[str, np.ndarray]:
        """The weights a prediction uses (the averaged ones with ``average``; AROW's
        variances too), name -> array, copies: what ``olearn.mix`` combines."""
        check_is_fitted(self, "state_")
        st = self.state_
        out = {}
        for w, u in (("W", "U"), ("T", "UT")):
            out[w] = st[w] - st[u] / self.t_ if u in st and self.t_ > 0 else st[w].copy()
        for name in ("S", "ST"):
            if name in st:
                out[name] = st[name].copy()
        return out

    def _aligned_state(self, labels):
        """The explicit state on the tags ``labels`` (a superset of ``classes_``, in
        their order): ``W``, ``T`` raw, ``Wbar``, ``Tbar`` averaged (with ``average``),
        ``S``, ``ST`` (AROW); a tag the model never met holds the initial values."""
        st = self.state_
        K0 = st["W"].shape[1]
        pos = np.array([self._index.get(label, -1) for label in labels], dtype=np.int64)
        have = np.flatnonzero(pos >= 0)
        ends = np.append(pos, K0)        # the boundary stays last
        tin = np.flatnonzero(ends >= 0)
        explicit = {"W": st["W"], "T": st["T"]}
        if "U" in st:
            avg = self.explicit_state()
            explicit.update(Wbar=avg["W"], Tbar=avg["T"])
        for name in ("S", "ST"):
            if name in st:
                explicit[name] = st[name]
        out = {}
        for name, a in explicit.items():
            fill = self.variance if name in ("S", "ST") else 0.0
            if name in ("T", "Tbar", "ST"):
                b = np.full((len(labels) + 1, len(labels) + 1), fill)
                b[np.ix_(tin, tin)] = a[np.ix_(ends[tin], ends[tin])]
            else:
                b = np.full((a.shape[0], len(labels)), fill)
                b[:, have] = a[:, pos[have]]
            out[name] = b
        return out

    def _take_mixed(self, labels, mixed, t, n_updates, kind):
        """Become the mix: tags ``labels``, the mixed explicit state (the averaging
        accumulators written back from ``W`` and ``Wbar``: ``U = t (W - Wbar)``)."""
        self._index = {label: i for i, label in enumerate(labels)}
        self.classes_ = np.array(labels)
        st = {"W": mixed["W"], "T": mixed["T"]}
        if "Wbar" in mixed:
            st["U"] = t * (mixed["W"] - mixed["Wbar"])
            st["UT"] = t * (mixed["T"] - mixed["Tbar"])
        for name in ("S", "ST"):
            if name in mixed:
                st[name] = mixed[name]
        self.state_ = {k: np.ascontiguousarray(v, dtype=np.float64) for k, v in st.items()}
        self.t_, self.n_updates_, self.input_ = t, n_updates, kind

    @locked
    def export_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """(metadata, arrays) for a model file: the tags, counters, input kind and
        template version (raw tokens); the rows of the emission arrays that differ from
        their initial value (``rows``, in increasing order) and the transition arrays
        whole."""
        check_is_fitted(self, "state_")
        st = self.state_
        used = np.zeros(st["W"].shape[0], dtype=bool)
        for name in ("W", "U", "S"):
            if name in st and st[name].shape[1]:
                init = self.variance if name == "S" else 0.0
                used |= (st[name] != init).any(axis=1)
        rows = np.flatnonzero(used).astype(np.int64)
        arrays = {"rows": rows}
        for name, a in st.items():
            arrays[name] = a if name in ("T", "UT", "ST") else a[rows]
        meta = {"classes": self.classes_.tolist(), "t": self.t_,
                "n_updates": self.n_updates_, "input": self.input_,
                "template": TEMPLATE_VERSION if self.input_ == TOKENS else None}
        return meta, {k: np.ascontiguousarray(v) for k, v in arrays.items()}

    @classmethod
    def from_state(cls, params: dict[str, Any], meta: dict[str, Any],
                   arrays: dict[str, np.ndarray]) -> SequenceTagger:
        """The model a file describes; every part checked before any kernel reads it."""
        if not isinstance(params, dict) or not isinstance(meta, dict):
            raise ValueError("parameters and metadata must be JSON objects")
        model = cls(**params)
        model.check_params()
        classes = meta.get("classes")
        if not isinstance(classes, list) or not all(map(_is_label, classes)) \
                or len(set(classes)) != len(classes) or len({type(c) for c in classes}) > 1:
            raise ValueError("classes must be a list of distinct tags, all str or all int")
        for key in ("t", "n_updates"):
            if type(meta.get(key)) is not int or meta[key] < 0:
                raise ValueError(f"{key} must be a non-negative integer")
        if meta.get("input") not in (None, TOKENS, FEATURES):
            raise ValueError(f"input must be {TOKENS!r}, {FEATURES!r} or null")
        if meta.get("input") == TOKENS and meta.get("template") != TEMPLATE_VERSION:
            raise ValueError(f"the model's features come from version "
                             f"{str(meta.get('template'))[:10]} of the default template, "
                             f"this olearn computes version {TEMPLATE_VERSION}: train it "
                             "again")
        K, D = len(classes), 1 << model.bits
        names = model._slot_names()
        if set(arrays) != {"rows", *names}:
            raise ValueError(f"the arrays must be rows, {', '.join(names)}; got "
                             f"{', '.join(sorted(arrays))}")
        rows = arrays["rows"]
        if not isinstance(rows, np.ndarray) or rows.dtype != np.int64 or rows.ndim != 1 \
                or (rows.size and (rows[0] < 0 or rows[-1] >= D
                                   or (np.diff(rows) <= 0).any())):
            raise ValueError(f"rows must be increasing int64 row numbers below {D}")
        model._fresh()
        for name in names:
            a = arrays[name]
            boundary = name in ("T", "UT", "ST")
            shape = (K + 1, K + 1) if boundary else (len(rows), K)
            if not isinstance(a, np.ndarray) or a.dtype != np.float64 or a.shape != shape:
                raise ValueError(f"state array {name} must be float64{list(shape)}")
            if not np.isfinite(a).all():
                raise ValueError(f"state array {name} holds NaN or infinity")
            if name in ("S", "ST") and not (a > 0).all():
                raise ValueError(f"state array {name} (variances) must be positive")
            if boundary:
                model.state_[name] = np.array(a, order="C")
            else:
                full = np.full((D, K), model.variance if name == "S" else 0.0)
                full[rows] = a
                model.state_[name] = full
        model._index = {c: i for i, c in enumerate(classes)}
        model.classes_ = np.array(classes)
        model.t_, model.n_updates_ = meta["t"], meta["n_updates"]
        model.input_ = meta.get("input")
        return model


def _is_label(value):
    return isinstance(value, (str, int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _equal(a, b):
    return a == b


def _one(tokens):
    """One sequence, refused when it is a string (a sentence not split into tokens)."""
    if isinstance(tokens, (str, bytes)):
        raise ValueError("a sequence is a list of tokens, got a str (split it first)")
    return tokens
