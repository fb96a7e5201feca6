"""Reading DATA: the input options every command that reads a file shares, the format
from the file name, the checks made before anything heavy is imported, and the reader
(LIBSVM, CSV, Vowpal Wabbit text, raw text) with its chunks checked.

Standard library only at import time (``olearn.io`` is imported when a file is opened).
"""
import os

from ._common import CLIError

CSV_SUFFIXES = (".csv", ".tsv", ".data")
VW_SUFFIXES = (".vw",)
_COMPRESSED = (".gz", ".bz2", ".xz")
FORMATS = ("auto", "libsvm", "csv", "vw", "text", "ratings", "conllu")
CONLLU_SUFFIXES = (".conllu",)


def detect_format(path):
    """"csv" for .csv/.tsv/.data, "vw" for .vw, "conllu" for .conllu (compressed or
    not), else "libsvm" (raw text is read only when asked: --format text)."""
    name = os.fspath(path).lower()
    for suffix in _COMPRESSED:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
    if name.endswith(VW_SUFFIXES):
        return "vw"
    if name.endswith(CONLLU_SUFFIXES):
        return "conllu"
    return "csv" if name.endswith(CSV_SUFFIXES) else "libsvm"


def add_data_args(parser, data_required=True):
    # DATA or Vowpal Wabbit's -d FILE (olearn/cli/_shell.py checks that one is given)
    parser.add_argument("data", metavar="DATA", nargs="?",
                        help="LIBSVM file; CSV for names ending in .csv/.tsv/.data; Vowpal "
                             "Wabbit text for .vw (.gz/.bz2/.xz read as they are; '-' reads "
                             "stdin)")
    parser.set_defaults(data_required=data_required)
    g = parser.add_argument_group("input")
    g.add_argument("-d", "--data", dest="data_flag", metavar="FILE", default=None,
                   help="the data, as Vowpal Wabbit's -d (instead of DATA)")
    g.add_argument("--format", choices=FORMATS, default="auto",
                   help="file format (default: from the file name); vw: Vowpal Wabbit text "
                        "'label [importance] [\'tag]|ns feature[:value] ...'; text: "
                        "'label<TAB>raw text' lines, tokens hashed; ratings: 'user item "
                        "rating [timestamp]' lines, replayed in timestamp order "
                        "(evaluate --algo baseline|funk-mf|biased-mf|online-pmf|brand-svd); "
                        "conllu: CoNLL-U sentences for a sequence tagger (--task tag)")
    g.add_argument("--chunk-size", type=int, default=10_000, metavar="N",
                   help="rows read and learned at a time (default 10000)")
    g.add_argument("--n-features", type=int, default=None, metavar="N",
                   help="LIBSVM: number of features (default: the largest index in the "
                        "file; on standard input the model grows as new indices appear)")
    g.add_argument("--zero-based", choices=("auto", "yes", "no"), default="auto",
                   help="LIBSVM: index base (default: 0-based if an index 0 occurs, "
                        "which a first pass over a file finds; given, a file is read "
                        "once and the model grows with the indices)")
    g.add_argument("--label", default="-1", metavar="COL",
                   help="CSV: label column, index or name (default -1, the last)")
    g.add_argument("--column", default="upos", metavar="NAME",
                   help="CoNLL-U: the column of tags (default upos; xpos, deprel, ... or "
                        "an index 0-9)")
    g.add_argument("--header", choices=("infer", "yes", "no"), default="infer",
                   help="CSV: first line is a header (default: inferred)")
    g.add_argument("--delimiter", default=None, metavar="SEP",
                   help="CSV: field separator (default ',' or tab for .tsv; 'space' for "
                        "runs of whitespace)")
    g.add_argument("-b", "--bits", type=int, default=None, metavar="N",
                   help="vw, text: hash features into 2**N columns (default 18, or the "
                        "saved model's width)")
    g.add_argument("-q", "--quadratic", action="append", default=[], metavar="AB",
                   help="vw: pair the features of namespaces A and B (first letters), "
                        "repeatable")
    g.add_argument("--cubic", action="append", default=[], metavar="ABC",
                   help="vw: triples of namespaces A, B and C, repeatable")
    g.add_argument("--ignore", action="append", default=[], metavar="NS",
                   help="vw: drop the namespaces starting with these letters, repeatable")
    g.add_argument("--ngram", type=int, default=1, metavar="N",
                   help="text: also hash runs of 2..N consecutive tokens (default 1)")


def csv_options(args):
    label = args.label
    try:
        label = int(label)
    except ValueError:
        pass
    header = {"infer": "infer", "yes": True, "no": False}[args.header]
    delim = args.delimiter
    if delim is None:
        delim = "\t" if ".tsv" in os.fspath(args.data).lower() else ","
        _check_delimiter(args.data, delim)
    elif delim in ("space", "whitespace"):
        delim = None
    elif delim in ("tab", "\\t"):
        delim = "\t"
    return dict(label=label, header=header, delimiter=delim)


