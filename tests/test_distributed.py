"""``olearn.distributed`` on a real Dask ``LocalCluster``: iterative parameter mixing
against a plain numpy reference (McDonald, Hall, Mann, NAACL 2010, Fig. 2), one shard
against the serial learner, average and stream mixing, shard/worker mismatches, files
of LIBSVM and VW formats, Dask collections, and a worker killed during a round."""
import copy
import os
import signal
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
from distributed import Client, LocalCluster  # noqa: E402

import olearn  # noqa: E402
from olearn import distributed as D  # noqa: E402
from olearn.io import load_libsvm  # noqa: E402
from conftest import data_path  # noqa: E402
from test_so_reference import arow, scw1  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                           dashboard_address=":0", silence_logs=40)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def _data(n=120, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 3)
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _write_libsvm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            f.write(f"{int(yi):d} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in enumerate(xi)
                                                if v != 0) + "\n")
    return str(path)


def _shards(tmp_path, X, y, sizes):
    out, a = [], 0
    for k, n in enumerate(sizes):
        out.append(_write_libsvm(tmp_path / f"part-{k:02d}.svm", X[a:a + n], y[a:a + n]))
        a += n
    return out


# ---------------------------------------------------------------- plain references
def perceptron(state, X, y):
    w = state["w"]
    for x, t in zip(X, y):
        if t * (w @ x) <= 0 and np.any(x != 0):
            w = w + t * x
    return {"w": w}


def pa1(state, X, y, C=1.0):
    w = state["w"]
    for x, t in zip(X, y):
        loss, sq = 1.0 - t * (w @ x), x @ x
        if loss > 0 and sq > 0:
            w = w + min(C, loss / sq) * t * x
    return {"w": w}


def ogd(state, X, y, eta=1.0):
    """Hinge loss, step eta / sqrt(t), t the round counted over the whole data."""
    w, n = state["w"], state["t"]
    for x, t in zip(X, y):
        n += 1
        if t * (w @ x) < 1:
            w = w + eta / np.sqrt(n) * t * x
    return {"w": w, "t": n}


def second_order(step):
    """AROW / SCW with a diagonal covariance (the update of test_so_reference, from a
    given mean and variances); the rows carry the constant feature first."""
    def run(state, X, y):
        w, S = state["w"].copy(), state["S"].copy()
        for x, t in zip(np.hstack([np.ones((len(X), 1)), X]), y):
            z = S * x
            v = x @ z
            m = t * (w @ x)
            out = step(m, v, 0) if v > 0 else None
            if out is None:
                continue
            w = w + out[0] * t * z
            S = 1.0 / (1.0 / S + out[1] / (1 - out[1] * v) * x * x)
        return {"w": w, "S": S}
    return run


def reference_ipm(rule, state, shards, epochs, weights):
    """Iterative parameter mixing: each shard learns one epoch from the mix; means of
    the weights (count- or uniform-weighted), the round counter summed over the rows,
    the second-order variances by their minimum (Jubatus's rule)."""
    for _ in range(epochs):
        members = [rule(copy.deepcopy(state), X, y) for X, y in shards]
        lam = np.array([len(y) if weights == "count" else 1.0 for _, y in shards], float)
        lam /= lam.sum()
        mixed = {"w": sum(l * m["w"] for l, m in zip(lam, members))}
        if "t" in state:
            mixed["t"] = state["t"] + sum(len(y) for _, y in shards)
        if "S" in state:
            mixed["S"] = np.minimum.reduce([m["S"] for m in members])
        state = mixed
    return state


LINEAR = {
    "perceptron": (lambda: olearn.make("perceptron", fit_intercept=False), perceptron, {}),
    "pa1": (lambda: olearn.make("pa1", fit_intercept=False), pa1, {}),
    "ogd": (lambda: olearn.make("ogd", fit_intercept=False), ogd, {"t": 0}),
}


