"""Multilabel models from the shell: ``train``, ``evaluate`` and ``predict`` of label
sets (olearn.multilabel), called by those commands when the data, ``--task
multilabel``, the ``--algo`` name or the saved model is multilabel.

- A multilabel stream: an ARFF file (MEKA's ``-C N`` in its ``@relation``: the first N
  attributes are the labels; ``olearn.io.read_arff``), a LIBSVM multilabel file
  (``1,4,7 3:0.5 ...``; seen from its first row's label field: a comma, or no label),
  or with ``--task multilabel`` any LIBSVM or Vowpal Wabbit file (``1,4,7 |ns f ...``).
- ``olearn train Yeast.arff --algo ml-br -f m.olm``: the rows predicted, then learned,
  in file order (``predict_learn`` a chunk at a time: every row predicted by the model
  as it was before it), the progressive Hamming loss at doubling checkpoints as Vowpal
  Wabbit prints its loss, then Hamming loss, example-based F1, micro and macro F1 and
  subset accuracy; the model saved with its input (``olearn/cli/_pipeline.py``) only
  when the whole file was learned.  ``--algo`` a binary classifier (``pa1``): binary
  relevance over it; no ``--algo``: ``ml-br``.  ``--init MODEL`` continues a saved one.
- ``--labels-xml FILE``: an ARFF file's labels named by Mulan's XML label file
  (``read_arff(..., labels_xml=FILE)``) in place of MEKA's ``-C N``.
- ``olearn evaluate DATA --algo ml-pa1`` (or ``--init MODEL``): the same, nothing saved.
- ``olearn predict DATA -i m.olm -p out``: one line a row, the labels predicted for it
  comma-separated (an empty line: none); the labels are the model's (an ARFF file's:
  the positions 0..N-1 of its label attributes).  Unless ``--quiet``, stderr says the
  metrics against the file's own label sets.
"""
import os
import sys
import time

from ._common import (CLIError, atomic_text, check_paths, check_writable, format_value,
                      report_stream)

#: train options that a multilabel run does not take, and why
_NOT_FOR_MULTILABEL = {"holdout": "--holdout", "scale": "--scale", "cache": "--cache",
                       "server": "--server", "readable_model": "--readable_model",
                       "testonly": "-t", "oaa": "--oaa", "shuffle": "--shuffle"}
_ARFF = (".arff",)


#: ``--task multilabel``'s help (train's and evaluate's ``--task``)
TASK_HELP = ("multilabel: label sets (ARFF, LIBSVM '1,4,7 3:0.5 ...' or vw '1,4,7 |f ...' "
             "lines; --algo ml-br, ml-pa1, ...)")


def add_args(p):
    """``--labels-xml FILE`` (train, evaluate and predict)."""
    p.add_argument("--labels-xml", dest="labels_xml", metavar="FILE", default=None,
                   help="multilabel ARFF DATA: Mulan's XML file naming its label attributes "
                        "(in place of MEKA's -C N in the @relation)")


def is_arff(path):
    name = os.fspath(path or "").lower()
    for suffix in (".gz", ".bz2", ".xz"):
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    return name.endswith(_ARFF)


def _libsvm_multilabel(path):
    """Whether the first row of a LIBSVM file has a label set (a comma in its label
    field, or no label: its first token a feature)."""
    if path in (None, "-") or not os.path.isfile(path):
        return False
    for line in _head(path):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        head = body.split(None, 1)[0]
        return "," in head or ":" in head
    return False


def _head(path, lines=20):
    """The first lines of a (maybe compressed) file, as text."""
    import bz2
    import gzip
    import lzma
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(os.fspath(path))[1].lower(), open)
    try:
        with opener(path, "rb") as f:
            return [f.readline(1 << 16).decode("utf-8", "replace") for _ in range(lines)]
    except (OSError, EOFError, lzma.LZMAError):
        return []


