"""The HTTP API (Starlette on uvicorn): routes, authentication, limits, metrics.

Every route but ``GET /healthz`` needs ``Authorization: Bearer TOKEN``: without a live
token the answer is 401 whatever the path and method; a token whose scope or model does
not allow the route gets 403.  Bodies are read up to the size limit (413 beyond) and
handed with the work to a thread pool, so the event loop never learns, waits for a
lock or for an fsync (a predict of a small body runs on the loop when the model is
free: it costs less than the hop to the pool).  Every error is a 4xx, or a 503 (a
model that is not served, a log or snapshot that could not be written), with
``{"error": "one line"}``.
"""
import asyncio
import contextlib
import json
import re
import sys
import time
import traceback

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.requests import ClientDisconnect
from starlette.routing import Route

from .body import Limits, ServeError
from .metrics import Metrics
from .store import IDS_COUNT, IDS_SECONDS, KEEP_DELETED, KEEP_VERSIONS, Store
from .tokens import Tokens, allows

#: a predict body up to this size runs on the event loop when no writer holds the model
#: (a few rows cost less than the hop to the thread pool); larger ones, and any that
#: would wait for a writer, go to the pool
INLINE_BYTES = 16_384
_ROUTE = re.compile(r"/models(?:/([^/]+)(/(?:learn|predict_learn|predict|score|snapshot|file|"
                    r"versions|versions/[^/]+/file|rollback|restore))?)?/?\Z")


def route_of(path):
    """``(route template, model name or None)`` of a path, for metrics and scopes."""
    if path in ("/healthz", "/metrics"):
        return path, None
    m = _ROUTE.match(path)
    if m is None:
        return "other", None
    name, tail = m.groups()
    if name is None:
        return "/models", None
    if tail and tail.startswith("/versions/"):
        tail = "/versions/{v}/file"
    return "/models/{name}" + (tail or ""), name


def json_response(doc, status=200):
    return Response(json.dumps(doc, allow_nan=False, separators=(",", ":")), status,
                    media_type="application/json")


def error(status, message):
    return json_response({"error": message}, status)


class AccessLog:
    """One line per request to ``stream``: time, client address, token id (never the
    token), method, path (as sent, percent-encoded: one line whatever it holds),
    status, response bytes, milliseconds, model and seq (``-`` when none); ``text`` or
    ``json`` (one object a line)."""

    def __init__(self, stream, fmt="text"):
        self.stream, self.fmt = stream, fmt

    def write(self, when, client, token, method, path, status, size, ms, model, seq):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + \
            f".{int(when * 1000) % 1000:03d}Z"
        if self.fmt == "json":
            line = json.dumps({"time": stamp, "client": client, "token": token,
                               "method": method, "path": path, "status": status,
                               "bytes": size, "ms": round(ms, 3), "model": model,
                               "seq": seq}, separators=(",", ":"))
        else:
            line = (f"{stamp} {client} {token or '-'} {method} {path} {status} {size} "
                    f"{ms:.3f}ms model={model or '-'} seq={'-' if seq is None else seq}")
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # (a full disk or a closed stream never fails a request)


