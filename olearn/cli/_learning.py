"""Learning from the command line: the compile notice, the progress bar, no numpy
warning on the terminal, a diverging learner stopped in one line that names the row,
progressive validation over a reader (:func:`learn_progressively`) and its summary.

Standard library only at import time.
"""
import contextlib
import os
import sys

from ._common import CLIError, one_line
from ._input import checked_chunks
from .._internals import internals


class ProgressBar:
    """The share of a file of known size read, rows, rows/s and the time left, on one
    :class:`olearn._progress.StatusLine` (stderr, on a terminal only) redrawn at most
    every ``every`` seconds.  Nothing for a stream (standard input: no size), nor with
    ``show=False`` (``--quiet``)."""

    def __init__(self, reader, out=None, every=0.25, clock=None, show=True):
        from .._progress import StatusLine
        # (a reader's source: its size and the bytes read so far)
        self.source = getattr(reader, "source", None)
        self.line = StatusLine(None, out, every, clock)
        self.line.active &= show and bool(getattr(self.source, "size", None))

    @property
    def active(self):
        return self.line.active

    def update(self, rows):
        if not self.line.due():
            return
        share = min(1.0, self.source.done / self.source.size)
        elapsed = self.line.last - self.line.t0
        rate = rows / elapsed if elapsed > 0 else 0.0
        left = elapsed * (1 - share) / share if share > 0 else float("nan")
        width = 24
        bar = "#" * int(round(share * width))
        self.line.write(f"[{bar:<{width}}] {100 * share:5.1f}%  {rows:,} rows  "
                        f"{rate:,.0f} rows/s" + (f"  {left:,.0f} s left" if left == left
                                                 else ""))

    def clear(self):
        """Erase the line (before other output, and at the end)."""
        self.line.clear()

    def rows(self, chunks):
        """``chunks`` passed through, the bar redrawn after each one is learned."""
        n = 0
        for chunk in chunks:
            yield chunk
            n += len(chunk[1])
            self.update(n)


# ------------------------------------------------------------------ heartbeat
class Heartbeat:
    """No silence longer than ``every`` seconds while something slow runs: a daemon
    thread says ``line(seconds so far)`` through ``say`` whenever ``every`` seconds have
    passed since the last line said (through :meth:`say`, or a beat) and ``busy()``
    answers true.  A compile of olearn's kernels is silent in numba, seconds to minutes;
    a person reads such a pause as a hang (issue 47)."""

    def __init__(self, say, line, every=2.0, busy=None):
        import threading
        import time
        self._say, self._line, self.every = say, line, every
        self._busy = busy or (lambda: True)
        self._clock = time.perf_counter
        self.t0 = self.last = self._clock()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="olearn-heartbeat",
                                        daemon=True)

    def say(self, text):
        """``say(text)``, and the silence counted from now."""
        with self._lock:
            self._say(text)
            self.last = self._clock()

    def quiet_since(self):
        return self._clock() - self.last

    def _run(self):
        while not self._stop.wait(min(0.25, self.every / 4)):
            with self._lock:
                now = self._clock()
                if now - self.last >= self.every and self._busy():
                    self._say(self._line(now - self.t0))
                    self.last = now

    def __enter__(self):
        self.t0 = self.last = self._clock()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False


