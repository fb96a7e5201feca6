"""Read by mypy (pyproject.toml, ``[tool.mypy] files``), never run: the public API as a
user's code meets it, so that an annotation that stops saying the truth fails CI."""
import numpy as np

import olearn
from olearn.client import Client
from olearn.linear.pa import PAClassifier
from olearn.protocol import Model


def usage() -> None:
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    model: PAClassifier = PAClassifier().fit(X, y).partial_fit(X, y, classes=[0, 1])
    model = model.learn_one({"free": 1.0}, 1, sample_weight=2.0)
    predictions: np.ndarray = model.predict(X)
    scores: np.ndarray = model.decision_function(X)
    label = model.predict_one([0.0, 1.0])
    meta, arrays = model.export_state()
    again: PAClassifier = PAClassifier.from_state(model.get_params(), meta, arrays)
    mixed: PAClassifier = olearn.mix([model, again], weights=[0.5, 0.5])
    any_model: Model = olearn.make("pa1", C=0.5)
    names: list[str] = olearn.available("classifier")
    olearn.persistence.save(mixed, "model.olm")
    loaded = olearn.load("model.olm")
    rows: list[object] = olearn.datasets.registry.list_datasets(task="binary")
    reply = Client("http://127.0.0.1:8470", token=None).predict("spam", X)
    print(predictions, scores, label, any_model, names, loaded, rows, reply)
