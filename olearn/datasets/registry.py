"""The standard LIBSVM benchmark sets by name: download, cache, check, load as CSR.

``load("a9a")`` returns ``(X, y)``: ``X`` a ``scipy.sparse.csr_matrix`` (float64) and
``y`` a float vector of labels (or targets), from the first of these places that has
the file:

1. the local mirror named by ``OLEARN_DATA_MIRROR`` (or ``mirror=``): a folder laid out
   like the project's shared data folder (``a9a/a9a``, ``ijcnn1/ijcnn1.trn.bz2``, ...;
   see ``MIRROR`` in each entry), or holding the official file name at its top level
   or under ``<name>/``;
2. the cache folder (``data_home=``, else ``OLEARN_DATA_HOME``, else the platform cache
   directory: ``$XDG_CACHE_HOME/olearn/datasets`` or ``~/.cache/olearn/datasets`` on
   Linux, ``~/Library/Caches/olearn/datasets`` on macOS,
   ``%LOCALAPPDATA%/olearn/Cache/datasets`` on Windows), where each set has a folder
   holding its decompressed files;
3. the official address on the LIBSVM data site
   (https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/), downloaded with a
   progress bar on stderr, checked against the recorded size or SHA-256 when the
   registry knows them, decompressed (bz2, xz) into the cache, and then read.  The
   prefix can be redirected with ``base_url=`` or ``OLEARN_DATA_URL`` (an internal
   mirror over HTTP; the tests use a server on loopback).

Checksums are recorded only where they are known to describe the official file
(``a9a``, ``a9a.t``); other files are checked for being readable LIBSVM data of the
registered width.  A mismatch deletes the download and raises :class:`ChecksumError`.
Without a mirror, a cache or a network, :class:`DatasetUnavailable` says, in one line,
where to put the file by hand.

Parts: ``"train"``, ``"test"`` (where the set has one) and ``"all"`` (the parts
concatenated in that order, as LIBOL reports its results, e.g. the 141,691 rows of
ijcnn1).  Widths: every part of a set is read with the set's registered number of
features, so the train and test matrices line up.

Mirror files that are not the official files are converted on reading, as recorded
in their entry: the USPS digits (dense text with labels 0..9) get the official labels
1..10; California housing (CSV) gets the column order of LIBSVM's ``cadata``
(median income, housing median age, total rooms, total bedrooms, population,
households, latitude, longitude); its rows may come in another order than in the
official file.
"""
from __future__ import annotations

import bz2
import hashlib
import lzma
import os
import shutil
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["load", "fetch", "list_datasets", "loadable", "info", "add_dataset", "data_home",
           "Dataset", "RemoteFile", "ChecksumError", "DatasetUnavailable", "OFFICIAL_URL"]

#: price-relative sets of the online portfolio literature (``olearn.portfolio``)
PORTFOLIO_SETS = ("nyse_o", "nyse_n", "djia", "sp500", "tse", "msci")

#: The prefix of every official address.
OFFICIAL_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"

PARTS = ("train", "test")


class ChecksumError(ValueError):
    """A downloaded file does not match its recorded size or SHA-256."""


class DatasetUnavailable(OSError):
    """No mirror, no cached copy and no way to download: the message says what to do."""