def _stderr(text):
    print(text, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ learning guard
def _numba_events():
    """numba's event module, imported by name: a file that imports numba in a statement
    counts among the compiled sources that key the kernel cache (``olearn._compiled.
    cache_dir``), and this one compiles nothing."""
    import importlib
    return importlib.import_module("numba.core.event")


class _CompileNotice:
    """A numba event listener printing one line on stderr when an olearn kernel starts
    compiling (numba fires "numba:compile" only on a miss of its disk cache)."""

    def __init__(self, what, how_long):
        self.what = what
        self.how_long = how_long
        self.shown = False
        self.depth = 0  # olearn kernels compiling now (the heartbeat's question)

    def listener(self):
        event = _numba_events()
        from .._compile_notice import olearn_kernel
        notice = self

        class Listener(event.Listener):
            def on_start(self, ev):
                if olearn_kernel(ev) is None:
                    return
                notice.depth += 1
                if not notice.shown:
                    notice.shown = True
                    notice.say(f"olearn: compiling {notice.what} (first use, "
                               f"{notice.how_long}; cached afterwards)")

            def on_end(self, ev):
                if olearn_kernel(ev) is not None:
                    notice.depth = max(0, notice.depth - 1)

        return Listener()


@contextlib.contextmanager
def learning(what, how_long="seconds to minutes; the time is reported apart"):
    """Around the learning part of a command: one stderr line if kernels compile (``what``:
    e.g. "the pa1 kernels"), and no numpy RuntimeWarning reaching the terminal (a model
    that overflows is reported by :func:`guarded`, in one line)."""
    import warnings

    import numpy as np
    event = _numba_events()
    notice = _CompileNotice(what, how_long)
    listener = notice.listener()
    beat = Heartbeat(_stderr, lambda t: f"olearn: compiling ({t:.0f} s so far)",
                     busy=lambda: notice.depth > 0)
    notice.say = beat.say
    event.register("numba:compile", listener)
    from .._compile_notice import quiet
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), quiet(), beat:
            warnings.simplefilter("ignore", RuntimeWarning)
            yield notice
    finally:
        event.unregister("numba:compile", listener)


def divergence_error():
    """``olearn.base.DivergenceError`` when the learners raise it, else None."""
    base = sys.modules.get("olearn.base")
    return getattr(base, "DivergenceError", None) if base is not None else None


def non_finite(model):
    """Name of the first float array of the model's exported state (the protocol's
    ``export_state``: a wrapper's includes its members') with a NaN or infinity, else
    None (also before the model has learned)."""
    import numpy as np
    if not model.__sklearn_is_fitted__():
        return None
    for name, value in model.export_state()[1].items():
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc" \
                and not np.isfinite(value).all():
            return name.rpartition("/")[2]
    return None


class Diverged(CLIError):
    """The learner's weights became NaN or infinite."""


def _step_hint(model):
    params = model.get_params() if hasattr(model, "get_params") else {}
    for key in ("eta", "C", "alpha"):
        value = params.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return f"try a smaller step, e.g. --param {key}={value / 10:g}"
    return "try a smaller step"


def divergence_message(algo, model, where, saved_note):
    """One line: which learner, where, what happened to the file, what to try."""
    return (f"{algo} diverged (non-finite weights {where}){saved_note} "
            f"({_step_hint(model)})")


class guarded:
    """``chunks`` passed through, counting the rows learned: ``start`` is the number of
    rows before the chunk being learned, to place a learner's ``DivergenceError`` (whose
    ``row`` counts from the start of its batch) in the file.  A learner checks its
    weights after every chunk itself (``olearn.base``); the command line checks the
    whole model once, at the end (:func:`check_finite`), not after every chunk."""

    def __init__(self, model, chunks, algo, saved_note=""):
        self.model, self.chunks, self.algo, self.note = model, chunks, algo, saved_note
        self.start = 0

    def __iter__(self):
        for chunk in self.chunks:
            yield chunk
            self.start += len(chunk[1])

    def error(self, exc, data):
        """A :class:`CLIError` for the learner's ``DivergenceError`` ``exc``: the row of
        the file from its fields (``row`` of ``where="batch"``), else its message."""
        name = os.path.basename(os.fspath(data)) if data not in (None, "-") else "the input"
        hint = _step_hint(self.model)
        if getattr(exc, "where", None) == "batch" and exc.row is not None:
            text = (f"{exc.learner} diverged at row {self.start + exc.row + 1:,} of {name} "
                    f"(counting from 1): the weights became non-finite ({hint})")
        else:
            text = one_line(exc)
            if "smaller" not in text:
                text += f" ({hint})"
        return Diverged(f"{self.algo}: {text}{self.note}")


