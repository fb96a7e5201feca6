"""CoNLL-U (Universal Dependencies) files: sentences of tokens and one column of tags.

A CoNLL-U file holds one token per line in ten tab-separated columns (``ID FORM LEMMA
UPOS XPOS FEATS HEAD DEPREL DEPS MISC``), sentences separated by a blank line, comment
lines starting with ``#``.  :func:`read_conllu` keeps the syntactic words: the lines of
multiword tokens (ID a range, ``1-2``) and of empty nodes (ID a decimal, ``1.1``) are
skipped, as UD's part-of-speech evaluation does.  Plain, gzip, bzip2 and xz files are
read (``olearn.io`` recognises the compression by its magic bytes).

:func:`write_conllu` writes predictions back: the input's lines, with one column of
every word line replaced by the predicted tags (:class:`CoNLLU` reads a file once for
both).
"""
from __future__ import annotations

import os
from typing import Any

from ._source import _DECOMPRESS_ERRORS, Source, _decompress_error
from .errors import DataFormatError

__all__ = ["read_conllu", "write_conllu", "CoNLLU", "COLUMNS"]

#: column name -> its 0-based index
COLUMNS = {"id": 0, "form": 1, "lemma": 2, "upos": 3, "xpos": 4, "feats": 5, "head": 6,
           "deprel": 7, "deps": 8, "misc": 9}


def _column(column):
    if isinstance(column, str) and column.lower() in COLUMNS:
        return COLUMNS[column.lower()]
    if isinstance(column, int) and not isinstance(column, bool) and 0 <= column < 10:
        return column
    raise ValueError(f"column must be one of {', '.join(COLUMNS)} or an index 0-9, got "
                     f"{column!r}")


def _lines(path):
    """The file's text lines (decoded as UTF-8)."""
    source = Source(path)
    source.claim()
    if source.rereadable:   # a file: read (and decompressed) whole, not line by line
        raw, read = source._raw()
        with raw:
            try:
                data = read(-1)
            except _DECOMPRESS_ERRORS as exc:
                raise _decompress_error(source.name, 0, exc) from None
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
    else:
        data = b"".join(source.lines())
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise DataFormatError(source.name, line, "not UTF-8 text") from None
    if "\r" in text:   # (Windows line ends: written back as \n)
        text = text.replace("\r\n", "\n")
    return source.name, text.split("\n")


def _sentences(path, col):
    """``(lines, [(sentence's word line numbers, tokens, tags)])``."""
    name, lines = _lines(path)
    out = []
    numbers: list[int] = []
    tokens: list[str] = []
    tags: list[str] = []
    cut = max(col, 1) + 1   # the fields read: ID, FORM and the tags' column
    for i, line in enumerate(lines):
        if not line:
            if tokens:
                out.append((numbers, tokens, tags))
                numbers, tokens, tags = [], [], []
            continue
        if line[0] == "#":
            continue
        if line.count("\t") != 9:
            raise DataFormatError(name, i + 1, f"a word line has 10 tab-separated columns, "
                                  f"this one {line.count(chr(9)) + 1}")
        parts = line.split("\t", cut)
        ident = parts[0]
        if not ident.isdigit():
            if "-" in ident or "." in ident:
                continue   # a multiword token's range, an empty node
            raise DataFormatError(name, i + 1, f"ID {ident[:20]!r} is not a number, a "
                                  "range or a decimal")
        numbers.append(i)
        tokens.append(parts[1])
        tags.append(parts[col])
    if tokens:
        out.append((numbers, tokens, tags))
    return lines, out


class CoNLLU:
    """A CoNLL-U file read whole: ``tokens`` and ``tags`` (one list per sentence, as
    :func:`read_conllu` gives them, ``column`` the tags' column) and its lines, which
    :meth:`write` gives back with other tags in a column (one parse for both)."""

    def __init__(self, path: Any, column: str | int = "upos") -> None:
        self.column = _column(column)
        self.lines, sentences = _sentences(path, self.column)
        self._numbers = [s[0] for s in sentences]
        self.tokens = [s[1] for s in sentences]
        self.tags = [s[2] for s in sentences]

    def write(self, tags: list[list[Any]], out: Any, column: str | int | None = None) -> int:
        """Write the file to ``out`` (a path, written atomically, or a text file object)
        with ``column`` (default: the one read) of every word line replaced by ``tags``;
        returns the number of sentences."""
        col = self.column if column is None else _column(column)
        if len(tags) != len(self._numbers):
            raise ValueError(f"{len(tags)} tag sequences for {len(self._numbers)} sentences")
        lines = list(self.lines)
        for numbers, seq in zip(self._numbers, tags):
            if len(seq) != len(numbers):
                raise ValueError(f"{len(seq)} tags for a sentence of {len(numbers)} words")
            for i, tag in zip(numbers, seq):
                parts = lines[i].split("\t", col + 1)
                parts[col] = str(tag)
                lines[i] = "\t".join(parts)
        text = "\n".join(lines)
        if hasattr(out, "write"):
            out.write(text)
        else:
            tmp = f"{os.fspath(out)}.tmp{os.getpid()}"
            try:
                with open(tmp, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                os.replace(tmp, out)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
        return len(self._numbers)


def read_conllu(path: Any, column: str | int = "upos") -> tuple[list[list[str]],
                                                                  list[list[str]]]:
    """``(token sequences, tag sequences)`` of a CoNLL-U file: each sentence's words
    (FORM) and one column of tags (``"upos"`` by default; any column name of
    :data:`COLUMNS` or its index).  Comments, multiword-token ranges and empty nodes
    are skipped; ``DataFormatError`` (``path:line: reason``) on a malformed line."""
    doc = CoNLLU(path, column)
    return doc.tokens, doc.tags


def write_conllu(source: Any, tags: list[list[Any]], out: Any, column: str | int = "upos"
                 ) -> int:
    """Write the CoNLL-U file ``source`` to ``out`` (a path or a text file object) with
    ``column`` of every word line replaced by ``tags`` (one list per sentence, as
    :func:`read_conllu` reads them); returns the number of sentences."""
    return CoNLLU(source, column).write(tags, out)
