"""olearn serve: durability, load and hostile input (issue 30's targets).

    OLEARN_DATA_MIRROR=../shared/data python benchmarks/serve.py [--cycles 50] [--seconds 5]

1. kill -9: ``--cycles`` cycles of tests/test_serve_durability.py's ``kill9_cycles``
   (8 writers, kill -9 at a random moment, restart, every acknowledged request present
   once, probe scores equal to an offline replay in seq order).
2. learn: requests of 1,000 a9a rows (dicts ``{column: value}``, bodies encoded before
   timing), 4 concurrent connections, ``--fsync always``; beside it the same rows by
   ``learn_one`` in-process and through the store without HTTP.
3. predict: single-row requests from 16 concurrent keep-alive connections for
   ``--seconds``; beside it ``predict_one`` in-process and Starlette's empty route on the
   same uvicorn.
4. 1,000 hostile requests: no 5xx, the server alive, the models unchanged.

The clients are asyncio raw-socket loops (one process, little CPU).  This machine has 2
cores shared by the client, the server and whatever else runs: the figures are
loopback figures under that sharing.  Prints markdown (written to benchmarks/serve.md
by hand).
"""
import argparse
import asyncio
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_support import Server, free_port  # noqa: E402


def a9a_rows(n):
    from olearn.io import load_libsvm
    data = Path(os.environ.get("OLEARN_DATA_MIRROR") or ROOT.parent / "shared" / "data")
    X, y = load_libsvm(data / "a9a" / "a9a", n_features=123)
    X = X[:n].tocsr()
    rows = [{str(j): v for j, v in zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                                      X.data[X.indptr[i]:X.indptr[i + 1]].tolist())}
            for i in range(X.shape[0])]
    return rows, np.where(np.asarray(y[:n]) > 0, 1, -1).tolist()


def http_request(method, path, token, body=b""):
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}"
            f"\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode() + body


async def _one(reader, writer, request):
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    body = await reader.readexactly(length)
    return int(head[9:12]), body


async def _load(port, requests, connections, seconds=None, rate=None):
    """Each connection sends requests (cycling) until the list is used up or ``seconds``
    pass, back to back, or with ``rate`` (requests/s over all connections) at fixed
    intervals, latency then counted from the planned send time (queueing included);
    returns (latencies, statuses, wall)."""
    latencies, statuses, queue = [], {}, iter(requests)
    deadline = None if seconds is None else time.perf_counter() + seconds

    async def worker(k):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        step = None if rate is None else connections / rate
        planned = time.perf_counter() + (0 if step is None else step * k / connections)
        while True:
            if deadline is not None and time.perf_counter() > deadline:
                break
            req = next(queue, None)
            if req is None:
                break
            if step is not None:
                await asyncio.sleep(max(0.0, planned - time.perf_counter()))
                t0, planned = planned, planned + step
            else:
                t0 = time.perf_counter()
            status, _ = await _one(reader, writer, req)
            latencies.append(time.perf_counter() - t0)
            statuses[status] = statuses.get(status, 0) + 1
        writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(connections)))
    return latencies, statuses, time.perf_counter() - t0


def load(port, requests, connections, seconds=None, rate=None):
    return asyncio.run(_load(port, requests, connections, seconds, rate))


def pct(values, q):
    return float(np.percentile(np.asarray(values) * 1e3, q))


REPEATS = 3  # load windows, each reported with the load average (other work shares the cores)


def cycle_forever(items):
    while True:
        yield from items


# ------------------------------------------------------------------ 1. kill -9
def bench_kill9(cycles):
    from test_serve_durability import kill9_cycles
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        stats = kill9_cycles(folder, cycles, seed=11)
        stats["wall_s"] = time.perf_counter() - t0
    return stats


