"""River's mini-batch API: ``learn_many`` of a 10,000-row pandas DataFrame (issue 44
item 3's target: at least 20x River's ``learn_many`` of its ``LogisticRegression``).

Two frames of 10,000 rows: the first 10,000 rows of elec2 (6 features, labels 0/1, in
the file's order) and a seeded Gaussian frame of 50 features (labels: the sign of a
random linear score).  Each model first learns the frame once (compiling olearn's
kernels, growing the vocabulary), then ``learn_many(X, y)`` is timed, best of
``REPEATS``, on the warm model; the same for ``predict_many`` and ``predict_proba_many``.
River's ``LogisticRegression`` (and ``LinearRegression`` beside olearn's regressor) run
in the same process on the same frames.  The work differs: River's linear models take
one mean-gradient step per batch, olearn's ``learn_many`` is one update per row (exactly
``learn_one`` of each row); so the table also gives River's ``learn_one`` loop over the
rows, the same work as olearn's.

Run: ``OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/river_many.py``; writes
``benchmarks/river_many.md``.  The machine is shared: compare the ratios, measured in one
process, rather than the absolute times.
"""
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _peers import load_avg, machine  # noqa: E402

import olearn  # noqa: E402
from river import linear_model  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
OUT = HERE / "river_many.md"
REPEATS = 5
N = 10_000
LEARNERS = ("perceptron", "pa1", "ftrl", "arow", "pa1-reg")


def frames():
    elec = pd.read_csv(DATA / "elec2" / "elec.csv", nrows=N)
    y_elec = elec.pop(elec.columns[-1]).astype(int)
    rng = np.random.default_rng(0)
    G = pd.DataFrame(rng.normal(size=(N, 50)), columns=[f"x{j}" for j in range(50)])
    y_g = pd.Series((G.to_numpy() @ rng.normal(size=50) > 0).astype(int))
    return {"elec2 (6 columns)": (elec, y_elec), "Gaussian (50 columns)": (G, y_g)}


def best(call, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return min(times)


def river_model(regress):
    return linear_model.LinearRegression() if regress else linear_model.LogisticRegression()


def main():
    lines = ["# River's mini-batch API: learn_many on a 10,000-row DataFrame", "",
             f"`python benchmarks/river_many.py`; {machine()}, load {load_avg()}; best of "
             f"{REPEATS} calls on a warm model, one process (compare the ratios: the machine "
             "is shared).  Target (issue 44): olearn's `learn_many` at least 20x River's "
             "`learn_many` of its LogisticRegression (ratio = River's time / olearn's).", "",
             "| frame | olearn model | learn_many ms | River learn_many ms | ratio | "
             "River learn_one loop ms | ratio | predict_many ms | River ms | "
             "predict_proba_many ms | River ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for fname, (X, y) in frames().items():
        yb = y.astype(bool)
        rows = X.to_dict("records")
        for name in LEARNERS:
            regress = name.endswith("-reg")
            target = X.iloc[:, 0] if regress else yb
            ours = olearn.make(name)
            ours.learn_many(X, target)
            peer = river_model(regress)
            peer.learn_many(X, target)
            t_ours = best(lambda: ours.learn_many(X, target))
            t_peer = best(lambda: peer.learn_many(X, target))
            loop_peer = river_model(regress)
            pairs = list(zip(rows, target.tolist()))

            def loop():
                for x, t in pairs:
                    loop_peer.learn_one(x, t)
            t_loop = best(loop, 1)
            p_ours = best(lambda: ours.predict_many(X))
            p_peer = best(lambda: peer.predict_many(X))
            if regress:
                pp_ours = pp_peer = "n/a"
            else:
                pp_ours = f"{best(lambda: ours.predict_proba_many(X)) * 1e3:.2f}"
                pp_peer = f"{best(lambda: peer.predict_proba_many(X)) * 1e3:.2f}"
            lines.append(
                f"| {fname} | {name} | {t_ours * 1e3:.2f} | {t_peer * 1e3:.2f} | "
                f"{t_peer / t_ours:.1f}x | {t_loop * 1e3:.0f} | {t_loop / t_ours:.0f}x | "
                f"{p_ours * 1e3:.2f} | {p_peer * 1e3:.2f} | {pp_ours} | {pp_peer} |")
            print(lines[-1], flush=True)
    lines += ["", "River's peer is LinearRegression for pa1-reg, LogisticRegression otherwise. "
              "A ratio under 20x on `learn_many` is a miss of the target."]
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