def _first_line(path, size=1 << 16):
    """The start of the first line of a (maybe compressed) file, as text; "" if it
    cannot be read here (standard input: the reader reports its own errors)."""
    if path in (None, "-") or not os.path.isfile(path):
        return ""
    import bz2
    import gzip
    import lzma
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(os.fspath(path))[1].lower(), open)
    try:
        with opener(path, "rb") as f:
            return f.readline(size).decode("utf-8", "replace")
    except (OSError, EOFError, lzma.LZMAError):
        return ""


def _check_delimiter(path, delim):
    """A CSV whose first line has no ``delim`` but another usual separator: say which
    option reads it (a semicolon file gave scikit-learn's "0 feature(s)")."""
    line = _first_line(path)
    if not line.strip() or delim in line:
        return
    for other, option in ((";", "';'"), ("\t", "tab"), ("|", "'|'")):
        if other != delim and other in line:
            raise CLIError(f"{path}: the first line has no {delim!r} but has {other!r}: "
                           f"use --delimiter {option}")


def data_format(args):
    """The format DATA is read in: --format, else from the file name."""
    fmt = getattr(args, "format", "auto")
    return fmt if fmt != "auto" else detect_format(args.data)


def hash_bits(args, n_features):
    """--bits, else the saved model's width when it is a power of two, else 18."""
    bits = getattr(args, "bits", None)
    if bits is not None:
        if not 1 <= bits <= 31:
            raise CLIError(f"--bits must be from 1 to 31, got {bits}")
        if n_features is not None and n_features != 1 << bits:
            raise CLIError(f"--bits {bits} gives {1 << bits} columns but the model has "
                           f"{n_features}")
        return bits
    if n_features is not None:
        if n_features < 2 or n_features & (n_features - 1):
            raise CLIError(f"the model has {n_features} features, not a power of two: it "
                           "was not trained on hashed features")
        return n_features.bit_length() - 1
    return 18


def require_data(args):
    """Fail at once if DATA is not there or an input option is wrong (before anything
    heavy is imported)."""
    path = args.data
    if path is not None and path != "-" and not os.path.exists(path):
        from .._datadirs import named     # (standard library only)
        there = named(path)
        raise CLIError(f"{path}: no such file" +
                       (f"; the data folder has {path} at {there}" if there else ""))
    if getattr(args, "chunk_size", 1) < 1:
        raise CLIError(f"--chunk-size must be >= 1, got {args.chunk_size}")
    bits = getattr(args, "bits", None)
    if bits is not None and not 1 <= bits <= 31:
        raise CLIError(f"--bits must be from 1 to 31, got {bits}")
    if not 1 <= getattr(args, "ngram", 1) <= 8:
        raise CLIError(f"--ngram must be from 1 to 8, got {args.ngram}")
    if path is not None:
        fmt = data_format(args)
        if fmt != "vw" and (getattr(args, "quadratic", None) or getattr(args, "cubic", None)
                            or getattr(args, "ignore", None)):
            raise CLIError(f"-q/--quadratic, --cubic and --ignore apply to --format vw, not "
                           f"{fmt}")
        if fmt != "text" and getattr(args, "ngram", 1) != 1:
            raise CLIError(f"--ngram applies to --format text, not {fmt}")
        if fmt not in ("vw", "text") and bits is not None:
            raise CLIError(f"--bits applies to --format vw or text, not {fmt}")


def open_data(args, n_features=None, weights=False):
    """A reader over ``args.data``: iterate to get ``(X_chunk, y_chunk)``, constant memory
    (with ``weights``, Vowpal Wabbit input gives ``(X_chunk, y_chunk, importance)``).

    ``n_features`` (a saved model's width) overrides ``--n-features``; a LIBSVM file
    with fewer features is padded, one with more fails on the line that has them.  For
    vw and text input the width is ``2**--bits`` (by default the model's width).
    """
    from .. import io
    path = args.data
    require_data(args)
    fmt = data_format(args)
    if fmt == "csv":
        return io.read_csv(path, chunk_size=args.chunk_size, **csv_options(args))
    if fmt == "vw":
        return io.read_vw(path, n_bits=hash_bits(args, n_features),
                          quadratic=args.quadratic, cubic=args.cubic,
                          ignore=args.ignore, chunk_size=args.chunk_size,
                          sample_weight=weights)
    if fmt == "text":
        return io.read_text(path, n_bits=hash_bits(args, n_features), ngram=args.ngram,
                            chunk_size=args.chunk_size)
    width = n_features if n_features is not None else args.n_features
    zero = {"auto": "auto", "yes": True, "no": False}[args.zero_based]
    if width is None:
        width = "grow"  # no first pass for the width: the model widens as rows come
    return io.read_libsvm(path, chunk_size=args.chunk_size, n_features=width,
                          zero_based=zero)


def checked_chunks(reader):
    """``(X, y, weights)`` of each of the reader's chunks (``weights`` None where every
    row weighs 1), with non-finite labels of a stream reported clearly."""
    import numpy as np
    for chunk in reader:
        X, y = chunk[0], chunk[1]
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise CLIError(f"{reader_name(reader)}: a label is NaN or infinite (or missing)")
        weights = chunk[2] if len(chunk) > 2 else None   # Vowpal Wabbit importance
        yield X, y, (None if weights is None or np.all(weights == 1) else weights)


def reader_name(reader):
    return getattr(reader, "name", None) or getattr(reader, "path", "data")
