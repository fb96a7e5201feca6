"""Where olearn looks for data put there by hand (issue 32, item 7): the mirror, then the
user's data folder, then (a source checkout only) ``shared/data``; an installed package
never looks inside ``site-packages``."""
from pathlib import Path

from olearn import _datadirs as _where
from olearn.datasets.ratings import find_movielens100k


def test_order_mirror_then_user_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("OLEARN_DATA_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("OLEARN_DATA_DIR", str(tmp_path / "mine"))
    roots = _where.data_roots()
    assert roots[:2] == [tmp_path / "mirror", tmp_path / "mine"]
    assert _where.data_roots(tmp_path / "given")[:3] == [tmp_path / "given",
                                                        tmp_path / "mirror", tmp_path / "mine"]
    # a ratings file in the user's folder is found (the mirror has none)
    target = tmp_path / "mine" / "movielens100k" / "ml-100k.inter"
    target.parent.mkdir(parents=True)
    target.write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n1\t2\t3\t4\n")
    assert find_movielens100k() == target
    (tmp_path / "mirror" / "movielens100k").mkdir(parents=True)
    first = tmp_path / "mirror" / "movielens100k" / "ml-100k.inter"
    first.write_text(target.read_text())
    assert find_movielens100k() == first                 # the mirror comes first


def test_user_folder_default_and_installed_package(tmp_path, monkeypatch):
    monkeypatch.delenv("OLEARN_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    import sys
    if sys.platform.startswith("linux"):
        assert _where.user_data_dir() == tmp_path / "xdg" / "olearn"
    fake = tmp_path / "venv" / "lib" / "python3.12" / "site-packages" / "olearn" / \
        "_datadirs.py"
    monkeypatch.setattr(_where, "__file__", str(fake))
    assert _where.checkout_data_dir() is None
    assert not any("site-packages" in Path(r).parts for r in _where.data_roots())
    checkout = tmp_path / "src" / "olearn" / "_datadirs.py"
    monkeypatch.setattr(_where, "__file__", str(checkout))
    assert _where.checkout_data_dir() == tmp_path / "shared" / "data"
