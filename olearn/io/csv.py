"""Streaming reader for dense delimited text: CSV, TSV, whitespace-separated.

The format is one example per line, every line with the same number of
fields, one of which is the label; the other fields are the features and must
be finite numbers.  An optional first line (the header) names the columns.

* ``delimiter`` is a string such as ``","``, ``";"`` or ``"\\t"``, or None for
  "any run of whitespace" (as in the USPS ``zip.train`` files).
* ``label`` is a column index (negative counts from the end) or a column name,
  which needs a header.
* ``header=True``/``False``, or ``"infer"``: the first non-blank line is a
  header when none of its fields, other than the label, is a number, and data
  when all are; a mix (a damaged first row, say) is an error.  A UTF-8
  byte-order mark is ignored.
* Labels are numbers when the file's first label parses as a number, and then
  a later non-numeric label is an error; otherwise every label is kept as a
  string (an object array), e.g. "ham"/"spam".  The chunk size never matters.
* Blank lines are skipped.  With an explicit delimiter, a line holding ``"``
  is split by Python's csv module, so quoted fields may contain the
  delimiter; a record must still fit on one line.

Parsing.  Each block of lines is parsed by compiled code (``olearn.io._csvparse``,
numbers converted exactly as ``float()`` does), two blocks at a time on two cores;
a block it refuses (quotes, a field that is not a plain number, a wrong count of
fields, a delimiter of several characters) is parsed line by line, which accepts it
or names the fault.  Both paths give the same chunks.

``read_csv`` yields ``(X, y)`` chunks of at most ``chunk_size`` rows, X a
C-contiguous 2-D float array; ``load_csv`` returns the whole file.  Paths may
be plain, ``.gz``, ``.bz2`` or ``.xz``; ``"-"`` reads stdin.  Malformed input
raises ``DataFormatError`` with ``path:line``.
"""

import csv as _csv
from itertools import chain

import numpy as np

from ._source import Source, check_chunk_size, chunks, ordered_map, show, split_lines
from .errors import DataFormatError

__all__ = ["read_csv", "load_csv", "CSVReader"]

_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(b" \t\n\r\x0b\x0c")] = True


def _is_number(field):
    try:
        float(field)
    except ValueError:
        return False
    return True