@pytest.mark.parametrize("weights", ["count", "uniform"])
@pytest.mark.parametrize("name", sorted(LINEAR))
def test_ipm_equals_the_numpy_reference(client, tmp_path, name, weights):
    make, rule, extra = LINEAR[name]
    X, y = _data()
    sizes = [50, 40, 30]
    files = _shards(tmp_path, X, y, sizes)
    got = D.fit(make(), files, client=client, epochs=3, weights=weights, n_features=5,
                zero_based=False)
    cuts = np.cumsum([0] + sizes)
    shards = [(X[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    want = reference_ipm(rule, {"w": np.zeros(5), **extra}, shards, 3, weights)
    np.testing.assert_allclose(got.coef_.ravel(), want["w"], rtol=0, atol=1e-10)
    assert got.t_ == 3 * len(y)
    # the cluster's rounds are the in-process rounds
    sim = D.simulate(make(), shards, epochs=3, weights=weights)
    np.testing.assert_allclose(sim.model.coef_, got.coef_, rtol=0, atol=1e-12)


SECOND = {"arow": (lambda: olearn.make("arow", r=0.7, covariance="diag"), arow(0.7)),
          "scw": (lambda: olearn.make("scw", C=0.6, eta=0.75, covariance="diag"),
                  scw1(0.6, 0.75))}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_ipm_second_order_follows_jubatus_rule(client, tmp_path, name):
    """The documented rule: count-weighted mean of the means, minimum of the
    variances, per epoch."""
    make, step = SECOND[name]
    X, y = _data(n=90, seed=3)
    files = _shards(tmp_path, X, y, [40, 50])
    got = D.fit(make(), files, client=client, epochs=2, n_features=5, zero_based=False)
    shards = [(X[:40], y[:40]), (X[40:], y[40:])]
    want = reference_ipm(second_order(step), {"w": np.zeros(6), "S": np.ones(6)}, shards,
                         2, "count")
    np.testing.assert_allclose(np.r_[got.intercept_, got.coef_.ravel()], want["w"],
                               rtol=0, atol=1e-10)
    np.testing.assert_allclose(np.asarray(got.cov_).ravel(), want["S"][1:], rtol=0,
                               atol=1e-10)   # cov_ leaves the intercept's variance out


def test_one_shard_is_the_serial_model(client, tmp_path):
    X, y = _data(n=200, seed=1)
    [path] = _shards(tmp_path, X, y, [200])
    got = D.fit(olearn.make("pa1"), path, client=client, epochs=2)
    Xs, ys = load_libsvm(path)
    serial = olearn.make("pa1").partial_fit(Xs, ys).partial_fit(Xs, ys)
    np.testing.assert_array_equal(got.coef_, serial.coef_)
    np.testing.assert_array_equal(got.intercept_, serial.intercept_)
    assert got.t_ == serial.t_


def test_average_is_one_mix_of_shards_learned_alone(client, tmp_path):
    X, y = _data(n=100, seed=2)
    files = _shards(tmp_path, X, y, [60, 40])
    got = D.run(olearn.make("pa1", fit_intercept=False), files, client=client,
                mixing="average", epochs=2, n_features=5, zero_based=False)
    assert got.rounds == 1 and got.rows == 200
    members = [pa1(pa1({"w": np.zeros(5)}, X[a:b], y[a:b]), X[a:b], y[a:b])
               for a, b in [(0, 60), (60, 100)]]
    np.testing.assert_allclose(got.model.coef_.ravel(), 0.6 * members[0]["w"]
                               + 0.4 * members[1]["w"], rtol=0, atol=1e-10)


def test_stream_mixes_every_mix_every_rows_with_versions(client, tmp_path):
    X, y = _data(n=100, seed=4)
    files = _shards(tmp_path, X, y, [60, 40])
    got = D.run(olearn.make("pa1", fit_intercept=False), files, client=client,
                mixing="stream", mix_every=25, n_features=5, zero_based=False)
    # shard 0: rows 0-24, 25-49, 50-59; shard 1: 0-24, 25-39: three rounds, versions 1..3
    assert (got.rounds, got.version, got.rows, got.late) == (3, 3, 100, 0)
    state = {"w": np.zeros(5)}
    segments = [[(0, 25), (25, 50), (50, 60)], [(60, 85), (85, 100)]]
    for r in range(3):
        parts = [s[r] for s in segments if r < len(s)]
        members = [pa1(copy.deepcopy(state), X[a:b], y[a:b]) for a, b in parts]
        n = np.array([b - a for a, b in parts], float)
        state = {"w": sum(k / n.sum() * m["w"] for k, m in zip(n, members))}
    np.testing.assert_allclose(got.model.coef_.ravel(), state["w"], rtol=0, atol=1e-10)


def test_a_late_member_never_overwrites_a_newer_mix():
    X, y = _data(n=40, seed=5)
    base = olearn.make("pa1").partial_fit(X[:10], y[:10])
    mixer = D._Mixer(base, 4, "count")
    stale = olearn.make("pa1").partial_fit(X[10:], y[10:])
    assert mixer.offer(3, stale, 30) is False          # started from version 3: dropped
    fresh = copy.deepcopy(base).partial_fit(X[10:25], y[10:25])
    assert mixer.offer(4, fresh, 15) is True
    np.testing.assert_array_equal(mixer.mix().coef_, fresh.coef_)


@pytest.mark.parametrize("n_shards", [1, 5])
def test_shards_and_workers_may_differ_in_number(client, tmp_path, n_shards):
    """1 shard on 2 workers and 5 shards on 2 workers, one of them empty: nothing
    hangs, every row is learned once per epoch."""
    X, y = _data(n=100, seed=6)
    sizes = [100] if n_shards == 1 else [30, 30, 0, 20, 20]
    files = _shards(tmp_path, X, y, sizes)
    got = D.run(olearn.make("pa1"), files, client=client, epochs=2)
    assert got.rows == 200 and got.rounds == 2 and got.shards == n_shards
    assert got.model.t_ == 200


def test_widths_and_classes_are_agreed(client, tmp_path):
    """A shard whose highest index is lower, and a class seen on one shard only."""
    rng = np.random.default_rng(7)
    X = np.round(rng.random(size=(90, 6)), 3)
    y = rng.integers(0, 3, size=90)
    X[:45, 5] = 0                        # shard 0 never has feature 6
    y[:45] = np.where(y[:45] == 2, 0, y[:45])   # shard 0 never has class 2
    files = _shards(tmp_path, X, y, [45, 45])
    got = D.run(olearn.make("pa1"), files, client=client, epochs=2)
    assert got.model.n_features_in_ == 6
    assert sorted(got.model.classes_) == [0, 1, 2]
    assert got.model.predict(X).shape == (90,)


def test_vw_files(client, tmp_path):
    X, y = _data(n=60, seed=8)
    paths = []
    for k, (a, b) in enumerate([(0, 30), (30, 60)]):
        p = tmp_path / f"part-{k}.vw"
        with open(p, "w") as f:
            for xi, yi in zip(X[a:b], y[a:b]):
                f.write(f"{int(yi)} |f " + " ".join(f"c{j}:{float(v)!r}" for j, v in enumerate(xi))
                        + "\n")
        paths.append(str(p))
    got = D.fit(olearn.make("pa1"), str(tmp_path / "part-*.vw"), client=client, epochs=2,
                n_bits=10)
    from olearn.io import read_vw
    shards = []
    for p in paths:
        [(Xp, yp, _)] = list(read_vw(p, n_bits=10, sample_weight=True))
        shards.append((Xp, yp))
    want = D.simulate(olearn.make("pa1"), shards, epochs=2).model
    assert got.n_features_in_ == 1024
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=0, atol=1e-12)


def test_dask_array_partitions(client):
    da = pytest.importorskip("dask.array")
    X, y = _data(n=90, seed=9)
    got = D.fit(olearn.make("pa1"), (da.from_array(X, chunks=(30, 5)),
                                     da.from_array(y, chunks=30)), client=client, epochs=2)
    want = D.simulate(olearn.make("pa1"), [(X[a:a + 30], y[a:a + 30]) for a in (0, 30, 60)],
                      epochs=2).model
    np.testing.assert_allclose(got.coef_, want.coef_, rtol=0, atol=1e-12)


def test_csv_files_and_progress(client, tmp_path, capsys):
    X, y = _data(n=80, seed=12)
    for k, (a, b) in enumerate([(0, 40), (40, 80)]):
        np.savetxt(tmp_path / f"part-{k}.csv", np.column_stack([X[a:b], y[a:b]]),
                   delimiter=",", fmt="%.17g", header="f0,f1,f2,f3,f4,y", comments="")
    got = D.run(olearn.make("pa1"), str(tmp_path / "part-*.csv"), client=client, epochs=2,
                progress=True)
    want = D.simulate(olearn.make("pa1"), [(X[:40], y[:40]), (X[40:], y[40:])], epochs=2)
    np.testing.assert_allclose(got.model.coef_, want.model.coef_, rtol=0, atol=1e-12)
    assert "olearn distributed: 2 rounds, 160 rows, 2 workers" in capsys.readouterr().err


def test_dask_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")  # needs pandas
    pd = pytest.importorskip("pandas")
    X, y = _data(n=80, seed=12)
    frame = pd.DataFrame(np.column_stack([X, y]), columns=[f"f{j}" for j in range(5)] + ["y"])
    got = D.fit(olearn.make("pa1"), dd.from_pandas(frame, npartitions=2), client=client,
                epochs=2, label="y")
    want = D.simulate(olearn.make("pa1"), [(X[:40], y[:40]), (X[40:], y[40:])], epochs=2)
    np.testing.assert_allclose(got.coef_, want.model.coef_, rtol=0, atol=1e-12)


def test_bad_arguments(client, tmp_path):
    X, y = _data(n=10)
    [path] = _shards(tmp_path, X, y, [10])
    with pytest.raises(ValueError, match="mixing must be one of"):
        D.fit(olearn.make("pa1"), path, client=client, mixing="allreduce")
    with pytest.raises(ValueError, match="needs mix_every"):
        D.fit(olearn.make("pa1"), path, client=client, mixing="stream")
    with pytest.raises(ValueError, match="unknown option 'bits'"):
        D.fit(olearn.make("pa1"), path, client=client, bits=3)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        D.fit(olearn.make("pa1"), str(tmp_path / "none-*.svm"), client=client)


def test_mix_from_a_base_sums_the_changes_and_ipm_averages_statistics():
    """olearn.mix(base=): counters and sums are the base's plus the members' changes;
    the rounds of olearn.distributed average the per-weight statistics (FTRL's z and
    sqrt(n)) instead, as the weights."""
    X, y = _data(n=90, seed=10)
    base = olearn.make("ftrl").partial_fit(X[:30], y[:30])
    a = copy.deepcopy(base).partial_fit(X[30:60], y[30:60])
    b = copy.deepcopy(base).partial_fit(X[60:], y[60:])
    m = olearn.mix([a, b], base=base)
    assert m.t_ == 90
    za, zb, z0 = (v.explicit_state() for v in (a, b, base))
    got = m.explicit_state()
    np.testing.assert_allclose(got["W"], za["W"] + zb["W"] - z0["W"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["R"], np.sqrt(za["R"] ** 2 + zb["R"] ** 2 - z0["R"] ** 2),
                               rtol=1e-12, atol=1e-12)
    assert D.averaged_statistics(base) == {"W": "mean", "R": "mean"}
    mixer = D._Mixer(base, 0, "uniform")
    mixer.offer(0, a, 30)
    mixer.offer(0, b, 30)
    got = mixer.mix().explicit_state()
    np.testing.assert_allclose(got["W"], (za["W"] + zb["W"]) / 2, rtol=1e-12, atol=1e-12)
    assert mixer.mix().t_ == 90


def test_one_vs_rest_mixes_from_a_base_class_by_class():
    """OneVsRest with base=: each class model is mixed from the base's class model
    (a class the base never met from a fresh one); counters are the base's plus the
    members' changes."""
    from olearn.multiclass import OneVsRest
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5))
    y = np.array([0, 1, 2])[np.argmax(X[:, :3], axis=1)]
    make = lambda: OneVsRest(olearn.make("ftrl"))  # noqa: E731
    base = make().partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    a = copy.deepcopy(base).partial_fit(X[30:60], y[30:60])
    b = copy.deepcopy(base).partial_fit(X[60:], y[60:])
    m = olearn.mix([a, b], base=base)
    assert m.t_ == 90
    for k in range(3):
        za, zb, z0 = (v.estimators_[k].explicit_state() for v in (a, b, base))
        got = m.estimators_[k].explicit_state()
        np.testing.assert_allclose(got["W"], za["W"] + zb["W"] - z0["W"], rtol=1e-12,
                                   atol=1e-12)
        assert m.estimators_[k].t_ == a.estimators_[k].t_ + b.estimators_[k].t_ \
            - base.estimators_[k].t_
    alone = olearn.mix([a])
    np.testing.assert_array_equal(alone.decision_function(X), a.decision_function(X))


# ---------------------------------------------------------------- a lost worker
def test_a_worker_killed_during_a_round_changes_nothing(tmp_path):
    """processes=True: a worker process is killed (SIGKILL) while it runs a shard's
    pass; Dask runs the pass again elsewhere and the model is the one of a run
    without the fault."""
    path = data_path("a9a", "a9a")
    lines = open(path).read().splitlines(keepends=True)
    files = []
    for k in range(2):
        p = tmp_path / f"a9a-{k}.svm"
        p.write_text("".join(lines[k::2] * 4))        # 65k rows a shard: a pass of ~1 s
        files.append(str(p))
    opts = dict(n_features=123, zero_based=False, epochs=2)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=50)
    c = Client(cluster)
    try:
        clean = D.fit(olearn.make("pa1"), files, client=c, **opts)
        pids = c.run(os.getpid)
        killed = []

        def kill_during_round():
            deadline = time.time() + 60
            while time.time() < deadline and not killed:
                busy = {w: ks for w, ks in c.processing().items()
                        if any("olearn-learn" in str(k) and "-v1-" in str(k) for k in ks)}
                if busy:
                    worker = sorted(busy)[0]
                    os.kill(pids[worker], signal.SIGKILL)
                    killed.append(worker)
                time.sleep(0.01)

        t = threading.Thread(target=kill_during_round)
        t.start()
        faulty = D.fit(olearn.make("pa1"), files, client=c, **opts)
        t.join()
        assert killed, "no round was seen running"
    finally:
        c.close()
        cluster.close()
    np.testing.assert_array_equal(faulty.coef_, clean.coef_)
    np.testing.assert_array_equal(faulty.intercept_, clean.intercept_)
    assert faulty.t_ == clean.t_


