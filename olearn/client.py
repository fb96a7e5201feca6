"""A client of ``olearn serve``, on the standard library alone (``http.client``).

    >>> from olearn.client import Client
    >>> c = Client("http://127.0.0.1:8470", token)          # or $OLEARN_TOKEN
    >>> c.create("spam", "pa1", C=0.5)
    >>> c.learn("spam", [{"free": 1.0, "win": 1.0}, {"hello": 1.0}], [1, -1])
    {'acknowledged': 2, 'seq': 1}
    >>> c.predict("spam", [{"free": 1.0}])
    [1]

Rows are dicts ``{name: number}``, lists of numbers, a 2-D numpy array (as lists) or a
scipy sparse matrix (as dicts keyed by the column number as a string); for a tagger,
lists of tokens.  ``y`` follows the model: labels or numbers, label sets (lists or sets)
for a multilabel model, lists of tags for a tagger, none (``y=None``) for an anomaly
detector, whose ``score`` gives anomaly scores (higher = more anomalous).  Each thread
keeps one keep-alive connection.  A call that meets a broken connection or a 502-504
is retried (``retries`` times, with a growing pause); ``learn`` and ``predict_learn``
always send an idempotency id (a random one unless given), so a retried request is
applied once and answered with its first acknowledgement.  An answer of 4xx or 5xx
raises :class:`ServerError` with the server's one-line message.
"""
from __future__ import annotations

import base64
import http.client
import json
import os
import ssl
import threading
import time
import urllib.parse
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._typing import Matrix, Path, Vector

__all__ = ["Client", "ServerError", "rows_of"]


