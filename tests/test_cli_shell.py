"""The shell as people use it (issue 32, items 5 and 6): Vowpal Wabbit's short options, the
table on stderr when stdout is piped, a closed pipe that does not lose the model, output
paths checked before training, the messages of a semicolon CSV, a text file read as
LIBSVM, ``--algo PA1``, ``average=1``, recommenders from ``train``/``predict``/``--init``
with a default seed, ``olearn algos`` over every family, and ``evaluate`` scaling the
embedded data as ``compare`` does.  Real subprocesses of ``python -m olearn`` on small files."""
import os
import shlex
import subprocess
import sys

import numpy as np
import pytest

import olearn


def olearn_cli(*argv, cwd=None, timeout=300):
    out = subprocess.run([sys.executable, "-m", "olearn", *map(str, argv)], cwd=cwd,
                         capture_output=True, text=True, timeout=timeout)
    return out.returncode, out.stdout, out.stderr


def one_error(err):
    """The stderr of a failed run: one ``olearn: error:`` line, no traceback."""
    lines = [line for line in err.splitlines() if not line.startswith("olearn: compiling")]
    assert len(lines) == 1 and lines[0].startswith("olearn: error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def svm(tmp_path_factory):
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("shell") / "data.svm"
    X = rng.normal(size=(3000, 5))
    y = np.where(X @ np.arange(1.0, 6.0) > 0, 1, -1)
    path.write_text("".join(f"{t} " + " ".join(f"{j}:{v:.5f}" for j, v in enumerate(r, 1))
                            + "\n" for r, t in zip(X, y)))
    return path


def test_vw_short_options_and_case(svm, tmp_path):
    rc, out, err = olearn_cli("train", "-d", svm, "--algo", "PA1", "-f", tmp_path / "m.olm",
                              "--quiet")
    assert rc == 0 and (tmp_path / "m.olm").is_file(), err
    rc, out, err = olearn_cli("predict", "-t", "-d", svm, "-i", tmp_path / "m.olm",
                              "-p", tmp_path / "p.txt")
    assert rc == 0, err
    model = olearn.load(tmp_path / "m.olm")
    X, _ = olearn.io.load_libsvm(svm)
    expected = [str(int(v)) for v in model.predict(X)]
    assert (tmp_path / "p.txt").read_text().split() == expected
    rc, _, err = olearn_cli("train", svm, "-d", svm, "--algo", "pa1")
    assert rc == 2 and "DATA given twice" in one_error(err)
    rc, _, err = olearn_cli("train", "--algo", "pa1")
    assert rc == 2 and "required: DATA (or -d FILE)" in one_error(err)
    rc, _, err = olearn_cli("train", svm, "--algo", "PA3")
    assert rc == 2 and "did you mean" in one_error(err) and "'pa2'" in err


def test_table_on_stderr_when_stdout_is_piped(svm, tmp_path):
    # stdout is not a terminal: it carries nothing; the table and summary go to stderr
    model = tmp_path / "m.olm"
    rc, out, err = olearn_cli("train", svm, "--algo", "pa1", "--model", model)
    assert rc == 0 and out == "", err
    lines = err.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("average "))
    assert lines[head + 1].split() == ["loss", "last", "counter", "label", "predict"]
    assert lines[head + 2].split()[2] == "1"                     # the first checkpoint
    assert "finished: pa1" in err and f"model saved to {model}" in err
    assert "mistake rate = " in err and model.is_file()


def test_closed_pipe_keeps_the_model(svm, tmp_path):
    # `olearn train ... | head -3`: head gets nothing, train runs to its end
    model = tmp_path / "m.olm"
    cmd = (f"{shlex.quote(sys.executable)} -m olearn train {shlex.quote(str(svm))} --algo pa1 "
           f"--model {shlex.quote(str(model))} | head -3; echo \"status ${{PIPESTATUS[0]}}\"")
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert proc.stdout == "status 0\n", proc.stderr
    assert "model saved to" in proc.stderr and "Traceback" not in proc.stderr
    assert olearn.load(model).n_features_in_ == 5


def test_bad_paths_and_messages_before_training(svm, tmp_path):
    rc, _, err = olearn_cli("train", svm, "--algo", "pa1", "--model", f"{tmp_path}/x.olm/")
    assert rc == 2 and "give a file name, not a folder" in one_error(err)
    assert "compiling" not in err and not (tmp_path / "x.olm").exists()
    semi = tmp_path / "semi.csv"
    semi.write_text("a;b;y\n1;2;0\n3;4;1\n")
    rc, _, err = olearn_cli("train", semi, "--algo", "pa1")
    assert rc == 2 and "use --delimiter ';'" in one_error(err)
    sms = tmp_path / "sms.txt"
    sms.write_text("ham\thello there\nspam\twin money now\n")
    rc, _, err = olearn_cli("train", sms, "--algo", "pa1")
    line = one_error(err)
    assert rc == 2 and "label 'ham' is not a number (is this a text file? use --format text)" \
        in line