def check_finite(model, algo, where="", saved_note=""):
    """Raise :class:`Diverged` if the model's weights are not all finite."""
    if non_finite(model) is not None:
        raise Diverged(divergence_message(algo, model, where or "at the end", saved_note))


def learn_progressively(model, reader, args, note="", on_checkpoint=None, transform=None,
                        file_reader=None, **progressive_kw):
    """Progressive validation of ``model`` over the chunks of ``reader`` (train and
    evaluate): the compile notice, the progress bar (of ``file_reader``, by default
    ``reader``), the finiteness checks, and a learner's own ``DivergenceError`` turned
    into one line that names the file's row.  Other keywords go to
    :func:`olearn.evaluate.progressive.progressive`.  ``transform`` maps the chunks, on
    this thread, after the reader's (which runs a chunk ahead in its own)."""
    from ..evaluate.progressive import progressive, widening
    from ..io.pipeline import prefetch
    diverged = divergence_error()
    bar = ProgressBar(reader if file_reader is None else file_reader,
                      show=not getattr(args, "quiet", False))
    # the next chunks are read (and checked) in a thread while this one is learned; the
    # model grows with a stream read without a fixed width, before the held-out rows
    # are scored
    stream = widening(model, prefetch(checked_chunks(reader)))
    if transform is not None:
        stream = transform(stream)
    stream = guarded(model, bar.rows(stream), args.algo, note)
    if on_checkpoint is not None:
        printer = on_checkpoint

        def on_checkpoint(cp):
            bar.clear()
            printer(cp)
    from .._compile_notice import seconds
    compiled = seconds()
    # one snapshot for the whole run, not one per chunk: a run that diverges saves
    # nothing, so the model a chunk's rollback would keep is never used (a copy of the
    # state per chunk cost 0.2 s per 1M rows at 2^18 hashed columns)
    whole_run = internals(model).snapshot or contextlib.nullcontext
    try:
        with learning(f"the {args.algo} kernels"), whole_run():
            result = progressive(model, stream, on_checkpoint=on_checkpoint, widen=False,
                                 **progressive_kw)
            check_finite(model, args.algo, saved_note=note)
        result.compile_seconds = seconds() - compiled    # (train's summary leaves it out)
    except Diverged:
        raise
    except ValueError as exc:
        if diverged is not None and isinstance(exc, diverged):
            raise stream.error(exc, args.data) from exc
        raise
    finally:
        bar.clear()
    return result


def summary(result):
    """The closing lines shared by train and evaluate."""
    lines = [f"rows = {result.n_rows:,}"]
    if result.task == "classification":
        lines.append(f"mistake rate = {result.final:.6f} ({result.n_mistakes:,} mistakes)")
    elif result.task == "anomaly":  # an anomaly detector: the label only scored it
        lines.append(f"ROC AUC = {result.roc_auc:.6f}, average precision = "
                     f"{result.average_precision:.6f} (exact, each row scored before it "
                     f"was learned; {int(result.metrics['anomalies']):,} anomalies)")
    else:
        lines.append(f"squared error = {result.final:.6g}, absolute error = "
                     f"{float(result.mae[-1]):.6g} (means)")
    lines.append(f"updates = {result.n_updates:,}")
    # compiling is not learning: learn_progressively measured it apart
    compiled = min(getattr(result, "compile_seconds", 0.0), result.total_seconds)
    spent = result.total_seconds - compiled
    rate = result.n_rows / spent if spent > 0 else float("inf")
    lines.append(f"time = {spent:.3f} s, reading and learning ({rate:,.0f} rows/s; "
                 f"{max(result.seconds - compiled, 0.0):.3f} s of it in the learner)" +
                 (f", and {compiled:.3f} s compiling (first use)" if compiled > 0.0005 else ""))
    return "\n".join(lines)
