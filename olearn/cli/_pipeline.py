"""The input pipeline a model file holds: how ``olearn train`` read its rows.

``train`` records the format and the reading options that change what a row becomes
(LIBSVM's index base, CSV's label column, header and separator, the hashing bits,
namespaces, interactions and n-grams of Vowpal Wabbit and text input, ``--scale``) in
the model file's metadata (``olearn.persistence.save(..., pipeline=...)``).
``predict``, ``evaluate --init`` and ``train --init`` read the file with them: an option
left at its default takes the recorded value, a given one that contradicts it is one
error line naming both.  A file without a record (olearn before this) reads as before.
The chunk size and the learner's options are not reading options: never recorded.
"""
from ._common import CLIError
from ._input import data_format, detect_format

#: the reading options of each format: (attribute of args, flag, parser default)
OPTIONS = {
    "libsvm": (("zero_based", "--zero-based", "auto"),),
    "csv": (("label", "--label", "-1"), ("header", "--header", "infer"),
            ("delimiter", "--delimiter", None)),
    "vw": (("bits", "-b", None), ("quadratic", "-q", []), ("cubic", "--cubic", []),
           ("ignore", "--ignore", [])),
    "text": (("bits", "-b", None), ("ngram", "--ngram", 1)),
    "ratings": (),
    "conllu": (("column", "--column", "upos"),),
    "arff": (),     # (multilabel: olearn/cli/_multilabel.py)
}
_ALL = {key: (flag, default) for options in OPTIONS.values()
        for key, flag, default in options}


def record(args, reader=None):
    """The input pipeline of this command: the format and its reading options as the
    reader resolved them (the index base a LIBSVM prescan found, a CSV's header)."""
    fmt = data_format(args)
    out = {"format": fmt}
    for key, _, default in OPTIONS.get(fmt, ()):
        value = getattr(args, key, default)
        if key == "bits":
            value = getattr(reader, "n_bits", None) or value or 18
        elif key == "zero_based" and hasattr(reader, "zero_based"):
            value = "yes" if reader.zero_based else "no"
        elif key == "header" and hasattr(reader, "has_header"):
            value = "yes" if reader.has_header else "no"
        elif key == "delimiter":
            value = _delimiter(value, args.data)
        elif isinstance(value, (list, tuple)):
            value = sorted(value)
        out[key] = value
    out["scale"] = bool(getattr(args, "scale", False))
    return out


def _delimiter(value, data):
    """A CSV separator in one spelling: ',', 'tab', 'space' or the character given."""
    if value is None:
        return "tab" if data is not None and ".tsv" in str(data).lower() else ","
    return {"\t": "tab", "\\t": "tab", "whitespace": "space"}.get(value, value)


def _same(key, given, recorded):
    if key == "delimiter":
        return _delimiter(given, None) == recorded
    if isinstance(given, (list, tuple)):
        return sorted(given) == sorted(recorded or [])
    return str(given) == str(recorded)


def describe(rec):
    """The record as the options that give it, e.g. ``--format vw -b 20 -q ab``."""
    words = [f"--format {rec.get('format')}"]
    for key, flag, default in OPTIONS.get(rec.get("format"), ()):
        value = rec.get(key)
        if isinstance(value, list):
            words += [f"{flag} {v}" for v in value]
        elif value is not None and value != default:
            words.append(f"{flag} {value}")
    if rec.get("scale"):
        words.append("--scale")
    return " ".join(words)


def _given(key, value):
    flag, default = _ALL[key]
    if isinstance(value, (list, tuple)):
        return f"{flag} {' '.join(value)}" if value else None
    return None if value == default or value is None else f"{flag} {value}"


def reuse(args, path, rec):
    """Read DATA as the model at ``path`` was trained (its record ``rec``): fill the
    options left at their defaults, refuse given ones that differ (one line, exit 2)."""
    if rec is None or args.data is None:
        return
    fmt = rec.get("format")
    if not isinstance(fmt, str) or fmt not in OPTIONS:
        raise CLIError(f"{path} was trained on {_api_input(rec)}, which the command line "
                       "does not read; use it from Python (olearn.load)")
    if rec.get("api") and (rec.get("signed") or rec.get("seed")):
        raise CLIError(f"{path} hashes its text with signed={rec.get('signed')}, seed="
                       f"{rec.get('seed')} (a TextPipeline); the command line hashes "
                       "unsigned with seed 0: use it from Python (olearn.load)")
    _check_record(path, rec)
    said = []
    if args.format != "auto":
        if args.format != fmt:
            said.append(f"--format {args.format}")
    elif args.data != "-" and detect_format(args.data) in ("csv", "vw") and \
            detect_format(args.data) != fmt:
        said.append(f"--format {detect_format(args.data)} (from the name "
                    f"{str(args.data).rsplit('/', 1)[-1]})")
    own = {key for key, _, _ in OPTIONS[fmt]}
    for key in _ALL:
        value = getattr(args, key, None)
        text = _given(key, value)
        if text is None:
            continue
        if key not in own or not _same(key, value, rec.get(key)):
            said.append(text)
    if said:
        raise CLIError(f"{path} was trained on {describe(rec)}; this command says "
                       f"{' '.join(said)}")
    args.format = fmt
    for key in own:
        if rec.get(key) is not None:
            setattr(args, key, list(rec[key]) if isinstance(rec[key], list) else rec[key])


def _check_record(path, rec):
    """Each recorded option of the type its reader takes (a tampered file: one line)."""
    for key, _, default in OPTIONS[rec["format"]]:
        value = rec.get(key)
        if key in ("bits", "ngram"):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(default, list):
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        else:
            ok = isinstance(value, str)
        if value is not None and not ok:
            raise CLIError(f"{path}: corrupt input pipeline ({key} = {str(value)[:40]!r})")


def _api_input(rec):
    return "feature dicts (a TextPipeline over a DictHasher)" if rec.get("format") == "dicts" \
        else f"input of format {str(rec.get('format'))[:20]!r}"


def load(path, args):
    """The model saved at ``path``, with DATA to be read as it was trained
    (:func:`reuse` applied to ``args``)."""
    from ..persistence import load as load_file
    model, rec = load_file(path, pipeline=True)
    reuse(args, path, rec)
    return model


def save(model, path, args, reader=None):
    """Save ``model`` to ``path`` with this command's input pipeline."""
    from ..persistence import save as save_file
    save_file(model, path, pipeline=record(args, reader))


def add_init_arg(parser):
    """``evaluate``'s ``--init MODEL``."""
    parser.add_argument("--init", metavar="MODEL", help="start from a model saved by "
                        "train, DATA read as its was (nothing is saved)")