def _saved_multilabel(path):
    """Whether the model file at ``path`` holds a model of label sets (its metadata names
    a class of olearn.multilabel; an unreadable file: False, the command reports it)."""
    if not path or not os.path.isfile(path):
        return False
    import json

    import numpy as np
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["__meta__"]))
    except Exception:  # noqa: BLE001 (whatever a damaged file raises: load says it)
        return False
    return "olearn.multilabel." in json.dumps(meta.get("class")) + \
        json.dumps(meta.get("params"))


def wanted(args, model=None):
    """Whether this command is about label sets: ``--task multilabel``, an ``ml-*``
    name, a saved model of label sets, an ARFF file or a LIBSVM multilabel one."""
    from ..registry import MULTILABEL_MODELS
    from ._input import data_format
    if getattr(args, "task", None) == "multilabel" or getattr(args, "labels_xml", None):
        return True
    if model is not None:
        return getattr(model, "target", None) == "labels"
    if getattr(args, "task", None) is not None:
        return False
    algo = getattr(args, "algo", None)
    if algo and algo in MULTILABEL_MODELS or _saved_multilabel(getattr(args, "init", None)):
        return True
    data = getattr(args, "data", None)
    if data in (None, "-") or getattr(args, "format", "auto") == "ratings":
        return False
    return is_arff(data) or data_format(args) == "libsvm" and _libsvm_multilabel(data)


# ---------------------------------------------------------------- the model
def _model(args, params):
    """The model to learn: ``--init``'s, an ``ml-*`` learner, or binary relevance over a
    binary learner (default ``ml-br``)."""
    from ..registry import MULTILABEL_MODELS, make
    from ._models import make_model
    if args.init:
        from . import _pipeline
        if not os.path.isfile(args.init):
            raise CLIError(f"{args.init}: no such model file")
        model = _pipeline.load(args.init, args)
        if getattr(model, "target", None) != "labels":
            raise CLIError(f"{args.init} holds a {type(model).__name__}, not a model of "
                           "label sets: a multilabel stream continues only one")
        if params:
            model.set_params(**params)
            model.check_params()
        return model, args.algo or type(model).__name__
    algo = args.algo or "ml-br"
    if algo in MULTILABEL_MODELS:
        model = make(algo, **params)
        model.check_params()
        return model, algo
    from ._common import check_algos
    check_algos([algo])
    from .._estimator import is_classifier
    base = make_model(algo, params)
    if not is_classifier(base):
        raise CLIError(f"{algo} is a regressor: a multilabel stream takes an ml-* model "
                       "(ml-br, ml-cc, ml-pa1, ...) or a binary classifier (binary "
                       "relevance over it)")
    from ..multilabel import BinaryRelevance
    return BinaryRelevance(base), f"ml-br over {algo}"


# ---------------------------------------------------------------- reading
def _format(args):
    from ._input import data_format
    if is_arff(args.data) or getattr(args, "format", None) == "arff":
        return "arff"
    fmt = data_format(args)
    if fmt not in ("libsvm", "vw"):
        raise CLIError(f"a multilabel stream is read from ARFF, LIBSVM or vw files, not "
                       f"{fmt}")
    return fmt


