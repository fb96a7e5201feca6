"""``olearn warmup [--algo a,b,...] [--list]``

Compiles the numba kernels of the named learners (default: every registered one), or
loads them from the on-disk cache, so that later runs start at full speed.
"""
import time


def add_parser(subparsers):
    p = subparsers.add_parser("warmup", help="compile the kernels ahead of time",
                              description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--algo", default=None, metavar="NAMES",
                   help="comma-separated learner names (default: all)")
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
    t0 = time.perf_counter()
    times = warmup(names)
    for name, seconds in times.items():
        print(f"{name:<16} {seconds:7.2f} s")
    print(f"{'total':<16} {time.perf_counter() - t0:7.2f} s")
    return 0
