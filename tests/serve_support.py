"""A real ``olearn serve`` process on a free loopback port, for the serve tests and
benchmarks/serve.py."""
import atexit
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_STARTED = []  # every server process started here, stopped at exit if still running


@atexit.register
def _stop_leftovers():
    """A test that failed before its ``stop()`` leaves no server behind."""
    for proc in _STARTED:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Server:
    """``olearn serve --data-dir DIR`` in its own process; ``token`` is the admin token
    printed on the first start."""

    def __init__(self, data_dir, *options, fsync="always"):
        self.data_dir, self.options, self.fsync = str(data_dir), list(options), fsync
        self.proc, self.token = None, None
        self.port = free_port()  # kept across restarts
        self.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=120):
        argv = [sys.executable, "-m", "olearn", "serve", "--data-dir", self.data_dir,
                "--port", str(self.port), "--fsync", self.fsync, *self.options]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        _STARTED.append(self.proc)
        if self.token is None:
            line = self.proc.stdout.readline()
            assert "admin token" in line, (line, self.proc.stderr.read())
            self.token = line.split()[-1]
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"olearn serve exited: {self.proc.stderr.read()}")
            try:
                status, _ = self.call("GET", "/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("olearn serve did not start")
            time.sleep(0.05)

    def call(self, method, path, body=None, token=None, headers=None):
        """``(status, parsed JSON or bytes)`` of one request on a new connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            h = dict(headers or {})
            if token:
                h["Authorization"] = f"Bearer {token}"
            if isinstance(body, (dict, list)):
                body = json.dumps(body).encode()
            conn.request(method, path, body=body, headers=h)
            r = conn.getresponse()
            data = r.read()
            if r.getheader("Content-Type", "").startswith("application/json"):
                data = json.loads(data)
            return r.status, data
        finally:
            conn.close()

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()

    def cli(self, *argv):
        """``olearn serve ARGV`` on this server's data folder: (exit code, stdout)."""
        proc = subprocess.run([sys.executable, "-m", "olearn", "serve", *argv,
                               "--data-dir", self.data_dir], capture_output=True, text=True,
                              timeout=120, env=os.environ)
        return proc.returncode, proc.stdout
