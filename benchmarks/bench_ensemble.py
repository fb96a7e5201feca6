"""Benchmark of the expert-advice ensembles (issue 17).

* ``auto``: ``AutoClassifier`` (no tuning; its 16 members and their values are listed in
  ``olearn/ensemble/auto.py``) under the three combination rules, against the best of
  its members in the same pass (the best tuned learner of that grid, picked with
  hindsight on the same rows) and against the best tuned figure of
  benchmarks/compare.md (10 orders, tuned on another order).  Progressive mistake rate
  of one pass over one random order (seed 0) of ijcnn1 (train + test, 141,691 rows, as
  LIBOL), a9a (train + test), w8a, news20 (20 classes, rows L2-normalised as in
  benchmarks/bench_core.py; ``--sets news20``) and elec2 in its own row order
  (``--limit N`` keeps the first N rows of each shuffled set).  Target: Auto within 3%
  (relative) of the best member.
* ``speed``: N = 20 first-order learners (PA-I C = 2^-4..2^4, AdaGrad eta = 2^-3..2^1,
  OGD eta = 0.5, 1, 2, the Perceptron, NDAG eta = 1, 8) on a LIBSVM file read in
  chunks: one ``ExpertAdvice`` pass (one parse, 20 learning loops) against 20 separate
  passes, each reading the file again.  Target: at least 5x.  CPU seconds
  (``time.process_time``; the box is shared), kernels compiled beforehand.

    python benchmarks/bench_ensemble.py                 # writes benchmarks/ensemble.md
    python benchmarks/bench_ensemble.py --sets a9a --out -
"""
import argparse
import datetime
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _peers  # noqa: E402

import olearn  # noqa: E402
from sklearn.base import clone  # noqa: E402
from olearn.ensemble import AutoClassifier, ExpertAdvice  # noqa: E402
from olearn.ensemble.auto import CLASSIFIERS  # noqa: E402
from olearn.io import load_libsvm, read_libsvm  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
COMPARE_BEST = {"ijcnn1": "scw 0.0595", "a9a": "arow 0.1524", "w8a": "scw 0.0148",
                "elec2": "n/a", "news20": "n/a"}


def load(name):
    if name == "ijcnn1":
        parts = [load_libsvm(DATA / "ijcnn1" / f, n_features=22)
                 for f in ("ijcnn1.trn.bz2", "ijcnn1.tst.bz2")]
        return sp.vstack([p[0] for p in parts]).tocsr(), np.concatenate([p[1] for p in parts])
    if name == "a9a":
        parts = [load_libsvm(DATA / "a9a" / f, n_features=123) for f in ("a9a", "a9a.t")]
        return sp.vstack([p[0] for p in parts]).tocsr(), np.concatenate([p[1] for p in parts])
    if name == "w8a":
        return load_libsvm(DATA / "w8a" / "w8a", n_features=300)
    if name == "elec2":
        a = np.loadtxt(DATA / "elec2" / "elec.csv", delimiter=",", skiprows=1)
        return a[:, :-1], a[:, -1].astype(int)
    if name == "news20":       # 20 classes; rows L2-normalised (as benchmarks/bench_core.py)
        X, y = load_libsvm(DATA / "news20" / "news20.converted.bz2")
        X = sp.csr_matrix(X, dtype=np.float64)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        X.data /= np.repeat(norms, np.diff(X.indptr))
        return X, y.astype(int)
    raise ValueError(name)


def member_names():
    return [f"{n}({', '.join(f'{k}={v:g}' for k, v in p.items())})" if p else n
            for n, p in CLASSIFIERS]


