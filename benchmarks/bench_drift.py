"""Benchmark of the drift detectors (issue 17): detections, delays and false alarms side
by side with River's detectors on the same value streams, and the speed of the compiled
``update_many`` against River's per-value loop (and olearn's own ``update`` loop).

Streams (every detector gets the same values):

* ``river-example``: River's documented ADWIN example (seeded ``random.Random(12345)``:
  1,000 values in {0, 1}, then 1,000 in {4..7}); River documents the change flagged at
  index 1,023 with delta = 0.002;
* ``sea-drift``: the 100,000 points of ``stream_synth/sea_big.csv`` relabelled with the
  SEA concepts (Street and Kim 2001: class 1 iff x1 + x2 <= theta; theta = 8, 9, 7, 9.5
  for the four quarters, 10% label noise, seed 0), so the changes are known (25,000,
  50,000, 75,000); the detectors watch the 0/1 progressive errors of olearn's PA-I;
* ``sea-file``: the file's own labels (no change found in it: one concept, theta = 9,
  about 10% noise throughout; every detection counts as a false alarm);
* ``elec2``: ``elec2/elec.csv`` in its row order, PA-I's progressive errors; changes
  unknown, detections counted;
* ``bernoulli``: 10^5 values, error rate 0.2 / 0.4 / 0.1 / 0.3 switching every 25,000.

A detection is "true" when it is the first at or after a known change and before the
next one; its delay is the distance to the change.  Every other detection is a false
alarm.  Speed: best of 9 (update_many) or 3 (loops) CPU times over the 10^5-value Bernoulli stream.

Reactions (``--only reactions``): on ``sea-drift`` (the labelled stream, changes known)
and ``elec2``, the progressive mistake rate of PA-I alone, PA-I reset on a DDM detection
(``OnDrift``), ``AutoClassifier`` (16 members, follow-the-leader) and the same ensemble
re-weighted on a DDM or ADWIN detection in its own errors (``detector=``), over the whole
stream and over the 2,000 rows after each known change.

    python benchmarks/bench_drift.py            # writes benchmarks/drift.md
    python benchmarks/bench_drift.py --out -    # prints only
    python benchmarks/bench_drift.py --only reactions --out -
"""
import argparse
import datetime
import os
import random
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import _peers  # noqa: E402

import olearn  # noqa: E402
from olearn.drift import ADWIN, DDM, EDDM, PageHinkley  # noqa: E402

DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
BINARY = {"DDM", "EDDM"}


def pairs():
    try:
        from river import drift as rd
        from river.drift import binary as rb
    except ImportError:
        rd = rb = None
    out = [("ADWIN", ADWIN, None if rd is None else rd.ADWIN),
           ("ADWIN(keep_recent=False)", lambda: ADWIN(keep_recent=False),
            None if rd is None else rd.ADWIN),
           ("PageHinkley", PageHinkley, None if rd is None else rd.PageHinkley),
           ("DDM", DDM, None if rb is None else rb.DDM),
           ("EDDM", EDDM, None if rb is None else rb.EDDM)]
    return out


def river_loop(det, xs):
    out = []
    for i, x in enumerate(xs):
        det.update(x)
        if det.drift_detected:
            out.append(i)
    return out


def olearn_loop(det, xs):
    return river_loop(det, xs)  # (update returns None, as River's)


def score(detections, changes, n):
    """(true detections, mean delay, false alarms)."""
    if changes is None:
        return None, None, None
    bounds = list(changes) + [n]
    true, delays = 0, []
    used = set()
    for c, nxt in zip(bounds[:-1], bounds[1:]):
        hit = [d for d in detections if c <= d < nxt]
        if hit:
            true += 1
            delays.append(hit[0] - c)
            used.add(hit[0])
    false = len([d for d in detections if d not in used])
    return true, (float(np.mean(delays)) if delays else None), false


def progressive_errors(X, y):
    pred = olearn.make("pa1").predict_learn(X, y)
    return (pred != y).astype(np.float64)


