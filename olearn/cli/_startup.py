"""The command line's start-up, cheaper: Python's cyclic garbage collector paused
while a command imports numpy, scipy and numba and loads its first kernels.

Importing numba and loading a cached kernel creates some hundred thousand objects
(types, templates, registries) that live until the process ends; the collector,
triggered every 700 allocations, walks them again and again, and once more at exit.
Measured on a cached ``olearn train a9a --algo pa1`` (benchmarks/startup.md): a
quarter of the command's CPU time.  So a command runs with the collector's first
threshold raised (cycles are still collected, a hundred times less often: the
commands' loops make few), and when the process's own command ends, everything alive
is frozen (``gc.freeze``), so that the interpreter's shutdown does not walk it once
more (not when ``main`` is called with arguments from a program, the tests, which go on
running).  Reference counting, which frees nearly everything, is untouched.
"""
import contextlib
import gc

#: allocations between two collections of the youngest generation while a command
#: runs (Python's default: 700)
THRESHOLD = 100_000


@contextlib.contextmanager
def collector_paused(freeze=False):
    """Run the body with the collector's first threshold at :data:`THRESHOLD`; on
    the way out, restore it and, with ``freeze`` (the process is about to end), freeze
    the survivors."""
    before = gc.get_threshold()
    gc.set_threshold(THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if freeze:
            gc.freeze()
