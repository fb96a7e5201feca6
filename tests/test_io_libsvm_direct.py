"""The one-pass LIBSVM path (``_fastparse.parse_csr`` through ``libsvm._direct``) against
the reference path it replaces (``_parse_block``, ``_check_indices``, ``_to_csr``):
the same chunks, bit for bit (labels, indptr, indices, values, dtypes, width), and the
same ``file:line`` error where a block is at fault."""
import warnings

import numpy as np
import pytest

from olearn.io import libsvm
from olearn.io.errors import DataFormatError
from test_io_fastparse import _long_number, _random_number


def _random_file(rng, rows, zero_based):
    """LIBSVM text with every decoy: unsorted and repeated indices (some summing to
    zero), explicit zeros, comments, qid tokens, blank lines, CRLF, long numbers."""
    low = 0 if zero_based else 1
    lines = []
    for _ in range(rows):
        feats = []
        for _ in range(int(rng.integers(0, 7))):
            i = int(rng.integers(low, 40))
            kind = rng.integers(10)
            v = ("0" if kind == 0 else "-0.0" if kind == 1 else _long_number(rng)
                 if kind == 2 else _random_number(rng))
            feats.append(f"{i}:{v}")
            if kind == 3:  # the same index again, cancelling
                feats.append(f"{i}:-{v.lstrip('+-')}" if not v.startswith("-")
                             else f"{i}:{v[1:]}")
        if rng.random() < 0.7:
            feats.sort(key=lambda t: int(t.split(":")[0]))
        qid = " qid:7" if rng.random() < 0.1 else ""
        tail = rng.choice(["", " # note 1:2", "\r", "  ", "\t"])
        lines.append(f"{_random_number(rng)}{qid} {' '.join(feats)}{tail}")
        if rng.random() < 0.1:
            lines.append(rng.choice(["", "   ", "# only a comment", "\r"]))
    if zero_based:
        lines.append("1 0:1")
    return "\n".join(lines) + rng.choice(["", "\n"])


def _reference_chunk(self, numbered):
    """``LibSVMReader._chunk`` as it was before the one-pass parse."""
    lineno, lines = numbered
    lines = bytes(lines)  # (a view of the mapped file)
    one_based = not self.zero_based
    width = None if self._growing else self.n_features
    block = libsvm._parse_block(lines, lineno, self.name, one_based, width)
    if len(block.labels) == 0:
        return None
    libsvm._check_indices(self.name, block, one_based, width)
    if width is None:
        width = int(block.indices.max()) + 1 - one_based if len(block.indices) else 1
    X = libsvm._to_csr(block.counts, block.indices - one_based, block.values, width,
                       self.dtype)
    return X, block.labels


def _read(path, monkeypatch, reference, **kw):
    with monkeypatch.context() as m, warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # float32's overflow to inf
        if reference:
            m.setattr(libsvm.LibSVMReader, "_chunk", _reference_chunk)
        else:  # every block must take the direct path (no silent fallback here)
            direct = libsvm._direct

            def strict(*args):
                out = direct(*args)
                assert out is not None
                return out
            m.setattr(libsvm, "_direct", strict)
        return list(libsvm.read_libsvm(path, **kw))


def _same(a, b):
    assert len(a) == len(b)
    for (X1, y1), (X2, y2) in zip(a, b):
        assert X1.shape == X2.shape and X1.dtype == X2.dtype
        for u, v in ((X1.indptr, X2.indptr), (X1.indices, X2.indices), (y1, y2)):
            assert u.dtype == v.dtype and np.array_equal(u, v)
        assert np.array_equal(X1.data.view(f"i{X1.data.itemsize}"),
                              X2.data.view(f"i{X2.data.itemsize}"))   # bit for bit
        assert X2.has_canonical_format
        X3 = X2.copy()
        X3.has_canonical_format = False       # the flag is true of the arrays
        X3.sum_duplicates()
        assert np.array_equal(X3.indices, X2.indices) and X3.nnz == X2.nnz


@pytest.mark.parametrize("zero_based", [False, True])
def test_one_pass_chunks_equal_the_reference_chunks(tmp_path, monkeypatch, zero_based):
    rng = np.random.default_rng(7 + zero_based)
    for trial in range(4):
        path = tmp_path / f"f{trial}.svm"
        path.write_bytes(_random_file(rng, int(rng.integers(1, 400)), zero_based).encode())
        for kw in ({"n_features": "grow"}, {}, {"n_features": 60},
                   {"n_features": "grow", "dtype": np.float32},
                   {"chunk_size": 7, "zero_based": zero_based}):
            kw.setdefault("chunk_size", int(rng.integers(5, 80)))
            _same(_read(path, monkeypatch, True, **kw), _read(path, monkeypatch, False, **kw))


