"""One line when olearn compiles, and the seconds it took.

numba compiles a kernel on its first use in a cache folder (then loads it from disk):
seconds for one learner, minutes for many, a pause with no output otherwise.  When an
olearn kernel starts compiling, the first time in a process and then at most every
``EVERY`` seconds (a new module of kernels each time), one record goes to the
``olearn.compile`` logger (level WARNING, so Python shows it on stderr without any
logging set up; silence it with ``logging.getLogger("olearn.compile").setLevel(
logging.ERROR)``).  :func:`seconds` is the time spent compiling olearn kernels so far in
this process, so that a reported rate leaves it out; the command line prints its own
line (:func:`quiet` silences this one meanwhile).

Installed by ``olearn._compiled`` (which every module with olearn kernels imports before
defining them).
"""
import contextlib
import logging
import threading
import time

logger = logging.getLogger("olearn.compile")

#: seconds between two records (a long series of first uses is not silent, nor chatty)
EVERY = 20.0

#: how long a first use compiles (benchmarks/compile.md: 5-12 kernels per learner and
#: input layout, dense, CSR or one example; 6-36 s each at a load of 8 on 2 CPUs, about
#: a third of that idle; an ensemble compiles its members too)
EXPECTED = "about 3-15 s per learner and input layout on a 2-CPU machine, more for an ensemble"

_state = {"installed": False, "said": set(), "last": None, "quiet": 0, "depth": 0,
          "t0": 0.0, "seconds": 0.0}
_lock = threading.Lock()


def seconds():
    """Seconds spent compiling olearn kernels in this process so far."""
    return _state["seconds"]


@contextlib.contextmanager
def quiet():
    """No record while the block runs (the command line says it its own way)."""
    _state["quiet"] += 1
    try:
        yield
    finally:
        _state["quiet"] -= 1


def olearn_kernel(ev):
    """The Python function of the kernel a "numba:compile" event is about when it is
    olearn's, else None (a kernel made by exec has no module)."""
    dispatcher = (ev.data or {}).get("dispatcher")
    func = getattr(dispatcher, "py_func", None)
    module = getattr(func, "__module__", None) or ""   # (None for a kernel made by exec)
    return func if module.startswith("olearn") else None


def install():
    """Register the numba listener once per process."""
    with _lock:
        if _state["installed"]:
            return
        _state["installed"] = True
    import importlib   # (numba's event module: this file holds no kernel, and is not
    event = importlib.import_module("numba.core.event")  # part of the cache's key)

    class Listener(event.Listener):
        def on_start(self, ev):
            func = olearn_kernel(ev)
            if func is None:
                return
            now = time.perf_counter()
            with _lock:
                if _state["depth"] == 0:
                    _state["t0"] = now
                _state["depth"] += 1
                last, module = _state["last"], func.__module__
                say = not _state["quiet"] and module not in _state["said"] and (
                    last is None or now - last > EVERY)
                if say:
                    _state["said"].add(module)
                    _state["last"] = now
            if say:
                logger.warning("olearn: compiling the kernels of %s (first use in this cache "
                               "folder: %s; cached on disk afterwards, `olearn warmup` "
                               "compiles ahead)", module, EXPECTED)

        def on_end(self, ev):
            if olearn_kernel(ev) is None:
                return
            with _lock:
                _state["depth"] -= 1
                if _state["depth"] == 0:
                    _state["seconds"] += time.perf_counter() - _state["t0"]

    event.register("numba:compile", Listener())
