"""The ``olearn`` command, run in-process through ``main(argv)`` (plus one real
subprocess for the exit code): round trips, the progress table, and every error
ending in one stderr line, a non-zero exit, no traceback and no half-written file."""
import gzip
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import olearn
from olearn.cli import main
from olearn.cli._common import format_value, parse_params, parse_value
from olearn.cli._input import detect_format
from olearn.evaluate import progressive
from olearn.io import load_csv, load_libsvm

from conftest import data_path

TINY = "1 1:0.5 3:1\n-1 2:1\n+1 1:1 3:0.2\n-1.0 2:0.5 3:-1\n1 1:2\n-1 2:2 3:0.1\n"


NOTICE = "olearn: compiling "          # the one line printed when kernels compile
HEARTBEAT = re.compile(r"olearn: compiling \(\d+ s so far\)$")  # and every 2 s of it


def run_cli(capsys, *argv):
    """Exit code, stdout, stderr less the compile notice (printed on a cold cache)."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    notices = [line for line in err.splitlines()
               if line.startswith(NOTICE) and not HEARTBEAT.match(line)]
    assert len(notices) <= 1, err  # (one notice, then a heartbeat line every 2 s)
    err = "".join(line + "\n" for line in err.splitlines() if not line.startswith(NOTICE))
    return rc, out, err


def assert_one_error(rc, err, *needles):
    assert rc != 0
    # (a run that fails midway has printed its progress table on stderr first)
    # (a cold cache's compile notice and heartbeat, "olearn: compiling ...", may come
    # first: they are progress, not errors)
    lines = [line for line in err.strip().splitlines()
             if line.startswith("olearn:") and not line.startswith(NOTICE)]
    assert len(lines) == 1, err
    assert lines[0].startswith("olearn: error: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0]


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.svm"
    path.write_text(TINY)
    return path


def test_helpers():
    assert parse_value("3") == 3 and type(parse_value("3")) is int
    assert parse_value("0.5") == 0.5 and parse_value("1e-3") == 1e-3
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("none") is None and parse_value("PA-II") == "PA-II"
    assert parse_params(["C=0.5", "variant=PA-II"]) == {"C": 0.5, "variant": "PA-II"}
    for name, fmt in [("a.csv", "csv"), ("a.tsv.gz", "csv"), ("spam.data", "csv"),
                      ("a9a", "libsvm"), ("x.svm.bz2", "libsvm"), ("A.CSV.BZ2", "csv")]:
        assert detect_format(name) == fmt
    assert format_value(np.float64(-1.0)) == "-1" and format_value(0.25) == "0.25"
    assert format_value(np.str_("spam")) == "spam" and format_value(np.int64(3)) == "3"


def test_train_predict_round_trip(capsys, tmp_path, tiny):
    model = tmp_path / "m.olm"
    rc, out, err = run_cli(capsys, "train", tiny, "--algo", "pa1", "--param", "C=0.5",
                           "--model", model, "--chunk-size", 4)
    # stdout is not a terminal here: the table and summary go to stderr, beside train's
    # advice to average (olearn/cli/_advice.py); stdout stays empty
    assert rc == 0 and out == "" and "olearn: error" not in err
    assert "model saved to" in err and model.exists()
    m = olearn.load(model)
    assert m.C == 0.5 and m.n_features_in_ == 3 and m.t_ == 6
    # the same learner on the loaded arrays gives the same weights and mistake rate
    X, y = load_libsvm(tiny)
    ref = olearn.make("pa1", C=0.5)
    res = progressive(ref, (X, y))
    np.testing.assert_array_equal(m.coef_, ref.coef_)
    assert f"mistake rate = {res.final:.6f} ({res.n_mistakes} mistakes)" in err
    # the progress table: one line per doubling checkpoint plus the end
    rows = [line.split()[2] for line in err.splitlines()[2:] if line[:1].isdigit()]
    assert rows == ["1", "2", "4", "6"]
    rc, out, err = run_cli(capsys, "predict", tiny, "--model", model)
    assert rc == 0 and err == ""
    assert out.splitlines() == [format_value(v) for v in ref.predict(X)]
    dest = tmp_path / "pred.txt"
    rc, out, err = run_cli(capsys, "predict", tiny, "--model", model, "--output", dest)
    assert rc == 0 and out == "" and dest.read_text().splitlines() == \
        [format_value(v) for v in ref.predict(X)]
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".olearn-")]


def test_round_trip_heart_scale(capsys, tmp_path):
    path = data_path("heart_scale", "heart_scale")
    model = tmp_path / "h.olm"
    rc, out, err = run_cli(capsys, "train", path, "--algo", "perceptron", "--model", model,
                           "--chunk-size", 100)
    assert rc == 0, err
    X, y = load_libsvm(path)
    ref = olearn.make("perceptron")
    res = progressive(ref, (X, y))
    assert f"rows = {len(y)}" in err and f"({res.n_mistakes} mistakes)" in err
    assert f"updates = {res.n_updates}" in err
    rc, out, _ = run_cli(capsys, "predict", path, "--model", model)
    assert rc == 0
    assert np.array_equal(np.array(out.split(), dtype=float), ref.predict(X))


def test_csv_and_compressed(capsys, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X @ [1.0, -2.0, 0.5] > 0, "yes", "no")
    text = "a,b,c,target\n" + "".join(f"{r[0]},{r[1]},{r[2]},{t}\n" for r, t in zip(X, y))
    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    model = tmp_path / "c.olm"
    rc, _, err = run_cli(capsys, "train", path, "--algo", "pa1", "--label", "target",
                         "--model", model)
    assert rc == 0
    Xr, yr = load_csv(path, label="target")
    ref = olearn.make("pa1")
    res = progressive(ref, (Xr, yr))
    assert f"({res.n_mistakes} mistakes)" in err
    rc, out, _ = run_cli(capsys, "predict", path, "--model", model, "--label", "target")
    assert rc == 0 and out.split() == list(ref.predict(Xr))
    tsv = tmp_path / "d.tsv"
    tsv.write_text(text.replace(",", "\t"))
    rc, _, err2 = run_cli(capsys, "evaluate", tsv, "--algo", "pa1", "--label", "3")
    assert rc == 0 and f"({res.n_mistakes} mistakes)" in err2


def test_regression_training(capsys, tmp_path):
    path = tmp_path / "r.svm"
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 2))
    t = X @ [2.0, -1.0] + 0.5
    path.write_text("".join(f"{float(v)!r} 1:{float(a)!r} 2:{float(b)!r}\n"
                            for v, (a, b) in zip(t, X)))
    rc, _, err = run_cli(capsys, "train", path, "--algo", "pa-reg", "--param", "epsilon=0")
    assert rc == 0
    ref = olearn.make("pa-reg", epsilon=0.0)
    res = progressive(ref, load_libsvm(path))
    assert f"squared error = {res.final:.6g}" in err
    assert "not saved" not in err and "model saved" not in err


def test_predict_pads_narrower_file(capsys, tmp_path, tiny):
    model = tmp_path / "m.olm"
    assert run_cli(capsys, "train", tiny, "--algo", "pa1", "--model", model)[0] == 0
    narrow = tmp_path / "narrow.svm"
    narrow.write_text("1 1:0.5\n-1 2:1\n")                 # no feature 3 anywhere
    rc, out, _ = run_cli(capsys, "predict", narrow, "--model", model)
    m = olearn.load(model)
    expected = m.predict(np.array([[0.5, 0, 0], [0, 1, 0]]))
    assert rc == 0 and out.split() == [format_value(v) for v in expected]


def test_evaluate_embedded_table(capsys, monkeypatch):
    # the default runs every registered classifier; two keep the test fast on a cold cache
    import olearn.registry
    asked = []
    monkeypatch.setattr(olearn.registry, "available",
                        lambda kind=None: asked.append(kind) or ["pa1", "perceptron"])
    rc, out, err = run_cli(capsys, "evaluate")
    assert rc == 0 and out == "" and asked == ["classifier"]    # the table: on stderr
    assert "breast_cancer (569 rows, 30 features, standardized)" in err
    assert err.splitlines()[2].split() == ["learner", "mistake", "rate", "updates", "rows/s"]
    rows = {line.split()[0]: line.split()[1:] for line in err.splitlines()[4:] if line}
    assert set(rows) == {"pa1", "perceptron"}
    from olearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(scale="standard")     # as olearn compare scales it
    for name in rows:
        res = progressive(olearn.make(name), (X, y))
        assert rows[name][:2] == [f"{res.final:.4f}", f"{res.n_updates:,}"]
        assert 0.0 < res.final < 0.2                # sensible on scaled features


def test_evaluate_embedded_regression(capsys):
    rc, _, err = run_cli(capsys, "evaluate", "--dataset", "diabetes", "--algo", "pa1-reg")
    assert rc == 0 and "squared error" in err and "pa1-reg" in err


def test_warmup(capsys, monkeypatch):
    import olearn.registry
    calls = []
    def fake(names=None, jobs=1, report=None):
        calls.append((names, jobs))
        for n in names:
            report(n, 0.5)
    monkeypatch.setattr(olearn.registry, "warmup", fake)
    rc, out, _ = run_cli(capsys, "warmup", "--algo", "pa1, perceptron", "--jobs", "3")
    assert rc == 0 and calls == [(["pa1", "perceptron"], 3)]
    lines = out.splitlines()
    assert lines[0] == "compiling the kernels of 2 learners, 3 at a time"
    assert lines[1].split() == ["pa1", "0.50", "s"] and lines[-1].startswith("total")
    rc, _, err = run_cli(capsys, "warmup", "--jobs", "0")
    assert_one_error(rc, err, "--jobs must be at least 1")
    rc, _, err = run_cli(capsys, "warmup", "--algo", "pa1,nope")
    assert_one_error(rc, err, "unknown algorithm 'nope'")
    assert len(calls) == 1
    rc, out, _ = run_cli(capsys, "warmup", "--list")
    assert rc == 0 and "pa1-reg          regressor" in out


def test_warmup_in_parallel_processes_fills_the_shared_cache(tmp_path, monkeypatch):
    """Two learners compiled by two spawned processes, which inherit the cache folder:
    each learner reports its time, and the processes fill that folder."""
    from olearn.registry import warmup
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    got = []
    times = warmup(["perceptron", "pa1-reg"], jobs=2, report=lambda n, s: got.append(n))
    assert list(times) == ["perceptron", "pa1-reg"] and sorted(got) == sorted(times)
    assert all(s > 0 for s in times.values())
    assert any(p.suffix == ".nbi" for p in tmp_path.rglob("*"))


def test_help_and_no_command(capsys):
    assert run_cli(capsys, "--help")[0] == 0
    rc, out, err = run_cli(capsys)
    assert rc == 2 and "train" in err


# --------------------------------------------------------------- errors
BAD_FILES = {
    "malformed.svm": ("1 1:0.5\n-1 2:abc\n", "malformed.svm:2"),
    "nan.svm": ("1 1:0.5\n-1 2:nan\n", "nan.svm:2"),
    "inf.csv": ("a,b,y\n1,2,0\n3,inf,1\n", "inf.csv:3"),
    "nan.csv": ("a,b,y\n1,2,0\n3,nan,1\n", "nan.csv:3"),
    "nanlabel.svm": ("1 1:0.5\nnan 2:1\n", "nanlabel.svm"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_data_files(capsys, tmp_path, name):
    text, where = BAD_FILES[name]
    path = tmp_path / name
    path.write_text(text)
    model = tmp_path / "m.olm"
    rc, _, err = run_cli(capsys, "train", path, "--algo", "pa1", "--model", model,
                         "--chunk-size", 1)
    assert_one_error(rc, err, where)
    assert os.listdir(tmp_path) == [name]          # no model, no temporary file


@pytest.mark.parametrize("argv, needle", [
    (["--algo", "nope"], "unknown algorithm 'nope'"),
    (["--algo", "pa1", "--param", "Z=1"], "unknown parameter 'Z'"),
    (["--algo", "pa1", "--param", "C=-1"], "C must be"),
    (["--algo", "pa1", "--param", "C"], "KEY=VALUE"),
    (["--algo", "pa1", "--bogus"], "unrecognized arguments"),
    (["--algo", "pa1", "--chunk-size", "0"], "chunk-size"),
    (["--algo", "pa1", "--model", "no/such/dir/m.olm"], "does not exist"),
])
def test_bad_options(capsys, tmp_path, tiny, argv, needle):
    rc, out, err = run_cli(capsys, "train", tiny, *argv)
    assert_one_error(rc, err, needle)
    assert sorted(os.listdir(tmp_path)) == ["tiny.svm"]


def test_missing_and_unreadable_files(capsys, tmp_path, tiny):
    rc, _, err = run_cli(capsys, "train", tmp_path / "nope.svm", "--algo", "pa1")
    assert_one_error(rc, err, "nope.svm", "no such file")
    rc, _, err = run_cli(capsys, "train", tmp_path, "--algo", "pa1")
    assert_one_error(rc, err, "directory")
    rc, _, err = run_cli(capsys, "evaluate", tiny)
    assert_one_error(rc, err, "--algo")
    if os.geteuid() != 0:                          # root reads any file
        locked = tmp_path / "locked.svm"
        locked.write_text(TINY)
        locked.chmod(0)
        rc, _, err = run_cli(capsys, "train", locked, "--algo", "pa1")
        assert_one_error(rc, err, "locked.svm")


def test_model_file_errors(capsys, tmp_path, tiny):
    out_file = tmp_path / "p.txt"
    rc, _, err = run_cli(capsys, "predict", tiny, "--model", tmp_path / "none.olm",
                         "--output", out_file)
    assert_one_error(rc, err, "none.olm")
    corrupt = tmp_path / "bad.olm"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    rc, _, err = run_cli(capsys, "predict", tiny, "--model", corrupt, "--output", out_file)
    assert_one_error(rc, err, "bad.olm")
    assert not out_file.exists()


def test_predict_feature_count_mismatch(capsys, tmp_path, tiny):
    model = tmp_path / "m.olm"
    assert run_cli(capsys, "train", tiny, "--algo", "pa1", "--model", model)[0] == 0
    wide = tmp_path / "wide.svm"
    wide.write_text("1 1:1\n" * 5 + "-1 9:1\n")          # feature 9 > the model's 3
    out_file = tmp_path / "p.txt"
    rc, _, err = run_cli(capsys, "predict", wide, "--model", model, "--output", out_file,
                         "--chunk-size", 2)
    assert_one_error(rc, err, "wide.svm:6")
    assert not out_file.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".olearn-")]
    csv = tmp_path / "w.csv"
    csv.write_text("1,2,3,4,1\n")
    rc, _, err = run_cli(capsys, "predict", csv, "--model", model)   # (olearn/cli/_pipeline.py)
    assert_one_error(rc, err, "trained on --format libsvm", "says --format csv (from the name")


def test_failed_predict_keeps_previous_output(capsys, tmp_path, tiny):
    model = tmp_path / "m.olm"
    assert run_cli(capsys, "train", tiny, "--algo", "pa1", "--model", model)[0] == 0
    out_file = tmp_path / "p.txt"
    out_file.write_text("old\n")
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n" * 3 + "1 1:x\n")
    rc, _, err = run_cli(capsys, "predict", bad, "--model", model, "--output", out_file,
                         "--chunk-size", 1)
    assert_one_error(rc, err, "bad.svm:4")
    assert out_file.read_text() == "old\n"


def test_failed_train_keeps_previous_model(capsys, tmp_path, tiny):
    model = tmp_path / "m.olm"
    assert run_cli(capsys, "train", tiny, "--algo", "pa1", "--model", model)[0] == 0
    before = model.read_bytes()
    bad = tmp_path / "bad.svm"
    bad.write_text(TINY + "1 2:oops\n")
    rc, _, err = run_cli(capsys, "train", bad, "--algo", "pa1", "--model", model,
                         "--chunk-size", 2)
    assert_one_error(rc, err, "bad.svm:7")
    assert model.read_bytes() == before


def test_subprocess_exit_code(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", str(tmp_path / "x.svm"),
                           "--algo", "pa1", "--model", str(tmp_path / "m.olm")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"olearn: error: {tmp_path / 'x.svm'}: "
                                                "no such file"]
    assert not (tmp_path / "m.olm").exists()


# --------------------------------------------------------------- discoverable parameters
def test_algos_lists_every_learner_and_its_parameters(capsys):
    from olearn import tags
    from olearn.registry import available, describe, lookup
    rc, out, err = run_cli(capsys, "algos")
    assert rc == 0 and err == ""
    out, _, others = out.partition("\nother kinds of models:\n")
    assert "online portfolio strategies: anticor, bcrp," in others
    blocks = {b.split(" ", 1)[0]: b for b in out.strip().split("\n\n")}
    assert set(blocks) == set(available())
    for name, block in blocks.items():
        d = describe(name)
        assert d.cls in block.splitlines()[0]
        assert d.summary and d.summary in block
        # (a parameter's line is indented by 4; its description's continuations by more,
        # and may start with a token holding "=", e.g. ``AdaGrad(delta=epsilon)``)
        names = [line.split("=", 1)[0].strip() for line in block.splitlines()
                 if line.startswith("    ") and not line.startswith("     ")
                 and "=" in line.split()[0]]
        assert names == [p.name for p in d.parameters]
        assert {"epochs", "shuffle", "random_state"} <= set(names)
        # every learner but the ensembles (whose members have their own) has an intercept
        assert "fit_intercept" in names or tags(lookup(name)[0]).wrapper
        assert all(p.meaning for p in d.parameters), (name, d.parameters)
    assert "C=1.0" in blocks["pa1"] and "aggressiveness" in blocks["pa1"]
    assert "variant='PA-II'" in blocks["pa2"]         # the registered default wins


def test_describe_reads_the_docstring():
    from olearn.registry import _docstring_parameters, describe
    d = describe("pa1")
    p = {q.name: q for q in d.parameters}
    assert d.cls == "olearn.linear.PAClassifier" and d.kind == "classifier"
    assert p["C"].default == 1.0 and p["C"].meaning.startswith("float, aggressiveness")
    assert p["variant"].default == "PA-I"
    doc = """Thing.

    Parameters
    ----------
    a : int, the a, on
        two lines.
    b, c : float, shared.

    Fitted: ``coef_`` (not a parameter).
    """
    assert _docstring_parameters(doc) == {"a": "int, the a, on two lines.",
                                          "b": "float, shared.", "c": "float, shared."}


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_algo_help_shows_the_learners_parameters(capsys, command):
    for argv in (["--algo", "pa1", "--help"], ["--help", "--algo=pa1"]):
        rc, out, _ = run_cli(capsys, command, *argv)
        assert rc == 0
        assert "usage: olearn " + command in out
        assert "pa1 (classifier): olearn.linear.PAClassifier" in out
        assert "C=1.0" in out and "aggressiveness" in out
    rc, out, _ = run_cli(capsys, command, "--help")
    assert rc == 0 and "C=1.0" not in out


def test_unknown_algorithm_suggests_close_names(capsys, tiny):
    rc, _, err = run_cli(capsys, "train", tiny, "--algo", "pa3")
    assert_one_error(rc, err, "unknown algorithm 'pa3'", "did you mean", "'pa2'")
    rc, _, err = run_cli(capsys, "train", "--algo", "arwo", "--help")
    assert_one_error(rc, err, "'arow'")
    rc, _, err = run_cli(capsys, "algos", "scw3")
    assert_one_error(rc, err, "'scw'")


# --------------------------------------------------------------- divergence
DIVERGING = "".join(f"{v} 1:{x}\n" for v, x in [(1e3, 1e150), (-1e3, 3e150), (5e2, -2e150)] * 3)


@pytest.mark.parametrize("chunk", ["1", "10000"])
def test_diverging_model_is_not_saved(tmp_path, chunk):
    data = tmp_path / "big.svm"
    data.write_text(DIVERGING)
    model = tmp_path / "m.olm"
    code = ("import sys, warnings; warnings.simplefilter('always')\n"
            "from olearn.cli import main\n"
            f"sys.exit(main(['train', {str(data)!r}, '--algo', 'ogd-reg', '--param', "
            f"'eta=10', '--param', 'schedule=constant', '--model', {str(model)!r}, "
            f"'--chunk-size', '{chunk}']))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    # (olearn's lines: the progress table before the error also goes to stderr)
    err = [line for line in proc.stderr.splitlines()
           if line.startswith("olearn:") and not line.startswith(NOTICE)]
    assert proc.returncode != 0
    assert len(err) == 1 and err[0].startswith("olearn: error: ogd-reg"), proc.stderr
    assert "diverged" in err[0] and "not saved" in err[0]
    # the file's row, from the error's fields: one row at a time, the update of row 2
    # makes the weights non-finite; in one batch, row 3 is the first non-finite score
    assert f"at row {2 if chunk == '1' else 3} of big.svm (counting from 1)" in err[0]
    assert "Warning" not in proc.stderr and "Traceback" not in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["big.svm"]     # no model, no temporary file


def test_non_finite_state_is_caught_before_saving(capsys, tmp_path, tiny, monkeypatch):
    # the command line's own check, whether or not the learner raises first
    from olearn.cli import _learning
    monkeypatch.setattr(_learning, "non_finite", lambda model: "W")
    model = tmp_path / "m.olm"
    rc, _, err = run_cli(capsys, "train", tiny, "--algo", "pa1", "--model", model)
    assert_one_error(rc, err, "pa1 diverged (non-finite weights", "not saved", "--param C=")
    assert not model.exists()


# --------------------------------------------------------------- start-up
def test_fast_paths_import_nothing_heavy(tmp_path):
    code = ("import sys\n"
            "from olearn.cli import main\n"
            "for argv in (['train', 'missing.svm'], ['train', 'missing.svm', '--algo', 'pa1'],\n"
            "             ['train', sys.argv[1], '--algo', 'nope'],\n"
            "             ['train', sys.argv[1], '--algo', 'pa1', '--param', 'C'],\n"
            "             ['evaluate', '--algo', 'pa1,nope'], ['--help'], ['train', '--help']):\n"
            "    rc = main(argv)\n"
            "    assert rc in (0, 2), (argv, rc)\n"
            "heavy = sorted(m for m in ('numba', 'numpy', 'scipy', 'sklearn', 'olearn.base')\n"
            "               if m in sys.modules)\n"
            "print('HEAVY', heavy)\n")
    data = tmp_path / "d.svm"
    data.write_text(TINY)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code, str(data)], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout
    errors = [line for line in proc.stderr.splitlines() if line.startswith("olearn: error:")]
    assert errors[0] == "olearn: error: missing.svm: no such file"
    assert errors[1] == "olearn: error: missing.svm: no such file"
    assert "unknown algorithm 'nope'" in errors[2] and "KEY=VALUE" in errors[3]
    assert "unknown algorithm 'nope'" in errors[4] and len(errors) == 5


def test_compile_notice_once_on_a_cold_cache(tmp_path, tiny):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "NUMBA_CACHE_DIR": str(tmp_path / "cold")}
    argv = [sys.executable, "-m", "olearn", "train", str(tiny), "--algo", "perceptron"]
    first = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0, first.stderr
    # the learner's line from the command; the reader's parser (compiled before learning)
    # from the library's olearn.compile logger; nothing else
    lines = [line for line in first.stderr.splitlines() if line.startswith("olearn: ")
             and not HEARTBEAT.match(line)]  # (every 2 s of a long compile: progress)
    assert "rows = " in first.stderr and first.stdout == ""     # (the summary: on stderr)
    assert lines[-1] == ("olearn: compiling the perceptron kernels (first use, seconds to "
                         "minutes; the time is reported apart; cached afterwards)")
    assert all(line.startswith("olearn: compiling the kernels of olearn.io.")
               for line in lines[:-1]) and len(lines) <= 2, lines
    second = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert second.returncode == 0 and "olearn: " not in second.stderr