def test_a_sequence_tagger_mixes_over_conllu_shards(client, tmp_path):
    """CoNLL-U files are shards of sentences for a tagger (olearn.structured): the
    rounds on the cluster are ``simulate``'s over the same sentences."""
    from olearn.io import read_conllu
    from olearn.structured import SequenceTagger
    words = [["The", "dog", "barks", "."], ["A", "cat", "sleeps", "."], ["Dogs", "bark"]]
    tags = [["DET", "NOUN", "VERB", "PUNCT"], ["DET", "NOUN", "VERB", "PUNCT"],
            ["NOUN", "VERB"]]
    files = []
    for k in range(2):
        lines = []
        for s, t in zip(words[k:] + words[:k], tags[k:] + tags[:k]):
            lines += [f"{i}\t{w}\t_\t{g}\t_\t_\t0\tdep\t_\t_"
                      for i, (w, g) in enumerate(zip(s, t), 1)] + [""]
        path = tmp_path / f"part-{k}.conllu"
        path.write_text("\n".join(lines), encoding="utf-8")
        files.append(str(path))
    model = SequenceTagger(bits=10, shuffle=False)   # (with shuffle: within each chunk)
    got = D.fit(model, files, client=client, mixing="ipm", epochs=2, chunk_size=2)
    want = D.simulate(model, [read_conllu(f) for f in files], mixing="ipm", epochs=2).model
    assert got.t_ == want.t_ == 12 and not hasattr(model, "state_")
    for key in want.state_:
        np.testing.assert_array_equal(got.state_[key], want.state_[key])
    assert got.predict(words) == tags


