"""Defaults that generalise (issue 32, item 4): ``train``/``evaluate`` ``--shuffle`` and
``--seed``, the warning for labels in long runs, and ``train``'s advice to average.

Every check runs the real command in process (``olearn.cli.main``) on small files, and
compares with the library: a shuffled run learns exactly what the learner learns from
the same permutation of the rows."""
import numpy as np
import pytest

import olearn
from olearn.cli import _order
from olearn.io import load_libsvm

from conftest import run_cli


def _write(path, X, y):
    with open(path, "w") as f:
        for row, t in zip(X, y):
            f.write(f"{t} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n")
    return path


@pytest.fixture
def files(tmp_path, monkeypatch):
    """The same 1,200 rows twice: in a random order, and sorted by label."""
    monkeypatch.setenv("OLEARN_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 5))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=1200) > 0, 1, -1)
    order = np.argsort(-y, kind="stable")
    return (_write(tmp_path / "mixed.svm", X, y),
            _write(tmp_path / "sorted.svm", X[order], y[order]))


def _field(out, name):
    line = next(line for line in out.splitlines() if line.startswith(name))
    return line.split("=", 1)[1].split()[0]


def test_labels_in_long_runs_are_warned_about_and_shuffle_fixes_it(files, capsys):
    mixed, sorted_ = files
    for command in ("train", "evaluate"):
        rc, out, err = run_cli(capsys, command, sorted_, "--algo", "pa1")
        assert rc == 0
        assert "labels come in long runs (2 runs of one label in 1,200 rows" in err
        # (one olearn line; the table and summary also go to stderr, stdout not a terminal)
        assert "use --shuffle" in err and err.count("olearn:") == 1
        rc, out, err = run_cli(capsys, command, sorted_, "--algo", "pa1", "--shuffle")
        assert rc == 0 and "long runs" not in err
        rc, out, err = run_cli(capsys, command, mixed, "--algo", "pa1")
        assert rc == 0 and "long runs" not in err


def test_shuffle_is_seeded_and_learns_the_permuted_rows(files, capsys, tmp_path):
    _, sorted_ = files
    runs = {}
    for seed in (None, 0, 7):
        model = tmp_path / f"m{seed}.olm"
        extra = [] if seed is None else ["--seed", seed]
        rc, out, err = run_cli(capsys, "train", sorted_, "--algo", "pa1", "--shuffle",
                               "--chunk-size", 100, "--model", model, *extra)
        assert rc == 0
        runs[seed] = (_field(err, "mistake rate"), olearn.load(model).coef_)
    assert runs[None][0] == runs[0][0]                       # the default seed is 0
    np.testing.assert_array_equal(runs[None][1], runs[0][1])
    assert runs[7][0] != runs[0][0]                          # another seed, another order
    X, y = load_libsvm(sorted_)
    order = np.random.default_rng(7).permutation(len(y))
    ref = olearn.make("pa1")
    pred = ref.predict_learn(X[order], y[order])
    assert float(runs[7][0]) == pytest.approx(float((pred != y[order]).mean()), abs=1e-6)
    np.testing.assert_allclose(runs[7][1], ref.coef_, rtol=1e-12)


def test_shuffle_refuses_a_file_over_the_memory_limit(files, capsys, monkeypatch, tmp_path):
    _, sorted_ = files
    monkeypatch.setattr(_order, "MAX_BYTES", 1000)
    model = tmp_path / "m.olm"
    rc, out, err = run_cli(capsys, "train", sorted_, "--algo", "pa1", "--shuffle",
                           "--model", model)
    assert rc == 2 and "--shuffle reads the whole file into memory" in err
    assert len(err.strip().splitlines()) == 1 and not model.exists()
    # arrays over the limit (a file whose size is unknown, here a compressed one)
    import gzip
    packed = tmp_path / "sorted.svm.gz"
    packed.write_bytes(gzip.compress(sorted_.read_bytes()))
    monkeypatch.setattr(_order, "MAX_BYTES", packed.stat().st_size + 1)
    rc, out, err = run_cli(capsys, "evaluate", packed, "--algo", "pa1", "--shuffle")
    assert rc == 2 and "--shuffle reads the whole file into memory" in err


def test_shuffle_is_refused_where_rows_are_not_learned_here(files, capsys):
    _, sorted_ = files
    for extra in (["--server", "http://127.0.0.1:9"], ["--workers", "2"]):
        rc, out, err = run_cli(capsys, "train", sorted_, "--algo", "pa1", "--shuffle", *extra)
        assert rc == 2 and "--shuffle is for a run on this machine" in err


def test_train_recommends_averaged_weights_for_a_saved_classifier(files, capsys, tmp_path):
    mixed, _ = files
    model = tmp_path / "m.olm"
    rc, out, err = run_cli(capsys, "train", mixed, "--algo", "pa1", "--model", model)
    assert rc == 0 and "--param average=true" in err
    rc, out, err = run_cli(capsys, "train", mixed, "--algo", "pa1", "--model", model,
                           "--param", "average=false")              # chosen: no advice
    assert rc == 0 and "average=" not in err
    rc, out, err = run_cli(capsys, "train", mixed, "--algo", "arow", "--model", model)
    assert rc == 0 and "average=" not in err                         # cannot average
    rc, out, err = run_cli(capsys, "train", mixed, "--algo", "pa1")  # nothing saved
    assert rc == 0 and "average=" not in err
    three = tmp_path / "three.svm"                                  # several classes: no
    three.write_text("".join(f"{i % 3} 1:{i % 7} 2:{i % 5}\n" for i in range(60)))
    rc, out, err = run_cli(capsys, "train", three, "--algo", "pa1", "--model", model)
    assert rc == 0 and "average=" not in err