def auto_section(sets, lines, limit=None):
    lines += ["## Auto vs the best member (progressive mistake rate, one pass)", "",
              "| data | rows | Auto follow-the-leader | Auto ewa | Auto hedge | best member "
              "| best member's rate | gap FTL / EWA (relative) | target 3% | "
              "compare.md best tuned | Auto seconds (FTL) |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    names = member_names()
    details = []
    for name in sets:
        try:
            X, y = load(name)
        except (OSError, FileNotFoundError):
            continue
        if name != "elec2":
            order = np.random.default_rng(0).permutation(len(y))
            X, y = X[order], y[order]
        if limit and len(y) > limit:
            X, y = X[:limit], y[:limit]
        rates, members, secs = {}, None, None
        for rule in ("follow-the-leader", "ewa", "hedge"):
            m = AutoClassifier(combine=rule, random_state=0)
            m.predict_learn(X[:50], y[:50])          # compile / load kernels first
            m = AutoClassifier(combine=rule, random_state=0)
            t0 = time.process_time()
            pred = m.predict_learn(X, y)
            if rule == "follow-the-leader":
                secs = time.process_time() - t0
                members = m.cumulative_loss_ / len(y)
            rates[rule] = float(np.mean(pred != y))
        best = int(np.argmin(members))
        gap = [(rates[r] - members[best]) / members[best] for r in ("follow-the-leader", "ewa")]
        met = "met" if min(gap) <= 0.03 else "missed"
        lines.append(f"| {name} | {len(y):,} | {rates['follow-the-leader']:.4f} | "
                     f"{rates['ewa']:.4f} | {rates['hedge']:.4f} | {names[best]} | "
                     f"{members[best]:.4f} | {gap[0]:+.1%} / {gap[1]:+.1%} | {met} | "
                     f"{COMPARE_BEST.get(name, 'n/a')} | {secs:.1f} |")
        print(lines[-1], flush=True)
        details.append(f"- {name}: " + ", ".join(f"{n} {r:.4f}" for n, r in zip(names, members)))
    lines += ["", "Each member's progressive mistake rate in the same pass:", ""] + details
    lines.append("")


SPEED_MEMBERS = ([("pa1", {"C": 2.0 ** k}) for k in range(-4, 5)]
                 + [("adagrad", {"eta": 2.0 ** k}) for k in range(-3, 2)]
                 + [("ogd", {"eta": e}) for e in (0.5, 1.0, 2.0)]
                 + [("perceptron", {})] + [("ndag", {"eta": e}) for e in (1.0, 8.0)])


def speed_section(files, lines):
    lines += ["## One pass of 20 learners vs 20 separate passes (from the file)", "",
              "| file | rows | ensemble (1 parse + 20 loops) | 20 separate passes | "
              "parse only | ratio | target 5x |", "|---|---|---|---|---|---|---|"]
    for label, path, nf in files:
        if not path.exists():
            continue
        members = [olearn.make(n, **p) for n, p in SPEED_MEMBERS]
        X, y = next(iter(read_libsvm(path, chunk_size=200, n_features=nf)))
        ExpertAdvice(members).predict_learn(X, y)      # compile / load first

        def ensemble():
            e = ExpertAdvice(members, combine="ewa")
            n = 0
            for Xc, yc in read_libsvm(path, n_features=nf):
                e.predict_learn(Xc, yc)
                n += len(yc)
            return n

        def separate():
            for m in members:
                m = clone(m)
                for Xc, yc in read_libsvm(path, n_features=nf):
                    m.predict_learn(Xc, yc)

        def parse():
            for _ in read_libsvm(path, n_features=nf):
                pass

        te = _peers.timed(ensemble, 2)
        ts = _peers.timed(separate, 1)
        tp = _peers.timed(parse, 2)
        ratio = ts["cpu"] / te["cpu"]
        lines.append(f"| {label} | {te['result']:,} | {te['cpu']:.2f} s | {ts['cpu']:.2f} s | "
                     f"{tp['cpu']:.2f} s | {ratio:.1f}x | "
                     f"{'met' if ratio >= 5 else 'missed'} |")
        print(lines[-1], flush=True)
    lines.append("")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="ijcnn1,a9a,w8a,elec2,news20")
    ap.add_argument("--only", default="auto,speed")
    ap.add_argument("--out", default=str(HERE / "ensemble.md"))
    ap.add_argument("--limit", type=int, default=None,
                    help="first rows (after the shuffle) of each set only")
    args = ap.parse_args(argv)
    lines = ["# Expert-advice ensembles: Auto without tuning, one pass for N learners", "",
             f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
             f"`python benchmarks/bench_ensemble.py`; {_peers.machine()}.", ""]
    only = args.only.split(",")
    if "auto" in only:
        auto_section(args.sets.split(","), lines, args.limit)
    if "speed" in only:
        speed_section([("a9a", DATA / "a9a" / "a9a", 123),
                       ("ijcnn1.trn.bz2", DATA / "ijcnn1" / "ijcnn1.trn.bz2", 22),
                       ("w8a", DATA / "w8a" / "w8a", 300)], lines)
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
