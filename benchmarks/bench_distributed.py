"""olearn.distributed: accuracy of iterative parameter mixing against one machine, and
speed on a LocalCluster.  Writes benchmarks/distributed.md.

    OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/bench_distributed.py [accuracy|speed|all]

Accuracy: each training set in a fixed random order (seed 0), cut into K contiguous
shards; ``ipm`` after e = 1..5 epochs against the serial learner after e epochs over
the same order, test error in points; ``average`` (one pass per shard, one mix)
beside it.  The rounds are ``olearn.distributed.simulate`` (in this process; the same
members and mixes as on a cluster, tests/test_distributed.py), so K = 32 and 64 need
no cluster.  Speed: a LocalCluster of worker processes, a 5,000,000-row LIBSVM file (a9a
repeated) in 2 shards, 1 worker against 2, in the same run; and the round of a
2^20-weight model (broadcast, tasks over 10 rows, gather, mix).
"""
import os
import platform
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import olearn  # noqa: E402
from olearn import distributed as D  # noqa: E402
from olearn.io import load_libsvm  # noqa: E402

ROOT = os.environ.get("OLEARN_DATA_MIRROR", os.path.join(os.path.dirname(__file__), "..",
                                                          "..", "shared", "data"))
OUT = os.path.join(os.path.dirname(__file__), "distributed.md")
ALGOS = {"pa1": {}, "ogd": {}, "arow": {}, "ftrl": {}}
KS = (2, 4, 8, 16)
KS_SIM = (2, 4, 8, 16, 32, 64)
EPOCHS = 5


def datasets():
    """name -> (X_train, y_train, X_test, y_test); w8a and news20 have no test file:
    every 4th row of a fixed permutation is held out."""
    p = lambda *a: os.path.join(ROOT, *a)  # noqa: E731
    out = {}
    X, y = load_libsvm(p("a9a", "a9a"), n_features=123)
    Xt, yt = load_libsvm(p("a9a", "a9a.t"), n_features=123)
    out["a9a"] = (X, y, Xt, yt)
    X, y = load_libsvm(p("ijcnn1", "ijcnn1.trn.bz2"), n_features=22)
    Xt, yt = load_libsvm(p("ijcnn1", "ijcnn1.tst.bz2"), n_features=22)
    out["ijcnn1"] = (X, y, Xt, yt)
    for name, path in (("w8a", p("w8a", "w8a")), ("news20", p("news20", "news20.converted.bz2"))):
        X, y = load_libsvm(path)
        order = np.random.default_rng(1).permutation(len(y))
        test, train = order[::4], np.sort(np.setdiff1d(order, order[::4]))
        out[name] = (X[train], y[train], X[test], y[test])
    return out


def error(model, X, y):
    return 100.0 * float(np.mean(model.predict(X) != y))