# ------------------------------------------------------------------ 2. learn
def bench_learn(srv, rows, y, n_requests):
    import olearn
    from olearn.client import Client
    c = Client(srv.url, srv.token)
    c.create("a9a", "pa1")
    bodies = [json.dumps({"rows": [{"x": x, "y": label} for x, label in
                                   zip(rows[i:i + 1000], y[i:i + 1000])]}).encode()
              for i in range(0, len(rows) - 999, 1000)]
    reqs = [http_request("POST", "/models/a9a/learn", srv.token, b)
            for b in (bodies * (1 + n_requests // len(bodies)))[:n_requests]]
    load(srv.port, reqs[:4], 4)  # warm: compile, first connections
    out = {"windows": []}
    for _ in range(REPEATS):
        lat, statuses, wall = load(srv.port, reqs, 4)
        out["windows"].append({"requests": len(reqs), "statuses": statuses,
                               "rows_s": len(reqs) * 1000 / wall, "p50_ms": pct(lat, 50),
                               "p99_ms": pct(lat, 99), "load": os.getloadavg()[0]})
    m = olearn.make("pa1")
    m.learn_one(rows[0], y[0])
    t0 = time.perf_counter()
    for x, label in zip(rows, y):
        m.learn_one(x, label)
    out["in_process_rows_s"] = len(rows) / (time.perf_counter() - t0)
    from olearn.serve.store import Store
    with tempfile.TemporaryDirectory() as folder:
        store = Store(folder, "always", background=False)
        store.create("a9a", b'{"algo": "pa1"}')
        store.learn("a9a", bodies[0])
        t0 = time.perf_counter()
        for b in bodies:
            store.learn("a9a", b)
        out["store_rows_s"] = len(bodies) * 1000 / (time.perf_counter() - t0)
        store.close()
    return out


# ------------------------------------------------------------------ 3. predict
EMPTY_APP = textwrap.dedent("""
    import sys, uvicorn
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route
    async def empty(request):
        return Response(b"{}", media_type="application/json")
    app = Starlette(routes=[Route("/empty", empty, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
                access_log=False)
""")


def bench_predict(srv, rows, seconds):
    import olearn
    from olearn.io.dicts import dicts_to_csr
    reqs = [http_request("POST", "/models/a9a/predict", srv.token,
                         json.dumps({"rows": [x]}).encode()) for x in rows[:2000]]
    load(srv.port, reqs[:64], 16)
    out = {"served": [], "served_at_2000": []}
    for _ in range(REPEATS):
        for key, rate in (("served", None), ("served_at_2000", 2000)):
            lat, statuses, wall = load(srv.port, cycle_forever(reqs), 16, seconds, rate)
            out[key].append({"req_s": len(lat) / wall, "p50_ms": pct(lat, 50),
                             "p99_ms": pct(lat, 99), "statuses": statuses,
                             "load": os.getloadavg()[0]})
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", EMPTY_APP, str(port)])
    try:
        for _ in range(200):
            try:
                load(port, [http_request("POST", "/empty", "x")], 1)
                break
            except OSError:
                time.sleep(0.05)
        empty = [http_request("POST", "/empty", "x", b'{"rows": [{}]}')]
        lat, statuses, wall = load(port, cycle_forever(empty), 16, seconds)
        out["empty"] = {"req_s": len(lat) / wall, "p50_ms": pct(lat, 50),
                        "p99_ms": pct(lat, 99), "statuses": statuses}
        lat, statuses, wall = load(port, cycle_forever(empty), 16, seconds, rate=2000)
        out["empty_at_2000"] = {"req_s": len(lat) / wall, "p50_ms": pct(lat, 50),
                                "p99_ms": pct(lat, 99), "statuses": statuses}
    finally:
        proc.terminate()
        proc.wait()
    m = olearn.make("pa1")
    for x, label in zip(rows[:5000], [1, -1] * 2500):
        m.learn_one(x, label)
    t0 = time.perf_counter()
    for x in rows[:5000]:
        m.predict_one(x)
    out["in_process_predict_one_us"] = (time.perf_counter() - t0) / 5000 * 1e6
    t0 = time.perf_counter()
    for x in rows[:2000]:
        m.predict(dicts_to_csr([x], m.vocabulary_, grow=False))
    out["in_process_predict_us"] = (time.perf_counter() - t0) / 2000 * 1e6
    return out


# ------------------------------------------------------------------ 4. hostile input
def crafted_models(good):
    """Model files that must be refused: damaged bytes, edited metadata, wrong arrays,
    a pickled object array."""
    rng = random.Random(1)
    z = np.load(io.BytesIO(good), allow_pickle=False)
    arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["__meta__"]))

    def npz(arrs):
        buf = io.BytesIO()
        np.savez(buf, **arrs)
        return buf.getvalue()

    def with_meta(**change):
        return npz({**arrays, "__meta__": np.array(json.dumps({**meta, **change}))})

    out = [b"", b"PK", good[:len(good) // 2], good[::-1], os.urandom(5000)]
    for _ in range(20):
        b = bytearray(good)
        for _ in range(rng.randint(1, 20)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        out.append(bytes(b))
    for cls in ("os.system", "builtins.eval", "olearn.persistence.save", "numpy.ndarray",
                "olearn.linear.pa.Nope", None, 5):
        out.append(with_meta(**{"class": cls}))
    out += [with_meta(format="pickle"), with_meta(format_version=99),
            with_meta(params={"C": "x"}), with_meta(params={"nope": 1}),
            with_meta(fitted={"n_features_in_": -5}), with_meta(fitted=None),
            with_meta(params=None)]
    for name in [k for k in arrays if k != "__meta__"]:
        for bad in (arrays[name][:0], np.zeros((3, 3, 3)), arrays[name].astype(str),
                    np.full(arrays[name].shape, np.nan)):
            out.append(npz({**arrays, name: bad}))
        out.append(npz({k: v for k, v in arrays.items() if k != name}))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("__meta__.npy", b"\x93NUMPY" + os.urandom(100))
    out.append(buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    with zipfile.ZipFile(buf2 := io.BytesIO(), "w") as zf:
        zf.writestr("__meta__.npy", buf.getvalue())
    out.append(buf2.getvalue())
    return out


def hostile_requests(rng, token, good_model, n):
    """``n`` (method, path, body, headers) of fuzzed JSON, huge numbers, deep nesting,
    oversized bodies, crafted uploads and odd paths."""
    valid = {"rows": [{"x": {"1": 1.0, "5": 1.0}, "y": 1}, {"x": {"2": 1.0}, "y": -1}]}
    text = json.dumps(valid)
    crafted = crafted_models(good_model)
    atoms = [None, True, 1, -1, 0.5, "1", "", [], {}, 1e308, -1e308, 10 ** 30, "x" * 300]

    def junk(depth=0):
        k = rng.random()
        if depth > 4 or k < 0.4:
            return rng.choice(atoms)
        if k < 0.7:
            return [junk(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(["rows", "x", "y", "w", "id", "algo", "params", "scores", "q"]):
                junk(depth + 1) for _ in range(rng.randint(0, 4))}

    def mutate(s):
        b = bytearray(s.encode())
        for _ in range(rng.randint(1, 5)):
            op, i = rng.random(), rng.randrange(len(b))
            if op < 0.4:
                b[i] = rng.choice(b'{}[]",:0123456789eE.-+ aN')
            elif op < 0.7:
                del b[i]
            else:
                b[i:i] = rng.choice([b"NaN", b"Infinity", b"1e999", b"-", b"\xff", b"[[[["])
        return bytes(b)

    kinds = ["junk", "mutate", "huge", "deep", "oversize", "upload", "path", "wrongtype"]
    for k in range(n):
        kind = kinds[k % len(kinds)]
        path = rng.choice(["/models/victim/learn", "/models/victim/predict_learn",
                           "/models/victim/predict"])
        method = "POST"
        if kind == "junk":
            body = json.dumps(junk()).encode()
        elif kind == "mutate":
            body = mutate(text)
        elif kind == "huge":
            body = text.replace("1.0", rng.choice(["1e400", "9" * 5000, "-1e309",
                                                   "1" + "0" * 400])).encode()
        elif kind == "deep":
            d = rng.choice([100, 5000, 200_000])
            body = (b'{"rows": ' + b"[" * d + b"]" * d + b"}")
        elif kind == "oversize":
            body = b'{"rows": [' + b'{"x": {"1": 1.0}, "y": 1},' * 80_000 + b"]}"
        elif kind == "upload":
            method, path, body = "PUT", "/models/upload-target/file", rng.choice(crafted)
        elif kind == "path":
            method = rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
            path = rng.choice(["/models/victim/../../etc", "/models/%2e%2e", "/models/" +
                               "a" * 300, "/models/victim/learn/x", "/models/-x",
                               "/models/victim%00", "/metrics/x", "//models"])
            body = text.encode()
        else:
            body = json.dumps(rng.choice([
                {"rows": [{"x": {"1": "a"}, "y": 1}]}, {"rows": [{"x": [1, 2], "y": 1}]},
                {"rows": [{"x": {"1": 1}, "y": {"a": 1}}]}, {"rows": 5},
                {"rows": [{"x": {"1": 1}, "y": 1, "w": -3}]}, {"algo": "pa1"},
                {"rows": [{"x": {"1": 1}, "y": 1}], "id": ["x"]},
                {"rows": [[1.0, 2.0]], "proba": 1}])).encode()
        yield method, path, body


def bench_hostile(srv, n=1000):
    from olearn.client import Client
    c = Client(srv.url, srv.token)
    rng = random.Random(30)
    c.create("victim", "pa1")
    c.learn("victim", [{"1": 1.0, "3": 1.0}, {"2": 1.0}] * 50, [1, -1] * 50)
    good = c.download("victim")
    c.upload("upload-target", good)
    probe = [{"1": 1.0}, {"2": 1.0, "3": 0.5}, {"9": 1.0}]
    before = {name: (c.info(name)["seq"], c.download(name),
                     c.predict(name, probe, scores=True)) for name in c.models()}
    statuses, accepted = {}, []
    for method, path, body in hostile_requests(rng, srv.token, good, n):
        status, _ = srv.call(method, path, body, token=srv.token)
        statuses[status] = statuses.get(status, 0) + 1
        if status < 300:
            accepted.append((method, path, body[:80]))
    alive = srv.proc.poll() is None and srv.call("GET", "/healthz")[0] == 200
    after = {name: (c.info(name)["seq"], c.download(name),
                     c.predict(name, probe, scores=True)) for name in c.models()}
    # a fuzzed body may still be a valid request (a digit changed): the models it
    # reached may change, by exactly the accepted learns; every other stays as it was
    touched = {path.split("/")[2] for _, path, _ in accepted}
    learns = sum(p.endswith("learn") for _, p, _ in accepted)
    unchanged = all(before[k] == after.get(k) for k in before if k not in touched)
    counted = "victim" not in touched or after["victim"][0] == before["victim"][0] + learns
    return {"requests": n, "statuses": statuses, "alive": alive, "models": sorted(after),
            "untouched_models_unchanged": unchanged, "victim_seq_moved_by_accepted": counted,
            "accepted": accepted, "no_5xx": not any(s >= 500 for s in statuses)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cycles", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--learn-requests", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3, help="load windows of each kind")
    ap.add_argument("--skip", nargs="*", default=[], choices=["kill9", "learn", "predict",
                                                              "hostile"])
    args = ap.parse_args()
    global REPEATS
    REPEATS = args.repeats
    results = {}
    rows, y = a9a_rows(32_000)
    if "kill9" not in args.skip:
        results["kill9"] = bench_kill9(args.cycles)
        print(json.dumps(results["kill9"], default=str), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        srv = Server(folder, "--max-body", "2000000")
        try:
            if "learn" not in args.skip:
                results["learn"] = bench_learn(srv, rows, y, args.learn_requests)
                print(json.dumps(results["learn"]), flush=True)
            if "predict" not in args.skip:
                results["predict"] = bench_predict(srv, rows, args.seconds)
                print(json.dumps(results["predict"]), flush=True)
            if "hostile" not in args.skip:
                results["hostile"] = bench_hostile(srv)
                print(json.dumps(results["hostile"], default=str), flush=True)
        finally:
            srv.stop()
    print(f"\nload average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