class _Chunks:
    """The chunks ``(X, y)`` of DATA (y: label sets, or an indicator for ARFF), with the
    reader's resolved options for the model file's record."""

    def __init__(self, args, width=None):
        from ._input import hash_bits, require_data
        require_data(args)
        self.args, self.fmt, self.reader = args, _format(args), None
        if getattr(args, "labels_xml", None) and self.fmt != "arff":
            raise CLIError("--labels-xml names the labels of an ARFF DATA, not of a "
                           f"{self.fmt} file")
        if self.fmt == "libsvm":
            from ..io import read_libsvm_multilabel
            zero = {"auto": "auto", "yes": True, "no": False}[args.zero_based]
            self.reader = read_libsvm_multilabel(
                args.data, chunk_size=args.chunk_size, zero_based=zero,
                n_features=width if width is not None else args.n_features or "grow")
        elif self.fmt == "vw":
            from ..io import read_vw_multilabel
            self.reader = read_vw_multilabel(
                args.data, n_bits=hash_bits(args, width), quadratic=args.quadratic,
                cubic=args.cubic, ignore=args.ignore, chunk_size=args.chunk_size)
        self.width = width

    def __iter__(self):
        if self.reader is not None:
            for X, y in self.reader:
                yield self._fit(X), y
            return
        from ..io import read_arff
        X, Y, self.names = read_arff(self.args.data,
                                     labels_xml=getattr(self.args, "labels_xml", None))
        size = self.args.chunk_size
        for a in range(0, X.shape[0], size):
            yield self._fit(X[a:a + size]), Y[a:a + size]

    def _fit(self, X):
        """Rows narrower than the model's width padded with zero columns; wider: an
        error (predict) or the width grown (learning)."""
        import scipy.sparse as sp
        if self.width is not None and X.shape[1] < self.width:
            X = sp.csr_matrix(X)
            X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], self.width))
        return X


def _indicator(model, y, n):
    """The (n, L) truth in ``model.classes_`` order (labels unknown to it dropped): ``y``
    an ARFF file's indicator (column j: label j) or a list of label sets."""
    import numpy as np
    classes = model.__dict__.get("classes_")
    classes = [] if classes is None else classes.tolist()
    pos = {v: j for j, v in enumerate(classes)}
    out = np.zeros((n, len(classes)), dtype=np.int8)
    if isinstance(y, np.ndarray):
        for k in range(y.shape[1]):
            if k in pos:
                out[:, pos[k]] = y[:, k]
        return out
    for i, labels in enumerate(y):
        for v in labels:
            if v in pos:
                out[i, pos[v]] = 1
    return out


class Scores:
    """Running multilabel metrics over rows of (truth, prediction) indicators whose
    columns are labels (keyed by label, so a label met late keeps its counts): Hamming
    loss (mistaken label decisions over rows x labels known at the end), example-based
    F1 (a row's ``2 |P & Y| / (|P| + |Y|)``, 1 where both are empty), micro and macro
    F1 (per label; 1 for a label never relevant nor predicted), subset accuracy."""

    def __init__(self):
        self.rows, self.ex_f1, self.subset = 0, 0.0, 0
        self.tp, self.fp, self.fn = {}, {}, {}

    def add(self, Y, P, labels):
        """Rows ``Y`` (truth) and ``P`` (prediction), columns ``labels``; returns each
        row's count of mistaken labels."""
        import numpy as np
        Y, P = np.asarray(Y, dtype=bool), np.asarray(P, dtype=bool)
        tp = (Y & P).sum(axis=1)
        size = Y.sum(axis=1) + P.sum(axis=1)
        self.ex_f1 += float(np.where(size == 0, 1.0, 2 * tp / np.maximum(size, 1)).sum())
        wrong = (Y != P).sum(axis=1)
        self.subset += int((wrong == 0).sum())
        self.rows += Y.shape[0]
        for table, counts in ((self.tp, (Y & P).sum(0)), (self.fp, (~Y & P).sum(0)),
                              (self.fn, (Y & ~P).sum(0))):
            for v, c in zip(labels, counts.tolist()):
                table[v] = table.get(v, 0) + c
        return wrong

    def labels(self):
        return max(len(self.tp), 1)

    def figures(self):
        import numpy as np
        n, keys = max(self.rows, 1), list(self.tp)
        tp, fp, fn = (np.array([t[k] for k in keys], dtype=float)
                      for t in (self.tp, self.fp, self.fn))
        den = 2 * tp + fp + fn
        return {"Hamming loss": float((fp.sum() + fn.sum()) / (n * self.labels())),
                "example-based F1": self.ex_f1 / n,
                "micro F1": float(2 * tp.sum() / max(den.sum(), 1)),
                "macro F1": float(np.where(den == 0, 1.0, 2 * tp / np.maximum(den, 1)).mean())
                if len(keys) else 1.0,
                "subset accuracy": self.subset / n}

    def lines(self):
        return [f"{k} = {v:.6f}" for k, v in self.figures().items()]