@dataclass(frozen=True)
class RemoteFile:
    """One official file: its path under the LIBSVM data site, and what is known of it.

    ``sha256`` and ``size`` describe the file as downloaded (before decompression);
    ``None`` when not recorded.  ``mirror``: its path inside a mirror folder laid out
    like the project's shared data, and ``mirror_format``: how that copy is written
    (``"libsvm"``, ``"dense"``: ``label v1 .. vd`` per line, ``"csv-cadata"``).
    """
    path: str
    sha256: str | None = None
    size: int | None = None
    mirror: str | None = None
    mirror_format: str = "libsvm"

    @property
    def filename(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def local_name(self) -> str:
        """The decompressed name kept in the cache."""
        name = self.filename
        for ext in (".bz2", ".xz"):
            if name.endswith(ext):
                return name[:-len(ext)]
        return name


@dataclass(frozen=True)
class Dataset:
    """A registered data set: its task, its shape and its files by part."""
    name: str
    task: str                      # "binary", "multiclass" or "regression"
    n_features: int
    files: dict = field(default_factory=dict)   # part -> RemoteFile
    n_samples: dict = field(default_factory=dict)  # part -> rows
    n_classes: int | None = None
    source: str = ""

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(p for p in PARTS if p in self.files)


_DATASETS: dict[str, Dataset] = {}


def add_dataset(name: str, task: str, n_features: int, files: dict[str, Any],
                n_samples: dict[str, int] | None = None, n_classes: int | None = None,
                source: str = "") -> Dataset:
    """Register a data set (or replace one): ``files`` maps a part to a RemoteFile or
    to its path under the data site (``base_url`` or ``OLEARN_DATA_URL`` set another
    site).  Returns the :class:`Dataset`."""
    if task not in ("binary", "multiclass", "regression"):
        raise ValueError(f"task must be 'binary', 'multiclass' or 'regression', got {task!r}")
    files = {p: f if isinstance(f, RemoteFile) else RemoteFile(f) for p, f in files.items()}
    bad = sorted(set(files) - set(PARTS))
    if bad or "train" not in files:
        raise ValueError(f"files must have a 'train' part and only parts {PARTS}, got "
                         f"{sorted(files)}")
    ds = Dataset(name, task, int(n_features), files, dict(n_samples or {}), n_classes, source)
    _DATASETS[name] = ds
    return ds


def _f(path, sha256=None, size=None, mirror=None, mirror_format="libsvm"):
    return RemoteFile(path, sha256, size, mirror, mirror_format)


# ---------------------------------------------------------------- the registry
# Binary classification
add_dataset("a9a", "binary", 123, {
    "train": _f("binary/a9a", mirror="a9a/a9a", size=2329875,
                sha256="f5d5ffd8d865ff41328e7ee043e4b020816914ff6843ff15b98905ddbedce906"),
    "test": _f("binary/a9a.t", mirror="a9a/a9a.t", size=1164628,
               sha256="1f448a153f0320399a7e40836eb207655b0bde0f21fc941cc472193daa9f5de9")},
    {"train": 32561, "test": 16281}, 2, "UCI Adult (Platt 1998)")
add_dataset("w8a", "binary", 300, {
    "train": _f("binary/w8a", mirror="w8a/w8a"), "test": _f("binary/w8a.t")},
    {"train": 49749, "test": 14951}, 2, "Platt 1998")
add_dataset("ijcnn1", "binary", 22, {
    "train": _f("binary/ijcnn1.bz2", mirror="ijcnn1/ijcnn1.trn.bz2"),
    "test": _f("binary/ijcnn1.t.bz2", mirror="ijcnn1/ijcnn1.tst.bz2")},
    {"train": 49990, "test": 91701}, 2, "IJCNN 2001 challenge (Prokhorov)")
add_dataset("rcv1.binary", "binary", 47236, {
    "train": _f("binary/rcv1_train.binary.bz2"), "test": _f("binary/rcv1_test.binary.bz2")},
    {"train": 20242, "test": 677399}, 2, "RCV1 (Lewis et al. 2004)")
add_dataset("news20.binary", "binary", 1355191, {"train": _f("binary/news20.binary.bz2")},
            {"train": 19996}, 2, "20 Newsgroups, two groups (Keerthi and DeCoste 2005)")
add_dataset("real-sim", "binary", 20958, {"train": _f("binary/real-sim.bz2")},
            {"train": 72309}, 2, "SRAA (McCallum)")
add_dataset("covtype.binary", "binary", 54, {
    "train": _f("binary/covtype.libsvm.binary.scale.bz2")},
    {"train": 581012}, 2, "UCI Covertype, class 2 against the rest, scaled to [0, 1]")
add_dataset("webspam", "binary", 254, {
    "train": _f("binary/webspam_wc_normalized_unigram.svm.xz")},
    {"train": 350000}, 2, "Webb Spam Corpus, unigrams (Wang et al. 2012)")
add_dataset("url", "binary", 3231961, {"train": _f("binary/url_combined.bz2")},
            {"train": 2396130}, 2, "Malicious URLs (Ma et al. 2009)")
add_dataset("gisette", "binary", 5000, {
    "train": _f("binary/gisette_scale.bz2"), "test": _f("binary/gisette_scale.t.bz2")},
    {"train": 6000, "test": 1000}, 2, "NIPS 2003 feature selection challenge")
add_dataset("mushrooms", "binary", 112, {"train": _f("binary/mushrooms")},
            {"train": 8124}, 2, "UCI Mushroom")
add_dataset("phishing", "binary", 68, {"train": _f("binary/phishing")},
            {"train": 11055}, 2, "UCI Phishing Websites")
add_dataset("heart", "binary", 13, {
    "train": _f("binary/heart_scale", mirror="heart_scale/heart_scale")},
    {"train": 270}, 2, "Statlog Heart, scaled")
# Multiclass
add_dataset("mnist", "multiclass", 780, {
    "train": _f("multiclass/mnist.scale.bz2"), "test": _f("multiclass/mnist.scale.t.bz2")},
    {"train": 60000, "test": 10000}, 10, "MNIST (LeCun et al. 1998), scaled to [0, 1]")
add_dataset("usps", "multiclass", 256, {
    "train": _f("multiclass/usps.bz2", mirror="usps/zip.train.converted",
                mirror_format="dense"),
    "test": _f("multiclass/usps.t.bz2", mirror="usps/zip.test", mirror_format="dense")},
    {"train": 7291, "test": 2007}, 10, "USPS digits (Hull 1994); labels 1..10")
add_dataset("letter", "multiclass", 16, {
    "train": _f("multiclass/letter.scale", mirror="letter/letter.scale"),
    "test": _f("multiclass/letter.scale.t", mirror="letter/letter.scale.t")},
    {"train": 15000, "test": 5000}, 26, "Statlog Letter, scaled")
add_dataset("pendigits", "multiclass", 16, {
    "train": _f("multiclass/pendigits", mirror="pendigits/pendigits"),
    "test": _f("multiclass/pendigits.t", mirror="pendigits/pendigits.t")},
    {"train": 7494, "test": 3498}, 10, "UCI Pen-Based Digits")
add_dataset("sector", "multiclass", 55197, {
    "train": _f("multiclass/sector/sector.scale.bz2", mirror="sector/sector.scale.bz2"),
    "test": _f("multiclass/sector/sector.t.scale.bz2", mirror="sector/sector.t.scale.bz2")},
    {"train": 6412, "test": 3207}, 105, "Industry sector (McCallum; Rennie and Rifkin)")
add_dataset("news20", "multiclass", 62061, {
    "train": _f("multiclass/news20.bz2", mirror="news20/news20.converted.bz2"),
    "test": _f("multiclass/news20.t.bz2")},
    {"train": 15935, "test": 3993}, 20, "20 Newsgroups (Lang 1995), word counts")
# Regression
add_dataset("abalone", "regression", 8, {
    "train": _f("regression/abalone_scale", mirror="abalone/abalone.trn.bz2")},
    {"train": 4177}, None, "UCI Abalone, scaled")
add_dataset("cpusmall", "regression", 12, {
    "train": _f("regression/cpusmall", mirror="cpusmall/cpusmall.converted")},
    {"train": 8192}, None, "DELVE comp-activ")
add_dataset("cadata", "regression", 8, {
    "train": _f("regression/cadata", mirror="cal_housing/cal_housing.csv",
                mirror_format="csv-cadata")},
    {"train": 20640}, None, "California housing (Pace and Barry 1997)")


# ---------------------------------------------------------------- public API
def list_datasets(task: str | None = None) -> list[str]:
    """Registered names, sorted; ``task`` in {"binary", "multiclass", "regression"}."""
    return sorted(n for n, d in _DATASETS.items() if task is None or d.task == task)


def loadable() -> list[str]:
    """Every name :func:`load` takes, sorted: the registry's, ``"movielens-100k"``, the
    portfolio sets and the data folder's other sets (:mod:`olearn.datasets.folder`)."""
    from . import folder
    return sorted(set(_DATASETS) | {"movielens-100k"} | set(PORTFOLIO_SETS)
                  | set(folder.names()))


def info(name: str) -> Dataset:
    """The :class:`Dataset` record of a name, or a one-line KeyError."""
    if name not in _DATASETS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(list_datasets())}")
    return _DATASETS[name]


