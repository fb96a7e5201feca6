"""``olearn train 'data/part-*.svm' --algo pa1 --workers 4 --epochs 3``: training on
Dask (``olearn.distributed``), one shard per file, on a local cluster of ``--workers``
single-threaded workers (threads of this process, which share its loaded kernels and
start at once; ``--processes`` for worker processes) or a running one (``--scheduler
tcp://host:8786``); the result is an ordinary model file.  Fewer files than workers:
each LIBSVM or Vowpal Wabbit file is cut at line ends into parts
(``olearn.distributed.split``), so ``olearn train big.svm --workers 2`` uses both.
Each step is said on stderr as it starts; the summary gives the progressive mistake
rate (or errors) as the serial command does, each row answered by its shard's model
before it learned the row."""
import math
import os
import sys
import time

from ._common import CLIError, check_writable, report_stream
from ._input import csv_options, data_format
from ._models import initial_model

MIXINGS = ("ipm", "average", "stream")


def add_args(parser):
    g = parser.add_argument_group(
        "distributed (olearn.distributed, on Dask: DATA may be a quoted glob of shards, "
        "one per file)")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="learn on a local Dask cluster of N single-threaded workers "
                        "(threads of this process: olearn's kernels release the GIL)")
    g.add_argument("--processes", action="store_true",
                   help="with --workers: worker processes instead of threads (each "
                        "loads the kernels; slower to start)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="learn on a running Dask cluster (tcp://host:8786)")
    g.add_argument("--mixing", choices=MIXINGS, default="ipm",
                   help="ipm: a pass per shard from the last mix, mixed after each epoch "
                        "(default); average: one mix at the end; stream: a mix every "
                        "--mix-every rows of each shard")
    g.add_argument("--epochs", type=int, default=None, metavar="N",
                   help="epochs of the distributed run (default 1)")
    g.add_argument("--mix-every", type=int, default=None, metavar="N",
                   help="--mixing stream: rows of each shard between mixes")
    g.add_argument("--mix-weights", choices=("count", "uniform"), default="count",
                   help="members weighted by the rows they learned (default) or equally")


def wanted(args):
    """True when the command line asks for a distributed run; options that belong to
    one fail here without one."""
    if args.workers is not None or args.scheduler:
        return True
    for flag, value in (("--epochs", args.epochs), ("--mix-every", args.mix_every),
                        ("--mixing", None if args.mixing == "ipm" else args.mixing)):
        if value is not None:
            raise CLIError(f"{flag} is for a distributed run (--workers N or --scheduler "
                           "ADDRESS); on one machine use --passes")
    return False


def run(args, params):
    """Train on Dask and save the model; returns the exit code."""
    if args.workers is not None and args.scheduler:
        raise CLIError("give --workers (a local cluster) or --scheduler (a running one), "
                       "not both")
    if args.workers is not None and args.workers < 1:
        raise CLIError(f"--workers must be >= 1, got {args.workers}")
    if args.processes and args.workers is None:
        raise CLIError("--processes is for a local cluster (--workers N)")
    if args.epochs is not None and args.epochs < 1:
        raise CLIError(f"--epochs must be >= 1, got {args.epochs}")
    if args.mixing == "stream" and (args.mix_every is None or args.mix_every < 1):
        raise CLIError("--mixing stream needs --mix-every N (N >= 1)")
    if args.mixing != "stream" and args.mix_every is not None:
        raise CLIError("--mix-every is for --mixing stream")
    for flag, bad in (("--scale", args.scale), ("--holdout", args.holdout),
                      ("--passes", args.passes != 1), ("--cache", args.cache)):
        if bad:
            raise CLIError(f"{flag} is not available with a distributed run")
    from ..io import is_stream
    if is_stream(args.data):
        raise CLIError("a distributed run reads files (one shard per file), not standard "
                       "input or a pipe")
    from ..distributed import shard_files
    try:
        files = shard_files(args.data)
    except FileNotFoundError as e:
        raise CLIError(str(e)) from None
    if args.chunk_size < 1:
        raise CLIError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    if args.model:
        check_writable(args.model, "model")
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise CLIError("a distributed run needs Dask: pip install 'olearn[dask]'") from None
    model = initial_model(args, params)
    options = _reader_options(args, files[0])
    from .. import distributed as D
    client = cluster = None
    t0 = time.perf_counter()
    say = _Steps(args.quiet)
    if args.scheduler:
        from distributed import Client
        say(f"connecting to the Dask scheduler {args.scheduler}")
        try:
            client = Client(args.scheduler, timeout=5)
        except OSError as e:
            raise CLIError(f"cannot reach the Dask scheduler {args.scheduler}: "
                           f"{str(e).splitlines()[0]}") from None
        n_workers = len(client.scheduler_info().get("workers", {}))
    else:
        n_workers = args.workers
        say(f"starting a local Dask cluster of {n_workers} "
            f"{'worker processes' if args.processes else 'worker threads'}")
        client, cluster = D.local_client(n_workers, processes=args.processes)
    try:
        files = _cut(files, n_workers, say, D)
        say(f"learning {len(files)} shards, {args.mixing} mixing, "
            f"{args.epochs or 1} epoch{'s' if (args.epochs or 1) > 1 else ''}")
        result = D.run(model, files, client=client, mixing=args.mixing,
                       epochs=args.epochs or 1, mix_every=args.mix_every,
                       weights=args.mix_weights, progress=None if not args.quiet else False,
                       progressive=True, **options)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    where = args.scheduler or (f"a local cluster of {args.workers} "
                               f"{'worker processes' if args.processes else 'worker threads'}")
    out = report_stream()       # stdout on a terminal, else stderr
    print(f"finished: {args.algo or type(model).__name__} on {len(files)} shards "
          f"({args.data}), {args.mixing} mixing on {where}", file=out)
    print(f"rows = {result.rows:,} (all epochs)", file=out)
    scored = result.progressive
    if scored and scored["rows"]:
        n = scored["rows"]
        if scored["task"] == "classification":
            print(f"mistake rate = {scored['mistakes'] / n:.6f} ({scored['mistakes']:,} "
                  "mistakes; each row answered by its shard's model before it learned "
                  "it)", file=out)
        else:
            print(f"squared error = {scored['squared'] / n:.6g}, absolute error = "
                  f"{scored['absolute'] / n:.6g} (means; each row answered by its "
                  "shard's model before it learned it)", file=out)
    print(f"rounds = {result.rounds}, workers = {result.workers}", file=out)
    print(f"time = {time.perf_counter() - t0:.3f} s (cluster start included; "
          f"{result.seconds:.3f} s learning and mixing)", file=out)
    if args.model:
        from . import _pipeline
        _pipeline.save(result.model, args.model, args)
        print(f"model saved to {args.model}", file=out)
    out.flush()
    return 0


class _Steps:
    """One stderr line as each step of a distributed run starts (not with --quiet)."""

    def __init__(self, quiet):
        self.quiet = quiet
        self.t0 = time.perf_counter()

    def __call__(self, text):
        if not self.quiet:
            print(f"olearn: {text} ({time.perf_counter() - self.t0:.1f} s)",
                  file=sys.stderr, flush=True)


def _cut(files, workers, say, D):
    """Fewer files than workers: each file cut into parts (where its format allows),
    so that every worker has a shard."""
    if not workers or len(files) >= workers:
        return files
    per = math.ceil(workers / len(files))
    out = []
    for f in files:
        out.extend(D.split(f, per) if not isinstance(f, D.Part) else [f])
    if len(out) > len(files):
        say(f"{len(files)} file{'s' if len(files) > 1 else ''} cut at line ends into "
            f"{len(out)} shards, one or more a worker")
    elif workers > 1:
        say(f"{len(files)} shard{'s' if len(files) > 1 else ''} for {workers} workers "
            "(a compressed, CSV or small file is not cut): some workers stay idle")
    return out


def _reader_options(args, first):
    fmt = data_format(argparse_like(args, first))
    out = {"format": fmt, "chunk_size": args.chunk_size}
    if fmt == "libsvm":
        if args.n_features is not None:
            out["n_features"] = args.n_features
        out["zero_based"] = {"auto": "auto", "yes": True, "no": False}[args.zero_based]
    elif fmt in ("vw", "text"):
        out["n_bits"] = args.bits if args.bits is not None else 18
        if fmt == "vw":
            out.update(quadratic=args.quadratic, cubic=args.cubic, ignore=args.ignore)
        else:
            out["ngram"] = args.ngram
    elif fmt == "csv":
        out.update(csv_options(argparse_like(args, first)))
    else:
        raise CLIError(f"--format {fmt} cannot be read by a distributed run")
    return out


def argparse_like(args, path):
    """``args`` with DATA one shard's path (formats and CSV options are per file)."""
    import argparse
    copy = argparse.Namespace(**vars(args))
    copy.data = os.fspath(path)
    return copy
