"""ARFF files of multilabel data (Weka's format; MEKA's label convention).

``read_arff(path)`` reads a dense ARFF file (one comma-separated value per attribute a
row) or a sparse one (``{index value, ...}`` rows, 0-based attribute indices, an omitted
attribute 0), plain, gzip, bzip2 or xz (``olearn.io``'s sources).  The labels are named
by MEKA's ``-C N`` option in the ``@relation`` line: the first N attributes are the
labels, or with a negative N the last -N; without ``-C`` (or with ``labels=``) the
caller says how many.  A label attribute is relevant where its value is ``1`` (a number
other than 0, or the nominal value ``1``); a feature is numeric, or nominal (its value
the index of the value in the attribute's list).  Errors are one line,
``path:line: reason`` (:class:`~olearn.io.DataFormatError`).

Mulan's convention (Tsoumakas, Spyromitros-Xioufis, Vilcek and Vlahavas, "Mulan: A Java
Library for Multi-Label Learning", JMLR 12, 2011) names the labels in a separate XML
file instead, ``<labels xmlns="http://mulan.sourceforge.net/labels"><label name="a"/>
...</labels>``, whose ``<label>`` elements may nest (a hierarchy of labels): every
``<label>``, leaf or inner, names a label attribute, as Mulan's ``LabelsMetaData`` takes
them all; ``read_arff(path, labels_xml=XML)`` reads it.  The label attributes may stand
anywhere among the ARFF attributes; the columns of ``Y`` (and the names returned) follow
the ARFF's attribute order, as Mulan's label indices do.
"""
from __future__ import annotations

import os
import re
from typing import Any
from xml.parsers import expat

import numpy as np
import scipy.sparse as sp

from ._source import Source
from .errors import DataFormatError

__all__ = ["read_arff", "read_labels_xml"]

_NUMERIC = ("numeric", "real", "integer")
_C = re.compile(r"(?:^|\s)-C\s+(-?\d+)")


def _split_name(text):
    """(name, rest) of ``'quoted name' rest`` or ``name rest``."""
    text = text.strip()
    if text[:1] in "'\"":
        end = text.find(text[0], 1)
        if end < 0:
            raise ValueError(f"unclosed quote in {text[:40]!r}")
        return text[1:end], text[end + 1:].strip()
    name, _, rest = text.partition(" ")
    if "\t" in name:
        name, _, more = name.partition("\t")
        rest = more + " " + rest
    return name, rest.strip()


def _unquote(value):
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


class _Attribute:
    __slots__ = ("name", "values")

    def __init__(self, name, kind):
        self.name = name
        low = kind.lower()
        if low in _NUMERIC:
            self.values = None
        elif kind.startswith("{") and kind.endswith("}"):
            self.values = {_unquote(v): i for i, v in enumerate(kind[1:-1].split(","))}
        else:
            raise ValueError(f"attribute {name!r} has type {kind!r}: only numeric and "
                             "nominal attributes are read")

    def number(self, text):
        text = _unquote(text)
        if text == "?":
            raise ValueError(f"attribute {self.name!r} has a missing value '?'")
        if self.values is None:
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"attribute {self.name!r}: {text[:40]!r} is not a "
                                 "number") from None
        i = self.values.get(text)
        if i is None:
            raise ValueError(f"attribute {self.name!r}: {text[:40]!r} is not one of its "
                             "values")
        return float(i)

    def relevant(self, text):
        """A label's value: True where it is 1."""
        text = _unquote(text)
        if self.values is not None and text in self.values:
            return text == "1" or (text not in ("0", "1") and self.values[text] == 1)
        return self.number(text) != 0.0


def _header(lines, name):
    """The attributes, the relation's ``-C`` value (or None) and the data's first line
    number."""
    attributes, count, lineno = [], None, 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.decode("utf-8", "replace").strip()
        if not line or line.startswith("%"):
            continue
        key = line.split(None, 1)[0].lower()
        rest = line[len(key):].strip()
        try:
            if key == "@relation":
                found = _C.search(_unquote(rest))
                count = None if found is None else int(found.group(1))
            elif key == "@attribute":
                attr, kind = _split_name(rest)
                attributes.append(_Attribute(attr, kind))
            elif key == "@data":
                return attributes, count, lineno
            else:
                raise ValueError(f"unexpected header line {line[:40]!r}")
        except ValueError as exc:
            raise DataFormatError(name, lineno, str(exc)) from None
    raise DataFormatError(name, None, "no @data line: not an ARFF file")


