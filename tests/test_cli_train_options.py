"""``olearn train`` options of the input pipeline: --passes (with its binary cache),
--init (continue a saved model), --scale (a streaming standardiser before the learner),
--holdout (every N-th row scored, never learned); each against the library."""
import numpy as np
import pytest

import olearn
from olearn.io import load_libsvm
from olearn.preprocessing import Scaled

from conftest import run_cli


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("OLEARN_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6)) * np.array([1, 10, 100, 0.1, 1, 5])
    y = np.where(X[:, 0] + X[:, 1] / 10 > 0, 1, -1)
    path = tmp_path / "d.svm"
    with open(path, "w") as f:
        for row, t in zip(X, y):
            f.write(f"{t} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(row)) + "\n")
    return path


def _field(out, name):
    line = next(line for line in out.splitlines() if line.startswith(name))
    return line.split("=", 1)[1].split()[0]


def test_passes_learn_as_repeated_partial_fit_and_reuse_the_cache(data, capsys, tmp_path):
    model = tmp_path / "m.olm"
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", "--passes", "3",
                           "--model", model)
    assert rc == 0 and "pass 3:" in err
    X, y = load_libsvm(data)
    ref = olearn.make("pa1")
    for _ in range(3):
        ref.partial_fit(X, y)
    np.testing.assert_allclose(olearn.load(model).coef_, ref.coef_, rtol=1e-12)
    caches = list((tmp_path / "cache" / "passes").iterdir())
    assert len(caches) == 1                                    # written once, beside nothing
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", "--passes", "2")
    assert rc == 0 and "reading the cache" in err
    data.write_text(data.read_text()[: len(data.read_text()) // 2].rsplit("\n", 1)[0] + "\n")
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", "--passes", "2")
    assert rc == 0 and "reading the cache" not in err          # the data changed: re-read


def test_a_bad_file_leaves_no_cache(data, capsys, tmp_path):
    data.write_text(data.read_text() + "1 3:x\n")
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", "--passes", "2")
    # (one olearn line: the error, after the progress table printed on stderr)
    assert rc == 2 and err.count("olearn:") == 1 and "olearn: error: " in err
    assert "d.svm:301" in err
    assert not any((tmp_path / "cache" / "passes").iterdir())


def test_init_continues_a_saved_model(data, capsys, tmp_path):
    X, y = load_libsvm(data)
    half = tmp_path / "half.svm"
    half.write_text("".join(data.read_text().splitlines(keepends=True)[:150]))
    m1, m2 = tmp_path / "m1.olm", tmp_path / "m2.olm"
    assert run_cli(capsys, "train", half, "--algo", "arow", "--quiet", "--model", m1)[0] == 0
    rc, out, err = run_cli(capsys, "train", data, "--init", m1, "--quiet", "--model", m2)
    assert rc == 0
    ref = olearn.make("arow").partial_fit(X[:150], y[:150]).partial_fit(X, y)
    np.testing.assert_allclose(olearn.load(m2).coef_, ref.coef_, rtol=1e-10)
    rc, out, err = run_cli(capsys, "train", data, "--init", m1, "--algo", "pa1")
    assert rc == 2 and "not the PAClassifier" in err
    rc, out, err = run_cli(capsys, "train", data, "--init", tmp_path / "none.olm")
    assert rc == 2 and "no such model file" in err


def test_scale_puts_the_streaming_scaler_before_the_learner(data, capsys, tmp_path):
    model = tmp_path / "s.olm"
    rc, out, err = run_cli(capsys, "train", data, "--algo", "ogd", "--scale",
                           "--model", model)
    assert rc == 0
    X, y = load_libsvm(data)
    ref = Scaled(olearn.make("ogd"))
    mistakes = int(np.sum(ref.predict_learn(X, y) != y))
    assert f"({mistakes} mistakes)" in err
    back = olearn.load(model)
    assert isinstance(back, Scaled)
    np.testing.assert_allclose(back.model_.coef_, ref.model_.coef_, rtol=1e-10)
    rc, out, err = run_cli(capsys, "predict", data, "--model", model)
    assert rc == 0 and [float(v) for v in out.split()] == list(ref.predict(X))


def test_holdout_scores_every_nth_row_without_learning_it(data, capsys):
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", "--holdout", "10",
                           "--chunk-size", "50")
    assert rc == 0
    X, y = load_libsvm(data)
    model, wrong, scored = olearn.make("pa1"), 0, 0
    for a in range(0, 300, 50):
        rows = np.arange(a, a + 50)
        hold = rows % 10 == 9
        if a:
            wrong += int(np.sum(model.predict(X[rows[hold]]) != y[rows[hold]]))
            scored += int(hold.sum())
        model.partial_fit(X[rows[~hold]], y[rows[~hold]])
    assert f"holdout mistake rate = {wrong / scored:.6f} over {scored:,} rows" in err
    assert _field(err, "rows") == "270"


@pytest.mark.parametrize("argv, needle", [
    (["--passes", "0"], "--passes must be >= 1"),
    (["--holdout", "1"], "--holdout must be 0"),
])
def test_bad_options_are_one_line(data, capsys, argv, needle):
    rc, out, err = run_cli(capsys, "train", data, "--algo", "pa1", *argv)
    assert rc == 2 and needle in err and err.count("\n") == 1


class _Terminal:
    """A stand-in for stderr on a terminal: collects what is written."""

    def __init__(self, tty=True):
        self.text, self.tty = "", tty

    def write(self, s):
        self.text += s

    def flush(self):
        pass

    def isatty(self):
        return self.tty


def test_progress_bar_shows_the_share_of_the_file_read(data, tmp_path):
    import gzip

    from olearn.cli._learning import ProgressBar
    from olearn.io import read_libsvm
    packed = tmp_path / "d.svm.gz"
    packed.write_bytes(gzip.compress(data.read_bytes()))
    for path in (data, packed):
        reader = read_libsvm(str(path), chunk_size=100)
        term, clock = _Terminal(), iter(range(100)).__next__
        bar = ProgressBar(reader, out=term, every=0.5, clock=clock)
        rows = sum(len(y) for _, y in bar.rows(iter(reader)))
        assert rows == 300
        last = term.text.rsplit("\r", 1)[-1]
        assert "100.0%" in last and "300 rows" in last          # the whole file was read
        assert reader._source.done == reader._source.size == path.stat().st_size
        bar.clear()
        assert term.text.endswith("\r\x1b[K")
    for out in (_Terminal(tty=False), None):            # a log file; capsys's stderr
        bar = ProgressBar(read_libsvm(str(data)), out=out)
        list(bar.rows(iter(read_libsvm(str(data)))))
        assert not bar.active and (out is None or out.text == "")
    stream = read_libsvm(open(data, "rb"), n_features=6)
    assert not ProgressBar(stream, out=_Terminal()).active              # no size known


def test_the_state_is_copied_once_a_run_not_once_a_chunk(data, capsys, tmp_path,
                                                         monkeypatch):
    """A batch call copies the model's state first, to put it back if the call diverges.
    The command line saves nothing from a run that diverges, so it takes that snapshot
    once for the run: at 2^18 hashed columns a copy per chunk cost 0.2 s CPU per 1M
    rows.  The same model as the library's partial_fit chunk by chunk, and a divergence
    still stops the run with one line and no model."""
    import olearn.base as base
    copies = []
    real = base._copied

    def counted(v):
        if isinstance(v, dict) and any(isinstance(a, np.ndarray) for a in v.values()):
            copies.append(1)        # (the state dict: the O(size of the model) copy)
        return real(v)
    monkeypatch.setattr(base, "_copied", counted)
    model_path = tmp_path / "m.olm"
    rc, _, err = run_cli(capsys, "train", data, "--algo", "pa1", "--chunk-size", "30",
                         "--model", model_path)
    assert rc == 0, err
    assert len(copies) <= 1                      # 10 chunks: 10 copies before
    X, y = load_libsvm(data)
    ref = olearn.make("pa1")
    for lo in range(0, 300, 30):
        ref.partial_fit(X[lo:lo + 30], y[lo:lo + 30], classes=[-1, 1])
    assert np.array_equal(olearn.load(model_path).coef_, ref.coef_)
    rc, _, err = run_cli(capsys, "train", data, "--algo", "ogd", "--param", "eta=1e300",
                         "--chunk-size", "30", "--model", tmp_path / "d.olm")
    assert rc != 0 and "diverged" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d.olm").exists()
