"""LIBOL's comparison protocol (without its optimism) on ijcnn1, a9a and w8a, with every
registered binary classifier; writes benchmarks/compare.md.

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_compare.py
    python benchmarks/bench_compare.py --permutations 20 --datasets a9a

For each data set: every learner's parameters are tuned on one random order of the
rows (LIBOL's grids, see ``olearn.evaluate.compare.DEFAULT_GRIDS``), then the mean and
standard deviation over the other orders of the online mistake rate, the number of
updates and the seconds of one pass are reported (and the cumulative mistake rate
along the stream drawn to benchmarks/compare_<name>.png), with each learner's time relative
to the Perceptron's measured in the same process on the same orders.  Data come from
the mirror (OLEARN_DATA_MIRROR, default ../shared/data): ijcnn1 train + test (141,691
rows) and a9a train + test (48,842), as LIBOL reports them; w8a train only (49,749;
the mirror has no w8a.t, LIBOL used 64,700 rows).
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

import olearn  # noqa: E402
from olearn.datasets.registry import load  # noqa: E402
from olearn.evaluate.compare import compare  # noqa: E402

PARTS = {"ijcnn1": "all", "a9a": "all", "w8a": "train"}


def table(res):
    base = res.seconds["perceptron"].mean() if "perceptron" in res.seconds else None
    head = ["learner", "tuned", "mistake rate", "updates", "seconds", "time / Perceptron"]
    out = ["| " + " | ".join(head) + " |", "|---|---|---:|---:|---:|---:|"]
    for r in res.rows():
        ratio = f"{r['seconds_mean'] / base:.2f}" if base else "-"
        out.append(f"| {r['learner']} | {r['params'] or '-'} | "
                   f"{r['score_mean']:.4f} ± {r['score_std']:.4f} | "
                   f"{r['updates_mean']:,.0f} ± {r['updates_std']:,.0f} | "
                   f"{r['seconds_mean']:.3f} ± {r['seconds_std']:.3f} | {ratio} |")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="ijcnn1,a9a,w8a")
    ap.add_argument("--permutations", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "compare.md"))
    args = ap.parse_args(argv)
    mirror = os.environ.get("OLEARN_DATA_MIRROR") or str(ROOT.parent / "shared" / "data")
    learners = olearn.available("classifier")
    command = "OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_compare.py" + \
        (f" --permutations {args.permutations}" if args.permutations != 10 else "") + \
        (f" --datasets {args.datasets}" if args.datasets != "ijcnn1,a9a,w8a" else "")
    sections = []
    for name in args.datasets.split(","):
        part = PARTS.get(name, "train")
        X, y = load(name, part, mirror=mirror, download=False)
        print(f"{name} ({part}): {X.shape[0]} rows, {X.shape[1]} features", flush=True)
        t0 = time.perf_counter()
        res = compare(learners, X, y, permutations=args.permutations,
                      random_state=args.seed, n_jobs=args.n_jobs, progress=True,
                      dataset=name)
        wall = time.perf_counter() - t0
        print(res, flush=True)
        png = Path(args.out).with_name(f"compare_{name}.png")
        res.plot(png)
        pos = float(np.mean(y == np.max(y)))
        sections.append(
            f"## {name} ({'train + test' if part == 'all' else part}: {X.shape[0]:,} rows, "
            f"{X.shape[1]} features, {pos:.1%} positive)\n\n"
            f"Mean ± std over {args.permutations} random orders, tuned on one more order; "
            f"run took {wall / 60:.1f} min. Curves: [{png.name}]({png.name}).\n\n"
            f"{table(res)}\n")
    header = (
        "# LIBOL-protocol comparison of olearn's binary classifiers\n\n"
        f"Reproduce: `{command}`  \n"
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other jobs), "
        f"Python {platform.python_version()}, numba {numba.__version__}, "
        f"{'sequential' if args.n_jobs in (None, 1) else f'{args.n_jobs} workers'}; "
        f"seed {args.seed}.\n\n"
        f"**{args.permutations} evaluation orders per data set, not LIBOL's 20**: 20 orders "
        "of all learners on the three sets take too long on this 2-core machine (tuning "
        "alone costs 9 passes per learner and 81 for the two-parameter ones: CW, SCW-I, "
        "SCW-II).\n\n"
        "Protocol (`olearn.evaluate.compare`): each learner's parameters are picked on a "
        "separate random order of the rows over the grids listed below (the product "
        "when a learner has two), never on the "
        "orders reported; then one online pass per order: mistake rate of the "
        "predictions made before each update, number of updates, seconds of the pass "
        "(kernels compiled beforehand). `time / Perceptron` divides the mean seconds by "
        "the Perceptron's in the same run. Learners: every registered binary classifier "
        f"({', '.join(learners)}), registered defaults for the parameters not tuned.\n")
    grids = "\n".join(f"- {nm}: " + "; ".join(
        f"{p} in {min(v):g}..{max(v):g} ({len(v)} values)" for p, v in g.items())
        for nm, g in res.grids.items() if g)
    untuned = [nm for nm, g in res.grids.items() if not g]
    header += f"\nGrids:\n{grids}\n- not tuned: {', '.join(untuned)}\n"
    out = Path(args.out)
    notes = ""
    if out.exists() and "\n## Notes" in out.read_text():      # hand-written, kept
        notes = "\n## Notes" + out.read_text().split("\n## Notes", 1)[1]
    out.write_text(header + "\n" + "\n".join(sections) + notes)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