def read_labels_xml(path: Any) -> list[tuple[str, int]]:
    """The label names of a Mulan XML label file with the line of each, in document
    order (inner ``<label>`` elements of a hierarchy before those they hold).  Errors:
    one line ``path:line: reason`` (malformed XML, a root other than ``<labels>``, an
    element other than ``<label>``, a ``<label>`` without a name, a name twice, no
    label)."""
    name = os.fspath(path)
    found: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    depth = [0]
    parser = expat.ParserCreate()

    def local(tag):
        return tag.rsplit(":", 1)[-1]

    def start(tag, attrs):
        line = parser.CurrentLineNumber
        tag = local(tag)
        if depth[0] == 0:
            if tag != "labels":
                raise DataFormatError(name, line, f"the root element is <{tag[:40]}>, "
                                      "expected Mulan's <labels>")
        elif tag != "label":
            raise DataFormatError(name, line, f"unexpected element <{tag[:40]}> (Mulan's "
                                  "label file holds only <label name=...> elements)")
        else:
            label = attrs.get("name")
            if not label:
                raise DataFormatError(name, line, "a <label> without a name attribute")
            if label in seen:
                raise DataFormatError(name, line, f"label {label[:60]!r} named twice "
                                      f"(first on line {seen[label]})")
            seen[label] = line
            found.append((label, line))
        depth[0] += 1

    def end(tag):
        depth[0] -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        with open(path, "rb") as fh:
            parser.ParseFile(fh)
    except expat.ExpatError as exc:
        raise DataFormatError(name, exc.lineno, "malformed XML: "
                              + expat.ErrorString(exc.code)) from None
    except OSError as exc:
        raise DataFormatError(name, None, exc.strerror or str(exc)) from None
    if not found:
        raise DataFormatError(name, None, "no <label name=...> element: no label named")
    return found


def _xml_labels(attributes, xml, name):
    """The label mask of the attributes named in the Mulan file ``xml``."""
    where = {attr.name: i for i, attr in enumerate(attributes)}
    is_label = np.zeros(len(attributes), dtype=bool)
    for label, line in read_labels_xml(xml):
        i = where.get(label)
        if i is None:
            raise DataFormatError(os.fspath(xml), line, f"label {label[:60]!r} is not an "
                                  f"attribute of {name}")
        is_label[i] = True
    if is_label.all():
        raise DataFormatError(os.fspath(xml), None, f"every attribute of {name} is a label: "
                              "no feature left")
    return is_label


def read_arff(path: Any, labels: int | None = None, labels_xml: Any = None
              ) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray, list[str]]:
    """``(X, Y, label_names)`` of an ARFF file (see the module docstring): ``X`` CSR for
    a sparse file, else a dense float64 array; ``Y`` the (n, L) int8 indicator; the
    labels' attribute names.  ``labels``: MEKA's N when the file's ``@relation`` has no
    ``-C N`` (given, it wins); ``labels_xml``: the path of Mulan's XML label file, which
    names the labels instead (the ``-C`` of the ``@relation``, if any, is then unused)."""
    if labels is not None and labels_xml is not None:
        raise ValueError("give labels=N (MEKA's -C) or labels_xml=PATH (Mulan's), not both")
    src = Source(path)
    name = src.name
    lines = src.lines()
    attributes, count, lineno = _header(lines, name)
    a = len(attributes)
    if labels_xml is not None:
        is_label = _xml_labels(attributes, labels_xml, name)
    else:
        count = labels if labels is not None else count
        if count is None or count == 0:
            raise DataFormatError(name, None, "the labels are not named: give labels=N "
                                  "(MEKA's -C N: the first N attributes; negative: the "
                                  "last -N) or labels_xml=PATH (Mulan's XML label file)")
        if abs(count) >= a:
            raise DataFormatError(name, None, f"-C {count} leaves no feature among {a} "
                                  "attributes")
        is_label = np.zeros(a, dtype=bool)
        if count > 0:
            is_label[:count] = True
        else:
            is_label[a + count:] = True
    column = np.cumsum(is_label) - 1
    column[~is_label] = np.cumsum(~is_label)[~is_label] - 1
    L = int(is_label.sum())
    indptr, indices, data, Y = [0], [], [], []
    sparse = None
    for lineno, raw in enumerate(lines, lineno + 1):
        line = raw.decode("utf-8", "replace").strip()
        if not line or line.startswith("%"):
            continue
        row = np.zeros(L, dtype=np.int8)

        def put(i, value):
            """Attribute i's value: into the row's labels, or a non-zero feature."""
            if is_label[i]:
                row[column[i]] = attributes[i].relevant(value)
            else:
                v = attributes[i].number(value)
                if v != 0.0:
                    indices.append(int(column[i]))
                    data.append(v)
        try:
            if line.startswith("{"):
                if sparse is False or not line.endswith("}"):
                    raise ValueError("a sparse row {index value, ...} among dense rows"
                                     if sparse is False else "a sparse row must end with }")
                sparse = True
                last = -1
                for item in filter(None, (t.strip() for t in line[1:-1].split(","))):
                    i_text, _, value = item.partition(" ")
                    i = int(i_text)
                    if not last < i < a:
                        raise ValueError(f"attribute index {i} out of order or beyond "
                                         f"{a - 1}")
                    last = i
                    put(i, value)
            else:
                if sparse:
                    raise ValueError("a dense row among sparse rows")
                sparse = False
                values = line.split(",")
                if len(values) != a:
                    raise ValueError(f"{len(values)} values, expected {a}")
                for i, value in enumerate(values):
                    put(i, value)
        except ValueError as exc:
            raise DataFormatError(name, lineno, str(exc)) from None
        indptr.append(len(indices))
        Y.append(row)
    if not Y:
        raise DataFormatError(name, None, "no data rows")
    d = a - L
    X = sp.csr_matrix((np.array(data, dtype=np.float64), np.array(indices, dtype=np.int32),
                       np.array(indptr, dtype=np.int64)), shape=(len(Y), d))
    names = [attr.name for attr, lab in zip(attributes, is_label) if lab]
    return (X if sparse else X.toarray()), np.array(Y, dtype=np.int8), names

