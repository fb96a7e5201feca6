"""CoNLL-2000-style column files: one token a line in whitespace-separated columns,
sentences separated by a blank line (the CoNLL-2000 chunking data: ``word POS chunk``;
CoNLL-2003's ``-DOCSTART-`` document lines are skipped).

:func:`read_conll` gives ``(token sequences, tag sequences)`` as
:func:`olearn.io.read_conllu` does, for ``olearn.structured.SequenceTagger``: the tokens
from one column (raw tokens, the tagger's default template makes their features) or
from several (each token then a list of ``name=value`` feature names, CRFsuite's
``xseq``), the tags from another.  Plain, gzip, bzip2 and xz files are read.
"""
from __future__ import annotations

from typing import Any, Sequence

from .conllu import _lines
from .errors import DataFormatError

__all__ = ["read_conll"]

#: CoNLL-2000's columns
CONLL2000 = ("word", "pos", "chunk")


def _index(which: Any, names: Sequence[str] | None, width: int, what: str) -> int:
    """The 0-based index of column ``which`` (a name of ``names``, or an int, negative
    from the end)."""
    if isinstance(which, str):
        if names is None or which not in names:
            known = f"one of {', '.join(names)}" if names else "an index (no columns= given)"
            raise ValueError(f"{what} column {which!r} is not {known}")
        return list(names).index(which)
    if isinstance(which, int) and not isinstance(which, bool) and -width <= which < width:
        return which % width
    raise ValueError(f"{what} column must be a name or an index from {-width} to "
                     f"{width - 1}, got {which!r}")


def read_conll(path: Any, columns: Sequence[str] | int = CONLL2000, tokens: Any = 0,
               tags: Any = -1) -> tuple[list[list[Any]], list[list[str]]]:
    """``(token sequences, tag sequences)`` of a CoNLL-2000-style file.

    ``columns``: the columns' names (default CoNLL-2000's ``word pos chunk``) or their
    number; every token line must have that many.  ``tokens``: the column of the tokens
    (a name or an index; default the first), or a list of columns, each token then the
    list of ``"name=value"`` strings of those columns; ``tags``: the column of the tags
    (default the last).  ``DataFormatError`` (``path:line: reason``) on a line with
    another number of columns."""
    if isinstance(columns, int) and not isinstance(columns, bool):
        if columns < 1:
            raise ValueError(f"columns must be >= 1, got {columns}")
        names, width = None, columns
    elif isinstance(columns, (list, tuple)) and columns and \
            all(isinstance(c, str) for c in columns) and len(set(columns)) == len(columns):
        names, width = tuple(columns), len(columns)
    else:
        raise ValueError(f"columns must be a number or a list of distinct names, got "
                         f"{columns!r}")
    several = isinstance(tokens, (list, tuple))
    picks = [_index(c, names, width, "a token") for c in (tokens if several else [tokens])]
    if several and not picks:
        raise ValueError("tokens must name at least one column")
    label = _index(tags, names, width, "the tags'")
    prefix = [f"{names[i] if names else i}=" for i in picks]
    name, lines = _lines(path)
    X: list[list[Any]] = []
    y: list[list[str]] = []
    words: list[Any] = []
    found: list[str] = []
    for i, line in enumerate(lines):
        parts = line.split()
        if not parts or parts[0] == "-DOCSTART-":
            if words:
                X.append(words)
                y.append(found)
                words, found = [], []
            continue
        if len(parts) != width:
            raise DataFormatError(name, i + 1, f"a token line has {width} columns, this one "
                                  f"{len(parts)}")
        words.append([p + parts[j] for p, j in zip(prefix, picks)] if several
                     else parts[picks[0]])
        found.append(parts[label])
    if words:
        X.append(words)
        y.append(found)
    return X, y
