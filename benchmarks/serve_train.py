"""``olearn train DATA --server`` into a served PA-I (issue 47 item 4's target: at least
50,000 rows/s from a LIBSVM file on loopback).

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/serve_train.py [--repeats 3]

A real server (``--fsync always``) and the command line as a user runs it, on a9a (32,561
rows, 123 columns), w8a (49,749 rows, 300 columns) and w8a ten times over (497,490 rows:
a stream long enough that the command's fixed start, the reader's kernels loaded and the
model made, no longer dominates), ``--request-rows`` 1,000 and 10,000: the rows/s the
command reports (reading, requests and the server's learning, from the first rows read
to the last acknowledgement, as the local command reports its own; the rows go as one
CSR matrix a request, its arrays base64 of their bytes).  Beside it, in the same run, the same
file's rows sent by ``Client.learn`` as one ``{column: value}`` object per row (how the
command sent them before: the server learns them one by one), and the local command
(``olearn train DATA --algo pa1``)'s rows/s.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_support import Server  # noqa: E402

from olearn.client import Client  # noqa: E402
from olearn.io import load_libsvm  # noqa: E402


def data_dir():
    return Path(os.environ.get("OLEARN_DATA_MIRROR", ROOT.parent / "shared" / "data"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "d")
        env = dict(os.environ, OLEARN_TOKEN=srv.token)
        w8a = data_dir() / "w8a" / "w8a"
        if w8a.exists():
            text = w8a.read_text()
            (Path(tmp) / "w8a-x10").write_text((text.rstrip("\n") + "\n") * 10)
        for name in ("a9a", "w8a", "w8a-x10"):
            path = Path(tmp) / name if name == "w8a-x10" else data_dir() / name / name
            if not path.exists():
                print(f"skipped {name}: {path} absent", file=sys.stderr)
                continue
            for per in (1000, 10000):
                rates = []
                for r in range(args.repeats):
                    out = subprocess.run(
                        [sys.executable, "-m", "olearn", "train", str(path), "--algo", "pa1",
                         "--server", srv.url, "--name", f"{name}-{per}-{r}",
                         "--request-rows", str(per)], capture_output=True, text=True,
                        env=env, timeout=600)
                    assert out.returncode == 0, out.stderr
                    rates.append(float(re.search(r"\((\d+) rows/s", out.stderr).group(1)))
                rows.append((name, f"olearn train --server, {per:,} rows a request",
                             statistics.median(rates)))
            if name == "w8a-x10":
                continue  # (the other paths on the files above)
            X, y = load_libsvm(str(path))[:2]
            c = Client(srv.url, srv.token)
            rates = []
            for r in range(args.repeats):
                c.create(f"{name}-dicts-{r}", "pa1")
                began = time.perf_counter()
                for i in range(0, X.shape[0], 1000):
                    c.learn(f"{name}-dicts-{r}", X[i:i + 1000], y[i:i + 1000])
                rates.append(X.shape[0] / (time.perf_counter() - began))
            rows.append((name, "Client.learn, one {column: value} object a row, 1,000 a "
                               "request", statistics.median(rates)))
            rates = []
            for r in range(args.repeats):
                out = subprocess.run([sys.executable, "-m", "olearn", "train", str(path),
                                      "--algo", "pa1"], capture_output=True, text=True,
                                     timeout=600)
                rates.append(float(re.search(r"\(([\d,]+) rows/s", out.stderr)
                                   .group(1).replace(",", "")))
            rows.append((name, "olearn train (local, no server)", statistics.median(rates)))
        srv.stop()
    lines = ["# olearn train --server (issue 47 item 4)", "",
             f"`python benchmarks/serve_train.py --repeats {args.repeats}` (medians; "
             f"server `--fsync always` on loopback, client and server on this 2-core "
             f"machine; load average at the end {os.getloadavg()[0]:.1f}).", "",
             "| data | path | rows/s |", "|---|---|---|"]
    lines += [f"| {d} | {p} | {r:,.0f} |" for d, p, r in rows]
    lines += ["", "Target: at least 50,000 rows/s from a LIBSVM file into a served PA-I.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