def test_boolean_spellings(svm, tmp_path):
    for value, expected in (("1", True), ("0", False), ("no", False), ("2", None)):
        rc, _, err = olearn_cli("train", svm, "--algo", "pa1", "--param", f"average={value}",
                                "--model", tmp_path / "m.olm", "--quiet")
        if expected is None:
            assert rc == 2 and "average must be True or False" in one_error(err)
        else:
            assert rc == 0, err
            assert olearn.load(tmp_path / "m.olm").get_params()["average"] is expected


@pytest.fixture(scope="module")
def ratings(tmp_path_factory):
    rng = np.random.default_rng(1)
    path = tmp_path_factory.mktemp("ratings") / "r.tsv"
    rows = [(rng.integers(20), rng.integers(30), rng.integers(1, 6), t) for t in range(600)]
    path.write_text("".join(f"{u}\t{i}\t{r}\t{t}\n" for u, i, r, t in rows))
    return path


def test_recommender_from_the_shell(ratings, tmp_path):
    reco = tmp_path / "reco.olm"
    rc, out, err = olearn_cli("train", ratings, "--format", "ratings", "--algo", "biased-mf",
                              "--model", reco)
    assert rc == 0 and out == "" and "RMSE" in err and reco.is_file(), err
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("3\t4\n5\t6\n999\t4\n")
    rc, out, err = olearn_cli("predict", pairs, "--model", reco)
    model = olearn.load(reco)
    assert rc == 0, err
    assert np.allclose([float(v) for v in out.split()],
                       model.predict(np.array([3, 5, 999]), np.array([4, 6, 4])))
    rc, out, err = olearn_cli("train", ratings, "--format", "ratings", "--init", reco,
                              "--model", tmp_path / "more.olm")
    assert rc == 0 and olearn.load(tmp_path / "more.olm").n_seen_ == 1200, err
    rc, _, err = olearn_cli("predict", pairs, "--format", "libsvm", "--model", reco)
    assert rc == 2 and "is a recommender" in one_error(err)
    rc, _, err = olearn_cli("train", ratings, "--format", "ratings", "--algo", "pa1")
    assert rc == 2 and "not a recommender" in one_error(err)
    rc, _, err = olearn_cli("train", ratings, "--algo", "biased-mf")
    assert rc == 2 and "is a recommender" in one_error(err) and "--format ratings" in err
    # a default seed: the same run gives the same numbers
    runs = [olearn_cli("evaluate", ratings, "--format", "ratings", "--algo", "funk-mf")[2]
            for _ in range(2)]
    assert "RMSE" in runs[0] and runs[0].split("events/s")[0] == runs[1].split("events/s")[0]


def test_algos_lists_every_family():
    rc, out, err = olearn_cli("algos", "biased-mf", "adwin", "crp", "pa1")
    assert rc == 0, err
    for head in ("biased-mf (recommender)", "adwin (detector)", "crp (portfolio)",
                 "pa1 (classifier)"):
        assert head in out


def test_evaluate_scales_the_embedded_data_as_compare_does(tmp_path):
    from olearn.cli import compare
    from olearn.datasets.embedded import load_embedded
    from olearn.evaluate.progressive import progressive
    X, y, _, _ = compare._standardized("breast_cancer")
    Xs, ys = load_embedded("breast_cancer", scale="standard")
    assert np.array_equal(X, Xs) and np.array_equal(y, ys)
    assert np.allclose(Xs.mean(axis=0), 0) and np.allclose(Xs.std(axis=0), 1)
    rc, out, err = olearn_cli("evaluate", "--algo", "pa1")
    assert rc == 0 and "standardized" in err and out == "", err
    row = next(line.split() for line in err.splitlines() if line.startswith("pa1 "))
    assert row[1] == f"{progressive(olearn.make('pa1'), (Xs, ys)).final:.4f}"


def test_a_bare_name_in_the_data_folder_is_hinted_not_substituted(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "a9a").mkdir(parents=True)
    (mirror / "a9a" / "a9a.t").write_text("1 1:1\n")
    env = {**os.environ, "OLEARN_DATA_MIRROR": str(mirror), "OLEARN_DATA_DIR": str(tmp_path)}
    for name, there in (("a9a.t", mirror / "a9a" / "a9a.t"), ("nosuchset9", None)):
        proc = subprocess.run([sys.executable, "-m", "olearn", "train", name, "--algo", "pa1"],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
        line = one_error(proc.stderr)
        assert proc.returncode == 2 and line.startswith(f"olearn: error: {name}: no such file")
        assert line.endswith(f"; the data folder has {name} at {there}" if there
                             else "no such file")
