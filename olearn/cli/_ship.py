"""The kernels built with the package: ``python -m olearn.cli._ship PACKAGE_DIR``.

``pip install .`` (setup.py's build step) runs this on the copy of the package it is
about to install: it compiles, in a fresh cache folder, the kernels of the README's main
job (``olearn compare``'s default learners on its dataset) and of its quick starts (the
one-example calls of the common learners, ``olearn train``/``predict``/``evaluate`` on
a LIBSVM file, the sparse comparison), then moves that folder to
``PACKAGE_DIR/_kernels/numba-<key>``, where :func:`olearn._compiled.adopt_shipped`
finds it at run time (the key is the hash of numba's version and the compiled sources,
so other sources or another numba only miss them).  ``--generic`` compiles for a
generic CPU of this architecture (``NUMBA_CPU_NAME=generic``: slower code, valid on
every CPU, for a wheel given to other machines); by default for this one.

It prints one line per step (the build's own output) and exits 0 whatever happens: the
caller ships what was built, or nothing.
"""
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

#: learners whose one-example calls the quick starts name (pa1, arow: River's), and the
#: common first-order ones (the others: `olearn warmup`)
ONE_EXAMPLE = ("pa1", "perceptron", "arow", "ftrl", "ogd")
#: the README's sparse comparison (`olearn compare a9a --algos ...`)
SPARSE_COMPARE = ("perceptron", "pa1", "arow", "scw")


_OUT = [None]   # this process's standard output while the steps' output is silenced


def _say(line):
    out = _OUT[0] or sys.__stdout__
    out.write(f"olearn kernels: {line}\n")
    out.flush()


@contextlib.contextmanager
def _silenced():
    """The steps' output (and their compile workers', which write to the file
    descriptors) to /dev/null; :func:`_say` still reaches the real standard output."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    _OUT[0] = os.fdopen(os.dup(saved[0]), "w")
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), \
                contextlib.redirect_stderr(quiet):
            yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)
        _OUT[0].close()
        _OUT[0] = None


def _libsvm(path, n=60, d=8, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for _ in range(n):
            x = rng.normal(size=d)
            f.write(("+1 " if x[0] + x[1] > 0 else "-1 ")
                    + " ".join(f"{j + 1}:{v:.3f}" for j, v in enumerate(x) if v > -0.5)
                    + "\n")


def _main_job(work):
    """``olearn compare`` as the README runs it (no plot, one order: the same kernels)."""
    from olearn.cli import main
    return main(["compare", "--no-plot", "--permutations", "1", "--quiet"])


def _quick_starts(work):
    """The README's library, command-line and River-style quick starts, in small."""
    import numpy as np

    from olearn.cli import main
    from olearn.evaluate import progressive
    from olearn.evaluate.compare import compare
    from olearn.io import load_libsvm
    from olearn.linear import PAClassifier
    from olearn.registry import make
    data = os.path.join(work, "data.svm")
    _libsvm(data)
    X, y = load_libsvm(data)     # (CSR as a LIBSVM set is loaded)
    model = PAClassifier(C=1.0, variant="PA-I")
    model.predict_learn(X, y)
    model.partial_fit(X, y)
    model.predict(X)
    progressive(make("perceptron"), (X, y))
    compare(list(SPARSE_COMPARE), X, np.asarray(y), permutations=1, progress=False)
    for name in ONE_EXAMPLE:
        m = make(name)
        m.predict_one({"free": 1.0})
        m.learn_one({"free": 1.0, "money": 2.0}, "spam")
        m.learn_one({"hi": 1.0}, "ham")
        m.predict_one({"free": 1.0})
        m.predict_learn_one({"hi": 1.0, "x": 0.5}, "ham")
        if hasattr(m, "predict_proba_one"):
            m.predict_proba_one({"free": 1.0})
    # the Dask quick start: each worker scans its shard, then reads it in chunks with
    # the widths agreed (olearn.distributed)
    from olearn.io import read_libsvm
    scan = read_libsvm(data, chunk_size=10_000, n_features=None, zero_based="auto")
    for X_, y_ in (c[:2] for c in read_libsvm(data, chunk_size=10_000,
                                              n_features=scan.n_features,
                                              zero_based=scan.zero_based)):
        make("pa1").partial_fit(X_, y_, classes=np.unique(y))
    model_file = os.path.join(work, "pa.olm")
    return max(main(["train", data, "--algo", "pa1", "--param", "average=true",
                     "--model", model_file]),
               main(["predict", data, "--model", model_file, "--output",
                     os.path.join(work, "pred.txt")]),
               main(["evaluate", data, "--algo", "perceptron"]))


def build(package_dir, generic=False):
    """Compile the kernels into a fresh cache folder and move it into ``package_dir``
    (``<build>/olearn``); returns that folder, or None when nothing was built."""
    from olearn._compiled import CPU_FILE, cache_dir, shipped_dir
    built = Path(cache_dir())
    work = tempfile.mkdtemp(prefix="olearn-ship-")
    here = os.getcwd()
    os.chdir(work)   # (anything a step writes stays in the temporary folder)
    try:
        for step, what in ((_main_job, "the main job (olearn compare)"),
                           (_quick_starts, "the README's quick starts")):
            t0 = time.perf_counter()
            _say(f"compiling the kernels of {what} ...")
            with _silenced():
                code = step(work)
            if code:
                raise RuntimeError(f"{step.__name__} failed (exit code {code})")
            _say(f"  done in {time.perf_counter() - t0:.1f} s")
    finally:
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)
    (built / CPU_FILE).write_text("generic\n" if generic else "host\n")
    dest = Path(package_dir) / "_kernels" / Path(shipped_dir()).name
    shutil.rmtree(dest.parent, ignore_errors=True)  # (a stale build folder's too)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(built, dest)
    return dest


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    generic = "--generic" in argv
    args = [a for a in argv if a != "--generic"]
    if len(args) != 1:
        print("usage: python -m olearn.cli._ship PACKAGE_DIR [--generic]",
              file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        dest = build(args[0], generic)
    except BaseException as exc:  # noqa: BLE001 (a wheel without kernels, said why)
        _say(f"not built ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
        return 0
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    _say(f"{size / 1e6:.1f} MB of kernels for {'a generic CPU' if generic else 'this CPU'} "
         f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
