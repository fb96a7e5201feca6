"""Reliability: the fuzzers' findings kept as a regression corpus.

Model files that were tampered with never load (one error class, naming the file) and
never reach a compiled kernel; a failing call leaves the model as it was; labels have
one kind; the CSV reader decides the same at every chunk size; feature scales from
1e-300 to 1e300 end in a finite model or a clear error, never a silent non-finite one.
"""
import io
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import olearn
from olearn.base import DivergenceError
from olearn.io import load_csv, read_csv
from olearn.io.errors import DataFormatError
from olearn.persistence import ModelFileError, load, save
from olearn.registry import available, lookup

RNG = np.random.default_rng(7)
X = RNG.normal(size=(60, 4))
Y = (X[:, 0] + 0.3 * RNG.normal(size=60) > 0).astype(int)


def _trained(name="perceptron", y=Y, **params):
    return olearn.make(name, **params).partial_fit(X, y)


def _parts(path):
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    return json.loads(str(arrays.pop("__meta__"))), arrays


def _write(path, meta, arrays):
    text = json.dumps(meta).replace('"__DEEP__"', "[" * 5000 + "]" * 5000)
    with open(path, "wb") as f:
        np.savez(f, __meta__=np.array(text), **arrays)


# --------------------------------------------------------------- tampered models
def _tamperings(meta, arrays):
    """(what, meta, arrays) for each way of damaging a saved model."""
    def m(**changes):
        out = json.loads(json.dumps(meta))
        for key, value in changes.items():
            where = out
            *path, last = key.split("__")
            for p in path:
                where = where[p]
            where[last] = value
        return out

    W = arrays["state/W"]
    yield "narrower W", meta, {**arrays, "state/W": W[:, :-2].copy()}
    yield "wider W", meta, {**arrays, "state/W": np.zeros((W.shape[0], W.shape[1] + 9))}
    yield "1-D W", meta, {**arrays, "state/W": W.ravel().copy()}
    yield "NaN weight", meta, {**arrays, "state/W": np.where(W == W, np.nan, W)}
    yield "infinite weight", meta, {**arrays, "state/W": W + np.inf}
    yield "complex W", meta, {**arrays, "state/W": W + 1j}
    yield "integer W", meta, {**arrays, "state/W": W.astype(np.int64)}
    yield "float32 W", meta, {**arrays, "state/W": W.astype(np.float32)}
    yield "missing W", meta, {k: v for k, v in arrays.items() if k != "state/W"}
    yield "extra array", meta, {**arrays, "state/Z": np.zeros(3)}
    yield "unknown array", meta, {**arrays, "junk": np.zeros(3)}
    yield "seen_ too long", meta, {**arrays, "seen_": np.ones(7, np.uint8)}
    yield "seen_ not 0/1", meta, {**arrays, "seen_": np.full(2, 5, np.uint8)}
    yield "negative t_", m(fitted__t_=-3), arrays
    yield "float counter", m(fitted__n_updates_=1.5), arrays
    yield "more features", m(fitted__n_features_in_=400), arrays
    yield "string width", m(fitted__n_features_in_="4"), arrays
    yield "invalid parameter", m(params__fit_intercept="yes"), arrays
    yield "unknown parameter", m(params__nonsense=1), arrays
    yield "params not a dict", m(params=[1, 2]), arrays
    yield "duplicated classes", m(fitted__classes_=[["int", 0], ["int", 0]]), arrays
    yield "1 and 1.0", m(fitted__classes_=[["int", 1], ["float", 1.0]]), arrays
    yield "mixed classes", m(fitted__classes_=[["int", 0], ["str", "a"]]), arrays
    yield "list class", m(fitted__classes_=[["int", 0], [[1], 2]]), arrays
    yield "type mismatch", m(fitted__classes_=[["int", 0], ["int", "1"]]), arrays
    yield "narrow int dtype", m(fitted__classes_=[["int", 0], ["int", 1000]],
                                fitted__classes_dtype="|i1"), arrays
    yield "unknown dtype", m(fitted__classes_dtype="<c16"), arrays
    yield "nonsense dtype", m(fitted__classes_dtype="bogus"), arrays
    yield "classes_given not bool", m(fitted__classes_given="no"), arrays
    yield "deep metadata", m(fitted__vocabulary="__DEEP__"), arrays
    yield "unknown class", m(**{"class": "os.system"}), arrays
    yield "class not a str", m(**{"class": ["x"]}), arrays
    yield "format version", m(format_version=99), arrays