@pytest.mark.parametrize("text, kw, line", [
    ("1 1:1\n1 2:1 0:3\n", {"zero_based": False}, 2),        # index 0, 1-based
    ("1 1:1\n\n# c\n1 2:1 9:3\n", {"n_features": 5}, 4),     # past the width
    ("1 3:1\n1 2147483648:1\n", {"n_features": "grow"}, 2),  # past int32
    ("1 3:1\n1 2:x\n", {"n_features": "grow"}, 2),            # not a number
    ("1 3:1\r\n1 -2:1\r\n", {"n_features": "grow"}, 2),       # negative
])
def test_faults_are_reported_at_the_same_line(tmp_path, monkeypatch, text, kw, line):
    path = tmp_path / "bad.svm"
    path.write_bytes(text.encode())
    messages = []
    for reference in (True, False):
        with monkeypatch.context() as m:
            if reference:
                m.setattr(libsvm.LibSVMReader, "_chunk", _reference_chunk)
            with pytest.raises(DataFormatError) as info:
                list(libsvm.read_libsvm(path, **kw))
        messages.append(str(info.value))
    assert messages[0] == messages[1] and f"bad.svm:{line}: " in messages[1]


def test_more_features_than_the_last_block_had_room_for(tmp_path, monkeypatch):
    """A block far denser than the one before it: parsed again with room for all."""
    sparse = "".join("1 1:1\n" for _ in range(50))
    dense = "".join("1 " + " ".join(f"{i}:1" for i in range(1, 30)) + "\n"
                    for _ in range(50))
    path = tmp_path / "f.svm"
    path.write_bytes((sparse + dense).encode())
    kw = {"chunk_size": 50, "n_features": "grow"}
    _same(_read(path, monkeypatch, True, **kw), _read(path, monkeypatch, False, **kw))


def test_too_many_rows_or_features_for_the_room_made_asks_for_more():
    from olearn.io._fastparse import parse_csr
    a = np.frombuffer(b"1 1:1 2:1\n-1 3:2\n", dtype=np.uint8)
    protos = (np.empty(0, np.int32), np.empty(0), True)
    assert parse_csr(a, 1, -1, 1, 100, *protos)[0] == 3
    assert parse_csr(a, 1, -1, 100, 2, *protos)[0] == 3
    status, labels, indptr, indices, values, highest, flags = parse_csr(a, 1, -1, 2, 3,
                                                                        *protos)
    assert status == 0 and labels.tolist() == [1, -1] and indptr.tolist() == [0, 2, 3]
    assert indices.tolist() == [0, 1, 2] and values.tolist() == [1, 1, 2] and highest == 3


def test_the_search_for_index_zero_finds_what_a_regular_expression_finds():
    import re
    from olearn.io._fastparse import zero_token
    pattern = re.compile(rb"0(?<=[ \t\r\x0b\x0c]0)")   # a 0 after whitespace
    rng = np.random.default_rng(3)
    for trial in range(3000):
        b = bytes(rng.choice(list(b" \t\r0\n1:\x0b\x0c"), int(rng.integers(1, 40))))
        if trial % 100 == 0:   # past the 64 KB the search tests at once
            b = b"1:1 " * int(rng.integers(16000, 40000)) + b
        at = int(rng.integers(1, len(b) + 1))
        m = pattern.search(b, at)
        assert zero_token(np.frombuffer(b, np.uint8), at) == (m.start() if m else -1)


def test_blocks_of_a_mapped_file_are_the_blocks_read(tmp_path):
    """``line_blocks`` of a file mapped into memory (views), read in pieces, and split
    line by line: the same blocks (a byte-order mark removed, a last line without its
    newline kept)."""
    import io

    from olearn.io._source import Source, _line_blocks, chunks
    rng = np.random.default_rng(5)
    for trial in range(6):
        lines = [b"x" * int(rng.integers(0, 30)) + b"\n" for _ in range(int(rng.integers(0, 300)))]
        body = (b"\xef\xbb\xbf" if trial % 2 else b"") + b"".join(lines) + \
            (b"tail" if trial % 3 else b"")
        path = tmp_path / f"f{trial}"
        path.write_bytes(body)
        for size in (1, 7, 100, 1000):
            split = [(k, b"".join(block)) for k, block in chunks(Source(path).lines(), size)]
            assert [(k, bytes(b)) for k, b in Source(path).line_blocks(size, views=True)] \
                == split
            assert list(Source(path).line_blocks(size)) == split
            # pieces far smaller than a block, then far larger (a piece shared by blocks)
            for read in (lambda n, f=io.BytesIO(body): f.read(7),
                         lambda n, f=io.BytesIO(body): f.read(1 << 20)):
                cut = [(k, bytes(b)) for k, b in _line_blocks(read, size, 1, "x")]
                assert b"".join(b for _, b in cut) == body.removeprefix(b"\xef\xbb\xbf")
                assert cut == split
