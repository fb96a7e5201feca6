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
   as VW text, against Vowpal Wabbit on the VW file, end to end;
4. the same on a9a repeated to about 1,000,000 rows;
5. peak memory of ``olearn train -`` over 5,000,000 rows piped through standard input.
``--only a9a`` / ``--only memory`` runs one of sections 4-5 alone and splices it into
``io.md``, leaving the others as they are; ``--only csv`` likewise the dense-text
reader table of section 1 (``olearn.io.load_csv`` against ``numpy.loadtxt`` and
pandas).

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
    return lines + csv_readers()


def csv_readers(n=200_000, d=20):
    """``olearn.io.load_csv`` against ``numpy.loadtxt`` (exact, as ``float()``) and
    pandas' ``read_csv`` on a seeded file of ``n`` rows of ``d`` features and a label,
    values written with 17 digits."""
    from olearn.io import load_csv
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    with tempfile.TemporaryDirectory(dir=os.environ.get("OLEARN_BENCH_DIR")) as scratch:
        path = Path(scratch) / "dense.csv"
        np.savetxt(path, np.column_stack([X, X[:, 0] > 0]), delimiter=",", fmt="%.17g",
                   header=",".join([f"f{j}" for j in range(d)] + ["label"]), comments="")
        size = path.stat().st_size / 1e6
        load_csv(path)  # compile (or load) the parser first
        t_ol, (Xo, yo) = best(lambda: load_csv(path))
        t_np, both = best(lambda: np.loadtxt(path, delimiter=",", skiprows=1), 1)
        rows = [("numpy.loadtxt", t_np, np.array_equal(both[:, :d], Xo))]
        try:
            import pandas as pd
            t_pd, frame = best(lambda: pd.read_csv(path))
            rows.append(("pandas.read_csv", t_pd,
                         np.array_equal(frame.to_numpy()[:, :d], Xo)))
        except ImportError:
            pass
    lines = ["", f"## Dense text: olearn.io.load_csv ({n:,} rows, {d} features and a label, "
             f"17 digits, {size:.0f} MB)", "",
             "Same process, best of 3 (numpy.loadtxt: 1 run).  *Identical*: the feature "
             "matrix bit for bit equal to olearn's (olearn's numbers are exactly Python's "
             "`float()`).", "",
             "| reader | s | olearn x | identical |", "|---|---:|---:|---|",
             f"| olearn.io.load_csv | {t_ol:.3f} | 1.0x | - |"]
    for name, t, same in rows:
        lines.append(f"| {name} | {t:.3f} | {t / t_ol:.1f}x | {'yes' if same else 'no'} |")
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


def write_stream(scratch, n):
    """The seeded sparse stream as a LIBSVM file (0-based) in ``scratch``."""
    from sklearn.datasets import dump_svmlight_file

    from olearn.datasets import make_sparse_stream
    X, y = make_sparse_stream(n_samples=n, n_features=2**18, nnz=40, flip=0.05,
                              random_state=0)
    svm = scratch / "stream.svm"
    dump_svmlight_file(X, y.astype(int), str(svm), zero_based=True)
    return svm


