"""``olearn train --workers N`` (issue 47 item 4): the command on a9a against the serial
command, and two single-threaded workers against one on a 5,000,000-row file.
Writes benchmarks/workers.md.

    OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/bench_workers.py [--rows N] [--repeats R]

Command: ``olearn train a9a --algo pa1 -f m.olm`` and the same with ``--workers 2``
(a local cluster of worker threads; the file cut at a line end into two shards), fresh
processes taking turns, cached kernels (one untimed run of each first); wall and CPU
(user + system of the process) of each.  Workers: ``olearn.distributed.run`` of pa1
over the two halves of a9a repeated to ``--rows`` rows, on a started local cluster of
1 and then 2 single-threaded workers (threads, then processes), each worker's reader
parsing in one thread (``olearn.io._source.parse_threads``), kernels loaded before the
timing; runs taking turns.
"""
import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
import olearn  # noqa: E402
from olearn import distributed as D  # noqa: E402

DATA = os.environ.get("OLEARN_DATA_MIRROR", os.path.join(ROOT, "..", "shared", "data"))
OUT = os.path.join(ROOT, "benchmarks", "workers.md")


def command(argv, cwd):
    """(wall, CPU) of one fresh ``python -m olearn`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "olearn", *argv], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT})
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{argv}: {proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stderr


def the_command(repeats):
    a9a = os.path.join(DATA, "a9a", "a9a")
    cwd = tempfile.mkdtemp(prefix="olearn-workers-")
    serial = ["train", a9a, "--algo", "pa1", "-f", "s.olm"]
    dist = ["train", a9a, "--algo", "pa1", "--workers", "2", "-f", "d.olm"]
    command(serial, cwd), command(dist, cwd)          # kernels cached
    got = {"serial": [], "workers": []}
    for _ in range(repeats):
        got["serial"].append(command(serial, cwd)[:2])
        w, c, err = command(dist, cwd)
        got["workers"].append((w, c))
    rate = next(line for line in err.splitlines() if line.startswith("mistake rate"))
    return got, rate


def halves(folder, rows):
    """The two halves of a9a repeated to ``rows`` rows (the distributed benchmark's)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_distributed import shard_files
    return shard_files(folder, rows, parts=2)


def workers(rows, repeats):
    from distributed import Client, LocalCluster
    folder = tempfile.mkdtemp(prefix="olearn-workers-")
    files = halves(folder, rows)
    opts = dict(n_features=123, zero_based=False, chunk_size=50_000)
    tiny = os.path.join(folder, "tiny.svm")
    with open(tiny, "wb") as f:
        f.writelines(open(os.path.join(DATA, "a9a", "a9a"), "rb").readlines()[:3000])
    out = {}
    for processes in (False, True):
        for _ in range(repeats):
            for n in (1, 2):
                with LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                  dashboard_address=":0", silence_logs=50) as cl, \
                        Client(cl) as c:
                    D.run(olearn.make("pa1"), [tiny] * 2, client=c, **opts)
                    t = time.perf_counter()
                    r = D.run(olearn.make("pa1"), files, client=c, **opts)
                    out.setdefault((processes, n), []).append(time.perf_counter() - t)
                    assert r.rows == rows
                print(processes, n, out[(processes, n)][-1], flush=True)
    for f in files:
        os.remove(f)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=5_000_000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out", default=OUT)
    a = p.parse_args(argv)
    load0 = os.getloadavg()
    got, rate = the_command(a.repeats + 2)
    fmt = lambda v: ", ".join(f"{x:.2f}" for x in v)  # noqa: E731
    sw = [w for w, _ in got["serial"]]
    dw = [w for w, _ in got["workers"]]
    sc = [c for _, c in got["serial"]]
    dc = [c for _, c in got["workers"]]
    med = lambda v: sorted(v)[len(v) // 2]  # noqa: E731
    lines = [
        "# `olearn train --workers N` (issue 47 item 4)", "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"`python benchmarks/bench_workers.py --rows {a.rows} --repeats {a.repeats}`; "
        f"{platform.machine()}, {os.cpu_count()} cores, load average "
        f"{load0[0]:.2f} at the start (a shared machine: ratios within one run only).", "",
        "## The command on a9a (32,561 rows)", "",
        "Fresh processes taking turns, kernels cached; `--workers 2` starts a local "
        "cluster of two worker threads and cuts the file at a line end into two shards.",
        "", "| command | wall s | CPU s |", "|---|---|---|",
        f"| `olearn train a9a --algo pa1` | {fmt(sw)} | {fmt(sc)} |",
        f"| `olearn train a9a --algo pa1 --workers 2` | {fmt(dw)} | {fmt(dc)} |", "",
        f"`--workers 2` / serial, median wall: **{med(dw) / med(sw):.2f}x** (target: within "
        f"1.5x), median CPU {med(dc) / med(sc):.2f}x.  Its summary: `{rate}`."]
    res = workers(a.rows, a.repeats)
    lines += ["", f"## Two single-threaded workers against one ({a.rows:,} rows)", "",
              "`olearn.distributed.run` of pa1 over two halves (a9a repeated), on a "
              "started cluster, kernels loaded; each worker's reader in one thread.", "",
              "| workers | 1 worker wall s | 2 workers wall s | best 1 / best 2 |",
              "|---|---|---|---|"]
    for processes in (False, True):
        one, two = res[(processes, 1)], res[(processes, 2)]
        lines.append(f"| {'processes' if processes else 'threads'} | {fmt(one)} | "
                     f"{fmt(two)} | **{min(one) / min(two):.2f}x** |")
    lines += ["", "Target: two workers at least 1.6x one.  Load average at the end: "
              f"{os.getloadavg()[0]:.2f}."]
    text = "\n".join(lines) + "\n"
    if a.out == "-":
        print(text)
    else:
        open(a.out, "w").write(text)
        print(text)


if __name__ == "__main__":
    main()
