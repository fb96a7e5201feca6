"""Input readers for online learning.

* ``read_libsvm``/``load_libsvm``: LIBSVM/svmlight sparse text, streamed in
  CSR chunks or read whole.
* ``read_csv``/``load_csv``: dense delimited text (CSV, TSV, whitespace).
* ``read_vw``/``load_vw``: the Vowpal Wabbit text format, hashed as ``vw`` hashes it.
* ``read_text``, ``TextHasher``, ``TextPipeline``: raw ``label<TAB>text`` lines and
  strings to hashed token (and n-gram) counts.
* ``read_conllu``/``write_conllu``: CoNLL-U (Universal Dependencies) sentences and
  one column of tags, for sequence labelling (``olearn.structured``); ``read_conll``:
  CoNLL-2000-style columns (``word POS chunk``).
* ``olearn.io.hashing``: MurmurHash3 (as scikit-learn and Vowpal Wabbit), ``DictHasher``.
* ``Vocabulary``, ``dicts_to_csr``, ``hash_dicts``: feature dicts (one example
  as ``{name: value}``) to column indices.
* ``read_arff``: ARFF files of multilabel data (dense and sparse, MEKA's ``-C N`` or Mulan's XML
  label file, ``labels_xml=``).
* ``read_libsvm_multilabel``/``load_libsvm_multilabel``, ``read_vw_multilabel``/
  ``load_vw_multilabel``: label sets (``1,4,7 3:0.5 ...``) and VW ``--csoaa`` costs.
* ``DataFormatError``: malformed input, reported as ``path:line: reason``.

The ``load_*`` functions read a whole file as the command line reads it: a plain file
is mapped, blocks of its lines go in one compiled pass each, two at a time on two
cores, and the blocks are joined once.

Readers accept plain, gzip, bzip2 and xz files, ``"-"`` for stdin, and file
objects; ``is_stream(path)`` says whether a path is read once, as it comes (``"-"``,
a pipe such as ``<(zcat f)``).  A reader parses blocks in two threads;
``with parse_threads(1):`` makes the readers started in this thread use one (a worker
of a cluster whose cores are its workers').
"""

from .arff import read_arff
from .conll import read_conll
from .conllu import CoNLLU, read_conllu, write_conllu
from .csv import CSVReader, load_csv, read_csv
from .dicts import Vocabulary, dicts_to_csr, hash_dicts
from .errors import DataFormatError
from .labelsets import (load_libsvm_multilabel, load_vw_multilabel, read_libsvm_multilabel,
                        read_vw_multilabel)
from .libsvm import LibSVMReader, load_libsvm, read_libsvm
from .text import TextHasher, TextPipeline, TextReader, read_text
from .vw import VWReader, load_vw, read_vw
from ._source import is_stream, parse_threads

__all__ = [
    "DataFormatError",
    "read_libsvm", "load_libsvm", "LibSVMReader",
    "read_csv", "load_csv", "CSVReader",
    "read_arff",
    "read_libsvm_multilabel", "load_libsvm_multilabel",
    "read_vw_multilabel", "load_vw_multilabel",
    "read_vw", "load_vw", "VWReader",
    "read_text", "TextReader", "TextHasher", "TextPipeline",
    "read_conllu", "write_conllu", "CoNLLU", "read_conll",
    "Vocabulary", "dicts_to_csr", "hash_dicts",
    "is_stream", "parse_threads",
]
