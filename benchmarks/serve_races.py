"""The service's races (issue 45 item 6's target), in a real server process.

    python benchmarks/serve_races.py [--requests 5000] [--out benchmarks/serve_races.md]

``--requests`` admin calls (DELETE, PUT, PUT ?replace=true, uploads, restores,
rollbacks, snapshots) on three model names while four learners learn and predict on the
same names (tests/test_serve_races.py's ``race``), with ``--max-model-bytes`` 1 MiB and
``--max-inflight-bytes`` 64 MiB.  Reported: every answer by kind and status, the number
of 5xx (target 0), whether the server lived, every model served again after a kill -9,
and the server's peak resident memory (``VmHWM``) beside the configured limits.  Then,
on the same server, benchmarks/serve.py's 1,000 hostile requests and issue 45's hostile
PUTs (negative, non-numeric and huge parameters, lone surrogates, hostile shapes).
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_support import Server  # noqa: E402
from test_serve_races import race  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from serve import bench_hostile  # noqa: E402

HOSTILE_PUTS = [{"algo": "pa", "params": {"C": -1}}, {"algo": "pa", "params": {"C": "x"}},
                {"algo": "pa1", "params": {"C": True}}, {"algo": "ogd", "params": {"D": 1e9}},
                {"algo": "mlp", "params": {"alpha": 1e308}}, {"algo": "hst",
                                                               "params": {"n_trees": 10**9}},
                {"algo": "mlp", "params": {"hidden_layer_sizes": 10**6}},
                {"algo": "nope"}, {"algo": "pa1", "params": {"C": None}}]
SURROGATE = b'{"rows": [{"x": {"\\udc80": 1.0}, "y": 1}], "id": "\\ud800"}'

from olearn.client import Client  # noqa: E402


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--out")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(Path(tmp) / "d", "--keep-versions", "3", "--max-model-bytes",
                     str(1 << 20), "--max-inflight-bytes", str(64 << 20))
        began = time.perf_counter()
        statuses = race(srv, args.requests, Path(tmp))
        took = time.perf_counter() - began
        alive = srv.proc.poll() is None
        hostile = bench_hostile(srv, 1000)
        import json
        puts = {}
        for k, doc in enumerate(HOSTILE_PUTS):
            status, _ = srv.call("PUT", f"/models/h{k}", json.dumps(doc).encode(),
                                 token=srv.token)
            puts[status] = puts.get(status, 0) + 1
        for target in ("victim", "r0", "r1", "r2"):
            status, _ = srv.call("POST", f"/models/{target}/learn", SURROGATE,
                                 token=srv.token)
            puts[status] = puts.get(status, 0) + 1
        created = [n for n in Client(srv.url, srv.token).models() if n.startswith("h")]
        peak = peak_kib(srv.proc.pid)
        served = Client(srv.url, srv.token).models()
        srv.kill9()
        srv.start()
        c = Client(srv.url, srv.token)
        again = c.models() == served and all(c.info(n)["name"] == n for n in served)
        srv.stop()
    fivexx = sum(v for (k, s), v in statuses.items() if s >= 500 and ":" not in k)
    lines = ["# olearn serve: admin calls racing learners (issue 45)", "",
             f"`python benchmarks/serve_races.py --requests {args.requests}`: "
             f"{args.requests:,} admin calls on 3 names racing 4 learners, {took:.1f} s "
             "(a real server on loopback, `--fsync always`).", "",
             "| call | status | answers |", "|---|---|---|"]
    for (kind, status), n in sorted(statuses.items()):
        lines.append(f"| {kind} | {status} | {n:,} |")
    lines += ["", f"5xx answers: **{fivexx}** (target 0); server alive after the race: "
              f"{'yes' if alive else 'NO'}; every model served again after a kill -9: "
              f"{'yes' if again else 'NO'} ({len(served)} models).", "",
              f"Hostile requests after the race (benchmarks/serve.py's 1,000): statuses "
              f"{dict(sorted(hostile['statuses'].items()))}; 5xx: "
              f"{'none' if hostile['no_5xx'] else 'SOME'}; models not reached by an accepted "
              f"request unchanged: {'yes' if hostile['untouched_models_unchanged'] else 'NO'}"
              f"; alive: {'yes' if hostile['alive'] else 'NO'}.  Issue 45's hostile PUTs "
              f"and lone surrogates ({len(HOSTILE_PUTS)} + 4): statuses {dict(sorted(puts.items()))}"
              f", models created by them: {len(created)}.", "",
              f"Peak server memory (VmHWM): {peak / 1024:.0f} MiB, beside the configured "
              "limits of 1 MiB per learner state (`--max-model-bytes`) and 64 MiB of "
              "bodies held at once (`--max-inflight-bytes`); the rest is the interpreter, "
              "numpy, scipy, numba and the compiled kernels.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