def accuracy_rows(data, ks, with_average=True):
    rows = []
    for name, (X, y, Xt, yt) in data.items():
        order = np.random.default_rng(0).permutation(len(y))
        X, y = X[order], y[order]
        for algo, kw in ALGOS.items():
            serial, m = [], olearn.make(algo, **kw)
            for e in range(EPOCHS):
                m.partial_fit(X, y)
                serial.append(error(m, Xt, yt))
            for K in ks:
                cuts = np.linspace(0, len(y), K + 1).astype(int)
                shards = [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
                ipm, model = [], olearn.make(algo, **kw)
                for e in range(EPOCHS):
                    model = D.simulate(model, shards).model
                    ipm.append(error(model, Xt, yt))
                avg = error(D.simulate(olearn.make(algo, **kw), shards, mixing="average")
                            .model, Xt, yt) if with_average else float("nan")
                gaps = [i - s for i, s in zip(ipm, serial)]
                first = next((e + 1 for e, g in enumerate(gaps) if g <= 1.0), None)
                rows.append((name, algo, K, serial[0], serial[-1], ipm[0], ipm[-1], avg,
                             first, min(gaps)))
                print(rows[-1], flush=True)
    return rows


def table(rows, title):
    out = [title, "",
           "| data | learner | K | serial e=1 | serial e=5 | ipm e=1 | ipm e=5 | average (1 pass) "
           "| first e <= 5 with ipm within 1 point of serial at e | best gap (points) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.2f} | "
                   f"{r[6]:.2f} | {r[7]:.2f} | {r[8] if r[8] else 'missed'} | {r[9]:+.2f} |"
                   .replace("| nan |", "| - |"))
    met = sum(1 for r in rows if r[8])
    out += ["", f"Within 1 point after at most 5 epochs: {met} of {len(rows)} rows."]
    return out


# ---------------------------------------------------------------- speed
def shard_files(folder, rows=5_000_000, parts=2):
    """The halves of a ``rows``-row LIBSVM file (a9a repeated), one file each."""
    lines = open(os.path.join(ROOT, "a9a", "a9a"), "rb").read().splitlines(keepends=True)
    names = []
    for k in range(parts):
        name = os.path.join(folder, f"part-{k}.svm")
        with open(name, "wb") as f:
            n, want = 0, rows // parts
            while n < want:
                take = lines[:want - n]
                f.writelines(take)
                n += len(take)
        names.append(name)
    return names


def speed():
    from distributed import Client, LocalCluster
    lines = []
    folder = tempfile.mkdtemp(prefix="olearn-dist-")
    t = time.perf_counter()
    files = shard_files(folder)
    size = sum(os.path.getsize(f) for f in files) / 1e6
    lines.append(f"File: a9a repeated to 5,000,000 rows ({size:,.0f} MB), 2 shards of "
                 f"2,500,000 rows (written in {time.perf_counter() - t:.0f} s).")
    opts = dict(n_features=123, zero_based=False, chunk_size=50_000)
    tiny = os.path.join(folder, "tiny.svm")
    with open(tiny, "wb") as f:
        f.writelines(open(os.path.join(ROOT, "a9a", "a9a"), "rb").readlines()[:3000])
    times, cpus, loads, models = {}, {}, {}, {}
    for n in (1, 2, 1, 2, 1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address=":0", silence_logs=50) as cl, Client(cl) as c:
            D.run(olearn.make("pa1"), [tiny] * n, client=c, **opts)   # kernels loaded
            before = c.run(time.process_time)
            load = os.getloadavg()[0]
            t = time.perf_counter()
            r = D.run(olearn.make("pa1"), files, client=c, **opts)
            times.setdefault(n, []).append(time.perf_counter() - t)
            after = c.run(time.process_time)
            cpus.setdefault(n, []).append(max(after[w] - before[w] for w in after))
            loads.setdefault(n, []).append(load)
            models[n] = r.model
        print(n, times[n], cpus[n], loads[n], flush=True)
    same = np.array_equal(models[1].coef_, models[2].coef_)
    one, two = min(times[1]), min(times[2])
    c1, c2 = min(cpus[1]), min(cpus[2])
    fmt = lambda v: ", ".join(f"{x:.2f}" for x in v)  # noqa: E731
    lines += ["", "| workers | wall (s), three runs | best wall | busiest worker's CPU (s) | "
              "load average before each run |", "|---|---|---|---|---|",
              f"| 1 | {fmt(times[1])} | {one:.2f} | {fmt(cpus[1])} | {fmt(loads[1])} |",
              f"| 2 | {fmt(times[2])} | {two:.2f} | {fmt(cpus[2])} | {fmt(loads[2])} |", "",
              f"Speed-up 2 workers / 1 worker, best wall: **{one / two:.2f}x** (target >= "
              f"1.6x); the busiest worker's CPU seconds, 1 worker / 2 workers: "
              f"{c1 / c2:.2f}x (an upper bound of the idle machine's wall ratio: one worker's "
              f"CPU seconds are partly spent in two parse threads at once).  The models are "
              f"identical: {same}.  Wall of `olearn.distributed.run` on a started cluster "
              "(worker start and kernel loading outside the timing).  One worker already "
              "parses two blocks at once in two threads (`olearn.io._source.ordered_map`), "
              "so on 2 cores it is not a one-core baseline."]
    for f in files:
        os.remove(f)
    # a mixing round of a 2^20-weight model
    d = 1 << 20
    rng = np.random.default_rng(0)
    import scipy.sparse as sp
    shards = []
    for k in range(2):
        X = sp.random(10, d, density=20 / d, format="csr", random_state=k)
        shards.append((X, np.where(rng.random(10) > 0.5, 1, -1)))
    per = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=50) as cl, Client(cl) as c:
        import dask.array as da  # noqa: F401
        parts = c.scatter([("memory", s, {}) for s in shards])
        runner = D._DaskRunner(c, False)
        for algo in ("pa1", "ogd", "arow", "ftrl"):
            model = D.simulate(olearn.make(algo), shards).model
            rounds = []
            for i in range(6):
                t = time.perf_counter()
                got = runner.learn(model, [(p, None) for p in parts], i, 1)
                mixer = D._Mixer(model, i, "count")
                for g in got:
                    mixer.offer(i, *g)
                model = mixer.mix()
                rounds.append(time.perf_counter() - t)
            per.append((algo, sorted(rounds[1:])[len(rounds[1:]) // 2], min(rounds[1:])))
    lines += ["", "Round of a 2^20-weight model on 2 worker processes: broadcast the model, "
              "each worker a pass over 10 rows from it and its member back, the mix "
              "(`olearn.mix`); median and best of 5 rounds (target < 0.2 s).", "",
              "| learner | median (s) | best (s) |", "|---|---|---|"]
    lines += [f"| {a} | {m:.3f} | {b:.3f} |" for a, m, b in per]
    return lines


def main(which):
    head = [f"# olearn.distributed: mixing on Dask against one machine", "",
            f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `python "
            f"benchmarks/bench_distributed.py {which}`; {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, numpy {np.__version__}.  Load average at "
            f"start: {os.getloadavg()[0]:.1f} (the 2 cores are shared with other jobs).", ""]
    body = []
    if which in ("accuracy", "all"):
        data = datasets()
        body += table(accuracy_rows(data, KS), "## Test error (%), ipm vs serial, K = 2..16")
        body += [""] + table(accuracy_rows({k: v for k, v in data.items()}, (32, 64),
                                           with_average=False),
                             "## Simulated, K = 32 and 64 (in-process rounds)")
    if which in ("speed", "all"):
        body += ["", "## Speed (LocalCluster, worker processes)", ""] + speed()
    text = "\n".join(head + body) + "\n"
    name = OUT if which == "all" else OUT.replace(".md", f"_{which}.md")  # join by hand
    with open(name, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "all")
