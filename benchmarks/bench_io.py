"""Issue 12 (fast input).  Writes ``benchmarks/io.md``:

1. readers: ``olearn.io.load_libsvm`` (compiled parser) against scikit-learn's
   ``load_svmlight_file`` on the same files, in one process, checking that both give
   the same matrix and labels;
2. the SMS spam filter from raw text, one pass: ``olearn train SMS --format text``
   against Vowpal Wabbit on the same tokens (``label |text tok tok ...``), progressive
   mistakes and end-to-end wall time of the whole command (Python start-up included
   on both sides: VW runs as ``pyvw.Workspace("-d FILE ...").run_parser()`` in a fresh
   process, the wheel ships no ``vw`` binary);
3. ``olearn train FILE --algo pa1`` on the seeded sparse stream written as LIBSVM and
   as VW text, against Vowpal Wabbit on the VW file, end to end.

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_io.py [--rows N]

Sections 2-3 need the vowpalwabbit package (a benchmark peer only); scratch files go
to ``$OLEARN_BENCH_DIR`` (default: a temporary folder).
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("OLEARN_DATA_MIRROR") or HERE.parent.parent / "shared" / "data")
FILES = ["a9a/a9a", "w8a/w8a", "ijcnn1/ijcnn1.trn.bz2", "news20/news20.converted.bz2"]


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def readers():
    from sklearn.datasets import load_svmlight_file

    from olearn.io import load_libsvm
    load_libsvm(DATA / FILES[0])  # compile (or load) the parser first
    rows = []
    for name in FILES:
        path = DATA / name
        if not path.exists():
            print(f"skipped {name}: not found under {DATA}", file=sys.stderr)
            continue
        t_ol, (X, y) = best(lambda: load_libsvm(path))
        t_sk, (X2, y2) = best(lambda: load_svmlight_file(str(path), n_features=X.shape[1]))
        same = X.shape == X2.shape and (X != X2).nnz == 0 and np.array_equal(y, y2)
        size = path.stat().st_size / 1e6
        rows.append((name, X.shape[0], X.nnz, size, t_ol, t_sk, same))
        print(rows[-1], file=sys.stderr)
    lines = ["# Readers: olearn.io.load_libsvm vs scikit-learn load_svmlight_file", "",
             f"Same process, best of 3, {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores; `python benchmarks/bench_io.py`.  Target (issue 12): "
             "at least 5x faster, identical matrices.", "",
             "| file | rows | non-zeros | MB on disk | olearn s | scikit-learn s | ratio | "
             "identical |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, n, nnz, size, a, b, same in rows:
        lines.append(f"| {name} | {n:,} | {nnz:,} | {size:.1f} | {a:.3f} | {b:.3f} | "
                     f"{b / a:.1f}x | {'yes' if same else 'NO'} |")
    lines += ["", "Compressed files include decompression (bz2), which both readers pay."]
    return lines


# ------------------------------------------------------------------ end to end
WORD = re.compile(rb"[A-Za-z0-9_\x80-\xff]+")  # olearn.io.text's token rule
VW_RUN = ("import sys\nfrom vowpalwabbit import pyvw\n"
          "ws = pyvw.Workspace(sys.argv[1])\nws.run_parser()\n"
          "print(int(round(ws.get_sum_loss())), int(ws.get_weighted_examples()))\n"
          "ws.finish()\n")


def wall(cmd, repeat=3):
    """Best wall time of a command run in a fresh process, and its last stdout."""
    times, out = [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd}: {proc.stderr.strip()[-500:]}")
        out = proc.stdout
    return min(times), out


def olearn_cmd(*args):
    return [sys.executable, "-m", "olearn", "train", *map(str, args), "--quiet"]


def vw_cmd(path, options):
    return [sys.executable, "-c", VW_RUN, f"-d {path} --quiet {options}"]


def mistakes_of(out):
    return int(re.search(r"\(([\d,]+) mistakes\)", out).group(1).replace(",", ""))


def sms(scratch):
    src = DATA / "sms_spam" / "SMSSpamCollection"
    if not src.exists():
        return ["", f"SMS section skipped: {src} not found."]
    vw_file = scratch / "sms.vw"
    with open(vw_file, "wb") as f:  # the same tokens, in VW's format (not timed)
        for line in src.read_bytes().splitlines():
            label, text = line.split(b"\t", 1)
            tokens = b" ".join(t.lower() for t in WORD.findall(text))
            f.write((b"1" if label == b"spam" else b"-1") + b" |text " + tokens + b"\n")
    rows = []
    for algo, extra in (("pa1", []), ("pa1", ["--ngram", "2"]), ("scw", []),
                        ("scw", ["--ngram", "2"]), ("arow", [])):
        cmd = olearn_cmd(src, "--format", "text", "--algo", algo, "-b", "18", *extra)
        wall(cmd, 1)  # compile or load the kernels first
        t, out = wall(cmd)
        rows.append((f"olearn train SMS --format text --algo {algo} -b 18 "
                     + " ".join(extra), mistakes_of(out), t))
    for opts in ("--binary", "--binary --loss_function hinge",
                 "--binary --loss_function logistic"):
        t, out = wall(vw_cmd(vw_file, "-b 18 " + opts))
        rows.append((f"vw -d sms.vw -b 18 {opts}", int(out.split()[0]), t))
    best_vw = min(r[1] for r in rows if r[0].startswith("vw"))
    vw_time = min(r[2] for r in rows if r[0].startswith("vw"))
    lines = ["", "## SMS spam filter from raw text, one pass (issue 12 target)", "",
             "5,574 messages of `sms_spam/SMSSpamCollection`; olearn reads the file as it "
             "is, Vowpal Wabbit reads `label |text tokens` lines made beforehand with the "
             "same tokens (untimed).  Progressive mistakes: each message predicted before "
             "it is learned.  Wall: best of 3 whole commands in fresh processes (kernels "
             "cached).  Target: mistakes no more than Vowpal Wabbit's, and faster.", "",
             "| command | mistakes | error | wall s | vs best VW mistakes | vs fastest VW |",
             "|---|---:|---:|---:|---|---:|"]
    for name, m, t in rows:
        verdict = ("-" if name.startswith("vw") else
                   "met" if m <= best_vw else f"missed (+{m - best_vw})")
        lines.append(f"| `{name.strip()}` | {m} | {m / 5574:.4f} | {t:.2f} | {verdict} | "
                     f"{vw_time / t:.2f}x |")
    return lines


def stream(scratch, n):
    from sklearn.datasets import dump_svmlight_file

    from olearn.datasets import make_sparse_stream
    X, y = make_sparse_stream(n_samples=n, n_features=2**18, nnz=40, flip=0.05,
                              random_state=0)
    svm, vw_file = scratch / "stream.svm", scratch / "stream.vw"
    dump_svmlight_file(X, y.astype(int), str(svm), zero_based=True)
    with open(svm, "rb") as f, open(vw_file, "wb") as g:  # "label | idx:value ..."
        for line in f:
            label, _, rest = line.partition(b" ")
            g.write(label + b" | " + rest)
    size = svm.stat().st_size / 1e6
    rows = []
    for name, cmd in (
            ("olearn train stream.svm --algo pa1", olearn_cmd(svm, "--algo", "pa1")),
            ("olearn train stream.vw --algo pa1 -b 18",
             olearn_cmd(vw_file, "--algo", "pa1", "-b", "18")),
            ("vw -d stream.vw -b 18 --binary --loss_function hinge --noconstant",
             vw_cmd(vw_file, "-b 18 --binary --loss_function hinge --noconstant"))):
        if name.startswith("olearn"):
            wall(cmd, 1)
        t, out = wall(cmd)
        m = mistakes_of(out) if name.startswith("olearn") else int(out.split()[0])
        rows.append((name, m, t))
    vw_t = rows[-1][2]
    lines = ["", f"## `olearn train` against Vowpal Wabbit on the seeded sparse stream "
                 f"(issue 12 target: 1.5x faster)", "",
             f"`make_sparse_stream(n_samples={n:,}, n_features=2**18, nnz=40, flip=0.05, "
             f"random_state=0)` written as LIBSVM (0-based, {size:.0f} MB) and as VW text "
             "(`label | index:value ...`, numeric names: VW's columns are the indices).  "
             "Wall: best of 3 whole commands in fresh processes.", "",
             "| command | mistakes | wall s | VW wall / this | target 1.5x |",
             "|---|---:|---:|---:|---|"]
    for name, m, t in rows:
        verdict = "-" if name.startswith("vw") else ("met" if vw_t / t >= 1.5 else "missed")
        lines.append(f"| `{name}` | {m:,} | {t:.2f} | {vw_t / t:.2f}x | {verdict} |")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--skip", default="", help="comma-separated: readers,sms,stream")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    lines = readers() if "readers" not in skip else []
    try:
        import vowpalwabbit  # noqa: F401
        have_vw = True
    except ImportError:
        have_vw = False
        lines += ["", "End-to-end sections skipped: vowpalwabbit is not installed."]
    scratch_root = os.environ.get("OLEARN_BENCH_DIR")
    with tempfile.TemporaryDirectory(dir=scratch_root) as scratch:
        if have_vw and "sms" not in skip:
            lines += sms(Path(scratch))
        if have_vw and "stream" not in skip:
            lines += stream(Path(scratch), args.rows)
    lines += ["", f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} "
                  f"cores, load average {os.getloadavg()[0]:.1f} at the end (a shared "
                  "machine: timings are noisy)."]
    (HERE / "io.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