class ServerError(Exception):
    """The server's error answer: ``status`` and ``message``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status, self.message = status, message


def rows_of(X: Matrix) -> list[Any]:
    """``X`` as a list of JSON rows (see the module docstring)."""
    if hasattr(X, "tocsr"):
        X = X.tocsr()
        indptr, indices, data = X.indptr.tolist(), X.indices.tolist(), X.data.tolist()
        return [{str(indices[k]): data[k] for k in range(indptr[i], indptr[i + 1])}
                for i in range(X.shape[0])]
    if hasattr(X, "tolist"):
        return X.tolist()
    return list(X)


def _labels(y):
    y = y.tolist() if hasattr(y, "tolist") else list(y)
    return [sorted(v, key=str) if isinstance(v, (set, frozenset)) else
            list(v) if isinstance(v, tuple) else v for v in y]


class Client:
    """A connection to an ``olearn serve`` at ``url`` with ``token``."""

    def __init__(self, url: str = "http://127.0.0.1:8470", token: str | None = None,
                 timeout: float = 60.0, retries: int = 3,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.scheme, self.host = parts.scheme, parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.prefix = parts.path.rstrip("/")
        self.token = token if token is not None else os.environ.get("OLEARN_TOKEN")
        self.timeout, self.retries = timeout, retries
        self.ssl_context = ssl_context  # https: None verifies with the system's CAs
        self._local = threading.local()

    # ------------------------------------------------------------ transport
    def _connection(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.scheme == "https":
                conn = http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout,
                                                   context=self.ssl_context)
            else:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def request(self, method: str, path: str, doc: Any = None, data: bytes | None = None
                ) -> Any:
        """One call: ``doc`` sent as JSON (or ``data`` as bytes); returns the answer's
        JSON, or its bytes when it is not JSON."""
        body = json.dumps(doc, allow_nan=False).encode() if doc is not None else data
        headers = {"Content-Type": "application/json" if doc is not None
                   else "application/octet-stream"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        pause = 0.05
        for attempt in range(self.retries + 1):
            try:
                conn = self._connection()
                conn.request(method, self.prefix + path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
                status = response.status
                if response.will_close:
                    self.close()
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == self.retries:
                    raise
                time.sleep(pause)
                pause *= 2
                continue
            if status in (502, 503, 504) and attempt < self.retries:
                time.sleep(pause)
                pause *= 2
                continue
            kind = response.getheader("Content-Type", "")
            if status >= 400:
                try:
                    message = json.loads(payload)["error"]
                except (ValueError, KeyError, TypeError):
                    message = payload[:200].decode("utf-8", "replace")
                raise ServerError(status, message)
            return json.loads(payload) if kind.startswith("application/json") else payload
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ the API
    def health(self) -> Any:
        return self.request("GET", "/healthz")

    def create(self, name: str, algo: str, replace: bool = False, **params: Any) -> Any:
        """A new model ``name`` made as ``olearn.make(algo, **params)``; with
        ``replace``, in place of the one served (which goes to the trash, restorable)."""
        return self.request("PUT", f"/models/{_q(name)}" + ("?replace=true" if replace
                                                              else ""),
                            {"algo": algo, "params": params})

    def delete(self, name: str) -> Any:
        """Model ``name`` moved to the server's trash (see :meth:`restore`)."""
        return self.request("DELETE", f"/models/{_q(name)}")

    def restore(self, name: str) -> Any:
        """The model ``name`` deleted last, back from the trash."""
        return self.request("POST", f"/models/{_q(name)}/restore")

    def versions(self, name: str) -> Any:
        """``{"current": v, "versions": [{"version", "seq", "rows", "time"}, ...]}``:
        the snapshots kept."""
        return self.request("GET", f"/models/{_q(name)}/versions")

    def version_file(self, name: str, version: int) -> bytes:
        """The model file of one version (what ``olearn.load`` reads)."""
        return self.request("GET", f"/models/{_q(name)}/versions/{int(version)}/file")

    def rollback(self, name: str, version: int) -> Any:
        """The model as it was at ``version``, saved as a new version."""
        return self.request("POST", f"/models/{_q(name)}/rollback", {"version": version})

    def models(self) -> list[str]:
        return self.request("GET", "/models")["models"]

    def info(self, name: str) -> Any:
        """Algorithm, parameters, rows, last seq, snapshot age, log size."""
        return self.request("GET", f"/models/{_q(name)}")

    def learn_body(self, X: Matrix, y: Vector | None, sample_weight: Vector | None = None,
                   id: str | None = None, pipeline: dict | None = None,
                   csr: bool | str = False) -> dict:
        """The JSON body of a learn request (what ``learn`` sends), for a caller that
        posts it itself (``olearn train --server``); with ``csr`` a scipy sparse ``X``
        goes as one compressed sparse matrix (the server learns it in one compiled
        pass) instead of one object per row, its arrays as base64 strings of their
        little-endian bytes (``csr="lists"``: as lists of numbers)."""
        if csr and hasattr(X, "tocsr"):
            X = X.tocsr()
            if csr == "lists":
                arrays = {"indptr": X.indptr.tolist(), "indices": X.indices.tolist(),
                          "data": X.data.tolist()}
            else:
                import numpy as np
                arrays = {k: base64.b64encode(np.ascontiguousarray(
                    getattr(X, k), dtype=t).tobytes()).decode("ascii")
                    for k, t in (("indptr", "<i8"), ("indices", "<i4"), ("data", "<f8"))}
            body: dict[str, Any] = {"csr": {**arrays, "width": int(X.shape[1])},
                                    "id": id or uuid.uuid4().hex}
            if y is not None:
                body["y"] = _labels(y)
            if sample_weight is not None:
                body["w"] = _labels(sample_weight)
            if pipeline is not None:
                body["pipeline"] = pipeline
            return body
        rows: list[dict[str, Any]] = (
            [{"x": x} for x in rows_of(X)] if y is None else
            [{"x": x, "y": label} for x, label in zip(rows_of(X), _labels(y))])
        if sample_weight is not None:
            for row, w in zip(rows, _labels(sample_weight)):
                row["w"] = w
        doc: dict[str, Any] = {"rows": rows, "id": id or uuid.uuid4().hex}
        if pipeline is not None:
            doc["pipeline"] = pipeline
        return doc

    def learn(self, name: str, X: Matrix, y: Vector | None = None,
              sample_weight: Vector | None = None, id: str | None = None,
              pipeline: dict | None = None) -> Any:
        """Learn rows ``X`` with labels ``y`` (None for a detector); returns
        ``{"acknowledged", "seq"}`` once the server made them durable.  ``pipeline``
        says how the rows were read (``{"format": "libsvm", "width": 123}``,
        ``{"format": "vw", "hash_bits": 18}``): a model refuses rows of another shape
        than the first it learned (409)."""
        return self.request("POST", f"/models/{_q(name)}/learn",
                            self.learn_body(X, y, sample_weight, id, pipeline))

    def predict_learn(self, name: str, X: Matrix, y: Vector | None = None,
                      sample_weight: Vector | None = None, id: str | None = None,
                      scores: bool = False) -> Any:
        """The predictions made before learning each row (then learned); with
        ``scores``, a detector's whole answer (``predictions`` and the anomaly
        ``scores`` each row had before it was learned)."""
        out = self.request("POST", f"/models/{_q(name)}/predict_learn",
                           self.learn_body(X, y, sample_weight, id))
        return out if scores else out.get("predictions")

    def score(self, name: str, X: Matrix) -> Any:
        """An anomaly detector's scores of the rows (higher = more anomalous)."""
        return self.request("POST", f"/models/{_q(name)}/score",
                            {"rows": rows_of(X)})["scores"]

    def predict(self, name: str, X: Matrix, scores: bool = False, proba: bool = False
                ) -> Any:
        """The predictions; with ``scores`` or ``proba`` the whole answer (a dict with
        ``predictions``, ``scores``, ``proba``)."""
        doc: dict[str, Any] = {"rows": rows_of(X)}
        if scores:
            doc["scores"] = True
        if proba:
            doc["proba"] = True
        out = self.request("POST", f"/models/{_q(name)}/predict", doc)
        return out if scores or proba else out["predictions"]

    def snapshot(self, name: str) -> Any:
        return self.request("POST", f"/models/{_q(name)}/snapshot")

    def download(self, name: str, path: Path | None = None) -> bytes:
        """The model file's bytes (what ``olearn.load`` reads); written atomically to
        ``path`` when given."""
        data = self.request("GET", f"/models/{_q(name)}/file")
        if path is not None:
            tmp = f"{path}.{uuid.uuid4().hex[:8]}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        return data

    def upload(self, name: str, model_file: Path | bytes) -> Any:
        """Replace (or create) ``name`` with a model file (a path or its bytes)."""
        if not isinstance(model_file, (bytes, bytearray)):
            with open(model_file, "rb") as f:
                model_file = f.read()
        return self.request("PUT", f"/models/{_q(name)}/file", data=bytes(model_file))


def _q(name):
    return urllib.parse.quote(name, safe="")
