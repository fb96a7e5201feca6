"""Evaluation on a rating stream: progressive RMSE and MAE (each rating predicted by the
model of the events before it, then learned; in timestamp order when the data has
timestamps), and the top-k hit rate of ``recommend``.

Top-k hit rate: at every ``every``-th event whose rating is at least ``relevant``, before
that event is learned, ``recommend(user, k)`` (which leaves out what the user has
rated) is asked for the user's top ``k`` items; a hit is the event's item among them
(the "next relevant item" protocol of streaming recommenders; an item never seen before
cannot be recommended and counts as a miss).

``evaluate_stream(model, data)`` does both in one pass and is what the CLI calls
(``olearn evaluate ratings.tsv --format ratings --algo biased-mf``); ``make_recommender``
builds a model from its CLI name.
"""
import math
import time

import numpy as np

from ..datasets.ratings import Ratings, load_ratings

__all__ = ["RECOMMENDERS", "make_recommender", "progressive_ratings", "hit_rate",
           "evaluate_stream", "summary"]

from . import RECOMMENDERS  # noqa: E402 (CLI name -> (module, class); re-exported)


def make_recommender(name, **params):
    """A recommender by CLI name (``olearn.recommend.RECOMMENDERS``) and parameters."""
    from importlib import import_module
    if name not in RECOMMENDERS:
        raise ValueError(f"unknown recommender {name!r}; known: "
                         f"{', '.join(sorted(RECOMMENDERS))}")
    module, cls = RECOMMENDERS[name]
    cls = getattr(import_module(f"{__package__}.{module}"), cls)
    try:
        return cls(**params)
    except TypeError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _stream(data):
    if isinstance(data, Ratings):
        return data
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        return load_ratings(data)
    users, items, ratings = data[:3]
    return Ratings(users, items, np.asarray(ratings, dtype=np.float64), None)


def _errors(pred, ratings):
    e = pred - ratings
    n = len(e)
    return {"n": n, "rmse": math.sqrt(float(e @ e) / n) if n else math.nan,
            "mae": float(np.abs(e).mean()) if n else math.nan}


def progressive_ratings(model, data):
    """Progressive RMSE and MAE of ``model`` over ``data`` (a path, :class:`Ratings` or
    ``(users, items, ratings)``), learning it.  Returns a dict (n, rmse, mae, seconds,
    events_per_s, predictions)."""
    s = _stream(data)
    t0 = time.perf_counter()
    pred = model.predict_learn(s.users, s.items, s.ratings)
    dt = time.perf_counter() - t0
    out = _errors(pred, s.ratings)
    out.update(seconds=dt, events_per_s=len(pred) / dt if dt > 0 else math.inf,
               predictions=pred)
    return out


def _test_events(ratings, every, relevant):
    if not isinstance(every, (int, np.integer)) or isinstance(every, bool) or every < 1:
        raise ValueError(f"every must be a positive integer, got {every!r}")
    return np.flatnonzero(ratings >= relevant)[every - 1::every]


def evaluate_stream(model, data, k=10, every=100, relevant=4.0):
    """One pass over a rating stream: progressive RMSE and MAE, and (unless ``k`` is
    None) the top-``k`` hit rate at every ``every``-th event rated at least
    ``relevant``.  Returns a dict: n, rmse, mae, seconds (the whole pass, hit-rate
    queries included), events_per_s, hit_rate, hits, hit_tests, k."""
    s = _stream(data)
    n = len(s.ratings)
    tests = np.zeros(0, dtype=np.int64) if k is None else _test_events(s.ratings, every,
                                                                       relevant)
    pred = np.empty(n)
    hits = 0
    t0 = time.perf_counter()
    start = 0
    for t in tests.tolist():
        if t > start:
            pred[start:t] = model.predict_learn(s.users[start:t], s.items[start:t],
                                                s.ratings[start:t])
        hits += s.items[t] in model.recommend(s.users[t], k)
        start = t
    if start < n:
        pred[start:] = model.predict_learn(s.users[start:], s.items[start:],
                                           s.ratings[start:])
    dt = time.perf_counter() - t0
    out = _errors(pred, s.ratings)
    out.update(seconds=dt, events_per_s=n / dt if dt > 0 else math.inf, k=k,
               hits=hits, hit_tests=len(tests),
               hit_rate=hits / len(tests) if len(tests) else math.nan)
    return out


def hit_rate(model, data, k=10, every=100, relevant=4.0):
    """The top-``k`` hit rate of ``recommend`` over a stream (see the module docstring);
    the model learns the whole stream."""
    return evaluate_stream(model, data, k=k, every=every, relevant=relevant)["hit_rate"]


def summary(name, source, result):
    """The lines the CLI prints for one ``evaluate_stream`` result."""
    lines = [f"progressive validation: {name} on {source}",
             f"  ratings        {result['n']:,}",
             f"  RMSE           {result['rmse']:.4f}",
             f"  MAE            {result['mae']:.4f}"]
    if result.get("k") is not None and result["hit_tests"]:
        lines.append(f"  hit rate @{result['k']:<4} {result['hit_rate']:.4f} "
                     f"({result['hits']} of {result['hit_tests']} relevant events)")
    lines.append(f"  events/s       {result['events_per_s']:,.0f}")
    return "\n".join(lines)
