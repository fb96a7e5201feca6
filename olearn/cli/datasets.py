"""``olearn datasets [list [--task T]] | fetch NAME [--part P]``

The standard LIBSVM benchmark sets by name.  ``list`` (the default) shows each set's
task, size and where it would come from: the local mirror (OLEARN_DATA_MIRROR), the
cache (OLEARN_DATA_HOME, default the platform cache folder) or the official LIBSVM
site.  ``fetch`` downloads a set into the cache (progress on stderr), checks it where
a checksum is known, decompresses it and prints the local paths.
"""
from ._common import CLIError


def add_parser(subparsers):
    p = subparsers.add_parser("datasets", help="list or download the LIBSVM benchmark sets",
                              description=__doc__.split("\n\n", 1)[1])
    p.add_argument("action", nargs="?", choices=("list", "fetch"), default="list",
                   help="list (default) or fetch")
    p.add_argument("name", nargs="?", metavar="NAME", help="dataset to fetch")
    p.add_argument("--task", choices=("binary", "multiclass", "regression"), default=None,
                   help="list only sets of this task")
    p.add_argument("--part", choices=("train", "test", "all"), default="all",
                   help="fetch: which part (default all)")
    p.add_argument("--data-home", default=None, metavar="DIR",
                   help="cache folder (default: OLEARN_DATA_HOME or the platform cache)")
    return p


def run(args):
    from ..datasets import registry
    if args.action == "list":
        if args.name:
            raise CLIError("list takes no NAME (did you mean 'fetch NAME'?)")
        return _list(registry, args)
    if not args.name:
        raise CLIError("fetch needs a dataset NAME (see 'olearn datasets list')")
    ds = registry.info(args.name)
    if args.part != "all" and args.part not in ds.files:
        raise CLIError(f"{ds.name} has no {args.part} part; parts: {', '.join(ds.parts)}")
    paths = registry.fetch(args.name, part=args.part, data_home=args.data_home)
    for path in paths if isinstance(paths, list) else [paths]:
        print(path)
    return 0


def _where(registry, ds, data_home):
    places = set()
    for part in ds.parts:
        try:
            path = registry.fetch(ds.name, part, data_home=data_home, download=False)
        except registry.DatasetUnavailable:
            places.add("remote")
            continue
        home = str(registry.data_home(data_home))
        places.add("cached" if str(path).startswith(home) else "mirror")
    order = ("mirror", "cached", "remote")
    return "+".join(p for p in order if p in places)


def _list(registry, args):
    names = registry.list_datasets(args.task)
    head = f"{'name':<15} {'task':<11} {'rows (train/test)':>19} {'features':>10} " \
           f"{'classes':>8}  {'where':<14} source"
    print(head)
    print("-" * len(head))
    for name in names:
        ds = registry.info(name)
        rows = "/".join(f"{ds.n_samples[p]:,}" for p in ds.parts if p in ds.n_samples)
        classes = "-" if ds.n_classes is None else str(ds.n_classes)
        print(f"{name:<15} {ds.task:<11} {rows:>19} {ds.n_features:>10,} {classes:>8}  "
              f"{_where(registry, ds, args.data_home):<14} {ds.source}")
    print(f"\ncache: {registry.data_home(args.data_home)}")
    return 0