class Guard:
    """ASGI middleware: authentication (401) before routing, the metrics and the
    access log."""

    def __init__(self, app, tokens, metrics, access=None, metrics_public=False):
        self.app, self.tokens, self.metrics = app, tokens, metrics
        self.access, self.metrics_public = access, metrics_public
        self.stopped = None  # (saved, failed) once the lifespan has ended

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()
        route, model = route_of(scope["path"])
        status, size = [500], [0]
        state = scope.setdefault("state", {})

        async def sending(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            elif message["type"] == "http.response.body":
                size[0] += len(message.get("body", b""))
            await send(message)

        try:
            if route != "/healthz" and not (route == "/metrics" and self.metrics_public):
                token = None
                for key, value in scope["headers"]:
                    if key == b"authorization":
                        kind, _, token = value.decode("latin-1").partition(" ")
                        if kind.lower() != "bearer":
                            token = None
                record = self.tokens.check(token.strip() if token else None)
                if record is None:
                    await error(401, "a valid token is needed: Authorization: Bearer TOKEN"
                                )(scope, receive, sending)
                    return
                state["token"] = record
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:
            # a stop whose wait (--grace-seconds) ran out: a one-line 503 where the
            # answer had not started, instead of uvicorn's traceback (the request may
            # have been applied: a retry with the same id is applied once)
            if status[0] == 500 and size[0] == 0:
                try:
                    await error(503, "the server stopped before answering; retry with "
                                     "the same id (a retry is applied once)"
                                )(scope, receive, sending)
                except Exception:  # noqa: BLE001 (the connection is gone)
                    pass
        finally:
            took = time.perf_counter() - start
            self.metrics.observe(route, scope["method"], status[0], took)
            if self.access is not None:
                client = scope.get("client")
                path = scope.get("raw_path") or scope["path"].encode("utf-8", "replace")
                if scope.get("query_string"):
                    path += b"?" + scope["query_string"]
                self.access.write(time.time(), f"{client[0]}:{client[1]}" if client else "-",
                                  (state.get("token") or {}).get("id"), scope["method"],
                                  path.decode("latin-1"), status[0], size[0], took * 1000,
                                  model, state.get("seq"))


def create_app(data_dir, fsync="always", limits=Limits(), snapshot_rows=1_000_000,
               snapshot_seconds=60.0, store=None, ids_count=IDS_COUNT,
               ids_seconds=IDS_SECONDS, snapshot_at_stop=True, access_log=None,
               log_format="text", metrics_public=False, keep_versions=KEEP_VERSIONS,
               keep_deleted=KEEP_DELETED):
    """The ASGI app serving the models of ``data_dir``.  A model that cannot be served
    (damaged files) and a torn log tail that was cut are each one line on stderr.
    ``access_log``: a text stream for one line per request (``log_format`` text or
    json), or None; ``metrics_public``: ``GET /metrics`` needs no token."""
    store = store or Store(data_dir, fsync, snapshot_rows, snapshot_seconds, limits,
                           ids_count=ids_count, ids_seconds=ids_seconds,
                           keep_versions=keep_versions, keep_deleted=keep_deleted,
                           report=lambda line: print(line, file=sys.stderr, flush=True))
    tokens, metrics = Tokens(data_dir), Metrics()

    def permit(request, scope, name, any_model):
        if scope is None:  # (a public route)
            return
        if not allows(request.state.token, scope, name, any_model):
            raise ServeError(403, "this token does not allow that")

    held = [0]  # bytes of request bodies held now, over every connection

    async def body(request, hold):
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > limits.body_bytes):
            raise ServeError(413, f"the body is larger than {limits.body_bytes} bytes")
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > limits.body_bytes:
                raise ServeError(413, f"the body is larger than {limits.body_bytes} bytes")
            held[0] += len(chunk)
            hold[0] += len(chunk)
            if held[0] > limits.inflight_bytes:
                raise ServeError(503, f"the server holds {limits.inflight_bytes} bytes of "
                                      "request bodies already; retry in a moment")
            chunks.append(chunk)
        return b"".join(chunks)

    def endpoint(scope, work, needs_body=False, any_model=False, inline=None):
        async def handle(request):
            name = request.path_params.get("name")
            hold = [0]
            try:
                permit(request, scope, name, any_model)
                data = await body(request, hold) if needs_body else None
                out = None
                if inline is not None and len(data) <= INLINE_BYTES:
                    out = inline(name, data)  # a small predict when no writer holds the model
                if out is None:
                    out = await run_in_threadpool(work, request, name, data)
                if isinstance(out, dict) and isinstance(out.get("seq"), int):
                    request.state.seq = out["seq"]
                return out if isinstance(out, Response) else json_response(out)
            except ServeError as exc:
                return error(exc.status, exc.message)
            except ClientDisconnect:  # (499, nginx's "client closed request": its log line)
                return error(499, "the client closed the connection before its body was "
                                  "read; nothing was done")
            except Exception as exc:  # noqa: BLE001 (a bug: say so, keep serving)
                traceback.print_exc(file=sys.stderr)
                return error(500, f"internal error ({type(exc).__name__})")
            finally:
                held[0] -= hold[0]
        return handle

    def listing(request, name, data):
        record = request.state.token
        return {"models": [n for n in store.list()
                           if record.get("model") in (None, n)]}

    def download(request, name, data):
        return Response(store.download(name), media_type="application/octet-stream")

    def put(request, name, data):
        replace = request.query_params.get("replace", "false").lower()
        if replace not in ("true", "false", "1", "0"):
            raise ServeError(400, "replace must be true or false")
        if replace in ("true", "1"):
            return store.replace(name, data)
        return store.create(name, data)

    def version_file(request, name, data):
        v = request.path_params["v"]
        if not v.isdigit():
            raise ServeError(400, f"a version is a number, not {v!r}")
        return Response(store.version_file(name, int(v)),
                        media_type="application/octet-stream")

    async def healthz(request):
        return json_response({"ok": True})

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", endpoint(None if metrics_public else "metrics", lambda r, n, d: Response(
            metrics.render(store), media_type="text/plain; version=0.0.4")),
            methods=["GET"]),
        Route("/models", endpoint("predict", listing, any_model=True), methods=["GET"]),
        Route("/models/{name}", endpoint("predict", lambda r, n, d: store.info(n)),
              methods=["GET"]),
        Route("/models/{name}", endpoint("admin", put, True), methods=["PUT"]),
        Route("/models/{name}/versions", endpoint("predict", lambda r, n, d: store.versions(n)),
              methods=["GET"]),
        Route("/models/{name}/versions/{v}/file", endpoint("admin", version_file),
              methods=["GET"]),
        Route("/models/{name}/rollback",
              endpoint("admin", lambda r, n, d: store.rollback(n, d), True), methods=["POST"]),
        Route("/models/{name}/restore", endpoint("admin", lambda r, n, d: store.restore(n)),
              methods=["POST"]),
        Route("/models/{name}", endpoint("admin", lambda r, n, d: store.delete(n)),
              methods=["DELETE"]),
        Route("/models/{name}/learn",
              endpoint("learn", lambda r, n, d: store.learn(n, d), True), methods=["POST"]),
        Route("/models/{name}/predict_learn",
              endpoint("learn", lambda r, n, d: store.learn(n, d, predict=True), True),
              methods=["POST"]),
        Route("/models/{name}/predict",
              endpoint("predict", lambda r, n, d: store.predict(n, d), True,
                       inline=lambda n, d: store.predict(n, d, wait=False)),
              methods=["POST"]),
        Route("/models/{name}/score",
              endpoint("predict", lambda r, n, d: store.predict(n, d, score=True), True,
                       inline=lambda n, d: store.predict(n, d, wait=False, score=True)),
              methods=["POST"]),
        Route("/models/{name}/snapshot", endpoint("admin", lambda r, n, d: store.snapshot(n)),
              methods=["POST"]),
        Route("/models/{name}/file", endpoint("admin", download), methods=["GET"]),
        Route("/models/{name}/file",
              endpoint("admin", lambda r, n, d: store.upload(n, d), True), methods=["PUT"]),
    ]

    async def not_found(request, exc):
        return error(exc.status_code, exc.detail if isinstance(exc.detail, str)
                     else "not found")

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        guard.stopped = store.close(snapshot=snapshot_at_stop)

    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={404: not_found, 405: not_found})
    app.state.store = store
    guard = Guard(app, tokens, metrics, None if access_log is None else
                  AccessLog(access_log, log_format), metrics_public)
    return guard
