"""A stream read without a fixed width (LIBSVM on standard input without
``n_features``): the reader's chunks grow as wider indices appear, and the model grows
with them (``olearn._estimator.widen``), keeping what it learned.  A new column starts
as it would in a fresh model, so a learner whose model does not depend on the width
gives, on the growing stream, exactly the model and the progressive predictions that
it gives with the width fixed from the start."""
import io
import subprocess
import sys

import numpy as np
import pytest

from olearn.evaluate.progressive import progressive
from olearn.io import read_libsvm
from olearn._tags import tags
from olearn.preprocessing import Scaled
from olearn.registry import make, names

def _growing_text(n=600, d=60, classes=3, seed=0):
    """LIBSVM lines whose largest index grows from 5 to ``d`` along the stream."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        hi = 5 + (d - 5) * i // n
        k = np.sort(rng.choice(np.arange(1, hi + 1), size=4, replace=False))
        v = rng.normal(size=4)
        lines.append(f"{int(rng.integers(classes))} "
                     + " ".join(f"{a}:{b:.6f}" for a, b in zip(k, v)))
    text = "\n".join(lines) + "\n"
    widest = max(int(t.split(":")[0]) for line in lines for t in line.split()[1:])
    return text.encode(), widest


TEXT, WIDTH = _growing_text()


def _run(model, text, width):
    reader = read_libsvm(io.BytesIO(text), chunk_size=50, n_features=width)
    return progressive(model, reader)


@pytest.mark.parametrize("name", names())
def test_a_growing_stream_gives_the_fixed_width_model(name):
    if tags(make(name)).width_dependent:
        # its model depends on the width itself (the tag says why): it still learns
        grown = _run(make(name), TEXT, None)
        assert np.isfinite(grown.final) and grown.n_rows == 600  # learned, if not equal
        return
    grown_model, fixed_model = make(name), make(name)
    grown = _run(grown_model, TEXT, None)
    fixed = _run(fixed_model, TEXT, WIDTH)
    # (full covariances: loops over other lengths may round differently)
    assert grown.final == pytest.approx(fixed.final, rel=1e-12, abs=1e-12)
    assert grown_model.n_features_in_ == fixed_model.n_features_in_ == WIDTH
    if hasattr(fixed_model, "coef_"):
        np.testing.assert_allclose(grown_model.coef_, fixed_model.coef_, rtol=0, atol=1e-10)


def test_the_streaming_scaler_grows_with_its_learner():
    grown, fixed = Scaled(make("pa1")), Scaled(make("pa1"))
    assert _run(grown, TEXT, None).final == _run(fixed, TEXT, WIDTH).final
    np.testing.assert_array_equal(grown.mean_, fixed.mean_)
    np.testing.assert_allclose(grown.model_.coef_, fixed.model_.coef_, atol=1e-12)


def test_a_full_covariance_chosen_for_a_narrow_start_does_not_grow_past_its_limit():
    text = b"1 1:1 2:1\n-1 3:2\n" * 30 + b"1 5000:1\n"
    with pytest.raises(ValueError, match="full covariance for its first 3 features"):
        _run(make("arow"), text, None)
    # with the width known from the start, "auto" picks the diagonal
    assert np.isfinite(_run(make("arow"), text, 5000).final)


def _olearn(args, stdin=None):
    return subprocess.run([sys.executable, "-m", "olearn", *args], input=stdin,
                          capture_output=True)


def test_cli_standard_input_without_n_features(tmp_path):
    """``cat FILE | olearn train -`` needs no --n-features: the same model as from the
    file, on one pass and on two (the second pass replays narrower cached chunks)."""
    import olearn
    path = tmp_path / "g.svm"
    path.write_bytes(TEXT)
    for passes in ("1", "2"):
        piped = _olearn(["train", "-", "--algo", "pa1", "--chunk-size", "50", "--passes",
                         passes, "--model", str(tmp_path / "piped.olm"), "--quiet"], TEXT)
        assert piped.returncode == 0, piped.stderr.decode()
        filed = _olearn(["train", str(path), "--algo", "pa1", "--chunk-size", "50",
                         "--passes", passes, "--model", str(tmp_path / "filed.olm"),
                         "--quiet"])
        assert filed.returncode == 0, filed.stderr.decode()
        a, b = olearn.load(tmp_path / "piped.olm"), olearn.load(tmp_path / "filed.olm")
        assert a.n_features_in_ == b.n_features_in_ == WIDTH
        np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-12)


def test_a_file_read_once_with_grow(tmp_path):
    """``n_features="grow"`` reads a file as a stream is read, with no prescan: its
    first chunk is as narrow as its own indices; the command line does so when the
    index base is given, and learns the same model as with the prescan."""
    import olearn
    path = tmp_path / "g.svm"
    path.write_bytes(TEXT)
    widths = [X.shape[1] for X, _ in read_libsvm(path, chunk_size=50, n_features="grow",
                                                  zero_based=False)]
    assert widths[0] < WIDTH and widths[-1] == WIDTH and widths == sorted(widths)
    with pytest.raises(ValueError, match="non-negative integer or 'grow'"):
        read_libsvm(path, n_features="wide")
    models = []
    for base in ("auto", "no"):
        out = tmp_path / f"{base}.olm"
        run = _olearn(["train", str(path), "--algo", "pa1", "--chunk-size", "50",
                       "--zero-based", base, "--model", str(out), "--quiet"])
        assert run.returncode == 0, run.stderr.decode()
        models.append(olearn.load(out))
    np.testing.assert_allclose(models[0].coef_, models[1].coef_, atol=1e-12)