def labelled_streams():
    """(name, X, y, known changes or None) for the reactions section."""
    out = []
    sea = DATA / "stream_synth" / "sea_big.csv"
    if sea.exists():
        a = np.loadtxt(sea, delimiter=",", skiprows=1)
        X = a[:, :3]
        theta = np.repeat([8.0, 9.0, 7.0, 9.5], len(X) // 4)
        y = (X[:, 0] + X[:, 1] <= theta).astype(int)
        flip = np.random.default_rng(0).random(len(y)) < 0.1
        y[flip] = 1 - y[flip]
        out.append(("sea-drift", X, y, [25_000, 50_000, 75_000]))
    elec = DATA / "elec2" / "elec.csv"
    if elec.exists():
        a = np.loadtxt(elec, delimiter=",", skiprows=1)
        out.append(("elec2", a[:, :-1], a[:, -1].astype(int), None))
    return out


def reactions_section(lines):
    from olearn.drift import OnDrift
    from olearn.ensemble import AutoClassifier
    lines += ["## Reactions: reset a learner, or re-weight an ensemble, on a detection", "",
              "Progressive mistake rate over the whole stream, and (SEA) over the 2,000 "
              "rows after each of the three known changes; detections counted.", "",
              "| stream | model | mistake rate | after the changes | detections |",
              "|---|---|---|---|---|"]
    models = [("PA-I", lambda: olearn.make("pa1")),
              ("PA-I reset on DDM (OnDrift)", lambda: OnDrift(olearn.make("pa1"), DDM())),
              ("Auto (FTL), no detector", lambda: AutoClassifier()),
              ("Auto re-weighted on DDM", lambda: AutoClassifier(detector=DDM())),
              ("Auto re-weighted on ADWIN", lambda: AutoClassifier(detector=ADWIN())),
              ("Auto (EWA), no detector", lambda: AutoClassifier(combine="ewa")),
              ("Auto (EWA) re-weighted on DDM",
               lambda: AutoClassifier(combine="ewa", detector=DDM()))]
    for name, X, y, changes in labelled_streams():
        for label, make in models:
            make().predict_learn(X[:100], y[:100])          # compile / load first
            m = make()
            err = np.concatenate([m.predict_learn(X[i:i + 10_000], y[i:i + 10_000])
                                  != y[i:i + 10_000] for i in range(0, len(y), 10_000)])
            after = "n/a" if not changes else \
                f"{np.mean([err[c:c + 2000].mean() for c in changes]):.4f}"
            drifts = getattr(m, "drifts_", None) if getattr(m, "detector", None) is not None \
                else None
            lines.append(f"| {name} | {label} | {err.mean():.4f} | {after} | "
                         f"{'-' if drifts is None else len(drifts)} |")
            print(lines[-1], flush=True)
    lines.append("")


def streams():
    rng = random.Random(12345)
    ex = rng.choices([0, 1], k=1000) + rng.choices(range(4, 8), k=1000)
    out = [("river-example", np.array(ex, dtype=float), [1000], "values")]
    g = np.random.default_rng(0)
    bern = np.concatenate([(g.random(25_000) < p) for p in (0.2, 0.4, 0.1, 0.3)]).astype(float)
    out.append(("bernoulli", bern, [25_000, 50_000, 75_000], "0/1 values"))
    sea = DATA / "stream_synth" / "sea_big.csv"
    if sea.exists():
        a = np.loadtxt(sea, delimiter=",", skiprows=1)
        X, y_file = a[:, :3], a[:, 3].astype(int)
        s = X[:, 0] + X[:, 1]
        theta = np.repeat([8.0, 9.0, 7.0, 9.5], len(y_file) // 4)
        y = (s <= theta).astype(int)
        flip = np.random.default_rng(0).random(len(y)) < 0.1
        y[flip] = 1 - y[flip]
        out.append(("sea-drift", progressive_errors(X, y), [25_000, 50_000, 75_000],
                    "PA-I errors"))
        out.append(("sea-file", progressive_errors(X, y_file), [], "PA-I errors"))
    elec = DATA / "elec2" / "elec.csv"
    if elec.exists():
        a = np.loadtxt(elec, delimiter=",", skiprows=1)
        out.append(("elec2", progressive_errors(a[:, :-1], a[:, -1].astype(int)), None,
                    "PA-I errors"))
    return out


def fmt(v, digits=0):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "drift.md"))
    ap.add_argument("--only", default="detections,speed,reactions")
    args = ap.parse_args(argv)
    if args.only == "reactions":
        lines = []
        reactions_section(lines)
        text = "\n".join(lines) + "\n"
        print(text) if args.out == "-" else Path(args.out).write_text(text)
        return
    lines = ["# Drift detectors: olearn vs River", "",
             f"Run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
             f"`python benchmarks/bench_drift.py`; {_peers.machine()}.", "",
             "Default parameters on both sides (River's names and values).  olearn's ADWIN "
             "keeps the newer part of its window on a detection (the paper's rule; the "
             "pre-change values left are cut again a few tests later, so several "
             "detections per change) where River clears it (`keep_recent=False` does the "
             "same), and uses the paper's 1/m = 1/n0 + 1/n1 in the cut (River "
             "and MOA shift both by min_window_length); EDDM tracks its maximum from the "
             "first error and tests from the 30th (the paper), River from later; DDM and "
             "Page-Hinkley are the same tests (identical detections expected).", "",
             "## Detections", "",
             "| stream | values | detector | olearn detections | River detections | "
             "olearn true / delay / false | River true / delay / false | same indices |",
             "|---|---|---|---|---|---|---|---|"]
    for name, xs, changes, kind in streams():
        for dname, mine, theirs in pairs():
            if dname in BINARY and kind == "values":
                continue
            got = list(mine().update_many(xs))
            want = None if theirs is None else river_loop(theirs(), xs.tolist())
            s1, s2 = score(got, changes, len(xs)), \
                (score(want, changes, len(xs)) if want is not None else (None,) * 3)
            first = ", ".join(map(str, got[:3])) + (" ..." if len(got) > 3 else "")
            rfirst = "n/a" if want is None else \
                ", ".join(map(str, want[:3])) + (" ..." if len(want) > 3 else "")
            tri = (lambda t: "n/a" if t[0] is None else
                   f"{t[0]} / {fmt(t[1], 0)} / {t[2]}")
            lines.append(f"| {name} | {kind} | {dname} | {len(got)} ({first}) | "
                         f"{'n/a' if want is None else len(want)} ({rfirst}) | {tri(s1)} | "
                         f"{tri(s2)} | {'n/a' if want is None else got == want} |")
            print(lines[-1], flush=True)
    lines += ["", "## Speed: 10^5 values (the Bernoulli stream), best of 9 (olearn update_many) or 3 CPU seconds", "",
              "| detector | olearn update_many | olearn update loop | River loop | "
              "River / update_many | target 10x |", "|---|---|---|---|---|---|"]
    xs = streams()[1][1]
    xl = xs.tolist()
    for dname, mine, theirs in pairs():
        mine().update_many(xs[:100])     # compile (or load) first
        mine().update(0.0)
        t_many = _peers.timed(lambda: mine().update_many(xs), 9)["cpu"]
        t_loop = _peers.timed(lambda: olearn_loop(mine(), xl), 3)["cpu"]
        t_river = None if theirs is None else \
            _peers.timed(lambda: river_loop(theirs(), xl), 3)["cpu"]
        ratio = None if t_river is None else t_river / t_many
        lines.append(f"| {dname} | {t_many * 1e3:.2f} ms | {t_loop * 1e3:.1f} ms | "
                     f"{'n/a' if t_river is None else f'{t_river * 1e3:.1f} ms'} | "
                     f"{'n/a' if ratio is None else f'{ratio:.1f}x'} | "
                     f"{'n/a' if ratio is None else ('met' if ratio >= 10 else 'missed')} |")
        print(lines[-1], flush=True)
    lines.append("")
    if "reactions" in args.only:
        reactions_section(lines)
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
