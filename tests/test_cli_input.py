"""The command line on Vowpal Wabbit and raw-text input: formats, hashing options,
the same results as the library, and bad input as one `file:line: message` line."""
import subprocess
import sys

import numpy as np
import pytest

from olearn.cli._input import detect_format
from olearn.io import read_text, read_vw
from olearn.persistence import load
from olearn.registry import make

from conftest import run_cli

VW = ("1 |a x y:2 |b z\n-1 0.5 'neg|a w |b z:3\n1 |a x |b q\n-1 |a w y\n"
      "1 |a x:1.5 |b q z\n-1 |a w:2 |b z\n" * 3)
TEXT = ("ham\tSee you at lunch, ok?\nspam\tWIN a FREE prize now!!\nham\tok see you\n"
        "spam\tFree entry: win now\n" * 4)


def library_mistakes(reader, algo="pa1"):
    """The library's progressive mistakes over ``reader``'s chunks (weighted updates
    where the chunks carry importance weights)."""
    model, mistakes = make(algo), 0
    for X, y, *w in reader:
        kw = {"sample_weight": w[0]} if w else {}
        mistakes += int((model.predict_learn(X, y, **kw) != y).sum())
    return model, mistakes


def test_detect_format():
    assert detect_format("d.vw") == detect_format("D.VW.gz") == "vw"
    assert detect_format("d.csv.bz2") == "csv"
    assert detect_format("sms.txt") == detect_format("x.svm") == "libsvm"


def test_train_and_predict_vw_equal_the_library(tmp_path, capsys):
    path, model_path = tmp_path / "d.vw", tmp_path / "m.olm"
    path.write_text(VW)
    rc, out, err = run_cli(capsys, "train", path, "--algo", "pa1", "-b", "12", "-q", "ab",
                           "--model", model_path)
    assert rc == 0, err
    # the importance weight 0.5 on line 2 (and every third line 2) scales its update
    model, mistakes = library_mistakes(read_vw(str(path), n_bits=12, quadratic="ab",
                                               sample_weight=True))
    assert f"({mistakes} mistakes)" in err
    saved = load(model_path)
    np.testing.assert_allclose(saved.coef_, model.coef_, rtol=0, atol=1e-12)
    unweighted, _ = library_mistakes(read_vw(str(path), n_bits=12, quadratic="ab"))
    assert np.abs(saved.coef_ - unweighted.coef_).max() > 1e-3   # the weights mattered
    rc, out, err = run_cli(capsys, "predict", path, "--model", model_path, "-q", "ab")
    assert rc == 0, err
    X = next(iter(read_vw(str(path), n_bits=12, quadratic="ab", chunk_size=100)))[0]
    # (a line's tag follows its prediction, as vw's -p writes it)
    assert [line.split()[0] for line in out.splitlines()] == \
        [f"{int(v)}" for v in model.predict(X)]
    rc, out, err = run_cli(capsys, "predict", path, "--model", model_path, "--bits", "10")
    assert rc == 2 and "was trained on --format vw -b 12 -q ab; this command says -b 10" in err


def test_importance_weights_survive_the_cache_of_passes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OLEARN_CACHE_DIR", str(tmp_path / "cache"))
    path, model_path = tmp_path / "d.vw", tmp_path / "m.olm"
    path.write_text(VW)
    rc, out, err = run_cli(capsys, "train", path, "--algo", "pa1", "-b", "10", "--passes",
                           "2", "--quiet", "--model", model_path)
    assert rc == 0, err
    ref = make("pa1")
    for _ in range(2):
        for X, y, w in read_vw(str(path), n_bits=10, sample_weight=True):
            ref.partial_fit(X, y, sample_weight=w)
    np.testing.assert_allclose(load(model_path).coef_, ref.coef_, rtol=0, atol=1e-12)


def test_train_text_equals_the_library(tmp_path, capsys):
    path = tmp_path / "sms.txt"
    path.write_text(TEXT)
    rc, out, err = run_cli(capsys, "train", path, "--format", "text", "--algo", "pa1",
                           "--bits", "14", "--ngram", "2")
    assert rc == 0, err
    _, mistakes = library_mistakes(read_text(str(path), n_bits=14, ngram=2))
    assert f"({mistakes} mistakes)" in err and "rows = 16" in err


