"""``olearn serve``: learn and predict over HTTP, many models, tokens, and a
write-ahead log that loses nothing acknowledged across a kill -9.

Modules: :mod:`.app` (routes, authentication, limits), :mod:`.store` (models on disk,
one writer per model, snapshots, recovery), :mod:`.wal` (the log and its fsync
policies), :mod:`.body` (request bodies checked whole), :mod:`.tokens` (hashed tokens
and scopes), :mod:`.metrics` (Prometheus text).  Needs the ``serve`` extra (Starlette
and uvicorn); :mod:`olearn.client` talks to it with the standard library alone.
"""
from .body import Limits, ServeError

__all__ = ["Limits", "ServeError", "create_app", "run"]


def create_app(*args, **kwargs):
    """The ASGI app (see :func:`olearn.serve.app.create_app`)."""
    from .app import create_app as make
    return make(*args, **kwargs)


def run(data_dir, host="127.0.0.1", port=8470, fsync="always", **options):
    """Serve ``data_dir`` on ``host:port`` until interrupted."""
    import sys
    import uvicorn
    # the event loop's thread gets the GIL back from a learning thread within 1 ms
    # (Python's default 5 ms switch interval shows up in every latency)
    sys.setswitchinterval(0.001)
    app = create_app(data_dir, fsync, **options)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                  access_log=False, lifespan="on")).run()
