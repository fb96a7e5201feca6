"""Mulan's XML label file (issue 42 item 5): ``read_arff(path, labels_xml=XML)`` against a
plain Python reading of the same ARFF with the label attributes looked up by name, the
hierarchy's inner and leaf labels, one-line ``file:line`` errors, and ``--labels-xml``
on the command line."""
import numpy as np
import pytest

import olearn
from olearn.io import DataFormatError, read_arff
from olearn.io.arff import read_labels_xml

from conftest import data_path
from test_cli import assert_one_error, run_cli

_NS = 'xmlns="http://mulan.sourceforge.net/labels"'


def _toy(tmp_path, n=40, seed=0):
    """A dense ARFF (no -C) whose labels sit among the features: f0 a b f1 c f2."""
    rng = np.random.default_rng(seed)
    kinds = ["f", "l", "l", "f", "l", "f"]
    names = ["f0", "a", "b", "f1", "c", "f2"]
    rows = []
    for _ in range(n):
        rows.append([f"{rng.normal():.5g}" if k == "f" else str(int(rng.random() < .4))
                     for k in kinds])
    head = "@relation mulan_toy\n" + "".join(
        f"@attribute {nm} numeric\n" if k == "f" else f"@attribute {nm} {{0,1}}\n"
        for nm, k in zip(names, kinds)) + "@data\n"
    path = tmp_path / "toy.arff"
    path.write_text(head + "".join(",".join(r) + "\n" for r in rows))
    return path, names, rows


def _reference(names, rows, labels):
    """X, Y and the label names by plain Python: the attributes named in ``labels`` are
    the labels, in the ARFF's order."""
    keep = [nm in labels for nm in names]
    X = np.array([[float(v) for v, k in zip(r, keep) if not k] for r in rows])
    Y = np.array([[int(v) for v, k in zip(r, keep) if k] for r in rows], dtype=np.int8)
    return X, Y, [nm for nm, k in zip(names, keep) if k]


def test_flat_and_nested_label_files_match_a_plain_reading(tmp_path):
    path, names, rows = _toy(tmp_path)
    flat = tmp_path / "flat.xml"
    flat.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<labels {_NS}>\n'
                    '<label name="c"></label>\n<label name="a"/>\n</labels>\n')
    X, Y, got = read_arff(path, labels_xml=flat)
    Xr, Yr, want = _reference(names, rows, {"a", "c"})
    np.testing.assert_array_equal(X, Xr)
    np.testing.assert_array_equal(Y, Yr)
    assert got == want == ["a", "c"]          # (ARFF order, not the file's)
    nested = tmp_path / "tree.xml"            # an inner label and its leaves: all labels
    nested.write_text(f'<labels {_NS}>\n <label name="b">\n  <label name="a"/>\n'
                      '  <label name="c"/>\n </label>\n</labels>\n')
    assert read_labels_xml(nested) == [("b", 2), ("a", 3), ("c", 4)]
    X, Y, got = read_arff(path, labels_xml=nested)
    Xr, Yr, want = _reference(names, rows, {"a", "b", "c"})
    np.testing.assert_array_equal(X, Xr)
    np.testing.assert_array_equal(Y, Yr)
    assert got == want == ["a", "b", "c"]


@pytest.mark.parametrize("body, where, needle", [
    ('<labels>\n<label name="a">\n</labels>\n', ":3:", "malformed XML: mismatched tag"),
    ('<labels>\n<label name="a"/>\n<label name="zz"/>\n</labels>\n', ":3:",
     "label 'zz' is not an attribute of"),
    ('<labels>\n<label/>\n</labels>\n', ":2:", "a <label> without a name"),
    ('<labels>\n<label name="a"/>\n<label name="a"/></labels>', ":3:",
     "label 'a' named twice (first on line 2)"),
    ('<labels>\n<item name="a"/>\n</labels>\n', ":2:", "unexpected element <item>"),
    ('<tags><label name="a"/></tags>\n', ":1:", "expected Mulan's <labels>"),
    ('<labels>\n</labels>\n', ": ", "no <label name=...> element"),
    ('', ":1:", "malformed XML: no element found"),
])
def test_bad_label_files_are_one_line_with_file_and_line(tmp_path, body, where, needle):
    path, _, _ = _toy(tmp_path, n=3)
    xml = tmp_path / "bad.xml"
    xml.write_text(body)
    with pytest.raises(DataFormatError) as info:
        read_arff(path, labels_xml=xml)
    text = str(info.value)
    assert "\n" not in text and needle in text and f"bad.xml{where}" in text, text


def test_every_attribute_a_label_and_both_conventions_are_refused(tmp_path):
    path, names, _ = _toy(tmp_path, n=3)
    xml = tmp_path / "all.xml"
    xml.write_text("<labels>" + "".join(f'<label name="{n}"/>' for n in names) + "</labels>")
    with pytest.raises(DataFormatError, match="no feature left"):
        read_arff(path, labels_xml=xml)
    with pytest.raises(ValueError, match="not both"):
        read_arff(path, labels=2, labels_xml=xml)
    with pytest.raises(DataFormatError, match="labels_xml=PATH"):
        read_arff(path)


def test_music_named_by_xml_reads_as_meka_does(tmp_path):
    """Music.arff's six labels (MEKA's -C 6) named by a Mulan file instead, listed in
    reverse: the same X, Y and names."""
    path = data_path("multilabel", "Music.arff")
    X, Y, names = read_arff(path)
    xml = tmp_path / "emotions.xml"
    xml.write_text(f'<?xml version="1.0"?>\n<labels {_NS}>\n' + "".join(
        f'<label name="{n}"></label>\n' for n in reversed(names)) + "</labels>\n")
    X2, Y2, names2 = read_arff(path, labels_xml=xml)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(Y2, Y)
    assert names2 == names


def test_command_line_labels_xml(tmp_path, capsys):
    path, names, rows = _toy(tmp_path, n=60)
    xml, model = tmp_path / "l.xml", tmp_path / "m.olm"
    xml.write_text('<labels><label name="a"/><label name="b"/><label name="c"/></labels>')
    rc, out, err = run_cli(capsys, "train", path, "--labels-xml", xml, "--algo", "ml-pa1",
                           "-f", model)
    assert rc == 0, err
    X, Y, _ = _reference(names, rows, {"a", "b", "c"})
    ref = olearn.make("ml-pa1")
    ref.partial_fit(X, Y)
    np.testing.assert_allclose(olearn.load(model).W_, ref.W_, rtol=0, atol=1e-12)
    pred = tmp_path / "p.txt"
    rc, _, err = run_cli(capsys, "predict", path, "-i", model, "--labels-xml", xml,
                         "-p", pred)
    assert rc == 0, err
    assert pred.read_text().split("\n")[:-1] == [
        ",".join(str(j) for j in np.flatnonzero(r)) for r in ref.predict(X)]
    xml.write_text('<labels>\n<label name="a"/>\n<label name="nope"/>\n</labels>')
    model.unlink()
    rc, _, err = run_cli(capsys, "train", path, "--labels-xml", xml, "-f", model)
    assert_one_error(rc, err, "l.xml:3: label 'nope' is not an attribute of")
    assert not model.exists()
