"""``olearn portfolio``: the table and the plot, and one-line errors (exit 2, nothing
written) for a ragged file, non-positive prices, a single asset, unknown names."""
import numpy as np
import pytest

from conftest import run_cli


@pytest.fixture
def prices(tmp_path):
    rng = np.random.default_rng(1)
    P = np.cumprod(np.exp(rng.normal(0, 0.02, size=(60, 4))), axis=0)
    path = tmp_path / "prices.csv"
    path.write_text("a,b,c,d\n" + "\n".join(",".join(f"{v:.10g}" for v in row) for row in P))
    return path


def test_table_and_plot(capsys, prices, tmp_path):
    plot = tmp_path / "w.png"
    rc, out, err = run_cli(capsys, "portfolio", prices, "--algo", "pamr,olmar,ubah",
                           "--fee", "0.001", "--plot", plot)
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert "60 periods, 4 assets" in lines[0]
    rows = {ln.split()[0]: ln.split() for ln in lines[2:5]}
    assert set(rows) == {"pamr", "olmar", "ubah"}
    import olearn.portfolio as op
    X = op.load_relatives(prices)
    expected = op.backtest(op.UBAH(), X, fee=0.001).final_wealth
    assert float(rows["ubah"][1]) == pytest.approx(expected, rel=1e-5)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".olearn")] == []


@pytest.mark.parametrize("text,needle", [
    ("a,b\n1,2\n1.5\n", "ragged"),
    ("a,b\n1,2\n-1,2\n", "positive"),
    ("a,b\n1,2\n0,2\n", "positive"),
    ("a\n1\n2\n", "at least 2"),
])
def test_bad_files(capsys, tmp_path, text, needle):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    plot = tmp_path / "out.png"
    rc, out, err = run_cli(capsys, "portfolio", path, "--algo", "ubah", "--plot", plot)
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("olearn: error: ") and needle in lines[0]
    assert "Traceback" not in err and not plot.exists()


@pytest.mark.parametrize("args,needle", [
    (["--algo", "nope"], "unknown portfolio strategy"),
    (["--fee", "1.5"], "--fee"),
    (["--param", "zzz=1", "--algo", "eg"], "zzz"),
    (["--param", "eta=-1", "--algo", "eg"], "eta"),
])
def test_bad_options(capsys, prices, args, needle):
    rc, out, err = run_cli(capsys, "portfolio", prices, *args)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and needle in err


def test_missing_file(capsys, tmp_path):
    rc, out, err = run_cli(capsys, "portfolio", tmp_path / "none.csv")
    assert rc == 2 and "no such file" in err
    rc, out, err = run_cli(capsys, "portfolio", "not_a_set")
    assert rc == 2 and "not found" in err and len(err.strip().splitlines()) == 1


def test_fast_paths_import_nothing_heavy(tmp_path):
    import os
    import subprocess
    import sys
    code = ("import sys\n"
            "from olearn.cli import main\n"
            "for argv in (['portfolio', 'missing.csv'], ['portfolio', 'x.csv', '--algo', 'no'],\n"
            "             ['portfolio', '--help']):\n"
            "    assert main(argv) in (0, 2), argv\n"
            "print('HEAVY', sorted(m for m in ('numba', 'numpy', 'scipy') if m in sys.modules))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stdout
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("olearn: error:")]
    assert "missing.csv: no such file" in errors[0]
    assert "unknown portfolio strategy 'no'" in errors[1] and len(errors) == 2
