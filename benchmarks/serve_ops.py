"""olearn serve as an operator runs it (issue 46's timed targets), in real processes.

    python benchmarks/serve_ops.py [--repeats 5] [--out benchmarks/serve_ops.md]

For each repeat: a server on a fresh data folder, a pa1 model, four writers sending
4-row dict requests with idempotency ids for two seconds, then SIGTERM.  Measured: the
exit code and the seconds from the signal to the exit; whether every acknowledged seq is
present once (1..n, none missing or twice) in the restarted model; the seconds from the
restarted process's start to the first ``/healthz`` answer (the interpreter's own start
included) and, from ``/metrics``, the records replayed and the replay's seconds; and a
second ``olearn serve`` on the same folder while the first runs (its exit code and its
one line).  The yes/no targets (rollback, replace, restore, access log, Prometheus
parsing, rows of another shape) are asserted by tests/test_serve_ops.py.
"""
import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_support import Server, free_port  # noqa: E402

from olearn.client import Client  # noqa: E402

ROWS = [({"a": 1.0, "b": -0.5}, 1), ({"a": -1.0, "c": 2.0}, -1), ({"b": 1.5}, 1),
        ({"c": -0.3, "a": 0.2}, -1)]


def one(folder):
    srv = Server(folder)
    Client(srv.url, srv.token).create("m", "pa1")
    acked, stop = {}, threading.Event()

    def writer(i):
        c = Client(srv.url, srv.token, retries=0, timeout=10)
        k = 0
        while not stop.is_set():
            rid = f"w{i}-{k}"
            k += 1
            try:
                acked[rid] = c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS],
                                     id=rid)["seq"]
            except Exception:  # noqa: BLE001 (the server stopped: not acknowledged)
                return

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(2.0)
    second = subprocess.run([sys.executable, "-m", "olearn", "serve", "--data-dir",
                             str(folder), "--port", str(free_port())], capture_output=True, text=True,
                            timeout=120)
    began = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    code = srv.proc.wait(60)
    took = time.monotonic() - began
    stop.set()
    for t in threads:
        t.join()
    last = srv.proc.stderr.read().strip().splitlines()[-1]
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    seqs = sorted(acked.values())
    began = time.monotonic()
    srv.start()
    healthz = time.monotonic() - began
    info = Client(srv.url, srv.token).info("m")
    _, text = srv.call("GET", "/metrics", token=srv.token)
    metric = {line.split()[0]: float(line.split()[-1]) for line in text.decode().splitlines()
              if line.startswith("olearn_replay")}
    srv.stop()
    whole = seqs == list(range(1, len(seqs) + 1)) and info["seq"] == len(seqs)
    return {"code": code, "exit_s": took, "acked": len(seqs), "whole": whole,
            "healthz_s": healthz, "replayed": metric.get('olearn_replay_records{model="m"}'),
            "replay_s": metric.get('olearn_replay_seconds{model="m"}'), "last": last,
            "second": (second.returncode, second.stderr.strip())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            runs.append(one(Path(tmp) / f"d{r}"))
            print(runs[-1], file=sys.stderr)
    med = {k: statistics.median(r[k] for r in runs) for k in ("exit_s", "healthz_s")}
    lines = [
        "# olearn serve for operators: a clean stop and a restart (issue 46)", "",
        "`python benchmarks/serve_ops.py --repeats %d` (pa1, four writers of 4-row dict "
        "requests for 2 s, then SIGTERM; a real server process on loopback)." % len(runs),
        "", "| run | exit code | signal to exit (s) | acknowledged requests | all present "
        "once | start to /healthz (s) | records replayed | replay (s) |",
        "|---|---|---|---|---|---|---|---|"]
    for k, r in enumerate(runs, 1):
        lines.append(f"| {k} | {r['code']} | {r['exit_s']:.2f} | {r['acked']:,} | "
                     f"{'yes' if r['whole'] else 'NO'} | {r['healthz_s']:.2f} | "
                     f"{r['replayed']:.0f} | {r['replay_s']:.4f} |")
    lines += ["", f"Median signal to exit {med['exit_s']:.2f} s (target: exit 0 within 10 s); "
              f"median start to `/healthz` {med['healthz_s']:.2f} s including the "
              "interpreter's start and imports (target: within 1 s with an empty replay; "
              "the replay itself is the last column).", "",
              f"The stop's last line: `{runs[-1]['last']}`", "",
              f"A second `olearn serve` on the same folder: exit {runs[-1]['second'][0]}, "
              f"`{runs[-1]['second'][1]}`", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
