"""Label sets and per-row costs in LIBSVM and Vowpal Wabbit text, read by the compiled
readers of :mod:`olearn.io.libsvm` and :mod:`olearn.io.vw`.

* LIBSVM multilabel lines (the LIBSVM multilabel sets, scikit-learn's
  ``load_svmlight_file(multilabel=True)``): ``1,4,7 3:0.5 10:1 ...``; the label field
  is comma-separated integers, and a line whose first token is a feature (``3:0.5``)
  or that starts with a blank has the empty label set.
* Vowpal Wabbit multilabel lines (``vw --multilabel_oaa``): ``1,4,7 ['tag]|ns f ...``,
  nothing before the ``|`` (or only a tag) for the empty set.
* Vowpal Wabbit cost-sensitive lines (``vw --csoaa``): ``1:0.5 2:0 3:1.5 ['tag]|ns
  f ...``, each candidate label with its cost (a finite number); nothing before the
  ``|``: a row to predict, no costs.

Each block of lines is read as it comes: the label field of each line is parsed here
and replaced by the line's number, the block goes through the format's compiled parser
(the features, their errors and the index base exactly as ``read_libsvm`` and
``read_vw`` read them), and the line numbers it gives back as labels pick each row's
label set.  A chunk is ``(X, sets)``: ``sets`` a list of tuples of ints (a set, in the
order written, repeats dropped), or of ``{label: cost}`` dicts for costs, which the
multilabel models take as their ``y`` (``olearn.multilabel``).  A bad label field is a
:class:`~olearn.io.DataFormatError` naming the file and the line.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._source import show
from .errors import DataFormatError
from .libsvm import LibSVMReader, _check_args
from .vw import MAX_ROW_FEATURES, VWReader, join_csr

__all__ = ["read_libsvm_multilabel", "load_libsvm_multilabel", "read_vw_multilabel",
           "load_vw_multilabel"]

_BLANK = b" \t\r\n\x0b\x0c"


class _Labelled(bytes):
    """A block of lines whose labels were replaced by line numbers; ``sets`` maps each
    line number to its label set."""
    sets: dict[int, Any]


def _int_labels(field, what):
    out = []
    for item in field.split(b","):
        try:
            v = int(item)
        except ValueError:
            raise ValueError(f"{what} {show(field)} is not comma-separated integer "
                             "labels") from None
        if v not in out:
            out.append(v)
    return tuple(out)


def _costs(tokens):
    out = {}
    for t in tokens:
        label, colon, cost = t.partition(b":")
        try:
            k, c = int(label), float(cost)
        except ValueError:
            k, c = None, math.nan
        if not colon or k is None or not math.isfinite(c):
            raise ValueError(f"cost-sensitive label {show(t)} is not label:cost (an integer "
                             "label and a finite cost)")
        if k in out:
            raise ValueError(f"label {k} has two costs")
        out[k] = c
    return out


def _libsvm_line(raw, lineno):
    """(the line with its label field replaced by ``lineno``, its label set), or None
    for a line without a row (blank or a comment)."""
    body = raw.split(b"#", 1)[0]
    if not body.strip(_BLANK):
        return None
    if body[:1] in (b" ", b"\t") or b":" in body.split(None, 1)[0]:
        return b"%d " % lineno + raw, ()
    field = body.split(None, 1)[0]
    return b"%d" % lineno + raw[len(field):], _int_labels(field, "label set")


def _vw_line(costs):
    def line(raw, lineno):
        if not raw.strip(_BLANK):
            return None
        bar = raw.find(b"|")
        if bar < 0:
            return raw, None    # (the compiled parser's error: no '|')
        head = raw[:bar]
        tokens = head.split()
        start = bar
        if tokens and (tokens[-1][:1] == b"'" or head[-1:] not in _BLANK):
            start = head.rstrip(_BLANK).rfind(tokens[-1])
            tokens = tokens[:-1]    # (the tag, kept)
        if costs:
            value: Any = _costs(tokens)
        elif len(tokens) > 1:
            raise ValueError(f"a multilabel line has one label field (comma-separated "
                             f"labels) before '|', got {len(tokens)} tokens")
        else:
            value = _int_labels(tokens[0], "label set") if tokens else ()
        return b"%d " % lineno + raw[start:], value
    return line


class _LabelledSource:
    """The reader's source with each block's label fields replaced (``line``): what the
    LIBSVM or VW reader reads, every other attribute the source's own."""

    def __init__(self, source, line):
        self._inner, self._line = source, line

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def line_blocks(self, size, first_lineno=1, views=False):
        name = self._inner.name
        for lineno, block in self._inner.line_blocks(size, first_lineno, views):
            parts = bytes(block).split(b"\n")
            sets = {}
            for k, raw in enumerate(parts):
                try:
                    done = self._line(raw, lineno + k)
                except ValueError as exc:
                    raise DataFormatError(name, lineno + k, exc) from None
                if done is not None:
                    parts[k], value = done
                    if value is not None:
                        sets[lineno + k] = value
            out = _Labelled(b"\n".join(parts))
            out.sets = sets
            yield lineno, out