class CSVReader:
    """Iterable of ``(X_chunk, y_chunk)`` over a delimited file; see ``read_csv``.

    After construction (which reads the first line) ``columns`` holds the
    header names or None, ``label_index`` the label's column, ``n_features``
    the number of feature columns and ``feature_names`` their names or None.
    A reader over a path can be iterated again; over a stream, once.
    """

    def __init__(self, path, label=-1, header="infer", delimiter=",",
                 chunk_size=10000, dtype=np.float64):
        self.chunk_size = check_chunk_size(chunk_size)
        if header not in (True, False, "infer"):
            raise ValueError(f"header must be True, False or 'infer', got {header!r}")
        if isinstance(label, bool) or not isinstance(label, (int, np.integer, str)):
            raise ValueError(f"label must be a column index or name, got {label!r}")
        if isinstance(label, str) and header is False:
            raise ValueError(f"label={label!r} names a column, which needs a header")
        if isinstance(delimiter, str):
            delimiter = delimiter.encode("utf-8")
        if delimiter is not None and (not isinstance(delimiter, bytes) or not delimiter
                                      or any(c in delimiter for c in b'\r\n"')):
            raise ValueError(f"delimiter must be a non-empty string without quotes or "
                             f"line breaks, or None, got {delimiter!r}")
        self.delimiter = delimiter
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(f"dtype must be a floating-point type, got {self.dtype}")
        self._source = Source(path)
        self.name = self._source.name
        self._numeric_labels = None
        self._read_first_line(label, header)

    @property
    def source(self):
        """The file being read: its ``size`` in bytes (None for a stream) and the bytes
        ``done`` so far (what a progress line shows)."""
        return self._source

    # -- first line: header and label column ---------------------------------

    def _read_first_line(self, label, header):
        lines = self._source.lines()
        first, seen = None, 0
        for line in lines:
            seen += 1
            if line.strip():
                first = line
                break
        if self._source.rereadable:
            if hasattr(lines, "close"):
                lines.close()
            self._rest = None
        else:
            self._rest = lines
        self.columns = self.feature_names = None
        if first is None:  # no data at all
            if isinstance(label, str):
                raise DataFormatError(self.name, None, f"empty file, no column {label!r}")
            self.n_fields, self.label_index, self.n_features = 0, None, 0
            self.has_header, self._first, self._start = False, [], seen + 1
            return
        fields = self._split(first, seen)
        n = self.n_fields = len(fields)
        if isinstance(label, str):
            header = True
        else:
            if not -n <= label < n:
                raise DataFormatError(self.name, seen, f"label column {label} is out of "
                                      f"range for a line of {n} fields")
            self.label_index = int(label) % n
            if header == "infer":
                numbers = [_is_number(f) for j, f in enumerate(fields)
                           if j != self.label_index]
                if any(numbers) and not all(numbers):
                    raise DataFormatError(self.name, seen, "the first line is neither a "
                                          "header (names) nor data (numbers): pass "
                                          "header=True or header=False")
                header = bool(numbers) and not any(numbers)
        self.has_header = header
        if header:
            self.columns = [self._text(f, seen).strip() for f in fields]
            if isinstance(label, str):
                if label not in self.columns:
                    names = ", ".join(map(repr, self.columns[:12]))
                    more = ", ..." if n > 12 else ""
                    raise DataFormatError(self.name, seen, f"no column named {label!r} "
                                          f"in the header (columns: {names}{more})")
                self.label_index = self.columns.index(label)
            self.feature_names = [c for j, c in enumerate(self.columns)
                                  if j != self.label_index]
        self.n_features = n - 1
        # Where the data starts: after the header, or at the first line.
        self._first = [] if header else [first]
        self._start = seen + 1 if header else seen

    # -- splitting and decoding ----------------------------------------------

    def _split(self, line, lineno):
        if self.delimiter is None:
            return line.split()
        line = line.rstrip(b"\r\n")
        if b'"' not in line:
            return line.split(self.delimiter)
        text = self._text(line, lineno)
        try:
            row = next(_csv.reader([text], delimiter=self.delimiter.decode("utf-8"),
                                   strict=True))
        except _csv.Error as exc:
            raise DataFormatError(self.name, lineno, f"bad quoting: {exc}") from None
        return [f.encode("utf-8") for f in row]

    def _text(self, field, lineno):
        try:
            return field.decode("utf-8")
        except UnicodeDecodeError:
            raise DataFormatError(self.name, lineno,
                                  f"{show(field)} is not valid UTF-8 text") from None

    def _field_name(self, j):
        name = f" ({self.columns[j]!r})" if self.columns else ""
        return f"field {j + 1}{name}"

    # -- chunks --------------------------------------------------------------

    def __iter__(self):
        if self._source.rereadable:   # from line 1; a plain file mapped, its blocks views
            blocks = self._source.line_blocks(self.chunk_size, views=True)
        else:
            if self._rest is None:
                raise RuntimeError(f"{self.name}: a stream can only be read once")
            lines, self._rest = chain(self._first, self._rest), None
            blocks = ((k, b"".join(group)) for k, group in
                      chunks(lines, self.chunk_size, self._start))
        if self.n_fields == 0:  # nothing but blank lines
            return
        # a block's lines before the data (the header, blank lines) are skipped
        numbered = ((k, block, max(0, self._start - k)) for k, block in blocks)
        for lineno, block, skip, parsed in ordered_map(self._compiled, numbered):
            if parsed is None:  # not the simple grammar: line by line, in order
                X, y = self._parse(split_lines(bytes(block))[skip:], lineno + skip)
            else:
                X, y = self._finish(block, lineno, parsed)
            if len(y):
                yield X, y

    def _compiled(self, numbered):
        """The compiled parse of one block (in the reader's parsing threads), or None
        where the block needs the line-by-line path."""
        lineno, block, skip = numbered
        delim = -1 if self.delimiter is None else \
            self.delimiter[0] if len(self.delimiter) == 1 else None
        if delim is None:
            return lineno, block, skip, None
        from ._fastparse import strtod_allowed
        from ._csvparse import parse_csv_block
        out = parse_csv_block(np.frombuffer(block, dtype=np.uint8), delim, self.n_fields,
                              self.label_index, skip, strtod_allowed())
        return lineno, block, skip, (out[1:] if out[0] == 0 else None)

    def _finish(self, block, lineno, parsed):
        """``(X, y)`` of a block the compiled parser took: the labels are made here,
        in order (the file's first label decides whether they are numbers)."""
        X, y, y_ok, starts, ends, line_of = parsed
        if len(y) == 0:
            return X, y
        raw = None
        if self._numeric_labels is None:
            self._numeric_labels = _is_number(bytes(block[starts[0]:ends[0]]))
        if not (self._numeric_labels and y_ok.all()):
            block = bytes(block)  # (a view of a mapped file: the labels are bytes)
            raw = [block[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
            y = self._labels(raw, (lineno + line_of).tolist())
        return np.ascontiguousarray(X, dtype=self.dtype), y

    def _parse(self, block, lineno):
        n, li = self.n_fields, self.label_index
        rows, row_lines = [], []
        for k, line in enumerate(block):
            if not line.strip():
                continue
            fields = self._split(line, lineno + k)
            if len(fields) != n:
                raise DataFormatError(self.name, lineno + k,
                                      f"expected {n} fields, found {len(fields)}")
            rows.append(fields)
            row_lines.append(lineno + k)
        y = self._labels([r[li] for r in rows], row_lines)
        for r in rows:
            r[li] = b"0"  # a placeholder, dropped below
        X = self._fast_features(rows)
        if X is None:
            X = self._slow_features(rows, row_lines)
        return np.ascontiguousarray(np.delete(X, li, axis=1), dtype=self.dtype), y

    def _fast_features(self, rows):
        """All fields as one array via one numpy parse, or None if irregular."""
        count = len(rows) * self.n_fields
        if count == 0:
            return np.zeros((len(rows), self.n_fields))
        buf = b" ".join([b" ".join(r) for r in rows])
        # Only the separators may be whitespace: then each field yields at
        # most one number, and the count check below catches empty fields.
        if np.count_nonzero(_IS_SPACE[np.frombuffer(buf, dtype=np.uint8)]) != count - 1:
            return None
        try:
            values = np.fromstring(buf, sep=" ")
        except ValueError:
            return None
        if len(values) != count or not np.isfinite(values).all():
            return None
        return values.reshape(len(rows), self.n_fields)

    def _slow_features(self, rows, row_lines):
        X = np.empty((len(rows), self.n_fields))
        for i, (r, lineno) in enumerate(zip(rows, row_lines)):
            for j, f in enumerate(r):
                try:
                    X[i, j] = v = float(f)
                except ValueError:
                    raise DataFormatError(self.name, lineno, f"{self._field_name(j)}: "
                                          f"{show(f)} is not a number") from None
                if not np.isfinite(v):
                    raise DataFormatError(self.name, lineno, f"{self._field_name(j)}: "
                                          f"{show(f)} is not finite")
        return X

    def _labels(self, raw, row_lines):
        if self._numeric_labels is None and raw:
            # the file's first label decides, whatever the chunk size
            self._numeric_labels = _is_number(raw[0])
        if not self._numeric_labels:
            return np.array([self._text(v, k).strip() for v, k in zip(raw, row_lines)],
                            dtype=object)
        y = np.empty(len(raw))
        for i, (v, lineno) in enumerate(zip(raw, row_lines)):
            try:
                y[i] = float(v)
            except ValueError:
                raise DataFormatError(self.name, lineno, f"label {show(v)} is not a number "
                                      "(the file's first labels were numbers)") from None
        if not np.isfinite(y).all():
            i = int(np.argmin(np.isfinite(y)))
            raise DataFormatError(self.name, row_lines[i], f"label {show(raw[i])} is not finite")
        return y


def read_csv(path, label=-1, header="infer", delimiter=",", chunk_size=10000,
             dtype=np.float64):
    """Stream a delimited text file as ``(X_chunk, y_chunk)`` pairs.

    Returns a ``CSVReader``; see the module documentation for the options.
    """
    return CSVReader(path, label, header, delimiter, chunk_size, dtype)


def load_csv(path, label=-1, header="infer", delimiter=",", dtype=np.float64):
    """Read a whole delimited file into one ``(X, y)``: the chunks stacked.

    The command line's read: a plain file is mapped, and blocks of its lines go in one
    compiled pass each (``_csvparse.parse_csv_block``), two at a time on two cores."""
    reader = CSVReader(path, label, header, delimiter, 50000, dtype)
    parts = list(reader)
    if not parts:
        return np.zeros((0, reader.n_features), dtype=reader.dtype), np.zeros(0)
    X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    return X, np.concatenate([p[1] for p in parts])