# ---------------------------------------------------------------- one file cut in parts
@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_split_cuts_a_file_at_line_ends_into_its_rows(tmp_path, parts):
    """The parts of ``split`` hold every line once, in order, each whole: read part
    by part they give the file's rows."""
    X, y = _data(n=50)
    path = _write_libsvm(tmp_path / "all.svm", X, y)
    got = D.split(path, parts)
    assert len(got) == parts if parts > 1 else got == [path]
    rows = []
    for p in got:
        for Xc, yc, _ in D._chunks(("file", p, {"n_features": 5, "zero_based": False})):
            rows.append((Xc.toarray(), yc))
    np.testing.assert_array_equal(np.vstack([r[0] for r in rows]), X)
    np.testing.assert_array_equal(np.concatenate([r[1] for r in rows]), y)


def test_split_leaves_what_it_cannot_cut_whole(tmp_path):
    import gzip
    X, y = _data(n=20)
    path = _write_libsvm(tmp_path / "all.svm", X, y)
    with open(path, "rb") as f, gzip.open(tmp_path / "all.svm.gz", "wb") as g:
        g.write(f.read())
    (tmp_path / "t.csv").write_text("a,b\n1,2\n3,4\n")
    for p in (str(tmp_path / "all.svm.gz"), str(tmp_path / "t.csv")):
        assert D.split(p, 4) == [p]


