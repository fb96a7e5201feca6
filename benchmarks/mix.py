"""Benchmark of ``olearn.mix`` (issue 28, item 5): the time to mix 2 and 8 models of
2^20 weights, against a plain numpy mean of their weight arrays.

Members: each learns 2,000 random sparse rows (20 non-zeros of 2^20 columns, values
N(0, 1), labels the sign of a fixed random linear model), its own seed, so that every
member's lazy state is real (PA-I: the weights; OGD with an L2 term: a scale ``s`` to
fold; averaged OGD: the scale and the averaging sums; FTRL: sums to add; AROW,
diagonal: the mean and the variances, Jubatus's minimum).  The baseline is
``np.mean(np.stack([W_1, .., W_M]), axis=0)`` over the members' ``coef_`` arrays (the
number of floats a weight mean must read and write, no model built).  ``olearn.mix``
does more: it copies the members (they stay unchanged), makes each lazy state
explicit, mixes every slot (``U``, ``A``, AdaGrad or FTRL sums as well as ``W``) and
returns a model that predicts, learns and saves.

Times are the best of 5 (wall clock and CPU of this process) after one warm-up call;
the ratio is olearn's best CPU time over numpy's.

    python benchmarks/mix.py            # writes benchmarks/mix.md
    python benchmarks/mix.py --out -    # prints only
"""
import argparse
import datetime
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _peers import machine, timed  # noqa: E402

import olearn  # noqa: E402

D = 2 ** 20
ROWS, NNZ = 2000, 20
LEARNERS = [("pa1", {}), ("ogd", {"alpha": 1e-4}), ("ogd", {"alpha": 1e-4, "average": True}),
            ("ftrl", {}), ("arow", {"covariance": "diag"})]


def stream(seed):
    rng = np.random.default_rng(seed)
    cols = rng.integers(0, D, size=(ROWS, NNZ))
    X = sp.csr_matrix((rng.normal(size=ROWS * NNZ), cols.ravel(),
                       np.arange(0, ROWS * NNZ + 1, NNZ)), shape=(ROWS, D))
    X.sum_duplicates()
    truth = np.random.default_rng(0).normal(size=D)
    return X, np.where(X @ truth > 0, 1, -1)


def members(name, kw, m):
    out = []
    for seed in range(m):
        X, y = stream(seed + 1)
        out.append(olearn.make(name, **kw).partial_fit(X, y))
    return out


def label(name, kw):
    return name + "".join(f" {k}={v}" for k, v in kw.items())


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(HERE / "mix.md"))
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    rows = []
    for name, kw in LEARNERS:
        models = members(name, kw, 8)
        for m in (2, 8):
            group = models[:m]
            olearn.mix(group)  # warm-up (imports)
            ours = timed(lambda: olearn.mix(group), args.repeats)
            Ws = [g.coef_ for g in group]
            base = timed(lambda: np.mean(np.stack(Ws), axis=0), args.repeats)
            mixed = ours["result"]
            ok = np.isfinite(mixed.coef_).all() and mixed.t_ == m * ROWS
            rows.append((label(name, kw), m, ours, base, ok))
            print(rows[-1][:2], f"{ours['cpu']:.4f} s vs {base['cpu']:.4f} s", flush=True)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# olearn.mix: mixing models of 2^20 weights",
        "",
        f"Run {when}, `python benchmarks/mix.py`; {machine()}.",
        "",
        f"Each member learned {ROWS:,} random sparse rows ({NNZ} non-zeros of 2^20 "
        "columns), its own seed.  numpy: `np.mean(np.stack(coefs), axis=0)` over the "
        "members' `coef_` (the weights alone, no model).  olearn: `olearn.mix(models)`, "
        "members copied and unchanged, every slot mixed, a model that learns on.  Best "
        f"of {args.repeats}; ratio = olearn CPU / numpy CPU.",
        "",
        "The ratio is what a mix does beyond one mean of the weights: a copy of every "
        "member (two 2^20 arrays each for averaged OGD, FTRL's z and sqrt(n), AROW's "
        "mean and variances), the lazy state made explicit (the scale folded, the "
        "averages formed), every slot mixed by its rule, and a new model.  This machine "
        "is shared (2 cores, other jobs running): CPU times are the steadier figures.",
        "",
        "| learner | models | olearn.mix wall (s) | olearn.mix CPU (s) | numpy mean wall (s) "
        "| numpy mean CPU (s) | ratio | mixed model finite, t_ summed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m, ours, base, ok in rows:
        lines.append(f"| {name} | {m} | {ours['wall']:.4f} | {ours['cpu']:.4f} | "
                     f"{base['wall']:.4f} | {base['cpu']:.4f} | "
                     f"{ours['cpu'] / max(base['cpu'], 1e-9):.1f} | {ok} |")
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        print(text)


if __name__ == "__main__":
    main()
