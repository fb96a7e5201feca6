"""``olearn warmup [--algo a,b,...] [--jobs N] [--list]``

Compiles the numba kernels of the named learners (default: every registered one), or
loads them from the on-disk cache, so that later runs start at full speed: every input
layout (dense, CSR) and task, and the one-example calls on dicts.  Learners compile in
parallel, one process per CPU unless ``--jobs`` says otherwise.  ``pip install .``
already built the kernels of the main job and the quick starts; this compiles the rest.
"""
import os
import time


def add_parser(subparsers):
    p = subparsers.add_parser("warmup", help="compile the kernels ahead of time",
                              description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--algo", default=None, metavar="NAMES",
                   help="comma-separated learner names (default: all)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="learners compiled at once, each in its own process "
                        "(default: the number of CPUs)")
    p.add_argument("--list", action="store_true",
                   help="only list the registered learners and their kind")
    return p


def run(args):
    from ._common import check_algos, split_algos
    names = split_algos(args.algo) or None
    check_algos(names or ())                         # unknown names fail before any work
    from ..registry import available, learner_kind, warmup
    if args.list:
        for name in names or available():
            print(f"{name:<16} {learner_kind(name)}")
        return 0
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    jobs = args.jobs or _cpus()
    t0 = time.perf_counter()
    print(f"compiling the kernels of {len(names or available())} learners, "
          f"{jobs} at a time", flush=True)
    warmup(names, jobs=jobs,
           report=lambda name, seconds: print(f"{name:<16} {seconds:7.2f} s", flush=True))
    print(f"{'total':<16} {time.perf_counter() - t0:7.2f} s")
    return 0


def _cpus():
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1