def test_a_file_in_parts_learns_as_the_parts_in_memory(client, tmp_path):
    """ipm over the parts of one file = the same rounds over the parts' rows in this
    process; the progressive mistakes are each part's member's, before each row."""
    X, y = _data(n=90)
    path = _write_libsvm(tmp_path / "all.svm", X, y)
    parts = D.split(path, 3)
    shards = [load_libsvm(p.open(), n_features=5, zero_based=False) for p in parts]
    got = D.run(olearn.make("pa1"), parts, client=client, epochs=2, progressive=True)
    want = D.simulate(olearn.make("pa1"), shards, epochs=2).model
    np.testing.assert_allclose(got.model.coef_, want.coef_, rtol=0, atol=1e-12)
    mistakes, m = 0, olearn.make("pa1")
    for epoch in range(2):
        members = []
        for Xs, ys in shards:
            member = copy.deepcopy(m)
            mistakes += int(np.count_nonzero(member.predict_learn(Xs, ys) != ys))
            members.append(member)
        m = olearn.mix(members, weights=[len(s[1]) for s in shards],
                       base=m if epoch else None, rules=D.averaged_statistics(m))
    assert got.progressive == {"task": "classification", "rows": 180, "mistakes": mistakes}


def test_a_regressor_sums_its_progressive_errors(client, tmp_path):
    X, y = _data(n=60)
    t = X @ np.arange(1.0, 6.0)
    path = _write_libsvm(tmp_path / "r.svm", X, t)
    got = D.run(olearn.make("pa1-reg"), [path], client=client, progressive=True,
                n_features=5, zero_based=False).progressive
    Xs, ys = load_libsvm(path, n_features=5, zero_based=False)
    e = olearn.make("pa1-reg").predict_learn(Xs, ys) - ys
    assert got["task"] == "regression" and got["rows"] == 60
    np.testing.assert_allclose([got["squared"], got["absolute"]],
                               [e @ e, np.abs(e).sum()], rtol=1e-12)


def test_a_bad_line_in_a_part_is_named_by_its_line_in_the_file(client, tmp_path):
    X, y = _data(n=40)
    path = _write_libsvm(tmp_path / "all.svm", X, y)
    lines = open(path).read().splitlines(True)
    lines.insert(33, "1 2:x\n")
    open(path, "w").writelines(lines)
    with pytest.raises(olearn.io.DataFormatError, match=r"all\.svm:34: "):
        D.run(olearn.make("pa1"), D.split(path, 2), client=client, n_features=5,
              zero_based=False)
