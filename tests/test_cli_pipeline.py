"""The model file holds its input pipeline (issue 32, item 1; olearn/cli/_pipeline.py):
``predict``, ``train --init`` and ``evaluate --init`` with no reading options read DATA
as ``train`` did; a given option that contradicts the record is one error line naming
both; a file without a record reads as before; a saved ``TextPipeline`` predicts from
raw input after ``olearn.load``.  (Ratings are left out: recommenders cannot be
trained from the shell on this branch.)"""
import json

import numpy as np
import pytest
import scipy.sparse as sp

import olearn
from olearn.cli._common import format_value
from olearn.io import TextHasher, TextPipeline, read_csv, read_libsvm, read_text, read_vw
from olearn.io.hashing import DictHasher
from olearn.persistence import ModelFileError, load, save

from test_cli import assert_one_error, run_cli

RNG = np.random.default_rng(7)


def _vw(path):
    lines = []
    for _ in range(120):
        a, b, c = RNG.integers(0, 4, 3)
        y = 1 if (a + b) % 2 else -1                    # an interaction of a and b
        lines.append(f"{y} |a x{a} |b y{b} |c z{c}:{RNG.random():.2f}\n")
    path.write_text("".join(lines))


def _svm(path, zero):
    lines = []
    for _ in range(120):
        idx = sorted({int(i) for i in RNG.integers(0 if zero else 1, 5, 3)})
        y = 1 if sum(idx) % 2 else -1
        lines.append(f"{y} " + " ".join(f"{i}:{RNG.random() + 0.1:.2f}" for i in idx) + "\n")
    path.write_text("".join(lines))


def _csv(path):
    X = RNG.standard_normal((120, 3))
    y = np.where(X @ [1.0, -2.0, 0.5] > 0, "yes", "no")
    path.write_text("a;target;b;c\n" + "".join(
        f"{r[0]:.3f};{t};{r[1]:.3f};{r[2]:.3f}\n" for r, t in zip(X, y)))


def _text(path):
    words = ["free", "win", "prize", "see", "you", "lunch", "ok", "now"]
    lines = []
    for _ in range(120):
        w = RNG.choice(words, 4)
        label = "spam" if f"{w[0]} {w[1]}" in ("free win", "win prize", "see you") else "ham"
        lines.append(f"{label}\t{' '.join(w)}\n")
    path.write_text("".join(lines))


def _stack(reader):
    X, y = zip(*((c[0], c[1]) for c in reader))
    X = sp.vstack(X).tocsr() if sp.issparse(X[0]) else np.vstack(X)
    return X, np.concatenate(y)


