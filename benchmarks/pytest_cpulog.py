"""A pytest plugin that writes one line per test to the file ``$CPULOG``: the node id,
then the wall seconds, the CPU seconds of pytest and the CPU seconds of the subprocesses
it waited for since the previous test ended (the first test's line includes the
collection).  On an empty kernel cache it shows which test paid for which compile::

    CPULOG=/tmp/tests.log PYTHONPATH=.:benchmarks python -m pytest -q -p pytest_cpulog
"""
import os
import resource
import time

_state = {}


def _now():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter(), own.ru_utime + own.ru_stime,
            kids.ru_utime + kids.ru_stime)


def pytest_sessionstart(session):
    _state["file"] = open(os.environ["CPULOG"], "w", buffering=1)
    _state["file"].write(f"# start, load average {os.getloadavg()}\n")
    _state["last"] = _now()


def pytest_runtest_logfinish(nodeid, location):
    now, last = _now(), _state["last"]
    _state["file"].write(f"{nodeid}\t{now[0] - last[0]:.3f}\t{now[1] - last[1]:.3f}\t"
                         f"{now[2] - last[2]:.3f}\n")
    _state["last"] = now


def pytest_sessionfinish(session, exitstatus):
    _state["file"].write(f"# end, load average {os.getloadavg()}, exit {exitstatus}\n")
    _state["file"].close()
