"""``olearn serve``: learn and predict over HTTP, many models, tokens, and a
write-ahead log that loses nothing acknowledged across a kill -9.

Modules: :mod:`.app` (routes, authentication, limits), :mod:`.store` (models on disk,
one writer per model, snapshots, recovery), :mod:`.wal` (the log and its fsync
policies), :mod:`.body` (request bodies checked whole), :mod:`.shapes` (what a model's
rows, answers and pipeline are by its target: labels, none, label sets, sequences),
:mod:`.tokens` (hashed tokens and scopes), :mod:`.metrics` (Prometheus text).  Needs the
``serve`` extra (Starlette and uvicorn); :mod:`olearn.client` talks to it with the
standard library alone.
"""
from .body import Limits, ServeError

__all__ = ["FolderLocked", "Limits", "ServeError", "create_app", "lock_data_dir", "run"]


def create_app(*args, **kwargs):
    """The ASGI app (see :func:`olearn.serve.app.create_app`)."""
    from .app import create_app as make
    return make(*args, **kwargs)


LOCK = "serve.lock"


class FolderLocked(Exception):
    """Another process serves this data folder (one line)."""


def lock_data_dir(data_dir):
    """An exclusive ``fcntl.flock`` on ``DATA/serve.lock`` (held while the returned file
    stays open; the kernel drops it when the process ends, however it ends), or
    :class:`FolderLocked` naming the process that holds it.  One process owns a data
    folder: two would interleave their writes to the same logs."""
    import os
    path = os.path.join(os.path.abspath(data_dir), LOCK)
    f = open(path, "a+")
    try:
        import fcntl
    except ImportError:  # (no flock on Windows: not locked)
        return f
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        pid = f.read().strip() or "?"
        f.close()
        raise FolderLocked(f"{data_dir} is served by another olearn serve (pid {pid}, "
                           f"lock {path}); one process owns a data folder") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def run(data_dir, host="127.0.0.1", port=8470, fsync="always", ssl_certfile=None,
        ssl_keyfile=None, grace_seconds=5.0, **options):
    """Serve ``data_dir`` on ``host:port`` until SIGTERM or SIGINT: then stop accepting,
    let the requests in flight finish (at most ``grace_seconds``), snapshot every model
    changed since its last snapshot, sync and close the logs, and return ``(saved,
    failed)`` (see :meth:`olearn.serve.store.Store.close`).  A second signal ends the
    process at once (exit 128 + the signal): the logs keep every acknowledged request."""
    import contextlib
    import os
    import signal
    import sys
    import uvicorn
    # the event loop's thread gets the GIL back from a learning thread within 1 ms
    # (Python's default 5 ms switch interval shows up in every latency)
    sys.setswitchinterval(0.001)
    app = create_app(data_dir, fsync, **options)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            if self.should_exit:
                os.write(2, b"olearn serve: stopped at once (a second signal); the logs "
                            b"keep every acknowledged request\n")
                os._exit(128 + sig)
            self.should_exit = True

        @contextlib.contextmanager
        def capture_signals(self):  # (uvicorn's raises the signal again at the end)
            sigs = [signal.SIGINT, signal.SIGTERM]
            saved = {sig: signal.signal(sig, self.handle_exit) for sig in sigs}
            try:
                yield
            finally:
                for sig, handler in saved.items():
                    signal.signal(sig, handler)

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                          access_log=False, lifespan="on", ssl_certfile=ssl_certfile,
                          ssl_keyfile=ssl_keyfile,
                          timeout_graceful_shutdown=grace_seconds)).run()
    return app.stopped or ([], [])
