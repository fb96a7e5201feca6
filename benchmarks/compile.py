"""Where first-use compile time goes: per learner, in a fresh process with an EMPTY
kernel cache, the compiled functions (numba compile events of olearn's functions, the
entry points and every function they pull in that is compiled on its own) and the
seconds of each first use, one after the other:

* ``dense``: the first ``partial_fit`` on a dense float64 array (binary labels);
* ``csr``: then the first ``partial_fit`` on a CSR matrix of the same rows;
* ``one``: then the first ``learn_one`` of a dict (``predict_one`` included).

Then the same three in a second fresh process on the cache the first left (``cached``:
loading, no compiling), and the first ``learn_one`` alone in a third fresh process on
that cache (what a River user waits for).

    python benchmarks/compile.py                       # the default set below
    python benchmarks/compile.py --algos pa1,arow      # some learners

It prints a markdown table; benchmarks/compile.md keeps the figures measured with it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: `olearn compare`'s default classifiers and the README's one-example learners
DEFAULT = ("perceptron", "pa1", "ogd", "adagrad", "ndag", "cocob", "arow", "scw", "ftrl",
           "nogd", "auto")

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from numba.core import event
count = {"n": 0}
class L(event.Listener):
    def on_start(self, ev):
        f = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
        if (getattr(f, "__module__", "") or "").startswith("olearn"):
            count["n"] += 1
    def on_end(self, ev):
        pass
event.register("numba:compile", L())
import numpy as np, scipy.sparse as sp
import olearn
imported = time.perf_counter() - t0
name, stages = sys.argv[1], sys.argv[2].split(",")
rng = np.random.default_rng(0)
X = rng.standard_normal((20, 6)); y = np.array([0, 1] * 10)
m = olearn.make(name)
out = {"import": imported}
for stage in stages:
    n0, t = count["n"], time.perf_counter()
    if stage == "dense":
        m.partial_fit(X, y, classes=[0, 1])
    elif stage == "csr":
        m.partial_fit(sp.csr_matrix(X), y, classes=[0, 1])
    elif stage == "one":
        one = olearn.make(name)  # (a model of dicts: a vocabulary of its own)
        one.predict_one({"a": 1.0, "b": 2.0})
        one.learn_one({"a": 1.0, "b": 2.0}, 1)
        one.learn_one({"a": -1.0, "c": 0.5}, 0)
    out[stage] = (time.perf_counter() - t, count["n"] - n0)
print(json.dumps(out))
"""


def _child(name, stages, cache, checkout):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(checkout))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, name, ",".join(stages)],
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{name}: {done.stderr.strip().splitlines()[-1]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall"] = wall
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algos", default=",".join(DEFAULT))
    ap.add_argument("--checkout", default=str(REPO))
    args = ap.parse_args()
    rows = ["| learner | dense s (compiled) | csr s (compiled) | learn_one s (compiled) "
            "| cached: dense / csr / one s | first learn_one alone, cached: s (process s) |",
            "|---|---:|---:|---:|---:|---:|"]
    totals = [0.0, 0.0, 0.0]
    for name in args.algos.split(","):
        cache = Path(tempfile.mkdtemp(prefix="olearn-compile-"))
        try:
            load = os.getloadavg()[0]
            cold = _child(name, ["dense", "csr", "one"], cache, args.checkout)
            warm = _child(name, ["dense", "csr", "one"], cache, args.checkout)
            alone = _child(name, ["one"], cache, args.checkout)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        for i, stage in enumerate(("dense", "csr", "one")):
            totals[i] += cold[stage][0]
        rows.append(f"| {name} | {cold['dense'][0]:.2f} ({cold['dense'][1]}) "
                    f"| {cold['csr'][0]:.2f} ({cold['csr'][1]}) "
                    f"| {cold['one'][0]:.2f} ({cold['one'][1]}) "
                    f"| {warm['dense'][0]:.2f} / {warm['csr'][0]:.2f} / {warm['one'][0]:.2f} "
                    f"| {alone['one'][0]:.3f} ({alone['wall']:.2f}) |")
        print(rows[-1] + f"  <!-- load {load:.1f} -->", file=sys.stderr, flush=True)
    rows.append(f"| total | {totals[0]:.1f} | {totals[1]:.1f} | {totals[2]:.1f} | | |")
    print(f"\n{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
