"""olearn.recommend: each SGD recommender against a plain reference loop (dicts of
numpy vectors, ids drawn at first appearance), ids growing mid-stream, one-at-a-time =
whole stream, recommend, save/load, bad input, the rating-file loader."""
import math

import numpy as np
import pytest

from conftest import data_path
from olearn.persistence import load, save
from olearn.recommend import (Baseline, BiasedMF, BrandSVD, FunkMF, OnlinePMF,
                              evaluate_stream, load_ratings, make_recommender,
                              progressive_ratings)


def reference(stream, use_mean, bias_lr, latent_lr, l2_bias, l2_latent, k, std, seed,
              low=-math.inf, high=math.inf):
    """The update of olearn/recommend/mf.py written plainly: progressive predictions."""
    rng = np.random.RandomState(seed)
    bu, bi, P, Q = {}, {}, {}, {}
    n, mean = 0, 0.0
    out = []
    for u, i, y in stream:
        if u not in P:
            bu[u], P[u] = 0.0, rng.normal(0.0, std, size=k)
        if i not in Q:
            bi[i], Q[i] = 0.0, rng.normal(0.0, std, size=k)
        base = mean if use_mean else 0.0
        out.append(min(max(base + bu[u] + bi[i] + P[u] @ Q[i], low), high))
        if use_mean:
            n += 1
            mean += (y - mean) / n
        p = (mean if use_mean else 0.0) + bu[u] + bi[i] + P[u] @ Q[i]
        g = 2.0 * (p - y)
        bu[u], bi[i] = (bu[u] - bias_lr * (g + l2_bias * bu[u]),
                        bi[i] - bias_lr * (g + l2_bias * bi[i]))
        P[u], Q[i] = (P[u] - latent_lr * (g * Q[i] + l2_latent * P[u]),
                      Q[i] - latent_lr * (g * P[u] + l2_latent * Q[i]))
    return np.array(out)


def reference_pmf(stream, lr, l2, k, std, seed, low, high):
    """Online PMF (Ling et al. 2012; PMF's logistic link) written plainly."""
    rng = np.random.RandomState(seed)
    P, Q, out = {}, {}, []
    for u, i, y in stream:
        if u not in P:
            P[u] = rng.normal(0.0, std, size=k)
        if i not in Q:
            Q[i] = rng.normal(0.0, std, size=k)
        g = 1.0 / (1.0 + np.exp(-(P[u] @ Q[i])))
        out.append(low + (high - low) * g)
        e = (g - (y - low) / (high - low)) * g * (1 - g)
        P[u], Q[i] = P[u] - lr * (e * Q[i] + l2 * P[u]), Q[i] - lr * (e * P[u] + l2 * Q[i])
    return np.array(out)


def test_online_pmf_against_reference():
    users, items, ratings = random_stream(seed=4)
    model = OnlinePMF(n_factors=4, lr=1.5, l2=0.01, init_std=0.3, random_state=2)
    got = model.predict_learn(users, items, ratings)
    expected = reference_pmf(zip(users, items, ratings), 1.5, 0.01, 4, 0.3, 2, 1.0, 5.0)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
    assert 1.0 <= got.min() and got.max() <= 5.0
    g = 1.0 / (1.0 + np.exp(-(model.user_factors(users[0])[1] @ model.item_factors(items[0])[1])))
    assert model.predict_one(users[0], items[0]) == pytest.approx(1.0 + 4.0 * g)
    assert model.predict_one("nobody", items[0]) == 3.0
    assert OnlinePMF().predict_one("a", "b") == 3.0          # nothing learned yet
    with pytest.raises(ValueError, match="max_rating"):
        OnlinePMF(min_rating=5, max_rating=1).learn_one("a", "b", 3.0)


