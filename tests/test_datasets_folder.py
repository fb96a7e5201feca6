"""Every data set of the data folder loads by name (issue 44 item 3):
``olearn.datasets.load(name)`` for the registry's LIBSVM sets, MovieLens, the portfolio
sets and the folder's other sets (``olearn.datasets.folder``); ``loadable()`` lists the
names; an unknown name is one line naming the known ones.  The shapes and label counts
checked are the data folder README's.  Tests needing the folder skip without it.
"""
import numpy as np
import pytest

from olearn import datasets
from olearn.datasets import folder, registry


def test_unknown_name_is_one_line_naming_the_loadable_ones():
    with pytest.raises(KeyError) as err:
        datasets.load("elec3")
    text = str(err.value)
    assert "\n" not in text and "unknown dataset 'elec3'" in text
    assert all(n in text for n in ("elec2", "a9a", "sms-spam", "movielens-100k", "djia"))
    assert set(folder.names()) <= set(datasets.loadable())


def test_every_folder_of_the_data_folder_has_a_name(data_dir):
    covered = {p.split("/")[0] for s in folder.names() for p in folder.get(s).files.values()}
    for ds in registry._DATASETS.values():
        covered |= {f.mirror.split("/")[0] for f in ds.files.values() if f.mirror}
    covered |= {"movielens100k", "portfolio"}
    folders = {p.name for p in data_dir.iterdir() if p.is_dir()}
    assert folders - covered == set()


@pytest.mark.parametrize("name, part, rows, width, counts", [
    ("elec2", "train", 45312, 6, {0: 26075, 1: 19237}),
    ("sea-stream", "train", 40000, 3, None),
    ("weather", "train", 18159, 8, None),
    ("kdd99-http", "train", 567498, 3, {1: 2211, 0: 565287}),
    ("spambase", "train", 4601, 57, {1: 1813, 0: 2788}),
    ("reuters-moneyfx", "test", 3299, 8315, {1: 179, -1: 3120}),
    ("mnist5k", "train", 5000, 784, {d: 500 for d in range(10)}),
])
def test_tables(data_dir, name, part, rows, width, counts):
    X, y = datasets.load(name, part=part, mirror=str(data_dir))
    assert X.shape == (rows, width) and y.shape == (rows,)
    if counts is not None:
        values, n = np.unique(y, return_counts=True)
        assert dict(zip(values.tolist(), n.tolist())) == counts


def test_text_multilabel_sequences_and_aliases(data_dir):
    texts, labels = datasets.load("sms_spam", mirror=str(data_dir))  # (the folder's name)
    assert len(texts) == 5574 and labels.count("spam") == 747
    assert texts[0].startswith("Go until jurong point")
    X, Y = datasets.load("music", mirror=str(data_dir))
    assert X.shape == (592, 71) and Y.shape == (592, 6) and set(np.unique(Y)) <= {0, 1}
    sentences, tags = datasets.load("ud-english-ewt", part="dev", mirror=str(data_dir))
    assert len(sentences) == 2001 and sum(map(len, tags)) == 25147
    Xh, yh = datasets.load("heart_scale", mirror=str(data_dir))
    assert Xh.shape == (270, 13)


def test_a_missing_file_is_one_line(tmp_path, monkeypatch):
    import olearn._datadirs as dirs
    monkeypatch.setattr(dirs, "checkout_data_dir", lambda: None)
    monkeypatch.setenv("OLEARN_DATA_DIR", str(tmp_path / "user"))
    monkeypatch.delenv("OLEARN_DATA_MIRROR", raising=False)
    with pytest.raises(registry.DatasetUnavailable) as err:
        datasets.load("elec2", mirror=str(tmp_path))
    assert "\n" not in str(err.value) and "elec2/elec.csv" in str(err.value)
    with pytest.raises(ValueError, match="has no part 'test'"):
        datasets.load("elec2", part="test", mirror=str(tmp_path))
