"""The command line's heartbeat: no silence longer than its period while something slow
(a compile) runs, nothing when idle or after a line was said."""
import threading
import time

from olearn.cli._learning import Heartbeat


def _wait_for(cond, limit=10.0):
    t0 = time.perf_counter()
    while not cond() and time.perf_counter() - t0 < limit:
        time.sleep(0.01)
    return cond()


def test_beats_while_busy_and_names_the_time():
    lines = []
    with Heartbeat(lines.append, lambda t: f"still compiling ({t:.1f} s)", every=0.05):
        assert _wait_for(lambda: len(lines) >= 2)
    n = len(lines)
    time.sleep(0.2)
    assert len(lines) == n  # (stopped with the block)
    assert all(line.startswith("still compiling (") for line in lines)


def test_silent_when_not_busy():
    lines = []
    busy = threading.Event()
    with Heartbeat(lines.append, str, every=0.05, busy=busy.is_set):
        time.sleep(0.3)
        assert lines == []
        busy.set()
        assert _wait_for(lambda: lines)


def test_a_line_said_restarts_the_silence():
    lines = []
    with Heartbeat(lines.append, lambda t: "beat", every=3600.0) as beat:
        beat.say("done: pa1")
        assert beat.quiet_since() < 60.0
    assert lines == ["done: pa1"]