@pytest.mark.parametrize("argv, needle", [
    (["--ngram", "2"], "--ngram applies to --format text, not libsvm"),
    (["--format", "text", "-q", "ab"], "apply to --format vw, not text"),
    (["--format", "vw", "--bits", "40"], "--bits must be from 1 to 31"),
    (["--format", "libsvm", "--bits", "10"], "--bits applies to --format vw or text"),
])
def test_misused_options(tmp_path, capsys, argv, needle):
    path = tmp_path / "d.txt"
    path.write_text(TEXT)
    rc, out, err = run_cli(capsys, "train", path, "--algo", "pa1", *argv)
    assert rc == 2 and err.strip().startswith("olearn: error: ") and needle in err


@pytest.mark.parametrize("name, content, fmt, place, needle", [
    ("bad.vw", "1 |a x\n\n-1 a b\n", [], "bad.vw:3: ", "no '|'"),
    ("bad.vw", "1 |a x\n1 |a y:zz9 z:1..2\n", [], "bad.vw:2: ", "feature value '1..2'"),
    ("bad.txt", "ham\tok\nspam no tab\n", ["--format", "text"], "bad.txt:2: ", "no tab"),
])
def test_bad_file_one_line(tmp_path, capsys, name, content, fmt, place, needle):
    path = tmp_path / name
    path.write_text(content)
    rc, out, err = run_cli(capsys, "train", path, "--algo", "pa1", "--model",
                           tmp_path / "m.olm", *fmt)
    # (lines not from olearn: a progress table printed on stderr before the error)
    # (and a cold cache's "olearn: compiling ..." notice and heartbeat: progress)
    lines = [line for line in err.strip().splitlines()
             if line.startswith("olearn:") and not line.startswith("olearn: compiling ")]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(f"olearn: error: {path}".replace(name, "")) and place in lines[0]
    assert needle in lines[0]
    assert not (tmp_path / "m.olm").exists()


def test_exit_code_in_a_real_process(tmp_path):
    path = tmp_path / "bad.vw"
    path.write_text("1 |a x\n2 3 4 5 |a y\n")
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", str(path), "--algo", "pa1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("olearn: comp")]
    assert errors == [f"olearn: error: {path}:2: more than three label tokens before '|' "
                      "(label, importance, initial) at '5'"]


def _fifo(tmp_path, name, data):
    """A named pipe at ``tmp_path / name`` whose writer (a thread) sends ``data`` once:
    what ``<(zcat f)`` gives a command."""
    import os
    import threading
    path = tmp_path / name
    os.mkfifo(path)

    def write():
        with open(path, "wb") as f:
            f.write(data)
    threading.Thread(target=write, daemon=True).start()
    return path


@pytest.mark.parametrize("compress", [False, True])
def test_a_pipe_is_read_once_as_it_comes(tmp_path, capsys, compress):
    """``olearn train <(cat f)`` and ``<(gzip -c f)``: the pipe was opened twice (its
    magic bytes sniffed, then read), which lost its first bytes or failed with "Illegal
    seek"; now the same model as from the file, and no cache kept for --passes."""
    import gzip
    import os
    rng = np.random.default_rng(0)
    lines = "".join(f"{rng.choice([-1, 1])} " + " ".join(
        f"{j}:{rng.normal():.3f}" for j in sorted(rng.choice(20, 4, replace=False) + 1))
        + "\n" for _ in range(300))
    plain = tmp_path / "d.svm"
    plain.write_text(lines)
    data = lines.encode()
    pipe = _fifo(tmp_path, "p", gzip.compress(data) if compress else data)
    cache = tmp_path / "cache"
    env = dict(os.environ, OLEARN_CACHE_DIR=str(cache))
    # a real process with a deadline: the old reader waited for ever on the reopened pipe
    done = subprocess.run([sys.executable, "-m", "olearn", "train", str(pipe), "--algo",
                           "pa1", "--passes", "2", "--model", str(tmp_path / "p.olm")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    os.environ["OLEARN_CACHE_DIR"] = str(cache)
    try:
        assert run_cli(capsys, "train", plain, "--algo", "pa1", "--passes", "2",
                       "--model", tmp_path / "f.olm")[0] == 0
    finally:
        del os.environ["OLEARN_CACHE_DIR"]
    assert np.array_equal(load(tmp_path / "p.olm").coef_, load(tmp_path / "f.olm").coef_)
    kept = sorted(p.name for p in (cache / "passes").iterdir())
    assert len(kept) == 1 and kept[0].startswith("d.svm")   # the file's, not the pipe's
