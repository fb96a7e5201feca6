"""Progressive multilabel benchmark: olearn's multilabel learners against River's
``multioutput.ClassifierChain(linear_model.LogisticRegression())`` and scikit-learn's
``OneVsRestClassifier(SGDClassifier(loss="hinge"))`` on Yeast, Scene, Music, Enron and
Imdb (``$OLEARN_DATA_MIRROR/multilabel/``), written to ``benchmarks/multilabel.md``.

Protocol: test-then-train over the file's order, one pass.  olearn: ``predict_learn``
(each row predicted by the model before it, one compiled pass); River: ``predict_one``
then ``learn_one`` per row (dict rows, the {label: bool} targets of every label);
scikit-learn: ``predict`` of a block of ``--block`` rows by the model before the block,
then ``partial_fit`` of the block (the first block's predictions are empty sets;
``OneVsRestClassifier.partial_fit`` binarizes class vectors only, so its label binarizer
is fitted on the indicator before the first block: then it is one SGD per column).
Metrics over every row: Hamming loss, example-based F1 (a row's 2|P & Y| / (|P| + |Y|),
1 where both are empty), micro F1, macro F1 (per label; 1 where a label is neither
relevant nor predicted) and subset accuracy; times are wall seconds of the pass (the
conversion of rows to dicts and olearn's first compile excluded).

    python benchmarks/multilabel.py [--sets Yeast,Scene] [--river-rows 20000]
        [--block 100] [--out benchmarks/multilabel.md]
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import olearn  # noqa: E402
from olearn.io import read_arff  # noqa: E402
from olearn.multilabel import BinaryRelevance  # noqa: E402

from _peers import load_avg, machine, to_dicts  # noqa: E402

SETS = {"Yeast": "Yeast.arff.bz2", "Scene": "Scene.arff.bz2", "Music": "Music.arff",
        "Enron": "Enron.arff.bz2", "Imdb": "Imdb.arff.bz2"}


def metrics(Y, P):
    """Hamming loss, example F1, micro F1, macro F1, subset accuracy."""
    Y, P = np.asarray(Y, dtype=bool), np.asarray(P, dtype=bool)
    tp = (Y & P).sum(axis=1)
    size = Y.sum(axis=1) + P.sum(axis=1)
    ex_f1 = np.where(size == 0, 1.0, 2 * tp / np.maximum(size, 1)).mean()
    TP, FP, FN = (Y & P).sum(), (~Y & P).sum(), (Y & ~P).sum()
    micro = 2 * TP / max(2 * TP + FP + FN, 1)
    tpl, fpl, fnl = (Y & P).sum(0), (~Y & P).sum(0), (Y & ~P).sum(0)
    den = 2 * tpl + fpl + fnl
    macro = np.where(den == 0, 1.0, 2 * tpl / np.maximum(den, 1)).mean()
    return {"hamming": float((Y != P).mean()), "ex_f1": float(ex_f1), "micro_f1": float(micro),
            "macro_f1": float(macro), "subset": float((Y == P).all(axis=1).mean())}


def run_olearn(model, X, Y):
    """(predictions, seconds) of one progressive pass (compiled once on a copy first)."""
    warm = model.clone()
    warm.predict_learn(X[:5], Y[:5])
    t = time.perf_counter()
    P = model.predict_learn(X, Y)
    return P, time.perf_counter() - t


def run_sklearn(X, Y, block):
    from sklearn.linear_model import SGDClassifier
    from sklearn.multiclass import OneVsRestClassifier
    model = OneVsRestClassifier(SGDClassifier(loss="hinge", random_state=0))
    P = np.zeros_like(Y)
    t = time.perf_counter()
    for a in range(0, X.shape[0], block):
        b = min(a + block, X.shape[0])
        if a:
            P[a:b] = model.predict(X[a:b])
        if not a:  # (its partial_fit binarizes class vectors: given the indicator's)
            from sklearn.preprocessing import LabelBinarizer
            try:
                model.partial_fit(X[a:b], Y[a:b], classes=np.arange(Y.shape[1]))
            except ValueError:
                model.label_binarizer_ = LabelBinarizer(sparse_output=True).fit(Y)
        model.partial_fit(X[a:b], Y[a:b])
    return P, time.perf_counter() - t


def run_river(X, Y, rows):
    from river import linear_model, multioutput
    n = min(rows, X.shape[0])
    dicts = to_dicts(X[:n])
    L = Y.shape[1]
    targets = [{j: bool(v) for j, v in enumerate(row)} for row in Y[:n].tolist()]
    model = multioutput.ClassifierChain(linear_model.LogisticRegression(), order=list(range(L)))
    P = np.zeros((n, L), dtype=np.int8)
    t = time.perf_counter()
    for i, (x, y) in enumerate(zip(dicts, targets)):
        p = model.predict_one(x)
        for j in range(L):
            P[i, j] = bool(p.get(j, False))
        model.learn_one(x, y)
    return P, time.perf_counter() - t, n


MARKER = "<!-- results: written by benchmarks/multilabel.py -->"

#: the default multilabel learner (its row is first, marked "default")
DEFAULT = "ml-br"

LEARNERS = {
    "ml-br": lambda: olearn.make("ml-br"),
    "ml-pa1": lambda: olearn.make("ml-pa1"),
    "ml-pa2": lambda: olearn.make("ml-pa2"),
    "ml-perceptron": lambda: olearn.make("ml-perceptron"),
    "ml-arow": lambda: olearn.make("ml-arow"),
    "ml-pa1 pairs=all": lambda: olearn.make("ml-pa1", pairs="all"),
    "ml-perceptron pairs=all": lambda: olearn.make("ml-perceptron", pairs="all"),
    "BR(pa1)": lambda: BinaryRelevance(olearn.make("pa1")),
    "ml-cc": lambda: olearn.make("ml-cc"),
}


def _verdict(name, results):
    """One line: the default learner's metrics and speed against the two peers."""
    own = next(r for r in results if r[0] == DEFAULT)
    prefix = next((r for r in results if r[0].startswith(f"{DEFAULT} (")), own)
    sk = next(r for r in results if r[0].startswith("sklearn"))
    rv = next(r for r in results if r[0].startswith("River"))
    per_row = [r[3] / r[1] for r in (own, sk, rv)]
    ok = all(mine[2]["hamming"] <= p[2]["hamming"] and mine[2]["ex_f1"] >= p[2]["ex_f1"]
             for mine, p in ((own, sk), (prefix, rv)))
    return (f"- {name}: x{per_row[2] / per_row[0]:.0f} River's time a row (River on "
            f"{rv[1]} rows), x{per_row[1] / per_row[0]:.1f} scikit-learn's; "
            f"Hamming {own[2]['hamming']:.4f} vs {sk[2]['hamming']:.4f} (sklearn), "
            f"{rv[2]['hamming']:.4f} (River; {DEFAULT} on its rows "
            f"{prefix[2]['hamming']:.4f}); ex. F1 {own[2]['ex_f1']:.4f} vs "
            f"{sk[2]['ex_f1']:.4f}, {rv[2]['ex_f1']:.4f} ({prefix[2]['ex_f1']:.4f}); "
            f"both: {'yes' if ok else 'no'}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--learners", default=",".join(LEARNERS))
    ap.add_argument("--river-rows", type=int, default=20000)
    ap.add_argument("--block", type=int, default=100)
    ap.add_argument("--chain-rows", type=int, default=500,
                    help="rows for ml-cc, whose predict_learn goes row by row")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    root = Path(os.environ.get("OLEARN_DATA_MIRROR", ROOT.parent / "shared" / "data"))
    lines = [f"machine: {machine()}; load {load_avg()}", ""]
    summary = ["", f"Default learner `{DEFAULT}` against both peers (Hamming <= and ex. F1 >= "
               "both; speed: us/row ratios):", ""]
    table = ["| set | rows | model | Hamming | ex. F1 | micro F1 | macro F1 | subset acc. "
             "| seconds | us/row |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.sets.split(","):
        X, Y, _ = read_arff(root / "multilabel" / SETS[name])
        n = X.shape[0]
        results = []
        for lname in args.learners.split(","):
            rows = min(n, args.chain_rows) if lname == "ml-cc" else n
            P, secs = run_olearn(LEARNERS[lname](), X[:rows], Y[:rows])
            results.append((lname, rows, metrics(Y[:rows], P), secs))
        P, secs = run_sklearn(X, Y, args.block)
        results.append((f"sklearn OvR(SGD hinge), blocks of {args.block}", n,
                        metrics(Y, P), secs))
        P, secs, rows = run_river(X, Y, args.river_rows)
        results.append(("River CC(LogisticRegression)", rows, metrics(Y[:rows], P), secs))
        if rows < n:  # (River on a prefix: the default learner on the same rows too)
            P, own = run_olearn(LEARNERS[DEFAULT](), X[:rows], Y[:rows])
            results.append((f"{DEFAULT} (River's prefix)", rows, metrics(Y[:rows], P), own))
        summary.append(_verdict(name, results))
        for lname, rows, m, secs in results:
            table.append(f"| {name} | {rows} | {lname} | {m['hamming']:.4f} | "
                         f"{m['ex_f1']:.4f} | {m['micro_f1']:.4f} | {m['macro_f1']:.4f} | "
                         f"{m['subset']:.4f} | {secs:.3f} | {1e6 * secs / rows:.1f} |")
            print(table[-1], flush=True)
    wins = sum(line.endswith("both: yes") for line in summary)
    summary.append(f"\nquality target met on {wins} of {len(summary) - 3} sets")
    text = "\n".join(lines + table + summary) + "\n"
    print("\n".join(summary))
    if args.out:  # (the text after the marker line is replaced; the notes above it kept)
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old.split(MARKER)[0] if MARKER in old else old  # (never lose notes)
        out.write_text(f"{notes}{MARKER}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
