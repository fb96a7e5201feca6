"""One self-overwriting status line on a terminal: the progress bars of ``olearn train``
and ``evaluate`` (share of the file read), ``compare`` (runs done) and dataset downloads
(bytes fetched) are drawn through it."""
import sys
import time


class StatusLine:
    """A line on ``out`` (stderr) redrawn in place.  ``show=None``: only where ``out`` is
    a terminal (a log file or a pipe gets nothing).  ``due()`` says whether ``every``
    seconds have passed since the last drawing; ``write(text)`` draws, ``clear()``
    erases, ``close()`` ends the line, leaving it."""

    def __init__(self, show=None, out=None, every=0.25, clock=None):
        self.out = out or sys.stderr
        if show is None:
            isatty = getattr(self.out, "isatty", None)
            show = isatty is not None and isatty()
        self.active = bool(show)
        self.every, self.clock = every, clock or time.monotonic
        self.t0 = self.clock()
        self.last = -float("inf")
        self.drawn = False

    def due(self, force=False):
        """True (and the clock restarted) when a drawing is due now."""
        if not self.active:
            return False
        now = self.clock()
        if not force and now - self.last < self.every:
            return False
        self.last = now
        return True

    def write(self, text):
        self.out.write("\r" + text + "\x1b[K")
        self.out.flush()
        self.drawn = True

    def clear(self):
        if self.drawn:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self.drawn = False

    def close(self):
        if self.drawn:
            self.out.write("\n")
            self.out.flush()
            self.drawn = False