def _set_text(row, classes):
    return ",".join(format_value(c) for c, r in zip(classes, row) if r) or "{}"


def _progressive(model, chunks, out):
    """One pass of ``predict_learn`` over the chunks; Vowpal Wabbit's table of the
    Hamming loss at doubling checkpoints (rows 1, 2, 4, ...) on ``out``; the scores."""
    import numpy as np
    scores = Scores()
    mark, wrong_total, last_rows, last_wrong = 1, 0, 0, 0
    for X, y in chunks:
        if X.shape[0] == 0:
            continue
        _widen(model, X)
        P = model.predict_learn(X, y)
        Y = _indicator(model, y, X.shape[0])
        classes = model.classes_.tolist()
        wrong = scores.add(Y, P, classes)
        cum = np.cumsum(wrong) + wrong_total
        start = scores.rows - X.shape[0]
        while out is not None and mark <= scores.rows:
            i = mark - start - 1
            L = len(classes) or 1
            if mark == 1:   # (the header at the first checkpoint: a bad file shows none)
                print(f"{'average':<10} {'since':<10} {'example':>10} {'current':>16} "
                      f"{'current':>16}\n{'Hamming':<10} {'last':<10} {'counter':>10} "
                      f"{'labels':>16} {'predict':>16}", file=out)
            since = (cum[i] - last_wrong) / max(mark - last_rows, 1) / L
            print(f"{cum[i] / mark / L:<10.6f} {since:<10.6f} {mark:>10d} "
                  f"{_cell(_set_text(Y[i], classes)):>16} {_cell(_set_text(P[i], classes)):>16}",
                  file=out, flush=True)
            last_rows, last_wrong, mark = mark, int(cum[i]), mark * 2
        wrong_total = int(cum[-1])
    return scores


def _cell(text):
    return text if len(text) <= 16 else text[:15] + "~"


def _widen(model, X):
    width = model.__dict__.get("n_features_in_")
    if width is not None and X.shape[1] > width:
        model.widen(X.shape[1])


# ---------------------------------------------------------------- commands
def _check_options(args):
    for key, flag in _NOT_FOR_MULTILABEL.items():
        if getattr(args, key, None):
            raise CLIError(f"{flag} is not for a multilabel stream")
    if getattr(args, "workers", None) is not None or getattr(args, "scheduler", None):
        raise CLIError("--workers and --scheduler are not for a multilabel stream from the "
                       "command line (use olearn.distributed.fit from Python)")
    if getattr(args, "passes", 1) < 1:
        raise CLIError(f"--passes must be >= 1, got {args.passes}")
    if getattr(args, "predictions", None):
        raise CLIError("-p on train is not for a multilabel stream: olearn predict -i MODEL "
                       "DATA -p FILE writes the label sets")


