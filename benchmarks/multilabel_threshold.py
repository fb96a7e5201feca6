"""The calibrated cut of the reductions beside their fixed one (issue 42 item 3): the
progressive figures of ``ml-br`` and ``ml-cc`` with ``threshold="fixed"`` (the default),
``"calibrated"`` (one cut, the best progressive example-based F1) and ``"scut"`` (a cut
a label, its best progressive F1; Yang 2001), on Yeast, Scene, Music and Enron
(``$OLEARN_DATA_MIRROR/multilabel/``), the same protocol and metrics as
``benchmarks/multilabel.py`` (test-then-train, file order, one pass of ``predict_learn``),
written to ``benchmarks/multilabel_threshold.md``.

    python benchmarks/multilabel_threshold.py [--sets Yeast,Scene] [--chain-rows 500]
        [--out benchmarks/multilabel_threshold.md]
"""
import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import olearn  # noqa: E402
from olearn.io import read_arff  # noqa: E402

from _peers import load_avg, machine  # noqa: E402
from multilabel import SETS, metrics, run_olearn  # noqa: E402

MODES = ("fixed", "calibrated", "scut")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="Yeast,Scene,Music,Enron")
    ap.add_argument("--chain-rows", type=int, default=500,
                    help="rows for ml-cc, whose predict_learn goes row by row")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    root = Path(os.environ.get("OLEARN_DATA_MIRROR", ROOT.parent / "shared" / "data"))
    table = ["| set | rows | model | threshold | Hamming | ex. F1 | micro F1 | macro F1 | "
             "subset acc. | seconds |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name in args.sets.split(","):
        X, Y, _ = read_arff(root / "multilabel" / SETS[name])
        for algo in ("ml-br", "ml-cc"):
            rows = min(X.shape[0], args.chain_rows) if algo == "ml-cc" else X.shape[0]
            for mode in MODES:
                P, secs = run_olearn(olearn.make(algo, threshold=mode), X[:rows], Y[:rows])
                m = metrics(Y[:rows], P)
                table.append(f"| {name} | {rows} | {algo} | {mode} | {m['hamming']:.4f} | "
                             f"{m['ex_f1']:.4f} | {m['micro_f1']:.4f} | "
                             f"{m['macro_f1']:.4f} | {m['subset']:.4f} | {secs:.3f} |")
                print(table[-1], flush=True)
    text = "\n".join([f"machine: {machine()}; load {load_avg()}", ""] + table) + "\n"
    if args.out:
        marker = "<!-- results: written by benchmarks/multilabel_threshold.py -->"
        out = Path(args.out)
        old = out.read_text() if out.exists() else ""
        notes = old.split(marker)[0] if marker in old else old
        out.write_text(f"{notes}{marker}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
