"""``olearn train 'part-*.svm' --workers N`` and ``--scheduler ADDRESS``: a distributed
run from the command line gives an ordinary model file, the model of
``olearn.distributed`` on the same shards; wrong options are one line, exit 2."""
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("distributed")
from distributed import LocalCluster  # noqa: E402

import olearn  # noqa: E402
from olearn import distributed as D  # noqa: E402
from olearn.cli import main  # noqa: E402
from olearn.io import load_libsvm  # noqa: E402


def _parts(tmp_path, n=120, d=6, k=3):
    rng = np.random.default_rng(11)
    X = np.round(rng.random(size=(n, d)), 3)
    y = np.where(X @ rng.normal(size=d) > 0, 1, -1)
    for j in range(k):
        with open(tmp_path / f"part-{j}.svm", "w") as f:
            for xi, yi in zip(X[j::k], y[j::k]):
                f.write(f"{yi} " + " ".join(f"{c + 1}:{float(v)!r}" for c, v in enumerate(xi)
                                            if v) + "\n")
    return str(tmp_path / "part-*.svm")


def _want(pattern, **kw):
    import glob
    shards = [load_libsvm(p, n_features=6, zero_based=False) for p in sorted(glob.glob(pattern))]
    return D.simulate(olearn.make("pa1"), shards, **kw).model


def test_workers_gives_the_distributed_model(tmp_path):
    pattern = _parts(tmp_path)
    model = tmp_path / "m.olm"
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", pattern, "--algo", "pa1",
                           "--workers", "2", "--epochs", "3", "--model", str(model)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "rounds = 3" in proc.stderr and "rows = 360" in proc.stderr and proc.stdout == ""
    got = olearn.load(model)
    want = _want(pattern, epochs=3)
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.intercept_, want.intercept_, rtol=0, atol=1e-12)


def test_scheduler_address(tmp_path, capsys):
    pattern = _parts(tmp_path)
    model = tmp_path / "m.olm"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                      dashboard_address=":0", silence_logs=50) as cluster:
        rc = main(["train", pattern, "--algo", "pa1", "--scheduler", cluster.scheduler_address,
                   "--mixing", "stream", "--mix-every", "15", "--model", str(model)])
    err = capsys.readouterr().err           # (stdout is not a terminal: the summary)
    assert rc == 0
    assert "stream mixing" in err and "rounds = 3" in err
    want = _want(pattern, mixing="stream", mix_every=15)
    np.testing.assert_allclose(olearn.load(model).coef_, want.coef_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("argv,needle", [
    (["--epochs", "2"], "--epochs is for a distributed run"),
    (["--workers", "0"], "--workers must be >= 1"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
    (["--workers", "2", "--mixing", "stream"], "needs --mix-every"),
    (["--workers", "2", "--scale"], "--scale is not available"),
])
def test_bad_options_are_one_line(tmp_path, capsys, argv, needle):
    pattern = _parts(tmp_path)
    rc = main(["train", pattern, "--algo", "pa1", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and needle in err[0], err


def test_no_matching_file(tmp_path, capsys):
    rc = main(["train", str(tmp_path / "none-*.svm"), "--algo", "pa1", "--workers", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "no file matches" in err[0]


def test_one_file_on_two_workers_is_cut_in_two_and_says_its_progressive_rate(tmp_path):
    """``olearn train FILE --workers 2``: the file cut at a line end into two shards
    (both workers learn), each step said on stderr, the summary's mistake rate the
    members' progressive mistakes, the model the library's on the same parts."""
    import glob
    pattern = _parts(tmp_path, k=1)
    path = glob.glob(pattern)[0]
    model = tmp_path / "m.olm"
    proc = subprocess.run([sys.executable, "-m", "olearn", "train", path, "--algo", "pa1",
                           "--workers", "2", "--model", str(model)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr
    assert "starting a local Dask cluster of 2 worker threads" in err
    assert "1 file cut at line ends into 2 shards" in err and "on 2 shards" in err
    want = D.run(olearn.make("pa1"), D.split(path, 2), client=None, n_workers=1,
                 progressive=True, n_features=6, zero_based=False)
    mistakes = want.progressive["mistakes"]
    assert f"mistake rate = {mistakes / 120:.6f} ({mistakes:,} mistakes;" in err
    np.testing.assert_allclose(olearn.load(model).coef_, want.model.coef_, rtol=0, atol=1e-12)