# name, writer, train options, the library's reader with them, the reader with defaults
CASES = {
    "vw": ("d.vw", _vw, ["-b", "10", "-q", "ab", "--ignore", "c"],
           lambda p: read_vw(p, n_bits=10, quadratic="ab", ignore="c"),
           lambda p: read_vw(p, n_bits=10)),
    "text": ("sms.txt", _text, ["--format", "text", "-b", "10", "--ngram", "2"],
             lambda p: read_text(p, n_bits=10, ngram=2), lambda p: read_text(p, n_bits=10)),
    "libsvm": ("d.svm", lambda p: _svm(p, zero=True), ["--zero-based", "yes"],
               lambda p: read_libsvm(p, zero_based=True), None),
    "csv": ("d.data", _csv, ["--format", "csv", "--delimiter", ";", "--label", "target"],
            lambda p: read_csv(p, delimiter=";", label="target"), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_predict_with_no_options_reads_as_train_did(case, capsys, tmp_path):
    name, write, options, reader, default = CASES[case]
    data, model = tmp_path / name, tmp_path / "m.olm"
    write(data)
    rc, _, err = run_cli(capsys, "train", data, "--algo", "pa1", *options, "--quiet",
                         "--model", model)
    assert rc == 0, err
    X, _ = _stack(reader(str(data)))
    if default is not None:     # the options matter: without them the rows differ
        assert (_stack(default(str(data)))[0] != X).nnz > 0
    expected = [format_value(v) for v in load(model).predict(X)]
    rc, out, err = run_cli(capsys, "predict", data, "--model", model)
    assert rc == 0, err
    assert out.split() == expected
    assert len(set(expected)) == 2                      # (not one constant answer)
    rc, out2, err = run_cli(capsys, "predict", data, "--model", model, *options)
    assert rc == 0 and out2 == out, err                 # the same options, given: agreed


def test_libsvm_index_base_is_kept_for_a_file_without_index_0(capsys, tmp_path):
    """A model trained on a 0-based file applied to rows that lack feature 0: read
    1-based by the prescan before, every feature shifted by one, exit 0."""
    train, test, model = tmp_path / "a.svm", tmp_path / "t.svm", tmp_path / "m.olm"
    _svm(train, zero=True)
    test.write_text("".join(line for line in train.read_text().splitlines(True)
                            if " 0:" not in line))
    assert run_cli(capsys, "train", train, "--algo", "pa1", "--quiet", "--model",
                   model)[0] == 0
    X, _ = _stack(read_libsvm(str(test), zero_based=True, n_features=5))
    rc, out, err = run_cli(capsys, "predict", test, "--model", model)
    assert rc == 0, err
    assert [float(v) for v in out.split()] == list(load(model).predict(X))
    rc, _, err = run_cli(capsys, "predict", test, "--model", model, "--zero-based", "no")
    assert_one_error(rc, err, "m.olm was trained on --format libsvm --zero-based yes; "
                              "this command says --zero-based no")


def test_contradicting_options_are_one_line_naming_both(capsys, tmp_path):
    data, svm, model = tmp_path / "d.vw", tmp_path / "d.svm", tmp_path / "m.olm"
    _vw(data)
    _svm(svm, zero=False)
    assert run_cli(capsys, "train", data, "--algo", "pa1", "-b", "10", "-q", "ab",
                   "--quiet", "--model", model)[0] == 0
    trained = "m.olm was trained on --format vw -b 10 -q ab; this command says"
    for argv, says in [((data, "-b", "12"), "-b 12"), ((data, "-q", "ac"), "-q ac"),
                       ((data, "--cubic", "abc"), "--cubic abc"),
                       ((svm, "--format", "libsvm"), "--format libsvm"),
                       ((data, "--format", "text", "--ngram", "2"),
                        "--format text --ngram 2")]:
        rc, _, err = run_cli(capsys, "predict", *argv, "--model", model)
        assert_one_error(rc, err, f"{trained} {says}")
        assert rc == 2
    # train --init and evaluate --init check the same way
    rc, _, err = run_cli(capsys, "train", data, "--init", model, "-b", "12")
    assert_one_error(rc, err, f"{trained} -b 12")
    rc, _, err = run_cli(capsys, "evaluate", data, "--init", model, "-q", "bc")
    assert_one_error(rc, err, f"{trained} -q bc")


def test_init_continues_on_the_recorded_pipeline(capsys, tmp_path):
    data, m1, m2 = tmp_path / "sms.txt", tmp_path / "m1.olm", tmp_path / "m2.olm"
    _text(data)
    assert run_cli(capsys, "train", data, "--format", "text", "--ngram", "2", "-b", "9",
                   "--algo", "pa1", "--quiet", "--model", m1)[0] == 0
    rc, out, err = run_cli(capsys, "train", data, "--init", m1, "--quiet", "--model", m2)
    assert rc == 0, err
    X, y = _stack(read_text(str(data), n_bits=9, ngram=2))
    ref = olearn.make("pa1").partial_fit(X, y).partial_fit(X, y)
    np.testing.assert_allclose(load(m2).coef_, ref.coef_, rtol=1e-12)
    _, rec = load(m2, pipeline=True)                    # recorded again, unchanged
    assert rec == load(m1, pipeline=True)[1] == {"format": "text", "bits": 9, "ngram": 2,
                                                "scale": False}
    rc, out, err = run_cli(capsys, "evaluate", data, "--init", m1)
    assert rc == 0, err
    mistakes = int(np.sum(olearn.load(m1).predict_learn(X, y) != y))
    assert f"({mistakes} mistakes)" in err and f"from {m1}" in err  # (stderr off a tty)


def test_a_file_without_a_record_reads_as_before(capsys, tmp_path):
    svm, csv, old = tmp_path / "d.svm", tmp_path / "w.csv", tmp_path / "old.olm"
    _svm(svm, zero=False)
    X, y = _stack(read_libsvm(str(svm)))
    save(olearn.make("pa1").fit(X, y), old)             # no pipeline: as olearn 3 wrote
    assert load(old, pipeline=True)[1] is None
    rc, out, err = run_cli(capsys, "predict", svm, "--model", old)
    assert rc == 0 and [float(v) for v in out.split()] == list(load(old).predict(X)), err
    csv.write_text("1,2,3,4,5,1\n")
    rc, _, err = run_cli(capsys, "predict", csv, "--model", old)
    assert_one_error(rc, err, "5 features", f"trained on {X.shape[1]}")
    # a record of the wrong types (a tampered file) is one line too
    for bad in ({"format": "libsvm", "zero_based": 0}, {"format": ["vw"]}):
        save(load(old), old, pipeline=bad)
        rc, _, err = run_cli(capsys, "predict", svm, "--model", old)
        assert_one_error(rc, err, "old.olm")


def test_a_saved_text_pipeline_predicts_raw_input_after_load(capsys, tmp_path):
    data = tmp_path / "sms.txt"
    _text(data)
    texts = [line.split("\t")[1] for line in data.read_text().splitlines()]
    labels = [line.split("\t")[0] for line in data.read_text().splitlines()]
    pipe = TextPipeline(olearn.make("pa1"), TextHasher(n_bits=9, ngram=2))
    pipe.partial_fit(texts, labels)
    olearn.save(pipe, tmp_path / "p.olm")
    back = olearn.load(tmp_path / "p.olm")
    assert isinstance(back, TextPipeline) and back.hasher.ngram == 2
    assert list(back.predict(texts)) == list(pipe.predict(texts))
    assert back.predict_one("free win now") == pipe.predict_one("free win now")
    # the command line reads the same file with the pipeline's hashing
    rc, out, err = run_cli(capsys, "predict", data, "--model", tmp_path / "p.olm")
    assert rc == 0 and out.split() == list(pipe.predict(texts)), err
    # a dict pipeline too; its signed hashes are not the command line's
    dicts = [{w: 1.0 for w in t.split()} for t in texts]
    dpipe = TextPipeline(olearn.make("pa1"), DictHasher(n_bits=8))
    dpipe.partial_fit(dicts, labels)
    olearn.save(dpipe, tmp_path / "d.olm")
    dback = olearn.load(tmp_path / "d.olm")
    assert isinstance(dback.hasher, DictHasher) and dback.hasher.signed
    assert list(dback.predict(dicts)) == list(dpipe.predict(dicts))
    rc, _, err = run_cli(capsys, "predict", data, "--model", tmp_path / "d.olm")
    assert_one_error(rc, err, "d.olm was trained on feature dicts")
    # a tampered record: one ModelFileError, as for any corrupt file
    with np.load(tmp_path / "p.olm") as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    for bad in ({"ngram": 99}, {"format": "pickle"}, {"bits": None}):
        with open(tmp_path / "t.olm", "wb") as f:
            np.savez(f, __meta__=np.array(json.dumps(
                {**meta, "pipeline": {**meta["pipeline"], **bad}})), **arrays)
        with pytest.raises(ModelFileError, match="corrupt olearn model file"):
            olearn.load(tmp_path / "t.olm")