def random_stream(n=600, n_users=40, n_items=30, seed=0):
    rng = np.random.default_rng(seed)
    # ids appear over time: the user/item pools widen as the stream goes on
    t = np.arange(n)
    users = [f"u{int(x)}" for x in rng.integers(0, 5 + (n_users - 5) * t // n)]
    items = [int(x) * 7 for x in rng.integers(0, 5 + (n_items - 5) * t // n)]
    ratings = rng.integers(1, 6, size=n).astype(float)
    return users, items, ratings


CASES = [
    (Baseline, dict(lr=0.03, l2=0.01), dict(use_mean=True, bias_lr=0.03, latent_lr=0.0,
                                            l2_bias=0.01, l2_latent=0.0, k=0, std=0.1)),
    (FunkMF, dict(n_factors=4, latent_lr=0.04, l2_latent=0.05, init_std=0.2, random_state=3),
     dict(use_mean=False, bias_lr=0.0, latent_lr=0.04, l2_bias=0.0, l2_latent=0.05, k=4,
          std=0.2, seed=3)),
    (BiasedMF, dict(n_factors=5, bias_lr=0.02, latent_lr=0.05, l2_bias=0.01, l2_latent=0.02,
                    init_std=0.1, random_state=7),
     dict(use_mean=True, bias_lr=0.02, latent_lr=0.05, l2_bias=0.01, l2_latent=0.02, k=5,
          std=0.1, seed=7)),
]


@pytest.mark.parametrize("cls, params, ref", CASES, ids=[c[0].__name__ for c in CASES])
def test_against_reference_random(cls, params, ref):
    users, items, ratings = random_stream()
    ref = dict({"seed": None}, **ref)
    expected = reference(zip(users, items, ratings), **ref)
    model = cls(**params)
    got = model.predict_learn(users, items, ratings)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
    # the learned model: predict_one of every pair seen
    assert model.n_users_ == len(set(users)) and model.n_items_ == len(set(items))
    assert model.user_ids_[:3] == list(dict.fromkeys(users))[:3]


@pytest.mark.parametrize("cls, params, ref", CASES, ids=[c[0].__name__ for c in CASES])
def test_against_reference_movielens(cls, params, ref):
    data = load_ratings(data_path("movielens100k", "ml-100k.inter"))
    sl = slice(0, 3000)
    ref = dict({"seed": None}, **ref, low=1.0, high=5.0)
    expected = reference(zip(data.users[sl], data.items[sl], data.ratings[sl]), **ref)
    model = cls(**params, min_rating=1, max_rating=5)
    got = model.predict_learn(data.users[sl], data.items[sl], data.ratings[sl])
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


def test_one_at_a_time_equals_stream_and_chunks():
    users, items, ratings = random_stream(seed=1)
    whole = BiasedMF(n_factors=3, random_state=0).predict_learn(users, items, ratings)
    one = BiasedMF(n_factors=3, random_state=0)
    p = []
    for u, i, r in zip(users, items, ratings):
        p.append(one.predict_one(u, i) if (u in one.user_ids_ and i in one.item_ids_)
                 else None)
        one.learn_one(u, i, r)
    chunks = BiasedMF(n_factors=3, random_state=0)
    got = np.concatenate([chunks.predict_learn(users[a:a + 97], items[a:a + 97],
                                               ratings[a:a + 97]) for a in range(0, 600, 97)])
    np.testing.assert_array_equal(got, whole)
    known = [j for j, v in enumerate(p) if v is not None]
    np.testing.assert_allclose(np.array([p[j] for j in known]), whole[known], rtol=1e-12)


def test_integer_ids_compiled_coder_equals_generic_path():
    """Small non-negative int ids take the compiled coder; mixing in other ids later,
    negative or huge ints, lists and strings must give the same model."""
    rng = np.random.default_rng(8)
    users = rng.integers(0, 30, 400)
    items = rng.integers(0, 20, 400)
    ratings = rng.integers(1, 6, 400).astype(float)
    a = BiasedMF(n_factors=3, random_state=4)
    b = BiasedMF(n_factors=3, random_state=4)
    shifts = [0, -50, 10**9]        # small ints, then negative ones, then huge ones
    pa, pb = [], []
    for j, sl in enumerate([slice(0, 100), slice(100, 200), slice(200, 400)]):
        u, i, r = users[sl] + shifts[j], items[sl], ratings[sl]
        pa.append(a.predict_learn(u, i, r))                    # numpy int arrays
        pb.append(b.predict_learn(u.tolist(), i.tolist(), r))  # lists: the generic path
        if j == 0:                                             # a str id among ints
            pa.append([a.predict_learn_one("s", 3, 4.0)])
            pb.append([b.predict_learn_one("s", 3, 4.0)])
    pa, pb = np.concatenate(pa), np.concatenate(pb)
    np.testing.assert_array_equal(pa, pb)
    assert a.user_ids_ == b.user_ids_ and a.item_ids_ == b.item_ids_
    assert all(type(k) is int for k in a.item_ids_)


def test_new_ids_start_from_the_prior():
    m = BiasedMF(n_factors=4, random_state=0)
    m.partial_fit(["a", "b"], [1, 2], [4.0, 2.0])
    # unknown user or item: the prior (bias 0, latent mean 0)
    assert m.predict_one("zzz", 1) == pytest.approx(m.global_mean_ + m.item_factors(1)[0])
    assert m.predict_one("zzz", 99) == pytest.approx(m.global_mean_)
    assert m.user_factors("zzz")[0] == 0.0 and not m.user_factors("zzz")[1].any()
    # a new id mid-stream of another type: a tuple, an int among strings
    m.learn_one(("c", 3), 2, 5.0)
    m.learn_one(7, 3, 1.0)
    assert m.n_users_ == 4 and m.n_items_ == 3
    assert m.user_ids_ == ["a", "b", ("c", 3), 7]
    assert np.isfinite(m.predict_one(("c", 3), 2))


def test_recommend_excludes_rated_and_ranks_by_prediction():
    users, items, ratings = random_stream(n=800, seed=2)
    m = BiasedMF(n_factors=3, random_state=1).partial_fit(users, items, ratings)
    u = users[-1]
    rated = set(m.rated_items(u))
    assert rated == {i for uu, i in zip(users, items) if uu == u}
    recs = m.recommend(u, k=5)
    assert len(recs) == 5 and not rated & set(recs)
    scores = {i: m.predict_one(u, i) for i in m.item_ids_ if i not in rated}
    best = sorted(scores, key=lambda i: -scores[i])[:5]
    assert recs == best
    everything = m.recommend(u, k=10_000)
    assert set(everything) == set(m.item_ids_) - rated
    assert set(m.recommend(u, k=3, exclude_rated=False)) <= set(m.item_ids_)
    assert len(m.recommend("never seen", k=4)) == 4
    with pytest.raises(ValueError, match="k must be"):
        m.recommend(u, k=0)


@pytest.mark.parametrize("cls", [Baseline, FunkMF, BiasedMF, OnlinePMF, BrandSVD])
def test_save_load_round_trip_exact(cls, tmp_path):
    users, items, ratings = random_stream(seed=3)
    a = cls(lr=0.02) if cls is Baseline else cls(rank=3) if cls is BrandSVD \
        else cls(random_state=5)
    a.partial_fit(users[:300], items[:300], ratings[:300])
    a.save(tmp_path / "m.olearn")
    b = load(tmp_path / "m.olearn")
    assert type(b) is cls and b.get_params() == a.get_params()
    assert b.user_ids_ == a.user_ids_ and b.item_ids_ == a.item_ids_
    assert b.recommend(users[0], 5) == a.recommend(users[0], 5)
    # continuing: new ids draw the same latent vectors, predictions identical
    pa = a.predict_learn(users[300:], items[300:], ratings[300:])
    pb = b.predict_learn(users[300:], items[300:], ratings[300:])
    np.testing.assert_array_equal(pa, pb)
    # an empty model saves too
    save(cls(), tmp_path / "e.olearn")
    assert load(tmp_path / "e.olearn").n_users_ == 0


def test_unsaveable_ids_and_bad_input(tmp_path):
    m = Baseline().partial_fit([("a", 1)], ["x"], [3.0])
    with pytest.raises(TypeError, match="cannot save a user id of type tuple"):
        save(m, tmp_path / "m.olearn")
    assert not list(tmp_path.iterdir())
    with pytest.raises(ValueError, match="ratings must be finite"):
        Baseline().learn_one("a", "b", float("nan"))
    with pytest.raises(ValueError, match="users has 2 entries but items has 1"):
        Baseline().partial_fit(["a", "b"], ["x"], [1, 2])
    with pytest.raises(ValueError, match="latent_lr must be"):
        BiasedMF(latent_lr=-1).learn_one("a", "b", 1.0)
    with pytest.raises(ValueError, match="n_factors must be an integer"):
        FunkMF(n_factors=2.5).learn_one("a", "b", 1.0)
    with pytest.raises(ValueError, match="unknown recommender 'svd'"):
        make_recommender("svd")
    assert Baseline().predict_one("a", "b") == 0.0  # nothing learned: the prior


def test_load_ratings_formats(tmp_path):
    (tmp_path / "u.data").write_text("1\t10\t4\t300\n2\t10\t3\t100\n1\t11\t5\t200\n")
    d = load_ratings(tmp_path / "u.data")
    assert d.users.tolist() == [2, 1, 1] and d.ratings.tolist() == [3.0, 5.0, 4.0]
    (tmp_path / "r.csv").write_text("user,item,rating\nann,m1,4.5\nbob,m2,2\n")
    d = load_ratings(tmp_path / "r.csv")
    assert d.users.tolist() == ["ann", "bob"] and d.timestamps is None
    (tmp_path / "bad.tsv").write_text("1\t2\t3\t4\n1\t2\tx\t4\n")
    with pytest.raises(ValueError, match="line 2: rating and timestamp must be numbers"):
        load_ratings(tmp_path / "bad.tsv")
    (tmp_path / "empty.tsv").write_text("user\titem\trating\n")
    with pytest.raises(ValueError, match="no ratings"):
        load_ratings(tmp_path / "empty.tsv")
    r = evaluate_stream(Baseline(), tmp_path / "u.data", k=None)
    # by hand: predictions 0 (nothing learned), 3 (the mean), 4 + 0.025 * 2 (user 1's bias)
    assert r["n"] == 3 and r["rmse"] == pytest.approx(math.sqrt((9 + 4 + 0.05 ** 2) / 3))


def test_progressive_metrics_movielens():
    data = load_ratings(data_path("movielens100k", "ml-100k.inter"))
    assert len(data) == 100_000 and np.all(np.diff(data.timestamps) >= 0)
    sl = slice(0, 20_000)
    part = (data.users[sl], data.items[sl], data.ratings[sl])
    res = progressive_ratings(BiasedMF(random_state=73, min_rating=1, max_rating=5), part)
    base = progressive_ratings(Baseline(min_rating=1, max_rating=5), part)
    mean_only = np.cumsum(data.ratings[sl]) / np.arange(1, 20_001)
    naive = np.sqrt(np.mean((np.r_[0.0, mean_only[:-1]].clip(1, 5) - data.ratings[sl]) ** 2))
    assert base["rmse"] < naive and res["rmse"] < naive
    ev = evaluate_stream(Baseline(min_rating=1, max_rating=5), part, k=10, every=50)
    assert ev["rmse"] == pytest.approx(base["rmse"], rel=1e-12)
    assert ev["hit_tests"] > 0 and 0.0 <= ev["hit_rate"] <= 1.0


def reference_brand(stream, rank, n_users, n_items):
    """Brand's recommender by dense algebra: the mean-centred imputed matrix, one entry
    set per rating, then its best rank-``rank`` approximation (numpy's SVD)."""
    A = np.zeros((n_users, n_items))
    uid, iid, out, mean, n = {}, {}, [], 0.0, 0
    for u, i, y in stream:
        a, b = uid.setdefault(u, len(uid)), iid.setdefault(i, len(iid))
        out.append(mean + A[a, b])
        n += 1
        mean += (y - mean) / n
        A[a, b] = y - mean
        U, S, Vt = np.linalg.svd(A, full_matrices=False)
        A = (U[:, :rank] * S[:rank]) @ Vt[:rank]
    return np.array(out)


@pytest.mark.parametrize("rank", [2, 8])
def test_brand_svd_against_dense_reference(rank):
    users, items, ratings = random_stream(n=150, n_users=12, n_items=8, seed=5)
    model = BrandSVD(rank=rank)
    got = model.predict_learn(users, items, ratings)
    expected = reference_brand(zip(users, items, ratings), rank, 12, 8)
    np.testing.assert_allclose(got, expected, atol=1e-8)
    assert len(model.singular_values_) <= rank
    s = model.singular_values_
    assert np.all(np.diff(s) <= 1e-12)


def test_movielens_download_cache_and_checksum(tmp_path, monkeypatch):
    """The GroupLens archive's layout served on loopback (built here from the shared
    copy, never committed): downloaded once into the cache, checked by content; a wrong
    archive leaves nothing behind."""
    import http.server
    import threading
    import zipfile

    from olearn.datasets.registry import ChecksumError
    from olearn.datasets import ratings as rdata

    src = load_ratings(data_path("movielens100k", "ml-100k.inter"), sort=False)
    lines = "".join(f"{u}\t{i}\t{int(r)}\t{int(t)}\n"
                    for u, i, r, t in zip(src.users, src.items, src.ratings, src.timestamps))
    site = tmp_path / "site"
    site.mkdir()
    with zipfile.ZipFile(site / "ml-100k.zip", "w") as z:
        z.writestr("ml-100k/u.data", lines)
    with zipfile.ZipFile(site / "bad.zip", "w") as z:
        z.writestr("ml-100k/u.data", lines[:5000])        # a wrong file: fails fast

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(site), **k)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    monkeypatch.setattr(rdata, "find_movielens100k", lambda mirror=None: None)
    try:
        with pytest.raises(ChecksumError):
            rdata.load_movielens100k(data_home=tmp_path / "bad", url=base + "bad.zip")
        assert not [p for p in (tmp_path / "bad").rglob("*") if p.is_file()]
        d = rdata.load_movielens100k(data_home=tmp_path / "cache", url=base + "ml-100k.zip")
        assert len(d) == 100_000 and rdata.fingerprint(d) == rdata.ML100K_SHA256
        assert (tmp_path / "cache" / "movielens-100k" / "ml-100k" / "u.data").is_file()
        # cached: no server needed any more
        server.shutdown()
        d2 = rdata.load_movielens100k(data_home=tmp_path / "cache", url=base + "gone.zip")
        np.testing.assert_array_equal(d2.ratings, d.ratings)
    finally:
        server.server_close()
