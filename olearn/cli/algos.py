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
    check_algos(args.names)                     # unknown names fail before any work
    chosen = args.names or names()
    if args.names_only:
        print("\n".join(chosen))
        return 0
    print("\n".join(format_description(describe(name)) for name in chosen), end="")
    if not args.names:
        print(other_kinds())
    return 0


def other_kinds():
    """The other kinds of models: ``kind: names`` and how to make one."""
    import textwrap
    from ..registry import other_models
    lines = ["", "other models (not for 'olearn train'):"]
    for kind, (what, names, how) in other_models().items():
        lines.extend(textwrap.wrap(f"{what}: {', '.join(names)}", width=96,
                                   initial_indent="  ", subsequent_indent="    ",
                                   break_on_hyphens=False))
        lines.append(f"    make one: {how}")
    return "\n".join(lines)
