"""Vowpal Wabbit's command line against vw itself (issue 44 item 4): results in
benchmarks/vw_flags.md.

1. a9a: ``olearn train -d a9a.vw -f m.olm`` then ``olearn predict -t -d a9a.t.vw -i m.olm
   -p p.txt -r r.txt``, test accuracy, against vw (pyvw, ``vowpalwabbit``) with the same
   flags (and with ``--loss_function logistic``); the vw files are made here from the
   LIBSVM files of the data folder (``|f`` namespace, numbered features).
2. SMS spam, raw text, one pass: the progressive mistake rate of ``olearn train -d
   sms.vw`` (default learner) against vw's defaults with ``--binary`` (0/1 loss reported;
   the learning is the same), tokens split on blanks with ``:`` and ``|`` made blanks.

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/bench_vw_flags.py
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np


def libsvm_to_vw(src, dst):
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            t = line.split()
            if t:
                g.write(f"{1 if float(t[0]) > 0 else -1} |f {' '.join(t[1:])}\n")


def sms_to_vw(src, dst):
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
        for line in f:
            label, _, text = line.rstrip("\n").partition("\t")
            words = re.sub(r"[:|]", " ", text).split()
            g.write(f"{1 if label == 'spam' else -1} |w {' '.join(words)}\n")


def olearn(*argv):
    r = subprocess.run([sys.executable, "-m", "olearn", *map(str, argv)],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(r.stderr)
    return r.stderr


def vw(args):
    import vowpalwabbit
    w = vowpalwabbit.Workspace(args)
    w.finish()


def labels(path):
    return np.array([float(line.split()[0]) for line in open(path)])


def main():
    root = os.environ.get("OLEARN_DATA_MIRROR", "../shared/data")
    out = tempfile.mkdtemp(prefix="vwflags-")
    a, t = os.path.join(out, "a9a.vw"), os.path.join(out, "a9a.t.vw")
    libsvm_to_vw(os.path.join(root, "a9a", "a9a"), a)
    libsvm_to_vw(os.path.join(root, "a9a", "a9a.t"), t)
    y = labels(t)
    m, p, r = (os.path.join(out, n) for n in ("m.olm", "p.txt", "r.txt"))
    olearn("train", "-d", a, "-f", m)
    olearn("predict", "-t", "-d", t, "-i", m, "-p", p, "-r", r)
    acc = np.mean(labels(p) == y)
    print(f"a9a test accuracy, olearn (no flags: ndag, logistic): {acc:.4f}")
    for flags in ("", "--loss_function logistic"):
        vm = os.path.join(out, "vw.model")
        vw(f"--quiet -d {a} -f {vm} {flags}")
        vw(f"--quiet -t -d {t} -i {vm} -p {p} -r {r}")
        print(f"a9a test accuracy, vw {flags or '(no flags)'}: "
              f"{np.mean(np.where(labels(p) > 0, 1, -1) == y):.4f}")
        olearn("train", "-d", a, "-f", m, *flags.split())
        olearn("predict", "-t", "-d", t, "-i", m, "-p", p)
        pred = labels(p)
        pred = np.where(pred > 0, 1, -1)
        print(f"a9a test accuracy, olearn {flags or '(no flags)'}: {np.mean(pred == y):.4f}")
    s = os.path.join(out, "sms.vw")
    sms_to_vw(os.path.join(root, "sms_spam", "SMSSpamCollection"), s)
    err = olearn("train", "-d", s)
    rate = float(re.search(r"mistake rate = ([0-9.]+)", err).group(1))
    print(f"SMS spam progressive mistakes, olearn (no flags: ndag): {rate:.4f}")
    import vowpalwabbit
    w = vowpalwabbit.Workspace("--quiet --binary")
    mistakes = 0
    n = 0
    for line in open(s, encoding="utf-8"):
        pred = w.predict(line)
        mistakes += (1 if pred > 0 else -1) != float(line.split()[0])
        n += 1
        w.learn(line)
    w.finish()
    print(f"SMS spam progressive mistakes, vw --binary: {mistakes / n:.4f} ({n} rows)")


if __name__ == "__main__":
    main()
