"""Defaults that generalise (issue 32, item 4): held-out accuracy after training.

``heldout``: the README's train-then-predict flow on a9a (train on ``a9a``, predict
``a9a.t``) through the command line, with and without averaged weights, beside the
majority class and scikit-learn's ``PassiveAggressiveClassifier()`` and ``Perceptron()``
with their defaults (``fit``: up to 1000 epochs, shuffled, stopping on ``tol``; five
seeds, as their default ``random_state=None`` draws one); then every olearn binary
classifier that has an ``average`` parameter, one pass in file order, last weights
against averaged weights: the progressive mistake rate and the test accuracy.

``multiclass``: native multiclass learners (last and averaged weights) and olearn's
one-vs-rest against scikit-learn's one-vs-rest ``PassiveAggressiveClassifier`` on news20
and sector, rows L2-normalised: progressive mistake rate and test accuracy.

Usage (repository root)::

    OLEARN_DATA_MIRROR=/work/shared/data python benchmarks/defaults.py [--only heldout]

Writes benchmarks/defaults.md.  Figures are accuracies (deterministic: no timing), so the
load of a shared machine does not change them.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("OLEARN_DATA_MIRROR", os.path.join(HERE, "..", "..", "shared", "data"))


def _a9a():
    from olearn.io import load_libsvm
    X, y = load_libsvm(os.path.join(DATA, "a9a", "a9a"), n_features=123)
    Xt, yt = load_libsvm(os.path.join(DATA, "a9a", "a9a.t"), n_features=123)
    return X, y, Xt, yt


def _cli_flow(params, workdir):
    """README flow: olearn train a9a ... --model m.olm; olearn predict a9a.t --model m.olm;
    the test accuracy of the predictions."""
    model = os.path.join(workdir, "m.olm")
    out = os.path.join(workdir, "p.txt")
    train = os.path.join(DATA, "a9a", "a9a")
    test = os.path.join(DATA, "a9a", "a9a.t")
    cmd = [sys.executable, "-m", "olearn", "train", train, "--algo", "pa1", "--quiet",
           "--model", model] + [a for p in params for a in ("--param", p)]
    subprocess.run(cmd, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "olearn", "predict", test, "--model", model,
                    "--output", out], check=True, capture_output=True)
    pred = np.loadtxt(out)
    yt = _a9a()[3]
    return float((pred == yt).mean())


def heldout():
    import olearn
    from sklearn.linear_model import PassiveAggressiveClassifier, Perceptron
    X, y, Xt, yt = _a9a()
    lines = ["## Held-out accuracy on a9a (train a9a, 32,561 rows; test a9a.t, 16,281 rows)",
             ""]
    majority = max((yt == -1).mean(), (yt == 1).mean())
    rows = [("majority class (always -1)", majority)]
    with tempfile.TemporaryDirectory() as tmp:
        rows.append(("`olearn train a9a --algo pa1 --param C=0.5` + `predict a9a.t` "
                     "(last weights)", _cli_flow(["C=0.5"], tmp)))
        rows.append(("the same with `--param average=true` (README flow)",
                     _cli_flow(["C=0.5", "average=true"], tmp)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls in (PassiveAggressiveClassifier, Perceptron):
            accs = [float((cls(random_state=s).fit(X, y).predict(Xt) == yt).mean())
                    for s in range(5)]
            rows.append((f"scikit-learn `{cls.__name__}()`.fit, seeds 0-4: mean "
                         f"(min-max {min(accs):.4f}-{max(accs):.4f})", float(np.mean(accs))))
    lines += ["| flow | test accuracy |", "|---|---:|"]
    lines += [f"| {name} | {acc:.4f} |" for name, acc in rows]
    lines += ["", "Every olearn binary classifier with an `average` parameter, its defaults "
              "otherwise, one pass in file order (`predict_learn` then `predict`):", "",
              "| learner | progressive mistake rate, last / averaged | test accuracy, "
              "last / averaged |", "|---|---:|---:|"]
    for name in olearn.available("classifier"):
        model = olearn.make(name)
        if "average" not in model.get_params():
            continue
        cells = []
        for avg in (False, True):
            m = olearn.make(name, average=avg)
            p = m.predict_learn(X, y)
            cells.append((float((p != y).mean()), float((m.predict(Xt) == yt).mean())))
        lines.append(f"| {name} | {cells[0][0]:.4f} / {cells[1][0]:.4f} | "
                     f"{cells[0][1]:.4f} / {cells[1][1]:.4f} |")
        print(lines[-1], flush=True)
    return lines


def _multiclass_data(name):
    """(X, y, Xt, yt): rows L2-normalised; sector: its own train and test files; news20
    (one file): a seeded 75/25 split of a shuffled order."""
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize
    from olearn.io import load_libsvm
    if name == "sector":
        X, y = load_libsvm(os.path.join(DATA, "sector", "sector.scale.bz2"))
        Xt, yt = load_libsvm(os.path.join(DATA, "sector", "sector.t.scale.bz2"))
        d = max(X.shape[1], Xt.shape[1])
        X, Xt = (sp.csr_matrix((M.data, M.indices, M.indptr), shape=(M.shape[0], d))
                 for M in (X, Xt))
    else:
        X, y = load_libsvm(os.path.join(DATA, "news20", "news20.converted.bz2"))
        order = np.random.default_rng(0).permutation(len(y))
        cut = len(y) * 3 // 4
        X, y, Xt, yt = X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]
    return normalize(X), y, normalize(Xt), yt


def multiclass():
    import olearn
    from olearn.multiclass import OneVsRest
    from sklearn.linear_model import PassiveAggressiveClassifier
    lines = ["## Multiclass: native learners and one-vs-rest against scikit-learn's "
             "one-vs-rest", "",
             "Rows L2-normalised.  sector: sector.scale (6,412 rows) then sector.t.scale "
             "(3,207 rows), 105 classes; news20: news20.converted shuffled (seed 0), the "
             "first 75% (11,951 rows) learned, the rest tested, 20 classes.  Progressive: "
             "one pass over the training rows in that order (scikit-learn: "
             "`partial_fit` in batches of 100, each predicted first).  Test: olearn after "
             "that one pass; scikit-learn `PassiveAggressiveClassifier().fit` (one-vs-rest "
             "for several classes; up to 1000 epochs, `tol`; seed 0).", ""]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("news20", "sector"):
            X, y, Xt, yt = _multiclass_data(name)
            classes = np.unique(np.concatenate([y, yt]))
            lines += [f"### {name}", "", "| learner | progressive mistake rate | test "
                      "accuracy |", "|---|---:|---:|"]
            models = [("olearn pa1 (native, max-score)", olearn.make("pa1")),
                      ("olearn pa1 average=True", olearn.make("pa1", average=True)),
                      ("olearn OneVsRest(pa1)", OneVsRest(olearn.make("pa1"))),
                      ("olearn OneVsRest(pa1 average=True)",
                       OneVsRest(olearn.make("pa1", average=True))),
                      ("olearn arow", olearn.make("arow")),
                      ("olearn scw", olearn.make("scw"))]
            for label, model in models:
                p = model.predict_learn(X, y)
                lines.append(f"| {label} | {(p != y).mean():.4f} | "
                             f"{(model.predict(Xt) == yt).mean():.4f} |")
                print(lines[-1], flush=True)
            for algo in ("pa1", "arow", "scw"):
                model = olearn.make(algo, epochs=5).fit(X, y)
                lines.append(f"| olearn {algo} `fit`, epochs=5 (shuffled, seed 0) | - | "
                             f"{(model.predict(Xt) == yt).mean():.4f} |")
                print(lines[-1], flush=True)
            sk = PassiveAggressiveClassifier(random_state=0)
            mistakes = 0
            for i in range(0, len(y), 100):
                if i:
                    mistakes += int((sk.predict(X[i:i + 100]) != y[i:i + 100]).sum())
                else:
                    mistakes += len(y[:100])        # nothing learned yet: all wrong
                sk.partial_fit(X[i:i + 100], y[i:i + 100], classes=classes)
            test = PassiveAggressiveClassifier(random_state=0).fit(X, y)
            lines.append(f"| scikit-learn PassiveAggressiveClassifier() (one-vs-rest; fit: "
                         f"{test.n_iter_} epochs) | {mistakes / len(y):.4f} | "
                         f"{(test.predict(Xt) == yt).mean():.4f} |")
            print(lines[-1], flush=True)
            lines.append("")
    return lines


SECTIONS = {"heldout": heldout, "multiclass": multiclass}


def _kept_sections(path, rerun):
    """The sections of an existing defaults.md that this run does not redo."""
    if not os.path.exists(path):
        return []
    text = open(path).read()
    titles = {"heldout": "## Held-out accuracy", "multiclass": "## Multiclass"}
    blocks = ["## " + b for b in text.split("\n## ")[1:]]
    return [b.rstrip() + "\n" for b in blocks
            if not any(b.startswith(titles[r]) for r in rerun)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(SECTIONS))
    args = ap.parse_args()
    out = ["# Defaults that generalise (issue 32)", "",
           "Produced by `python benchmarks/defaults.py` (accuracies: no timing).", ""]
    for name in args.only.split(","):
        part = SECTIONS[name]()
        print("\n".join(part), flush=True)
        out += part + [""]
    path = os.path.join(HERE, "defaults.md")
    kept = _kept_sections(path, args.only.split(","))
    with open(path, "w") as f:
        f.write("\n".join(out + kept))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
