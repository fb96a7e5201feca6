"""olearn serve as an operator runs it (issue 46): a clean stop under load, one process
per data folder, the access log and metrics, versions and rollback, TLS and a config
file.  Each server is a real process on a loopback port."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import olearn  # noqa: E402
from olearn.client import Client, ServerError  # noqa: E402
from serve_support import Server  # noqa: E402

ROWS = [({"a": 1.0, "b": -0.5}, 1), ({"a": -1.0, "c": 2.0}, -1), ({"b": 1.5}, 1),
        ({"c": -0.3, "a": 0.2}, -1)]
PROBE = [{"a": 0.5}, {"b": -1.0, "c": 1.0}, {"a": -2.0, "b": 0.1}]


def scores(client, name):
    return client.predict(name, PROBE, scores=True)


# ------------------------------------------------------------------ a clean stop
def test_sigterm_under_four_writers_saves_a_snapshot_and_loses_nothing(tmp_path):
    srv = Server(tmp_path / "d")
    admin = Client(srv.url, srv.token)
    admin.create("m", "pa1")
    acked, stop = {}, threading.Event()

    def writer(i):
        c = Client(srv.url, srv.token, retries=0, timeout=10)
        for k in range(10 ** 6):
            if stop.is_set():
                return
            rid = f"w{i}-{k}"
            try:
                acked[rid] = c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS],
                                     id=rid)["seq"]
            except Exception:  # noqa: BLE001 (the server stopped: not acknowledged)
                return

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.5)
    began = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    code = srv.proc.wait(30)
    took = time.monotonic() - began
    stop.set()
    for t in threads:
        t.join()
    err = srv.proc.stderr.read()
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    assert code == 0, err
    assert took < 10, took
    last = err.strip().splitlines()[-1]
    assert last.startswith("olearn serve: stopped; 1 model(s) snapshotted (m at seq"), err
    assert "interrupted" not in err and "Traceback" not in err
    assert acked, "no request was acknowledged before the stop"
    seqs = sorted(acked.values())
    assert seqs == list(range(1, len(seqs) + 1)), "an acknowledged seq is missing or twice"
    assert os.path.getsize(tmp_path / "d" / "models" / "m" / "log.wal") == 0

    began = time.monotonic()
    srv.start()
    assert time.monotonic() - began < 1 + 1  # (+1: the interpreter's own start)
    info = admin.info("m")
    assert info["seq"] == info["snapshot_seq"] == max(seqs)
    assert info["rows"] == len(ROWS) * len(seqs)
    assert info["snapshot_age_s"] is not None
    _, text = srv.call("GET", "/metrics", token=srv.token)
    assert b'olearn_replay_records{model="m"} 0' in text
    replay = [line for line in text.decode().splitlines()
              if line.startswith('olearn_replay_seconds{model="m"}')]
    assert float(replay[0].split()[-1]) < 1, replay
    # the model is the offline replay of every acknowledged request
    model = olearn.make("pa1")
    for _ in seqs:
        for x, y in ROWS:
            model.learn_one(x, y)
    from olearn.io.dicts import dicts_to_csr
    expected = model.decision_function(dicts_to_csr(PROBE, model.vocabulary_, grow=False))
    assert scores(admin, "m")["scores"] == expected.tolist()
    srv.stop()


def test_no_snapshot_has_no_age_and_a_second_signal_stops_at_once(tmp_path):
    srv = Server(tmp_path / "d")
    admin = Client(srv.url, srv.token)
    admin.create("m", "pa1")
    assert admin.info("m")["snapshot_age_s"] is None
    _, text = srv.call("GET", "/metrics", token=srv.token)
    assert b"olearn_snapshot_age_seconds{" not in text
    srv.proc.send_signal(signal.SIGINT)
    code = srv.proc.wait(30)
    err = srv.proc.stderr.read()
    assert code == 0 and "0 model(s) snapshotted" in err, err
    srv.proc.stdout.close()
    srv.proc.stderr.close()


def held_request(srv, body):
    """A learn request on a raw socket whose body is sent but for its last byte: in
    flight until :func:`finish` sends it."""
    import socket
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    sock.sendall(f"POST /models/m/learn HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 f"{srv.token}\r\nContent-Type: application/json\r\nContent-Length: "
                 f"{len(body)}\r\n\r\n".encode() + body[:-1])
    return sock


def finish(sock, body):
    sock.sendall(body[-1:])
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        answer += chunk
    sock.close()
    return answer


def test_a_request_in_flight_at_sigterm_finishes_and_is_snapshotted(tmp_path):
    srv = Server(tmp_path / "d", "--grace-seconds", "20")
    Client(srv.url, srv.token).create("m", "pa1")
    body = json.dumps({"rows": [{"x": x, "y": y} for x, y in ROWS]}).encode()
    sock = held_request(srv, body)
    time.sleep(0.3)
    srv.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert srv.proc.poll() is None  # waiting for the request in flight
    answer = finish(sock, body)
    assert answer.startswith(b"HTTP/1.1 200") and b'"seq":1' in answer, answer
    assert srv.proc.wait(10) == 0
    err = srv.proc.stderr.read()
    assert "(m at seq 1)" in err, err
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    srv.start()
    info = Client(srv.url, srv.token).info("m")
    assert (info["seq"], info["snapshot_seq"], info["log_bytes"]) == (1, 1, 0)
    srv.stop()


def test_the_wait_is_bounded_and_a_second_signal_stops_at_once(tmp_path):
    srv = Server(tmp_path / "d", "--grace-seconds", "1")
    c = Client(srv.url, srv.token)
    c.create("m", "pa1")
    c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS])
    body = json.dumps({"rows": [{"x": x, "y": y} for x, y in ROWS]}).encode()
    sock = held_request(srv, body)
    began = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(10) == 0 and time.monotonic() - began < 1 + 2
    err = srv.proc.stderr.read()
    assert "(m at seq 1)" in err and "Traceback" not in err, err
    answer = sock.recv(65536)  # the request cut off by the stop: a one-line 503
    assert answer.startswith(b"HTTP/1.1 503") and b"retry with the same id" in answer, answer
    sock.close()
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    # a second signal: at once, exit 128 + 15; the log keeps what was acknowledged
    srv.options[srv.options.index("1")] = "30"
    srv.start()
    c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS])
    sock = held_request(srv, body)
    srv.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert srv.proc.poll() is None
    began = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.proc.wait(10) == 128 + signal.SIGTERM and time.monotonic() - began < 1
    err = srv.proc.stderr.read()
    assert err.strip().splitlines()[-1].startswith("olearn serve: stopped at once"), err
    sock.close()
    srv.proc.stdout.close()
    srv.proc.stderr.close()
    srv.start()
    info = c.info("m")
    assert (info["seq"], info["snapshot_seq"]) == (2, 1)  # seq 2 from the log
    srv.stop()


# ------------------------------------------------------------------ one process per folder
def test_a_second_server_on_the_same_folder_is_refused(tmp_path):
    srv = Server(tmp_path / "d")
    try:
        Client(srv.url, srv.token).create("m", "pa1")
        proc = subprocess.run([sys.executable, "-m", "olearn", "serve", "--data-dir",
                               str(tmp_path / "d"), "--port", "1"], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 2 and proc.stdout == ""
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "served by another olearn serve" in lines[0], lines
        assert str(srv.proc.pid) in lines[0]
        proc = subprocess.run([sys.executable, "-m", "olearn", "serve", "--data-dir",
                               str(tmp_path / "e"), "--workers", "4"], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 2 and "--workers" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert Client(srv.url, srv.token).models() == ["m"]
    finally:
        srv.stop()


# ------------------------------------------------------------------ access log, metrics
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_every_request_is_in_the_access_log_once(tmp_path, fmt):
    log = tmp_path / "access.log"
    srv = Server(tmp_path / "d", "--access-log", str(log), "--log-format", fmt)
    admin = Client(srv.url, srv.token)
    sent = [("GET", "/healthz", 200, None),  # (the start's own probe)
            ("PUT", "/models/m", 200, 0)]  # (a model's description: its seq)
    admin.create("m", "pa1")
    for k in range(5):
        seq = admin.learn("m", [ROWS[k % 4][0]], [ROWS[k % 4][1]])["seq"]
        sent.append(("POST", "/models/m/learn", 200, seq))
    admin.predict("m", PROBE)
    sent.append(("POST", "/models/m/predict", 200, None))
    for method, path, token, status, seq in (("GET", "/models", None, 401, None),
                                             ("GET", "/models/nope", srv.token, 404, None),
                                             ("GET", "/healthz", None, 200, None),
                                             ("GET", "/models/m?x=%0A%22", srv.token, 200, 5)):
        assert srv.call(method, path, token=token)[0] == status
        sent.append((method, path, status, seq))
    srv.stop()
    lines = log.read_text().splitlines()
    assert len(lines) == len(sent), lines
    tid = "t1"
    for line, (method, path, status, seq) in zip(lines, sent):
        if fmt == "json":
            doc = json.loads(line)
            assert (doc["method"], doc["path"], doc["status"], doc["seq"]) == \
                (method, path, status, seq)
            assert doc["client"].startswith("127.0.0.1:") and doc["bytes"] > 0
            assert doc["token"] == (None if status == 401 or path == "/healthz" else tid)
            assert doc["model"] == ("m" if path.startswith("/models/m") else
                                    "nope" if "nope" in path else None)
        else:
            f = line.split(" ")
            assert len(f) == 10, line
            assert (f[3], f[4], int(f[5])) == (method, path, status), line
            assert f[9] == f"seq={'-' if seq is None else seq}"
            assert f[1].startswith("127.0.0.1:") and f[7].endswith("ms")
        assert srv.token not in line


def test_metrics_parse_with_a_metrics_token_and_public(tmp_path):
    parser = pytest.importorskip("prometheus_client.parser",
                                 reason="prometheus_client (the test extra) parses /metrics")
    srv = Server(tmp_path / "d", "--snapshot-seconds", "0.1")
    admin = Client(srv.url, srv.token)
    admin.create("m", "pa1")
    admin.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS])
    code, token = srv.cli("token", "add", "--scope", "metrics")
    token = token.strip()
    assert code == 0 and token.startswith("olt_")
    assert srv.call("GET", "/metrics")[0] == 401
    assert srv.call("GET", "/models", token=token)[0] == 403
    assert srv.call("POST", "/models/m/predict", {"X": PROBE}, token=token)[0] == 403
    time.sleep(0.6)  # a snapshot
    status, text = srv.call("GET", "/metrics", token=token)
    assert status == 200
    families = {f.name: f for f in parser.text_string_to_metric_families(text.decode())}
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for f in families.values() for s in f.samples}
    assert samples[("olearn_snapshots_total", ())] >= 1
    assert samples[("olearn_snapshot_failures_total", ())] == 0
    assert samples[("olearn_refused_total", (("reason", "unauthenticated"),))] == 1
    assert samples[("olearn_refused_total", (("reason", "forbidden"),))] == 2
    assert samples[("olearn_replay_records", (("model", "m"),))] == 0
    assert ("olearn_snapshot_age_seconds", (("model", "m"),)) in samples
    srv.stop()
    srv.options.append("--metrics-public")
    srv.start()
    status, text = srv.call("GET", "/metrics")
    assert status == 200
    list(parser.text_string_to_metric_families(text.decode()))
    assert srv.call("GET", "/models")[0] == 401
    srv.stop()


# ------------------------------------------------------------------ versions, rollback
def local_scores(path):
    from olearn.io.dicts import dicts_to_csr
    model = olearn.load(path)
    return model.decision_function(dicts_to_csr(PROBE, model.vocabulary_,
                                                grow=False)).tolist()


def test_rollback_replace_and_restore_predict_as_the_files(tmp_path):
    srv = Server(tmp_path / "d", "--keep-versions", "3", "--snapshot-seconds", "3600")
    c = Client(srv.url, srv.token)
    c.create("m", "pa1", C=0.5)
    for k in range(6):  # versions 1..6, 3 kept
        c.learn("m", [ROWS[k % 4][0], ROWS[(k + 1) % 4][0]], [ROWS[k % 4][1], ROWS[(k + 1) % 4][1]])
        assert c.snapshot("m")["version"] == k + 1
    listed = c.versions("m")
    assert listed["current"] == 6 and [v["version"] for v in listed["versions"]] == [4, 5, 6]
    with pytest.raises(ServerError) as e:
        c.version_file("m", 1)
    assert e.value.status == 404 and "kept: 4, 5, 6" in e.value.message
    v4 = tmp_path / "v4.olm"
    v4.write_bytes(c.version_file("m", 4))
    before = scores(c, "m")["scores"]
    assert before != local_scores(v4)
    info = c.rollback("m", 4)
    assert info["version"] == 7 and c.versions("m")["versions"][-1]["rollback_of"] == 4
    assert scores(c, "m")["scores"] == local_scores(v4)
    # a restart (the rollback is in meta.json) and a kill -9 keep it
    srv.kill9()
    srv.start()
    assert scores(c, "m")["scores"] == local_scores(v4)
    for bad, status in (({"version": 99}, 404), ({"version": "4"}, 400), ([], 400)):
        assert srv.call("POST", "/models/m/rollback", bad, token=srv.token)[0] == status
    # a predict token reads versions, not their files, and rolls nothing back
    code, tok = srv.cli("token", "add", "--scope", "learn")
    assert srv.call("GET", "/models/m/versions", token=tok.strip())[0] == 200
    assert srv.call("GET", "/models/m/versions/4/file", token=tok.strip())[0] == 403
    assert srv.call("POST", "/models/m/rollback", {"version": 4}, token=tok.strip())[0] == 403

    # replace: a new model in place; the old one restorable
    c.learn("m", [ROWS[0][0]], [ROWS[0][1]])
    old = tmp_path / "old.olm"
    old.write_bytes(c.download("m"))
    with pytest.raises(ServerError) as e:
        c.create("m", "pa1")
    assert e.value.status == 409
    c.create("m", "pa1", replace=True, C=2.0)
    assert c.info("m")["seq"] == 0 and c.info("m")["params"] == {"C": 2.0}
    c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS])
    fresh = olearn.make("pa1", C=2.0)
    for x, y in ROWS:
        fresh.learn_one(x, y)
    fresh.save(tmp_path / "fresh.olm")
    assert scores(c, "m")["scores"] == local_scores(tmp_path / "fresh.olm")
    # delete the replacement, restore the one before it (the newest deleted is first)
    c.delete("m")
    assert c.models() == []
    assert c.restore("m")["params"] == {"C": 2.0}
    c.delete("m")
    trash = sorted(os.listdir(tmp_path / "d" / "trash"))
    assert len(trash) == 2
    os.replace(tmp_path / "d" / "trash" / trash[-1], tmp_path / "kept-aside")
    info = c.restore("m")
    assert info["params"] == {"C": 0.5}
    assert scores(c, "m")["scores"] == local_scores(old)
    with pytest.raises(ServerError) as e:
        c.restore("m")
    assert e.value.status == 409
    with pytest.raises(ServerError) as e:
        c.restore("other")
    assert e.value.status == 404
    srv.stop()


def test_the_trash_is_emptied_after_keep_deleted(tmp_path):
    srv = Server(tmp_path / "d", "--keep-deleted", "0.5")
    c = Client(srv.url, srv.token)
    c.create("m", "pa1")
    c.delete("m")
    assert len(os.listdir(tmp_path / "d" / "trash")) == 1
    srv.stop()
    time.sleep(0.6)
    srv.start()  # (a start purges; so does the running server, every 10 s)
    assert os.listdir(tmp_path / "d" / "trash") == []
    with pytest.raises(ServerError):
        c.restore("m")
    srv.stop()


# ------------------------------------------------------------------ TLS, a config file
def self_signed(folder):
    """A certificate for 127.0.0.1 and its key, made here: with the cryptography package
    when installed, else the openssl command; None when neither is there."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        import datetime
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
        import ipaddress
        k = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
        now = datetime.datetime.now(datetime.timezone.utc)
        c = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
             .public_key(k.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.SubjectAlternativeName(
                 [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
             .sign(k, hashes.SHA256()))
        cert.write_bytes(c.public_bytes(serialization.Encoding.PEM))
        key.write_bytes(k.private_bytes(serialization.Encoding.PEM,
                                        serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption()))
        return cert, key
    except ImportError:
        pass
    import shutil
    if shutil.which("openssl") is None:
        return None
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


def start_process(argv, url, ctx=None, timeout=120):
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "olearn", "serve", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    token = proc.stdout.readline().split()[-1]
    deadline = time.monotonic() + timeout
    while True:
        assert proc.poll() is None, proc.stderr.read()
        try:
            with urllib.request.urlopen(url + "/healthz", context=ctx, timeout=5) as r:
                if r.status == 200:
                    return proc, token
        except OSError:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.05)


def stop_process(proc):
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(30)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    return code, err


def test_tls_with_a_self_signed_certificate(tmp_path):
    import ssl
    from serve_support import free_port
    made = self_signed(tmp_path)
    if made is None:
        pytest.skip("neither the cryptography package nor the openssl command is here "
                    "to make a certificate")
    cert, key = made
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    ctx = ssl.create_default_context(cafile=str(cert))
    proc, token = start_process(["--data-dir", str(tmp_path / "d"), "--port", str(port),
                                 "--ssl-certfile", str(cert), "--ssl-keyfile", str(key)],
                                url, ctx)
    try:
        c = Client(url, token, ssl_context=ctx)
        c.create("m", "pa1")
        assert c.learn("m", [x for x, _ in ROWS], [y for _, y in ROWS])["seq"] == 1
        assert len(c.predict("m", PROBE)) == 3
        # a client that does not trust the certificate gets nothing
        with pytest.raises(ssl.SSLError):
            Client(url, token, retries=0).models()
        # plain http on the https port gets no answer either
        with pytest.raises(Exception):  # noqa: B017 (a reset or a bad status line)
            Client(f"http://127.0.0.1:{port}", token, retries=0).models()
    finally:
        code, err = stop_process(proc)
    assert code == 0 and "on https://" in err, err
    # a key that is not the certificate's: one line, exit 2
    bad = subprocess.run([sys.executable, "-m", "olearn", "serve", "--data-dir",
                          str(tmp_path / "e"), "--ssl-certfile", str(cert), "--ssl-keyfile",
                          str(cert)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_a_config_file_and_the_command_line_over_it(tmp_path):
    from serve_support import free_port
    port, other = free_port(), free_port()
    log = tmp_path / "access.log"
    config = tmp_path / "serve.toml"
    config.write_text(f'data_dir = "{tmp_path / "d"}"\nport = {other}\n'
                      f'metrics_public = true\naccess-log = "{log}"\nlog_format = "json"\n'
                      'keep_versions = 2\n')
    url = f"http://127.0.0.1:{port}"
    proc, token = start_process(["--config", str(config), "--port", str(port)], url)
    try:
        c = Client(url, token)
        c.create("m", "pa1")
        for _ in range(3):
            c.learn("m", [ROWS[0][0]], [ROWS[0][1]])
            c.snapshot("m")
        assert [v["version"] for v in c.versions("m")["versions"]] == [2, 3]
        import urllib.request
        with urllib.request.urlopen(url + "/metrics", timeout=5) as r:  # public
            assert r.status == 200
    finally:
        code, err = stop_process(proc)
    assert code == 0, err
    assert json.loads(log.read_text().splitlines()[-1])["path"] == "/metrics"
    for text, says in (('port = "80"\n', "port must be int"),
                       ("colour = 1\n", "unknown option 'colour'"),
                       ('fsync = "sometimes"\n', "fsync must be one of"),
                       ("port = \n", "not TOML")):
        config.write_text(text)
        bad = subprocess.run([sys.executable, "-m", "olearn", "serve", "--config",
                              str(config)], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and says in bad.stderr, bad.stderr


def test_a_config_file_on_python_310_without_tomli(tmp_path, monkeypatch):
    from olearn.cli import serve as cli_serve
    from olearn.cli._common import CLIError
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    with pytest.raises(CLIError, match="tomllib.*tomli"):
        cli_serve.read_config(tmp_path / "x.toml")


# ------------------------------------------------------------------ rows of the model's shape
def train_server(srv, path, *options):
    env = {**os.environ, "OLEARN_TOKEN": srv.token}
    return subprocess.run([sys.executable, "-m", "olearn", "train", str(path), "--server",
                           srv.url, "--name", "a9a", *options], capture_output=True,
                          text=True, env=env, timeout=600)


def a9a_model_refuses_other_shapes(tmp_path, lines):
    from conftest import data_path
    source = data_path("a9a", "a9a")
    with open(source) as f:
        head = [next(f) for _ in range(lines)] if lines else f.readlines()
    a9a = tmp_path / "a9a.svm"
    a9a.write_text("".join(head))
    srv = Server(tmp_path / "d")
    try:
        proc = train_server(srv, a9a, "--algo", "pa1", "--request-rows", "1000")
        assert proc.returncode == 0, proc.stderr
        assert "progressive zero-one loss" in proc.stderr, proc.stderr
        c = Client(srv.url, srv.token)
        info = c.info("a9a")
        assert info["pipeline"]["format"] == "libsvm" and info["rows"] == len(head)
        # the same file as Vowpal Wabbit text, hashed to 2^18 columns
        vw = tmp_path / "a9a.vw"
        vw.write_text("".join(f"{line.split()[0]} |f " + " ".join(line.split()[1:]) + "\n"
                              for line in head[:50]))
        proc = train_server(srv, vw, "--format", "vw")
        errors = [line for line in proc.stderr.splitlines() if "compiling" not in line]
        assert proc.returncode == 2 and len(errors) == 1, proc.stderr  # (a first use
        # of the VW parser in a cache folder says so)
        assert "HTTP 409" in proc.stderr and "libsvm rows" in proc.stderr \
            and "vw rows hashed to 2^18 columns" in proc.stderr, proc.stderr
        # LIBSVM rows of another width
        proc = train_server(srv, a9a, "--n-features", "300")
        assert proc.returncode == 2 and "HTTP 409" in proc.stderr and "300" in proc.stderr, \
            proc.stderr
        assert c.info("a9a")["rows"] == len(head)  # nothing of either learned
        return srv, c
    except BaseException:
        srv.stop()
        raise


def test_a_libsvm_model_refuses_vw_rows_and_another_width(tmp_path):
    srv, c = a9a_model_refuses_other_shapes(tmp_path, 2000)
    try:
        # a fixed width: list rows of another length and columns beyond it are refused
        c.create("fixed", "pa1")
        c.learn("fixed", [[1.0, 0.0, 2.0]], [1], pipeline={"format": "csv", "width": 3})
        for rows in ([[1.0, 2.0]], [{"1": 1.0, "7": 2.0}]):
            with pytest.raises(ServerError) as e:
                c.learn("fixed", rows, [1])
            assert e.value.status == 409 and "csv rows of 3 columns" in e.value.message
        with pytest.raises(ServerError) as e:
            c.predict("fixed", [[1.0]])
        assert e.value.status == 409
        # the shape is in the log: a kill -9 keeps it
        srv.kill9()
        srv.start()
        assert c.info("fixed")["pipeline"] == {"format": "csv", "width": 3}
        with pytest.raises(ServerError):
            c.learn("fixed", [[1.0, 2.0]], [1])
    finally:
        srv.stop()


@pytest.mark.full
def test_the_whole_a9a_model_refuses_vw_rows_and_another_width(tmp_path):
    srv, _ = a9a_model_refuses_other_shapes(tmp_path, None)
    srv.stop()


def test_a_config_file_under_a_serve_table(tmp_path):
    from olearn.cli import build_parser
    from olearn.cli import serve as cli_serve
    build_parser()  # (the options' defaults)
    path = tmp_path / "c.toml"
    path.write_text('[serve]\ndata-dir = "/srv/x"\nsnapshot_seconds = 5\nmetrics_public = true\n')
    assert cli_serve.read_config(path) == {"data_dir": "/srv/x", "snapshot_seconds": 5.0,
                                           "metrics_public": True}
