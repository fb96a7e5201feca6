"""MurmurHash3 and FeatureHasher-style hashing, against scikit-learn's own."""
import numpy as np
import pytest
from sklearn.feature_extraction import FeatureHasher
from sklearn.utils import murmurhash3_32 as sk_murmur

from olearn.io.hashing import DictHasher, hash_index, hash_many, murmurhash3_32


def _random_keys(rng, n):
    alphabet = list("abcXYZ019 _-:|") + ["é", "ß", "中", "😀", "\u0301", "Ω"]
    keys = []
    for _ in range(n):
        length = int(rng.integers(0, 13))
        keys.append("".join(rng.choice(alphabet, length)))
    return keys


def test_murmur_matches_sklearn_on_random_utf8_strings_and_bytes():
    rng = np.random.default_rng(0)
    keys = _random_keys(rng, 1500)
    seeds = [0, 1, 42, 2**31 - 1, 2**32 - 1, 97562527]
    for seed in seeds:
        ours = hash_many(keys, seed)
        for key, h in zip(keys, ours.tolist()):
            assert h == sk_murmur(key, seed=seed, positive=True), (key, seed)
    for key in keys[:300]:
        for seed in (0, 7):
            assert murmurhash3_32(key, seed) == sk_murmur(key, seed=seed)
            assert murmurhash3_32(key, seed, positive=True) == sk_murmur(key, seed=seed,
                                                                          positive=True)
    raw = [bytes(rng.integers(0, 256, int(rng.integers(0, 20))).astype(np.uint8))
           for _ in range(500)]
    for key, h in zip(raw, hash_many(raw, 3).tolist()):
        assert h == sk_murmur(key, seed=3, positive=True)


def test_known_values():
    # published MurmurHash3_x86_32 test vectors
    assert murmurhash3_32(b"", 0, positive=True) == 0
    assert murmurhash3_32(b"", 1, positive=True) == 0x514E28B7
    assert murmurhash3_32(b"\xff\xff\xff\xff", 0, positive=True) == 0x76293B50
    assert murmurhash3_32(b"\x21\x43\x65\x87", 0x5082EDEE, positive=True) == 0x2362F9DE


def test_dict_hasher_equals_feature_hasher():
    rng = np.random.default_rng(1)
    names = _random_keys(rng, 200)
    dicts = [{names[int(j)]: float(rng.normal()) for j in rng.integers(0, 200, 8)}
             for _ in range(100)]
    for signed in (True, False):
        for n_bits in (4, 18):
            ours = DictHasher(n_bits, signed=signed).transform(dicts)
            theirs = FeatureHasher(2**n_bits, alternate_sign=signed).transform(dicts)
            theirs.sum_duplicates()
            theirs.eliminate_zeros()
            assert ours.shape == theirs.shape
            assert abs(ours - theirs).max() < 1e-12
    col, sign = hash_index("hello", 10)
    h = sk_murmur("hello", seed=0)
    assert col == abs(h) % 1024 and sign == (1.0 if h >= 0 else -1.0)


def test_dict_hasher_rejects_bad_input():
    with pytest.raises(ValueError, match="n_bits"):
        DictHasher(0)
    with pytest.raises(ValueError, match="n_bits"):
        DictHasher(40)
    with pytest.raises(ValueError, match="'a'"):
        DictHasher(4).transform([{"a": "x"}])
    with pytest.raises(ValueError, match="finite"):
        DictHasher(4, signed=False).transform([{"a": float("nan")}])
    with pytest.raises(TypeError):
        hash_many([1.5])
