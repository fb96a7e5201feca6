"""Access tokens: random 32-byte secrets, kept only as SHA-256 hashes.

``tokens.json`` in the data folder lists ``{"id", "hash", "scope", "model",
"created", "revoked"}`` per token.  A token is ``olt_`` + 43 URL-safe characters; the
server hashes what a request presents and compares it with every stored hash in
constant time (``hmac.compare_digest``), and never logs a token.  The file is written
atomically and read again whenever its modification time or size changes, so tokens
added or revoked by ``olearn serve token ...`` take effect in a running server.

Scopes: ``admin`` (every route), ``learn`` (learn, predict_learn, predict and reading
model descriptions), ``predict`` (predict and reading model descriptions), ``metrics``
(``GET /metrics`` alone, for a Prometheus scraper; an admin token reads it too).  A token
restricted to a model reaches only that model's routes and ``GET /models``.
"""
import hashlib
import hmac
import json
import os
import secrets
import threading
import time

SCOPES = ("admin", "learn", "predict", "metrics")
FILE = "tokens.json"


def _hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


class Tokens:
    """The token file of a data folder."""

    def __init__(self, data_dir):
        self.path = os.path.join(os.path.abspath(data_dir), FILE)
        self._lock = threading.Lock()
        self._seen = None
        self._tokens = []

    def _read(self):
        try:
            with open(self.path, "rb") as f:
                return json.loads(f.read())["tokens"]
        except FileNotFoundError:
            return []

    def current(self):
        """The tokens, read again if the file changed."""
        try:
            st = os.stat(self.path)
            seen = (st.st_mtime_ns, st.st_size, st.st_ino)
        except FileNotFoundError:
            seen = None
        if seen != self._seen:
            with self._lock:
                self._tokens, self._seen = self._read(), seen
        return self._tokens

    def check(self, token):
        """The record of a live token, or None (every hash compared, in constant time)."""
        if not token:
            return None
        digest = _hash(token)
        found = None
        for record in self.current():
            if hmac.compare_digest(record["hash"], digest) and not record.get("revoked"):
                found = record
        return found

    # ------------------------------------------------------------ management
    def _write(self, tokens):
        from .store import write_atomic
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        write_atomic(self.path, json.dumps({"tokens": tokens}, indent=1).encode())
        os.chmod(self.path, 0o600)

    def add(self, scope, model=None):
        """A new token (returned once; only its hash is kept)."""
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}, got {scope!r}")
        token = "olt_" + secrets.token_urlsafe(32)
        with self._lock:
            tokens = self._read()
            tid = f"t{1 + max([int(t['id'][1:]) for t in tokens] or [0])}"
            tokens.append({"id": tid, "hash": _hash(token), "scope": scope, "model": model,
                           "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           "revoked": False})
            self._write(tokens)
            self._seen = None
        return tid, token

    def list(self):
        return [{k: t[k] for k in ("id", "scope", "model", "created", "revoked")}
                for t in self._read()]

    def revoke(self, tid):
        with self._lock:
            tokens = self._read()
            hit = [t for t in tokens if t["id"] == tid]
            if not hit:
                raise KeyError(f"no token with id {tid!r} (see 'olearn serve token list')")
            hit[0]["revoked"] = True
            self._write(tokens)
            self._seen = None


def allows(record, scope, model, any_model=False):
    """Whether a token's ``record`` may do what needs ``scope`` on ``model`` (None: a
    route of no single model, which a restricted token reaches only if ``any_model``:
    ``GET /models`` lists the models it may see)."""
    if scope == "metrics" or record["scope"] == "metrics":
        return record["scope"] in ("admin", "metrics") and scope == "metrics"
    rank = {"predict": 0, "learn": 1, "admin": 2}
    if rank[record["scope"]] < rank[scope]:
        return False
    restricted = record.get("model")
    return restricted is None or any_model or restricted == model