def train(args, params, learn_only=False):
    """``olearn train DATA`` of label sets (see the module docstring); with
    ``learn_only`` (``evaluate``) nothing is saved."""
    _check_options(args)
    check_paths([("data", args.data), ("initial model", args.init),
                 ("Mulan label file", getattr(args, "labels_xml", None))],
                [("model", getattr(args, "model", None))])
    if getattr(args, "model", None):
        check_writable(args.model, "model")
    model, name = _model(args, params)
    width = model.__dict__.get("n_features_in_") if args.init else None
    chunks = _Chunks(args, width)
    quiet = getattr(args, "quiet", False)
    out = report_stream()
    from .._compile_notice import seconds as compiling
    from ._learning import learning
    t0, c0 = time.perf_counter(), compiling()
    with learning(f"the {name} kernels"):
        scores = _progressive(model, chunks, None if quiet else out)
        for k in range(1, getattr(args, "passes", 1)):
            from ..io import is_stream
            if is_stream(args.data):
                raise CLIError("--passes > 1 reads DATA again: give a file, not a stream")
            again = _progressive(model, chunks, None)
            if not quiet:
                print(f"pass {k + 1}: Hamming loss {again.figures()['Hamming loss']:.6f} "
                      "before each update (rows learned in earlier passes: not a "
                      "progressive estimate)", file=out)
    total = time.perf_counter() - t0
    compiled = min(compiling() - c0, total)
    seconds = total - compiled
    from ._learning import check_finite
    check_finite(model, name, saved_note="; the model was not saved" if not learn_only and
                 getattr(args, "model", None) else "")
    if not quiet:
        what = "progressive validation" if learn_only else "finished"
        print(f"\n{what}: {name} on {args.data}", file=out)
        print(f"rows = {scores.rows:,}, labels = {len(model.classes_)}, "
              f"features = {model.__dict__.get('n_features_in_', 0):,}", file=out)
        for line in scores.lines():
            print(f"progressive {line}", file=out)
        print(f"updates = {model.n_updates_:,}\ntime = {seconds:.3f} s "
              f"({scores.rows / max(seconds, 1e-9):,.0f} rows/s, reading included)" +
              (f", and {compiled:.3f} s compiling (first use)" if compiled > 0.0005 else ""),
              file=out)
    if not learn_only and args.model:
        from . import _pipeline
        args.format = chunks.fmt
        _pipeline.save(model, args.model, args, chunks.reader)
        if not quiet:
            print(f"model saved to {args.model}", file=out)
    return 0


def evaluate(args, params):
    """``olearn evaluate DATA --algo ml-...`` (or ``--init MODEL``): as train, nothing
    saved."""
    if args.data is None:
        raise CLIError("evaluate of a multilabel model needs DATA (an ARFF, LIBSVM or vw "
                       "file)")
    if getattr(args, "metric", None) or getattr(args, "window", None) is not None or \
            getattr(args, "fading", None) is not None:
        raise CLIError("--metric, --window and --fading are for single-label learners: a "
                       "multilabel evaluation prints Hamming loss, example-based, micro "
                       "and macro F1 and subset accuracy")
    if args.algo and "," in args.algo:
        raise CLIError("evaluate DATA takes one --algo NAME")
    return train(args, params, learn_only=True)


def predict(args, model):
    """``olearn predict DATA -i MODEL``: one line a row, its predicted labels
    comma-separated."""
    if getattr(model, "target", None) != "labels":
        raise CLIError(f"{args.model} holds a {type(model).__name__}, not a model of label "
                       "sets")
    if getattr(args, "probabilities", False) or getattr(args, "raw_predictions", None) or \
            getattr(args, "link", "identity") != "identity":
        raise CLIError("--probabilities, -r and --link are not for a multilabel model: "
                       "predict writes its label sets")
    chunks = _Chunks(args, model.__dict__.get("n_features_in_"))
    scores = Scores()
    classes = model.classes_.tolist() if model.__dict__.get("classes_") is not None else []
    t0 = time.perf_counter()
    with atomic_text(args.output) as out:
        for X, y in chunks:
            if X.shape[1] != chunks.width:
                raise CLIError(f"{args.data} has {X.shape[1]} features but the model "
                               f"{args.model} was trained on {chunks.width}")
            P = model.predict(X)
            out.write("".join(",".join(format_value(c) for c, r in zip(classes, row) if r)
                              + "\n" for row in P.tolist()))
            scores.add(_indicator(model, y, X.shape[0]), P, classes)
    if not getattr(args, "quiet", False):
        print(f"predicted {scores.rows:,} rows in {time.perf_counter() - t0:.3f} s; "
              "against the file's own label sets: " + ", ".join(scores.lines()),
              file=sys.stderr)
    return 0