def _picked(chunk, block):
    """The chunk with its labels (line numbers) replaced by the lines' label sets."""
    return (chunk[0], [block.sets[int(v)] for v in chunk[1]]) + tuple(chunk[2:])


class MultilabelLibSVMReader(LibSVMReader):
    """``read_libsvm``'s reader over LIBSVM multilabel lines: chunks ``(X, sets)``."""

    def __init__(self, path, chunk_size=10000, n_features=None, zero_based="auto",
                 dtype=np.float64):
        _check_args(chunk_size, n_features, zero_based, dtype)
        from ._source import Source
        source = Source(path)
        self.__dict__["_pending"] = _LabelledSource(source, _libsvm_line)
        super().__init__(path, chunk_size, n_features, zero_based, dtype)

    def __setattr__(self, name, value):
        if name == "_source":   # (the base opens the path: read it through the labels)
            value = self.__dict__["_pending"]
        super().__setattr__(name, value)

    def _chunk(self, numbered):
        chunk = super()._chunk(numbered)
        return None if chunk is None else _picked(chunk, numbered[1])


class MultilabelVWReader(VWReader):
    """``read_vw``'s reader over multilabel or cost-sensitive lines: chunks ``(X, sets)``
    (``(X, sets, importance)`` with ``sample_weight``)."""

    def __init__(self, path, costs=False, **kw):
        super().__init__(path, **kw)
        self._source = _LabelledSource(self._source, _vw_line(costs))

    def _chunk(self, numbered):
        chunk = super()._chunk(numbered)
        return None if chunk is None else _picked(chunk, numbered[1])


def read_libsvm_multilabel(path: Any, chunk_size: int = 10000, n_features: Any = None,
                           zero_based: Any = "auto",
                           dtype: Any = np.float64) -> MultilabelLibSVMReader:
    """Stream a LIBSVM multilabel file as ``(X_chunk, label_sets)`` pairs (see the module
    docstring); the options are ``read_libsvm``'s."""
    return MultilabelLibSVMReader(path, chunk_size, n_features, zero_based, dtype)


def load_libsvm_multilabel(path: Any, n_features: Any = None, zero_based: Any = "auto",
                           dtype: Any = np.float64) -> tuple[Any, list[tuple[int, ...]]]:
    """A whole LIBSVM multilabel file as ``(X, label_sets)``: X CSR, one tuple of int
    labels a row."""
    reader = MultilabelLibSVMReader(path, 50000, n_features, zero_based, dtype)
    parts = list(reader)
    return _joined(parts, reader.n_features)


def read_vw_multilabel(path: Any, costs: bool = False, n_bits: int = 18,
                       quadratic: Any = (), cubic: Any = (), ignore: Any = (),
                       chunk_size: int = 10000, sample_weight: bool = False,
                       max_row_features: int = MAX_ROW_FEATURES) -> MultilabelVWReader:
    """Stream Vowpal Wabbit multilabel lines (``costs``: ``--csoaa`` lines) as
    ``(X_chunk, label_sets)`` pairs; the other options are ``read_vw``'s."""
    return MultilabelVWReader(path, costs, n_bits=n_bits, quadratic=quadratic, cubic=cubic,
                              ignore=ignore, chunk_size=chunk_size,
                              sample_weight=sample_weight, max_row_features=max_row_features)


def load_vw_multilabel(path: Any, costs: bool = False, n_bits: int = 18,
                       quadratic: Any = (), cubic: Any = (), ignore: Any = ()
                       ) -> tuple[Any, list[Any]]:
    """A whole Vowpal Wabbit multilabel (``costs``: ``--csoaa``) file as ``(X, sets)``."""
    reader = MultilabelVWReader(path, costs, n_bits=n_bits, quadratic=quadratic,
                                cubic=cubic, ignore=ignore, chunk_size=50000)
    return _joined(list(reader), reader.n_features)


def _joined(parts, width):
    import scipy.sparse as sp
    if not parts:
        return sp.csr_matrix((0, width or 0)), []
    widest = max(p[0].shape[1] for p in parts)
    mats = [p[0] if p[0].shape[1] == widest else
            sp.csr_matrix((p[0].data, p[0].indices, p[0].indptr),
                          shape=(p[0].shape[0], widest)) for p in parts]
    for m in mats:
        m.has_canonical_format = True
    return join_csr(mats, widest), [s for p in parts for s in p[1]]