def data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """The cache folder: the argument, else ``OLEARN_DATA_HOME``, else the platform's."""
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get("OLEARN_DATA_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
        return base / "olearn" / "Cache" / "datasets"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "olearn" / "datasets"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "olearn" / "datasets"


def fetch(name: str, part: str = "train", data_home: str | None = None,
          mirror: str | None = None, base_url: str | None = None, download: bool = True,
          progress: bool | None = None, timeout: float = 60.0) -> Any:
    """Make the files of ``name`` available locally; return their paths.

    ``part``: "train", "test" or "all" (then a list of paths, one per part).
    A path points into the mirror (as stored there, maybe compressed or in another
    format) or into the cache (decompressed official file).  ``download=False`` only
    looks.  ``progress``: show a download bar on stderr (default: when stderr is a
    terminal).
    """
    ds = info(name)
    if part == "all":
        return [fetch(name, p, data_home, mirror, base_url, download, progress, timeout)
                for p in ds.parts]
    return _locate(ds, part, data_home, mirror, base_url, download, progress, timeout)[0]


def load(name: str, part: str = "train", data_home: str | None = None,
         mirror: str | None = None, base_url: str | None = None, download: bool = True,
         progress: bool | None = None, timeout: float = 60.0) -> Any:
    """``(X, y)`` of a registered set: X a CSR matrix with the set's width.

    ``part="all"`` stacks the parts (train first).  See :func:`fetch` for where the
    files come from.

    Two other kinds of data load by name too: ``"movielens-100k"`` gives an
    ``olearn.recommend.Ratings`` stream (users, items, ratings in timestamp order) and
    the portfolio sets (``"nyse_o"``, ``"nyse_n"``, ``"djia"``, ``"sp500"``, ``"tse"``,
    ``"msci"``) a (periods x assets) matrix of price relatives, from the mirror; and
    the data folder's other sets (:mod:`olearn.datasets.folder`: elec2, the SEA streams,
    weather, kdd99-http, spambase, reuters-moneyfx, sms-spam, mnist5k, the multilabel
    ARFF sets, ud-english-ewt) from the data folders.  :func:`loadable` lists every
    name; the data folder's own folder names are accepted as aliases.
    """
    from . import folder
    name = folder.ALIASES.get(name, name)
    if name not in _DATASETS and name not in loadable():
        raise KeyError(f"unknown dataset {name!r}; loadable: {', '.join(loadable())}")
    folder_set = folder.get(name)
    if folder_set is not None:  # the data folder's sets with no LIBSVM address
        return folder.load_folder_set(folder_set, part, mirror)
    if name == "movielens-100k":
        from .ratings import load_movielens100k
        return load_movielens100k(mirror=mirror, data_home=data_home, download=download)
    if name in PORTFOLIO_SETS:
        from ..portfolio import load_relatives
        from .._datadirs import find
        path = find(Path("portfolio") / f"{name}.csv", mirror)
        return load_relatives(path if path is not None else name)
    ds = info(name)
    parts = ds.parts if part == "all" else (part,)
    Xs, ys = [], []
    for p in parts:
        path, fmt = _locate(ds, p, data_home, mirror, base_url, download, progress, timeout)
        X, y = _read(path, fmt, ds.n_features)
        Xs.append(X)
        ys.append(y)
    if len(Xs) == 1:
        return Xs[0], ys[0]
    return sp.vstack(Xs, format="csr"), np.concatenate(ys)


# ---------------------------------------------------------------- where files come from
def _check_part(ds, part):
    if part not in ds.files:
        raise ValueError(f"{ds.name} has no part {part!r}; parts: "
                         f"{', '.join(ds.parts + ('all',))}")
    return ds.files[part]


def _mirror_dir(mirror):
    if mirror is None:
        mirror = os.environ.get("OLEARN_DATA_MIRROR") or None
    return None if mirror is None else Path(mirror).expanduser()


def _locate(ds, part, data_home_, mirror, base_url, download, progress, timeout):
    """(path, format) of one part, downloading it if needed."""
    rf = _check_part(ds, part)
    mdir = _mirror_dir(mirror)
    from .._datadirs import data_roots     # the mirror, the user's data folder, a checkout's
    for root in data_roots(mirror):
        if rf.mirror and (root / rf.mirror).is_file():
            return root / rf.mirror, rf.mirror_format
        for cand in (root / ds.name / rf.filename, root / rf.filename):
            if cand.is_file():
                _verify(cand, rf)
                return cand, "libsvm"
    folder = data_home(data_home_) / ds.name
    target = folder / rf.local_name
    if target.is_file():
        return target, "libsvm"
    url = _url(rf, base_url)
    if not download:
        raise DatasetUnavailable(_how_to_get(ds, rf, url, target, mdir, "not downloaded"))
    _download(ds, rf, url, target, mdir, progress, timeout)
    return target, "libsvm"


def _url(rf, base_url):
    base = base_url or os.environ.get("OLEARN_DATA_URL") or OFFICIAL_URL
    return base.rstrip("/") + "/" + rf.path


def _how_to_get(ds, rf, url, target, mdir, reason):
    from .._datadirs import user_data_dir
    where = f" or into the mirror {mdir}" if mdir is not None else \
        (f" or under {user_data_dir() / ds.name} (or set OLEARN_DATA_MIRROR to a folder "
         "holding it)")
    return (f"{ds.name} ({rf.filename}) is not available: {reason}. Download {url} by hand "
            f"and put it, decompressed, at {target}{where}")


def _download(ds, rf, url, target, mdir, progress, timeout):
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / (rf.filename + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            total = resp.headers.get("Content-Length")
            total = int(total) if total and total.isdigit() else rf.size
            bar = _Bar(f"{ds.name}: {rf.filename}", total, progress)
            digest = hashlib.sha256()
            got = 0
            with open(partial, "wb") as out:
                while True:
                    block = resp.read(1 << 16)
                    if not block:
                        break
                    out.write(block)
                    digest.update(block)
                    got += len(block)
                    bar.update(got)
            bar.close()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        partial.unlink(missing_ok=True)
        reason = getattr(exc, "reason", None) or exc
        raise DatasetUnavailable(_how_to_get(ds, rf, url, target, mdir,
                                             f"download failed ({reason})")) from None
    try:
        _check_digest(url, rf, got, digest.hexdigest())
        _decompress(partial, target, rf.filename)
    finally:
        partial.unlink(missing_ok=True)


def _check_digest(where, rf, size, sha):
    if rf.size is not None and size != rf.size:
        raise ChecksumError(f"{where}: got {size} bytes, expected {rf.size}: the file is "
                            "corrupt or has changed upstream; it was not kept")
    if rf.sha256 is not None and sha != rf.sha256:
        raise ChecksumError(f"{where}: SHA-256 {sha} does not match the recorded "
                            f"{rf.sha256}: the file is corrupt or has changed upstream; "
                            "it was not kept")


def _verify(path, rf):
    """Check a mirror copy under its official name."""
    if rf.sha256 is None and rf.size is None:
        return
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    _check_digest(str(path), rf, path.stat().st_size, digest.hexdigest())


def _decompress(src, target, filename):
    """Write ``src`` decompressed (by the official name's extension) to ``target``,
    atomically."""
    opener = bz2.open if filename.endswith(".bz2") else \
        lzma.open if filename.endswith(".xz") else open
    tmp = target.with_name(target.name + ".tmp")
    try:
        with opener(src, "rb") as fin, open(tmp, "wb") as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)
        os.replace(tmp, target)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise ChecksumError(f"{filename}: cannot decompress ({exc}): the download is "
                            "corrupt; it was not kept") from None
    finally:
        tmp.unlink(missing_ok=True)


class _Bar:
    """A one-line byte counter on stderr: ``name  12.3/45.6 MB  27%``."""

    def __init__(self, label, total, show):
        from .._progress import StatusLine
        self.label, self.total = label, total
        self.line = StatusLine(show, every=0.2)
        self.done = 0

    def update(self, done, force=False):
        self.done = done
        if not self.line.due(force):
            return
        mb = done / 1e6
        if self.total:
            pct = min(100, int(100 * done / self.total))
            text = f"{self.label}  {mb:.1f}/{self.total / 1e6:.1f} MB  {pct:3d}%"
        else:
            text = f"{self.label}  {mb:.1f} MB"
        self.line.write(text)

    def close(self):
        self.update(self.done, force=True)
        self.line.close()


# ---------------------------------------------------------------- reading
def _read(path, fmt, n_features):
    if fmt == "libsvm":
        from ..io import load_libsvm
        X, y = load_libsvm(str(path), n_features=n_features, zero_based=False)
        return sp.csr_matrix(X), np.asarray(y, dtype=np.float64)
    if fmt == "dense":
        return _read_dense_label_first(path, n_features, label_offset=1.0)
    if fmt == "csv-cadata":
        return _read_cal_housing(path)
    raise ValueError(f"unknown mirror format {fmt!r}")


def _read_dense_label_first(path, n_features, label_offset):
    """``label v1 .. vd`` per line (whitespace separated); every line must have d values.
    Read by ``olearn.io``'s CSV reader (the command line's compiled parse of a mapped
    file); a line of another length, or a value that is not a finite number, is a
    DataFormatError naming it."""
    import re
    from ..io import DataFormatError
    from ..io.csv import CSVReader
    reader = CSVReader(str(path), label=0, header=False, delimiter=None, chunk_size=50000)

    def wrong(line, found):
        return DataFormatError(str(path), line, f"expected a label and {n_features} "
                               f"values, found {found} numbers")
    if reader.n_fields not in (0, n_features + 1):
        raise wrong(reader._start, reader.n_fields)
    try:
        parts = list(reader)
    except DataFormatError as exc:
        found = re.fullmatch(r"expected \d+ fields, found (\d+)", exc.reason)
        if found:
            raise wrong(exc.line, int(found.group(1))) from None
        raise
    if not parts:
        return sp.csr_matrix((0, n_features)), np.zeros(0)
    y = np.concatenate([p[1] for p in parts])
    if y.dtype == object:   # the first label was not a number
        raise DataFormatError(str(path), reader._start, f"label {y[0]!r} is not a number")
    X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    return sp.csr_matrix(X), y + label_offset


_CADATA_COLUMNS = ("median_income", "housing_median_age", "total_rooms", "total_bedrooms",
                   "population", "households", "latitude", "longitude")


def _read_cal_housing(path):
    from ..io import DataFormatError, read_csv
    reader = read_csv(str(path), label="median_house_value", header=True, chunk_size=50000)
    missing = [c for c in _CADATA_COLUMNS if c not in reader.feature_names]
    if missing:
        raise DataFormatError(str(path), 1, f"missing column {missing[0]!r}")
    parts = list(reader)
    cols = [reader.feature_names.index(c) for c in _CADATA_COLUMNS]
    X = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, reader.n_features))
    y = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    return sp.csr_matrix(X[:, cols]), y
