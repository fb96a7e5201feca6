"""The dataset registry: mirror, cache, download from a file server on loopback,
corrupt downloads, offline errors, and the ``olearn datasets`` command.

No outside network is used: downloads come from ``http.server`` in a thread on
127.0.0.1, and "offline" is a port nobody listens on.
"""
import bz2
import functools
import hashlib
import http.server
import os
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from olearn import _datadirs
from olearn.cli import main
from olearn.datasets import registry
from olearn.datasets.registry import (ChecksumError, DatasetUnavailable, RemoteFile,
                                      add_dataset, fetch, list_datasets, load)
from olearn.io import DataFormatError

from conftest import data_path

TINY = b"1 1:0.5 3:2\n-1 2:1\n1 1:-1 2:0.25 3:1\n-1\n"
TINY_X = np.array([[0.5, 0, 2], [0, 1, 0], [-1, 0.25, 1], [0, 0, 0]])
TINY_Y = np.array([1.0, -1, 1, -1])


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No data folder (no mirror, an empty user folder, and not the ``shared/data``
    beside this checkout, which holds a9a on the project's machines), no URL override;
    the cache in a temporary folder."""
    for var in ("OLEARN_DATA_MIRROR", "OLEARN_DATA_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OLEARN_DATA_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("OLEARN_DATA_DIR", str(tmp_path / "user-data"))
    monkeypatch.setattr(_datadirs, "checkout_data_dir", lambda: None)
    saved = dict(registry._DATASETS)
    yield
    registry._DATASETS.clear()
    registry._DATASETS.update(saved)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    """(root folder, base URL) of a file server on loopback."""
    root = tmp_path / "site"
    root.mkdir()
    handler = functools.partial(_Quiet, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def dead_url():
    """A loopback URL where nothing listens."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/"


def publish(root, rel, data):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def tiny_dataset(compressed=True, checked=True, size=True):
    data = bz2.compress(TINY) if compressed else TINY
    name = "binary/tiny.bz2" if compressed else "binary/tiny"
    rf = RemoteFile(name, sha256=hashlib.sha256(data).hexdigest() if checked else None,
                    size=len(data) if size else None)
    add_dataset("tiny", "binary", 3, {"train": rf}, {"train": 4}, 2, "test data")
    return data, rf


def assert_tiny(X, y):
    assert sp.isspmatrix_csr(X) and X.shape == (4, 3)
    np.testing.assert_array_equal(X.toarray(), TINY_X)
    np.testing.assert_array_equal(y, TINY_Y)


# ---------------------------------------------------------------- download and cache
def test_download_checks_decompresses_and_caches(server, tmp_path, capsys):
    root, url = server
    data, rf = tiny_dataset()
    publish(root, rf.path, data)
    X, y = load("tiny", base_url=url, progress=True)
    assert_tiny(X, y)
    assert "tiny.bz2" in capsys.readouterr().err            # the progress line
    cached = tmp_path / "cache" / "tiny" / "tiny"
    assert cached.read_bytes() == TINY                       # decompressed in the cache
    assert sorted(p.name for p in cached.parent.iterdir()) == ["tiny"]   # nothing else
    # the cache serves it now, with the server gone
    X, y = load("tiny", base_url=dead_url())
    assert_tiny(X, y)
    assert fetch("tiny", download=False) == cached


def test_env_url_and_data_home_parameter(server, tmp_path, monkeypatch):
    root, url = server
    data, rf = tiny_dataset(compressed=False)
    publish(root, rf.path, data)
    monkeypatch.setenv("OLEARN_DATA_URL", url)
    path = fetch("tiny", data_home=tmp_path / "elsewhere")
    assert path == tmp_path / "elsewhere" / "tiny" / "tiny"
    assert not (tmp_path / "cache").exists()


def test_checksum_mismatch_is_reported_and_nothing_is_kept(server, tmp_path):
    root, url = server
    data, rf = tiny_dataset()
    corrupt = bytearray(data)
    corrupt[-5] ^= 0xFF                                      # same size, other bytes
    publish(root, rf.path, bytes(corrupt))
    with pytest.raises(ChecksumError, match="SHA-256 .* does not match") as exc:
        load("tiny", base_url=url)
    assert "\n" not in str(exc.value)
    folder = tmp_path / "cache" / "tiny"
    assert not folder.exists() or list(folder.iterdir()) == []
    # a file of the wrong size is caught before its hash
    publish(root, rf.path, data + b"junk")
    with pytest.raises(ChecksumError, match="bytes, expected"):
        load("tiny", base_url=url)
    # the right file then downloads fine
    publish(root, rf.path, data)
    assert_tiny(*load("tiny", base_url=url))


def test_undecompressible_download_without_checksum(server, tmp_path):
    root, url = server
    _, rf = tiny_dataset(checked=False, size=False)
    publish(root, rf.path, b"BZh9 this is not bzip2 data")
    with pytest.raises(ChecksumError, match="cannot decompress"):
        load("tiny", base_url=url)
    assert not (tmp_path / "cache" / "tiny" / "tiny").exists()


def test_offline_errors_say_how_to_get_the_file(server, tmp_path):
    root, url = server
    _, rf = tiny_dataset()
    target = tmp_path / "cache" / "tiny" / "tiny"
    for base in (dead_url(), url):                           # no server; 404
        with pytest.raises(DatasetUnavailable) as exc:
            load("tiny", base_url=base)
        msg = str(exc.value)
        assert "\n" not in msg and "download failed" in msg
        assert base + "binary/tiny.bz2" in msg and str(target) in msg
        assert "OLEARN_DATA_MIRROR" in msg
    with pytest.raises(DatasetUnavailable, match="not downloaded"):
        fetch("tiny", download=False)
    assert not target.parent.exists() or list(target.parent.iterdir()) == []


def test_official_addresses_by_default(monkeypatch):
    calls = []

    def no_network(url, timeout):
        calls.append(url)
        raise OSError("network is off in tests")

    monkeypatch.setattr(registry.urllib.request, "urlopen", no_network)
    with pytest.raises(DatasetUnavailable, match="network is off"):
        load("rcv1.binary")
    assert calls == ["https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
                     "binary/rcv1_train.binary.bz2"]


# ---------------------------------------------------------------- the mirror
def test_mirror_layouts_and_precedence(tmp_path, server):
    root, url = server
    data, rf = tiny_dataset()
    add_dataset("tiny", "binary", 3, {"train": RemoteFile(rf.path, rf.sha256, rf.size,
                                                          mirror="tiny/tiny.svm")})
    mirror = tmp_path / "mirror"
    publish(mirror, "tiny/tiny.svm", TINY)
    assert_tiny(*load("tiny", mirror=mirror, base_url=dead_url()))
    assert fetch("tiny", mirror=mirror) == mirror / "tiny" / "tiny.svm"
    assert not (tmp_path / "cache").exists()                 # nothing copied
    # the official name at the top of a mirror also works, and is checked
    other = tmp_path / "other"
    publish(other, "tiny.bz2", data)
    assert_tiny(*load("tiny", mirror=other, base_url=dead_url()))
    publish(other, "tiny.bz2", data[:-1] + b"x")
    with pytest.raises(ChecksumError):
        load("tiny", mirror=other, base_url=dead_url())
    # a mirror without the file: the cache, then the network
    publish(root, rf.path, data)
    assert_tiny(*load("tiny", mirror=tmp_path / "empty", base_url=url))


def test_real_mirror(monkeypatch):
    root = data_path("a9a", "a9a").parents[1]
    monkeypatch.setenv("OLEARN_DATA_MIRROR", str(root))
    X, y = load("a9a")
    assert X.shape == (32561, 123) and sp.isspmatrix_csr(X)
    assert set(np.unique(y)) == {-1.0, 1.0} and int((y == 1).sum()) == 7841
    Xt, _ = load("a9a", "test")
    assert Xt.shape == (16281, 123)                          # same width as train
    Xa, ya = load("a9a", "all")
    assert Xa.shape == (48842, 123)
    np.testing.assert_array_equal(Xa[:32561].toarray()[:50], X.toarray()[:50])
    X, y = load("heart")
    assert X.shape == (270, 13) and int((y == 1).sum()) == 120


def test_converted_mirror_files(monkeypatch):
    root = data_path("usps", "zip.train.converted").parents[1]
    monkeypatch.setenv("OLEARN_DATA_MIRROR", str(root))
    X, y = load("usps")
    assert X.shape == (7291, 256)
    assert set(np.unique(y)) == set(range(1, 11))           # official labels 1..10
    first = (root / "usps" / "zip.train.converted").read_text().split("\n", 1)[0].split()
    assert y[0] == float(first[0]) + 1
    np.testing.assert_allclose(X[0].toarray().ravel(), np.array(first[1:], dtype=float))
    # the mirror's test file has a malformed line: reported, with its number
    with pytest.raises(DataFormatError, match=r"zip\.test:2006"):
        load("usps", "test")
    data_path("cal_housing", "cal_housing.csv")
    X, y = load("cadata")
    raw = np.loadtxt(root / "cal_housing" / "cal_housing.csv", delimiter=",", skiprows=1,
                     max_rows=3)
    # LIBSVM's cadata column order: median income first, longitude last
    np.testing.assert_allclose(X[:3, 0].toarray().ravel(), raw[:, 7])
    np.testing.assert_allclose(X[:3, 7].toarray().ravel(), raw[:, 0])
    np.testing.assert_allclose(y[:3], raw[:, 8])


def test_real_a9a_through_the_download_path(server, monkeypatch):
    """The recorded official SHA-256 of a9a accepts the real file."""
    src = data_path("a9a", "a9a")
    root, url = server
    (root / "binary").mkdir()
    os.symlink(src, root / "binary" / "a9a")
    X, y = load("a9a", base_url=url)
    assert X.shape == (32561, 123)


# ---------------------------------------------------------------- names and places
def test_registry_names_and_records():
    names = list_datasets()
    for name in ("a9a", "w8a", "ijcnn1", "rcv1.binary", "news20.binary", "real-sim",
                 "covtype.binary", "webspam", "url", "mnist", "usps", "letter", "pendigits",
                 "sector", "news20", "abalone", "cpusmall", "cadata"):
        assert name in names
        ds = registry.info(name)
        assert ds.n_features > 0 and "train" in ds.files
        for rf in ds.files.values():
            assert registry._url(rf, None).startswith(registry.OFFICIAL_URL)
    assert list_datasets("regression") == ["abalone", "cadata", "cpusmall"]
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        load("nope")
    with pytest.raises(ValueError, match="no part 'test'"):
        load("real-sim", "test")
    with pytest.raises(ValueError, match="task"):
        add_dataset("x", "ranking", 3, {"train": "x"})


def test_cache_folder(monkeypatch, tmp_path):
    assert registry.data_home() == tmp_path / "cache"          # OLEARN_DATA_HOME
    assert registry.data_home(tmp_path / "x") == tmp_path / "x"
    monkeypatch.delenv("OLEARN_DATA_HOME")
    monkeypatch.setattr(registry.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert registry.data_home() == tmp_path / "xdg" / "olearn" / "datasets"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert registry.data_home() == Path.home() / ".cache" / "olearn" / "datasets"


# ---------------------------------------------------------------- the command
def test_olearn_datasets_list_and_fetch(server, tmp_path, capsys, monkeypatch):
    root, url = server
    data, rf = tiny_dataset()
    publish(root, rf.path, data)
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "a9a" in out and "32,561/16,281" in out and "remote" in out
    assert str(tmp_path / "cache") in out
    monkeypatch.setenv("OLEARN_DATA_URL", url)
    assert main(["datasets", "fetch", "tiny"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cache" / "tiny" / "tiny")
    assert main(["datasets", "list", "--task", "binary"]) == 0
    out = capsys.readouterr().out
    assert "tiny" in out and "cached" in out and "cadata" not in out
    monkeypatch.setenv("OLEARN_DATA_URL", dead_url())
    assert main(["datasets", "fetch", "a9a", "--part", "train"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("olearn: error: a9a (a9a) is not available") and "\n" not in err
    assert main(["datasets", "fetch"]) == 2
    assert "needs a dataset NAME" in capsys.readouterr().err
