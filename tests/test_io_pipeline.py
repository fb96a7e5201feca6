"""The input pipeline: read-ahead in a thread (same chunks, same order, errors where they
happen, a bounded queue) and the binary cache of repeated passes."""
import threading

import numpy as np
import pytest
import scipy.sparse as sp

from olearn.io import read_libsvm
from olearn.io.pipeline import cache_matches, cached, prefetch, read_cache, source_key


def _chunks(n=7, fail_at=None):
    rng = np.random.default_rng(0)
    for i in range(n):
        if i == fail_at:
            raise ValueError(f"bad chunk {i}")
        yield sp.random(5, 9, density=0.3, format="csr", random_state=rng), rng.random(5)


def _same(a, b):
    assert len(a) == len(b)
    for (Xa, ya, *wa), (Xb, yb, *wb) in zip(a, b):
        Xa = Xa.toarray() if sp.issparse(Xa) else Xa
        Xb = Xb.toarray() if sp.issparse(Xb) else Xb
        assert np.array_equal(Xa, Xb) and np.array_equal(ya, yb)
        assert len(wa) == len(wb) and all(np.array_equal(u, v) for u, v in zip(wa, wb))


def test_prefetch_gives_the_same_chunks_in_order():
    _same(list(prefetch(_chunks())), list(_chunks()))


def test_prefetch_raises_the_readers_error_after_the_earlier_chunks():
    got = []
    with pytest.raises(ValueError, match="bad chunk 3"):
        for chunk in prefetch(_chunks(fail_at=3)):
            got.append(chunk)
    assert len(got) == 3


def test_prefetch_reads_at_most_depth_chunks_ahead_and_stops_with_the_consumer():
    produced = []

    def counting():
        for i in range(100):
            produced.append(i)
            yield i
    it = prefetch(counting(), depth=2)
    assert next(it) == 0
    threading.Event().wait(0.3)
    assert len(produced) <= 1 + 2 + 1  # the one taken, the queue, the one being put
    it.close()  # the consumer stops: the thread ends
    assert not any(t.name == "olearn-prefetch" and t.is_alive()
                   for t in threading.enumerate())
    with pytest.raises(ValueError, match="depth"):
        next(prefetch(iter(()), depth=0))


def test_cache_round_trip_sparse_and_dense(tmp_path):
    path = tmp_path / "c.cache"
    key = {"source": "x", "options": {"a": 1}}
    chunks = list(_chunks()) + [(np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0]))]
    _same(list(cached(iter(chunks), path, key)), chunks)
    assert cache_matches(path, key) and not cache_matches(path, {"source": "y"})
    _same(list(read_cache(path, key)), chunks)
    with pytest.raises(ValueError, match="not a complete olearn cache"):
        list(read_cache(path, {"source": "y"}))


def test_cache_keeps_importance_weights(tmp_path):
    path = tmp_path / "w.cache"
    chunks = [(X, y, np.linspace(0.5, 2.0, len(y))) for X, y in _chunks(3)]
    chunks.append((np.ones((2, 3)), np.array([1.0, -1.0]), np.array([3.0, 0.0])))
    chunks.append((np.ones((1, 3)), np.array([1.0])))            # an unweighted chunk
    _same(list(cached(iter(chunks), path, {"k": 1})), chunks)
    _same(list(read_cache(path, {"k": 1})), chunks)


def test_a_pass_that_fails_leaves_no_cache(tmp_path):
    path = tmp_path / "c.cache"
    with pytest.raises(ValueError, match="bad chunk 2"):
        list(cached(_chunks(fail_at=2), path, {"k": 1}))
    assert list(tmp_path.iterdir()) == []
    # a pass stopped early (the consumer breaks off) leaves none either
    gen = cached(_chunks(), path, {"k": 1})
    next(gen)
    gen.close()
    assert list(tmp_path.iterdir()) == []


def test_the_cache_of_a_libsvm_file_reads_back_its_chunks(tmp_path):
    src = tmp_path / "d.svm"
    src.write_text("1 1:0.5 3:2\n-1 2:1.25\n\n1 3:-1e-3 4:7\n" * 5)
    key = source_key(src, chunk_size=4)
    first = list(cached(read_libsvm(src, chunk_size=4), tmp_path / "d.cache", key))
    _same(list(read_libsvm(src, chunk_size=4)), first)
    _same(list(read_cache(tmp_path / "d.cache", key)), first)
    src.write_text("1 1:0.5\n")  # the source changed: its key no longer matches
    assert not cache_matches(tmp_path / "d.cache", source_key(src, chunk_size=4))


def test_line_blocks_are_the_lines_in_groups_whatever_the_pieces_read():
    """``_line_blocks`` cuts what a reader returns (in pieces of any size, as a pipe
    gives them) into blocks of exactly ``size`` lines, the same bytes as the lines
    joined in groups, a byte-order mark removed and a last line without a newline
    kept; the line numbers count from 1."""
    import io as _io

    from olearn.io._source import _line_blocks, chunks, split_lines
    rng = np.random.default_rng(0)
    for trial in range(200):
        lines = [b"x" * int(rng.integers(0, 300)) for _ in range(int(rng.integers(0, 300)))]
        body = b"\n".join(lines) + (b"\n" if rng.random() < 0.5 else b"")
        data = (b"\xef\xbb\xbf" if rng.random() < 0.3 else b"") + body
        size = int(rng.integers(1, 40))
        step = int(rng.integers(1, 5000))
        f = _io.BytesIO(data)
        got = list(_line_blocks(lambda k: f.read(min(k, step)), size, 1, "t"))
        want = [(k, b"".join(group)) for k, group in chunks(iter(split_lines(body)), size)]
        assert got == want, trial


def test_ordered_map_keeps_the_order_raises_in_place_and_reads_little_ahead():
    """The reader's parallel map: results in the order of the items, an exception at
    its own item after every earlier result, and at most ``workers`` items taken
    ahead of the result given back."""
    import time as _time

    from olearn.io._source import ordered_map
    taken = []

    def items():
        for k in range(40):
            taken.append(k)
            yield k

    def slow_square(k):
        _time.sleep(0.002 * (k % 3))  # later items may finish first
        return k * k

    got = []
    for k, value in enumerate(ordered_map(slow_square, items(), workers=2)):
        assert len(taken) <= k + 2
        got.append(value)
    assert got == [k * k for k in range(40)]

    def fail_at_7(k):
        if k == 7:
            raise ValueError("bad block 7")
        return k

    seen = []
    with pytest.raises(ValueError, match="bad block 7"):
        for value in ordered_map(fail_at_7, range(20), workers=2):
            seen.append(value)
    assert seen == list(range(7))
    assert list(ordered_map(str, range(5), workers=1)) == ["0", "1", "2", "3", "4"]