@pytest.mark.parametrize("name", ["perceptron", "arow", "ogd"])
def test_tampered_models_never_load(tmp_path, name):
    model = _trained(name)
    path = tmp_path / "m.npz"
    save(model, path)
    meta, arrays = _parts(path)
    assert np.array_equal(load(path).predict(X), model.predict(X))  # the clean file loads
    for what, m, a in _tamperings(meta, arrays):
        bad = tmp_path / "bad.npz"
        _write(bad, m, a)
        with pytest.raises(ModelFileError, match="bad.npz") as info:
            load(bad)
        assert "\n" not in str(info.value), what


def test_narrow_string_dtype_never_truncates_labels(tmp_path):
    path = tmp_path / "m.npz"
    save(_trained(y=np.where(Y == 1, "spam", "ham")), path)
    meta, arrays = _parts(path)
    meta["fitted"]["classes_dtype"] = "<U1"  # 'ham' would become 'h'
    _write(path, meta, arrays)
    with pytest.raises(ModelFileError, match="exactly"):
        load(path)


def test_damaged_archives_are_model_file_errors(tmp_path):
    path = tmp_path / "m.npz"
    save(_trained(), path)
    data = path.read_bytes()
    rng = np.random.default_rng(0)
    for k in range(60):
        damaged = bytearray(data)
        if k % 3 == 0:  # a flipped bit anywhere, often in the zip directory at the end
            i = int(rng.integers(len(data) - 200, len(data)))
        else:
            i = int(rng.integers(len(data)))
        damaged[i] ^= 1 << int(rng.integers(8))
        bad = tmp_path / "bad.npz"
        bad.write_bytes(bytes(damaged) if k % 5 else bytes(damaged[: len(data) // 2]))
        try:
            model = load(bad)
        except ModelFileError:
            continue
        model.partial_fit(X, Y)  # what loads is a whole, usable model
        assert np.isfinite(model.decision_function(X)).all()


_CHILD = textwrap.dedent("""
    import sys, numpy as np, olearn
    from olearn.persistence import load, ModelFileError
    X = np.random.default_rng(1).normal(size=(20, 4))
    y = (X[:, 0] > 0).astype(int)
    for path in sys.argv[1:]:
        try:
            model = load(path)
        except ModelFileError:
            continue
        model.partial_fit(X, y)
        model.learn_one(X[0], y[0])
        model.predict(X)
    print("ok")
""")


def test_tampered_models_never_crash_a_process(tmp_path):
    """The original finding: a narrower state array made partial_fit write past its end
    (the process aborted).  Loading and learning run in a child, where a crash shows."""
    paths = []
    for name in ("perceptron", "arow", "cw"):
        path = tmp_path / f"{name}.npz"
        save(_trained(name), path)
        meta, arrays = _parts(path)
        for j, (what, m, a) in enumerate(_tamperings(meta, arrays)):
            bad = tmp_path / f"{name}-{j}.npz"
            _write(bad, m, a)
            paths.append(str(bad))
        for key in [k for k in arrays if k.startswith("state/")]:
            shrunk = tmp_path / f"{name}-{key[6:]}-shrunk.npz"
            _write(shrunk, meta, {**arrays, key: arrays[key].ravel()[:-1].copy()})
            paths.append(str(shrunk))
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True,
                            text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


# --------------------------------------------------------------- atomic calls
def _snapshot(model):
    return ({k: v.copy() for k, v in model.state_.items()},
            list(getattr(model, "classes_", [])), model.t_, model.n_updates_)


def _same(a, b):
    return (a[0].keys() == b[0].keys() and all(np.array_equal(a[0][k], b[0][k]) for k in a[0])
            and a[1:] == b[1:])


def test_failed_calls_leave_the_model_as_it_was():
    model = _trained("pa1")
    before = _snapshot(model)
    bad_calls = [
        lambda: model.partial_fit(X, np.where(Y == 1, "a", "b")),    # strings after ints
        lambda: model.partial_fit(X, Y, sample_weight=np.full(60, 1e100)),
        lambda: model.partial_fit(X[:, :3], Y),
        lambda: model.predict_learn(np.full_like(X, np.nan), Y),
        lambda: model.learn_one({"a": 1.0}, 1),                      # arrays model: dict
        lambda: model.learn_one(X[0], None),
        lambda: model.learn_one(X[0], "a"),
        lambda: model.learn_one(X[0], 1, sample_weight=-1),
    ]
    for call in bad_calls:
        with pytest.raises(ValueError):
            call()
        assert _same(_snapshot(model), before)


def test_divergence_is_an_error_and_rolls_back():
    Xr = RNG.normal(size=(200, 4)) * 1e3
    yr = Xr @ np.ones(4) * 1e3
    model = olearn.make("ogd-reg", schedule="invsqrt", eta=10.0, fit_intercept=False) \
        if "ogd-reg" in available() else None
    if model is None:
        pytest.skip("no ogd-reg learner registered")
    model.partial_fit(Xr[:1] * 1e-3, yr[:1] * 1e-3)
    before = _snapshot(model)
    with pytest.raises(DivergenceError, match="diverged at row"):
        model.partial_fit(Xr, yr)
    assert _same(_snapshot(model), before)
    assert np.isfinite(model.state_["W"]).all()


def test_a_failed_first_call_leaves_a_fresh_model():
    model = olearn.make("pa1")
    with pytest.raises(ValueError):
        model.partial_fit(X, [0] * 30 + ["a"] * 30)
    assert not hasattr(model, "state_")
    model = olearn.make("pa1")
    with pytest.raises(ValueError):
        model.learn_one({"a": float("nan")}, 1)
    assert not hasattr(model, "state_")


# --------------------------------------------------------------- labels
@pytest.mark.parametrize("y", [[0, 1, "a", "b"], [1, "1"], [1, "a", None], [None, None]])
def test_labels_of_one_kind(y):
    n = len(y)
    with pytest.raises(ValueError, match="label"):
        olearn.make("pa1").partial_fit(X[:n], np.array(y, dtype=object))


def test_labels_mixed_across_calls_and_one_at_a_time():
    model = olearn.make("pa1").partial_fit(X[:4], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="mix numbers and strings"):
        model.partial_fit(X[:2], ["a", "b"])
    with pytest.raises(ValueError, match="mix numbers and strings"):
        model.learn_one(X[0], "a")
    assert model.classes_.tolist() == [0, 1]


def test_numbers_compare_by_value():
    model = olearn.make("pa1").partial_fit(X[:4], np.array([1, 1.0, 0, True], dtype=object))
    assert len(model.classes_) == 2
    model.learn_one(X[0], 1.0)
    assert len(model.classes_) == 2


def test_classes_is_a_contract():
    model = olearn.make("pa1")
    with pytest.raises(ValueError, match="not among the classes"):
        model.partial_fit(X[:4], [0, 1, 0, 1], classes=[0])
    model = olearn.make("pa1").partial_fit(X[:4], [0, 0, 0, 0], classes=[0, 1])
    with pytest.raises(ValueError, match="not among the classes"):
        model.partial_fit(X[:4], [0, 2, 0, 1])
    with pytest.raises(ValueError, match="not among the classes"):
        model.learn_one(X[0], 5)
    model.fit(X, Y)  # fit starts afresh: its own labels
    model.partial_fit(X[:3], [0, 1, 2])  # and no contract afterwards


# --------------------------------------------------------------- readers
def _write_text(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("labels", [["1", "0", "a", "1.0"], ["1", "1.0", "0", "0"],
                                    ["ham", "1", "spam", "ham"], ["0", "1", "0", "x"]])
def test_csv_labels_do_not_depend_on_the_chunk_size(tmp_path, labels):
    rows = [f"{i}.5,{2 * i},{lab}" for i, lab in enumerate(labels * 3)]
    path = _write_text(tmp_path / "f.csv", "\n".join(rows) + "\n")
    outcomes = set()
    for chunk in (1, 2, 3, 5, 100):
        try:
            ys = [y for _, y in read_csv(path, chunk_size=chunk)]
            y = np.concatenate(ys)
            outcomes.add(("ok", y.dtype.kind, tuple(y.tolist())))
        except DataFormatError as exc:
            outcomes.add(("error", str(exc)))
    assert len(outcomes) == 1, outcomes


def test_csv_byte_order_mark_and_damaged_first_row(tmp_path):
    body = "1.0,2.0,1\n3.0,4.0,0\n"
    X0, y0 = load_csv(_write_text(tmp_path / "plain.csv", body))
    X1, y1 = load_csv(_write_text(tmp_path / "bom.csv", "\ufeff" + body))
    assert np.array_equal(X0, X1) and np.array_equal(y0, y1) and len(y1) == 2
    Xh, _ = load_csv(_write_text(tmp_path / "h.csv", "\ufeffa,b,label\n" + body))
    assert Xh.shape == (2, 2)
    damaged = _write_text(tmp_path / "damaged.csv", "1.0,2#0,1\n" + body)
    with pytest.raises(DataFormatError, match="damaged.csv:1"):
        load_csv(damaged)


def test_csv_from_a_stream_with_bom():
    stream = io.BytesIO("\ufeff1.0,2.0,1\n3.0,4.0,0\n".encode("utf-8"))
    X1, y1 = load_csv(stream)
    assert X1.shape == (2, 2) and y1.tolist() == [1.0, 0.0]


# --------------------------------------------------------------- numerics
def _learners():
    out, seen = [], set()
    for name in available():
        cls, defaults = lookup(name)
        key = (cls, tuple(sorted(defaults.items())))
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


@pytest.mark.parametrize("name", _learners())
def test_feature_scales_end_finite_or_in_a_clear_error(name):
    """Never a silent non-finite model: a finite state, or one of the library's errors."""
    from sklearn.base import is_classifier
    rng = np.random.default_rng(3)
    Xs = rng.normal(size=(40, 3))
    for scale in (1e-300, 1e-160, 1e-20, 1.0, 1e20, 1e160, 1e300):
        model = olearn.make(name)
        y = (Xs[:, 0] > 0).astype(int) if is_classifier(model) else Xs[:, 0] + 0.1
        try:
            model.partial_fit(Xs * scale, y)
        except ValueError:  # DivergenceError, or a row out of floating-point range
            assert not hasattr(model, "state_") or all(
                np.isfinite(a).all() for a in model.state_.values())
            continue
        for key, arr in _float_state(model):
            assert np.isfinite(arr).all(), (name, scale, key)


def _float_state(model):
    """The model's float state arrays, asked of the protocol: ``state_`` of a learner,
    the arrays ``export_state()`` writes of a wrapper (Auto keeps no ``state_``)."""
    if hasattr(model, "state_"):
        return list(model.state_.items())
    _, arrays = model.export_state()
    return [(k, a) for k, a in arrays.items() if np.asarray(a).dtype.kind == "f"]


def test_extreme_sample_weights_and_targets_are_refused():
    for name in ("cw", "pa1"):
        with pytest.raises(ValueError, match="sample_weight"):
            olearn.make(name).partial_fit(X, Y, sample_weight=np.full(60, 1e100))
        with pytest.raises(ValueError, match="sample_weight"):
            olearn.make(name).learn_one(X[0], 1, sample_weight=1e308)
    model = olearn.make("cw").partial_fit(X, Y, sample_weight=np.full(60, 1e9))
    assert np.isfinite(model.state_["W"]).all()
    with pytest.raises(ValueError, match="targets"):
        olearn.make("pa-reg" if "pa-reg" in available() else "lms").partial_fit(
            X, np.full(60, 1e308))


# --------------------------------------------------------------- saving
def test_killed_saves_leave_nothing_behind(tmp_path):
    stale = tmp_path / ".olearn-999999999-0123456789abcdef.tmp"  # no such process
    stale.write_bytes(b"half a model")
    live = tmp_path / f".olearn-{os.getppid()}-0123456789abcdef.tmp"  # a running process
    live.write_bytes(b"being written")
    save(_trained(), tmp_path / "m.npz")
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["m.npz"]


def test_saved_files_follow_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        save(_trained(), tmp_path / "m.npz")
    finally:
        os.umask(old)
    assert (tmp_path / "m.npz").stat().st_mode & 0o777 == 0o644
