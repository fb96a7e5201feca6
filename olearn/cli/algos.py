"""``olearn algos [NAME ...]``

Lists every registered learner (or those named): its name, kind, class and a one-line
description, then each parameter with its default and one-line meaning (from the
class's docstring).  Any of them can be set with '--param KEY=VALUE' in train and
evaluate; 'olearn train --algo NAME --help' shows the same for one learner.  Without
names, the other kinds of models follow (recommenders, portfolio strategies, drift
detectors), one line of names each.
"""


def add_parser(subparsers):
    p = subparsers.add_parser("algos", help="list the learners and their parameters",
                              description=__doc__.split("\n\n", 1)[1])
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only these learners (default: every registered one)")
    p.add_argument("--names-only", action="store_true",
                   help="one name per line, nothing else")
    return p


def run(args):
    from ..registry import describe, names
    from ._common import check_algos, format_description
    others = _other_names()
    check_algos([n for n in args.names if n not in others])  # unknown names: at once
    chosen = args.names or names()
    if args.names_only:
        print("\n".join(chosen))
        return 0
    print("\n".join(format_description(_describe_other(name, others[name]) if name in others
                                        else describe(name)) for name in chosen), end="")
    if not args.names:
        print(other_kinds())
    return 0


def other_kinds():
    """The other kinds of models: ``kind: names`` and how to make one."""
    import textwrap
    from ..registry import other_models
    lines = ["", "other kinds of models:"]
    for kind, (what, names, how) in other_models().items():
        lines.extend(textwrap.wrap(f"{what}: {', '.join(names)}", width=96,
                                   initial_indent="  ", subsequent_indent="    ",
                                   break_on_hyphens=False))
        lines.append(f"    make one: {how}")
    return "\n".join(lines)


#: kind of OTHER_KINDS -> the function that makes one by name
_MAKERS = {"recommender": "olearn.recommend.evaluate:make_recommender",
           "portfolio": "olearn.portfolio:make", "detector": "olearn.drift:make",
           "model without a target": "olearn:make", "multilabel": "olearn:make",
           "sequence tagger": "olearn:make"}


def _other_names():
    """``{name: kind}`` of the recommenders, portfolio strategies and drift detectors."""
    from ..registry import other_models
    return {n: kind for kind, (_, names, _) in other_models().items() for n in names}


def _describe_other(name, kind):
    import importlib
    from ..registry import describe_class, lookup
    if _MAKERS[kind] == "olearn:make":   # a table of the registry: with its settings
        cls, defaults = lookup(name)
        return describe_class(name, cls, defaults, kind)
    module, _, attr = _MAKERS[kind].partition(":")
    cls = type(getattr(importlib.import_module(module), attr)(name))
    return describe_class(name, cls, {}, kind)