def memory(scratch, copies=25, n=200_000):
    """Peak resident memory of ``olearn train -`` over ``copies`` x ``n`` rows of the
    seeded stream piped through standard input."""
    import shutil
    svm = write_stream(scratch, n)
    cmd = [sys.executable, "-m", "olearn", "train", "-", "--algo", "pa1",
           "--n-features", str(2**18), "--zero-based", "yes", "--quiet"]
    # a small process runs olearn and reports its peak: a child forked from this large
    # one would count this one's pages in its own peak until it executes olearn
    watch = ("import resource, subprocess, sys\nrc = subprocess.call(sys.argv[1:])\n"
             "print('peak-kb', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.exit(rc)\n")
    proc = subprocess.Popen([sys.executable, "-c", watch, *cmd], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(copies):
        with open(svm, "rb") as f:
            shutil.copyfileobj(f, proc.stdin, 1 << 20)
    proc.stdin.close()
    out = proc.stdout.read().decode()
    if proc.wait() != 0:
        raise RuntimeError(proc.stderr.read().decode()[-500:])
    peak = int(re.search(r"peak-kb (\d+)", out).group(1)) / 1024   # KB -> MB
    rows = re.search(r"rows = ([\d,]+)", out).group(1)
    return ["", "## Peak memory while streaming 5,000,000 rows (issue 12 target: under 300 MB)",
            "", f"{copies} copies of the seeded stream ({n:,} rows, "
            f"{svm.stat().st_size / 1e6:.0f} MB each) piped into `olearn train - --algo pa1 "
            f"--n-features {2**18} --zero-based yes`: {rows} rows learned, peak resident memory "
            f"{peak:.0f} MB ({'met' if peak < 300 else 'missed'}).  "
            "`python benchmarks/bench_io.py --only memory`, run alone."]


def as_vw(libsvm_text):
    """LIBSVM lines as VW text, ``label | index:value ...`` (numeric names: VW's columns
    are the indices)."""
    return b"".join(label + b" | " + rest for label, _, rest in
                    (line.partition(b" ") for line in libsvm_text.splitlines(keepends=True)))


def versus_vw(svm, vw_file, vw_options):
    """``(command, mistakes, best wall)`` of ``olearn train`` on the LIBSVM and the VW
    file (pa1) and of vw on the VW file, in that order."""
    rows = []
    for name, cmd in (
            (f"olearn train {svm.name} --algo pa1", olearn_cmd(svm, "--algo", "pa1")),
            (f"olearn train {vw_file.name} --algo pa1 -b 18",
             olearn_cmd(vw_file, "--algo", "pa1", "-b", "18")),
            (f"vw -d {vw_file.name} {vw_options}", vw_cmd(vw_file, vw_options))):
        if name.startswith("olearn"):
            wall(cmd, 1)  # compile or load the kernels first
        t, out = wall(cmd)
        m = mistakes_of(out) if name.startswith("olearn") else int(out.split()[0])
        rows.append((name, m, t))
    return rows


def stream(scratch, n):
    svm = write_stream(scratch, n)
    vw_file = scratch / "stream.vw"
    vw_file.write_bytes(as_vw(svm.read_bytes()))
    size = svm.stat().st_size / 1e6
    rows = versus_vw(svm, vw_file, "-b 18 --binary --loss_function hinge --noconstant")
    vw_t = rows[-1][2]
    lines = ["", f"## `olearn train` against Vowpal Wabbit on the seeded sparse stream "
                 f"(issue 12 target: 1.5x faster)", "",
             f"`make_sparse_stream(n_samples={n:,}, n_features=2**18, nnz=40, flip=0.05, "
             f"random_state=0)` written as LIBSVM (0-based, {size:.0f} MB) and as VW text "
             "(`label | index:value ...`, numeric names: VW's columns are the indices).  "
             "Wall: best of 3 whole commands in fresh processes.", "",
             "| command | mistakes | wall s | VW wall / this | target 1.5x |",
             "|---|---:|---:|---:|---|"]
    return lines + end_to_end(rows, vw_t)


def end_to_end(rows, vw_t):
    """Table rows ``| command | mistakes | wall | ratio | verdict |`` against VW's wall."""
    out = []
    for name, m, t in rows:
        verdict = "-" if name.startswith("vw") else ("met" if vw_t / t >= 1.5 else "missed")
        out.append(f"| `{name}` | {m:,} | {t:.2f} | {vw_t / t:.2f}x | {verdict} |")
    return out


def a9a_repeated(scratch, target=1_000_000):
    """a9a's rows repeated in order to about ``target`` rows, LIBSVM and VW text."""
    src = DATA / "a9a" / "a9a"
    if not src.exists():
        return ["", f"a9a section skipped: {src} not found."]
    text = src.read_bytes()
    copies = -(-target // text.count(b"\n"))   # ceil
    svm, vw_file = scratch / "a9a_1m.svm", scratch / "a9a_1m.vw"
    with open(svm, "wb") as f:
        for _ in range(copies):
            f.write(text)
    vw_text = as_vw(text)
    with open(vw_file, "wb") as g:
        for _ in range(copies):
            g.write(vw_text)
    base = text.count(b"\n")
    n = copies * base
    rows = versus_vw(svm, vw_file, "-b 18 --binary --loss_function hinge")
    return (["", "## `olearn train` against Vowpal Wabbit on a9a repeated to 1,000,000 rows "
                 "(issue 12 target: 1.5x faster)", "",
             f"`a9a/a9a` ({base:,} rows, 14 non-zeros a row) written {copies} "
             f"times in order: {n:,} rows, {svm.stat().st_size / 1e6:.0f} MB as LIBSVM, "
             f"{vw_file.stat().st_size / 1e6:.0f} MB as VW text (`label | index:value ...`).  "
             "Wall: best of 3 whole commands in fresh processes (olearn's kernels cached).  "
             "Both sides learn with an intercept (olearn's PA default; VW's constant).", "",
             "| command | mistakes | wall s | VW wall / this | target 1.5x |",
             "|---|---:|---:|---:|---|"] + end_to_end(rows, rows[-1][2]))


def splice(section):
    """Put ``section`` (lines starting with a blank line and a ``## `` title) into io.md
    in place of the section with the same title, or before the closing machine line."""
    path = HERE / "io.md"
    old = path.read_text().split("\n")
    title = section[1]
    if title in old:
        start = old.index(title) - 1
        end = next((i for i in range(start + 2, len(old))
                    if old[i].startswith("## ") or old[i].startswith("Machine:")), len(old))
        end -= 1 if old[end - 1] == "" else 0
        new = old[:start] + section + old[end:]
    else:
        at = next(i for i in range(len(old)) if old[i].startswith("Machine:")) - 1
        new = old[:at] + section + old[at:]
    path.write_text("\n".join(new))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--skip", default="", help="comma-separated: readers,sms,stream,a9a,"
                        "memory")
    parser.add_argument("--only", choices=["a9a", "memory", "csv"], help="run this "
                        "section alone, spliced into io.md")
    args = parser.parse_args()
    if args.only == "csv":
        section = csv_readers()
        splice(section)
        print("\n".join(section))
        return
    if args.only:
        with tempfile.TemporaryDirectory(dir=os.environ.get("OLEARN_BENCH_DIR")) as scratch:
            section = (a9a_repeated if args.only == "a9a" else memory)(Path(scratch))
        if args.only == "a9a":
            section[3] += (f"  Run alone (`python benchmarks/bench_io.py --only a9a`), load "
                           f"average {os.getloadavg()[0]:.1f} at the end.")
        splice(section)
        print("\n".join(section))
        return
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
        if have_vw and "a9a" not in skip:
            lines += a9a_repeated(Path(scratch))
        if "memory" not in skip:
            lines += memory(Path(scratch))
    lines += ["", f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} "
                  f"cores, load average {os.getloadavg()[0]:.1f} at the end (a shared "
                  "machine: timings are noisy)."]
    (HERE / "io.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
