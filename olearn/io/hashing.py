"""Feature hashing with MurmurHash3 (x86, 32-bit), compiled.

MurmurHash3 is Austin Appleby's public-domain hash; its x86 32-bit variant is
the one Vowpal Wabbit (``uniform_hash``) and scikit-learn (``murmurhash3_32``,
``FeatureHasher``, ``HashingVectorizer``) use.  ``murmurhash3_32`` here gives
the same numbers as ``sklearn.utils.murmurhash3_32`` for ``str`` (UTF-8 bytes)
and ``bytes`` keys, signed (``int32``) or ``positive`` (``uint32``); tested
against it.

Hashing a name to one of ``2**n_bits`` columns (``hash_index``,
``DictHasher``) follows scikit-learn's ``FeatureHasher``: with ``h`` the signed
32-bit hash, the column is ``abs(h) mod 2**n_bits`` and, when ``signed``, the
value is multiplied by the sign of ``h`` (Weinberger et al., "Feature hashing
for large scale multitask learning", ICML 2009: colliding features then cancel
on average, so inner products stay unbiased).  The Vowpal Wabbit reader
(``olearn.io.vw``) keeps Vowpal Wabbit's own rule instead, the unsigned hash
masked to its low ``n_bits`` bits.

Everything is deterministic: the same key, seed and ``n_bits`` give the same
column in every process and on every platform.
"""
import numpy as np

from .._compiled import njit

__all__ = ["murmurhash3_32", "hash_index", "hash_many", "DictHasher", "check_n_bits"]

_M32 = np.uint64(0xFFFFFFFF)


@njit(inline="always")
def _rotl(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & np.uint64(0xFFFFFFFF)


@njit(inline="always")
def murmur3(a, start, end, seed):
    """MurmurHash3 x86 32-bit of the bytes ``a[start:end]`` (uint8 array) with a
    32-bit ``seed``; returns the unsigned hash as a uint64 below 2**32."""
    m = np.uint64(0xFFFFFFFF)
    c1 = np.uint64(0xCC9E2D51)
    c2 = np.uint64(0x1B873593)
    h = np.uint64(seed) & m
    n = end - start
    nblocks = n // 4
    for b in range(nblocks):
        i = start + 4 * b
        k = (np.uint64(a[i]) | (np.uint64(a[i + 1]) << np.uint64(8))
             | (np.uint64(a[i + 2]) << np.uint64(16)) | (np.uint64(a[i + 3]) << np.uint64(24)))
        k = (k * c1) & m
        k = _rotl(k, 15)
        k = (k * c2) & m
        h ^= k
        h = _rotl(h, 13)
        h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & m
    tail = start + 4 * nblocks
    rest = n & 3
    k = np.uint64(0)
    if rest >= 3:
        k ^= np.uint64(a[tail + 2]) << np.uint64(16)
    if rest >= 2:
        k ^= np.uint64(a[tail + 1]) << np.uint64(8)
    if rest >= 1:
        k ^= np.uint64(a[tail])
        k = (k * c1) & m
        k = _rotl(k, 15)
        k = (k * c2) & m
        h ^= k
    h ^= np.uint64(n) & m
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return h


@njit(inline="always")
def sklearn_slot(h, mask):
    """Column and sign of an unsigned 32-bit hash ``h`` as FeatureHasher gives them
    for ``2**n_bits`` columns (``mask = 2**n_bits - 1``): the hash read as int32,
    ``abs(h) mod 2**n_bits`` and the sign of h."""
    s = np.int64(h)
    if s >= 2147483648:
        s -= 4294967296
    sign = 1.0
    if s < 0:
        s = -s
        sign = -1.0
    return s & mask, sign


@njit(cache=True)
def _hash_spans(a, starts, ends, seed):
    out = np.empty(starts.shape[0], dtype=np.uint32)
    for t in range(starts.shape[0]):
        out[t] = np.uint32(murmur3(a, starts[t], ends[t], seed))
    return out


def _key_bytes(key):
    if isinstance(key, str):
        return key.encode("utf-8", "surrogatepass")
    if isinstance(key, (bytes, bytearray, memoryview)):
        return bytes(key)
    raise TypeError(f"a hashed key must be str or bytes, got {type(key).__name__}")


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
            or not -2**31 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [-2**31, 2**32), got {seed!r}")
    return int(seed) & 0xFFFFFFFF


def check_n_bits(n_bits, name="n_bits"):
    """``n_bits`` as an int in 1..31, else a ValueError naming it."""
    if isinstance(n_bits, bool) or not isinstance(n_bits, (int, np.integer)) \
            or not 1 <= n_bits <= 31:
        raise ValueError(f"{name} must be an integer from 1 to 31, got {n_bits!r}")
    return int(n_bits)


def hash_many(keys, seed=0):
    """Unsigned 32-bit MurmurHash3 of each key (str as UTF-8, or bytes): a uint32
    array, in one compiled call."""
    seed = _check_seed(seed)
    raw = [_key_bytes(k) for k in keys]
    lengths = np.fromiter(map(len, raw), np.int64, len(raw))
    ends = np.cumsum(lengths)
    buf = np.frombuffer(b"".join(raw) or b"\0", dtype=np.uint8)
    return _hash_spans(buf, ends - lengths, ends, seed)


def murmurhash3_32(key, seed=0, positive=False):
    """MurmurHash3 x86 32-bit of ``key`` (str, hashed as UTF-8, or bytes): a Python
    int, in [-2**31, 2**31) or, with ``positive``, in [0, 2**32) (as
    ``sklearn.utils.murmurhash3_32``)."""
    h = int(hash_many([key], seed)[0])
    return h if positive or h < 2**31 else h - 2**32


def hash_index(key, n_bits=18, signed=True, seed=0):
    """``(column, sign)`` of a feature name as FeatureHasher places it among
    ``2**n_bits`` columns (sign +1.0 when not ``signed``)."""
    n_bits = check_n_bits(n_bits)
    h = murmurhash3_32(key, seed)
    return abs(h) % (1 << n_bits), (-1.0 if signed and h < 0 else 1.0)


class DictHasher:
    """Feature dicts ``{name: value}`` to hashed columns, without a vocabulary.

    Parameters
    ----------
    n_bits : int, default=18
        The dicts map to ``2**n_bits`` columns.
    signed : bool, default=True
        Multiply each value by the sign of its name's hash (as FeatureHasher's
        ``alternate_sign``), so that collisions cancel on average.
    seed : int, default=0
        MurmurHash3 seed.

    ``transform(dicts)`` gives a canonical CSR matrix of ``2**n_bits`` columns
    equal to scikit-learn's ``FeatureHasher(2**n_bits, alternate_sign=signed)``
    on str names (non-str names are hashed as ``str(name)``), ``transform_one(x)``
    a one-row one; ``columns(x)`` gives one dict's columns and values as lists (a
    name's slot is remembered, up to ``cache_size`` names).  To learn from dicts
    through hashing instead of a growing vocabulary, put the learner behind it:
    ``olearn.io.TextPipeline(learner, DictHasher(20))`` (``learn_one(x, y)``).
    """

    def __init__(self, n_bits=18, signed=True, seed=0, cache_size=1 << 20):
        self.n_bits = check_n_bits(n_bits)
        self.signed = bool(signed)
        self.seed = _check_seed(seed)
        self.cache_size = int(cache_size)
        self._slots = {}

    @property
    def n_features(self):
        return 1 << self.n_bits

    def _lookup(self, names):
        slots = self._slots
        new = [k for k in names if k not in slots]
        if new:
            if len(slots) + len(new) > self.cache_size:
                slots.clear()
            hashes = hash_many([k if isinstance(k, (str, bytes)) else str(k) for k in new],
                               self.seed).astype(np.int64)
            hashes[hashes >= 2**31] -= 2**32
            cols = (np.abs(hashes) % (1 << self.n_bits)).tolist()
            signs = np.where(hashes < 0, -1.0, 1.0) if self.signed else np.ones(len(new))
            for k, c, s in zip(new, cols, signs.tolist()):
                slots[k] = (c, s)
        return [slots[k] for k in names]

    def columns(self, x):
        """Columns and values of dict ``x`` (lists, in the dict's order; a column
        may repeat when names collide)."""
        names = list(x)
        try:
            slots = [self._slots[k] for k in names]
        except KeyError:
            slots = self._lookup(names)
        vals = list(x.values())
        if self.signed:
            try:
                vals = [v * s for (_, s), v in zip(slots, vals)]
            except TypeError:
                bad = next(k for k, v in x.items() if isinstance(v, (str, bytes))
                           or not hasattr(v, "__float__"))
                raise ValueError(f"feature {bad!r} has value {x[bad]!r}, not a number") from None
        return [c for c, _ in slots], vals

    def transform_one(self, x):
        return self.transform([x])

    def transform(self, dicts):
        import scipy.sparse as sp

        from .dicts import _float_values
        indptr, cols, vals = [0], [], []
        for x in dicts:
            c, v = self.columns(x)
            cols.extend(c)
            vals.extend(v)
            indptr.append(len(cols))
        data = _float_values(vals, lambda k: f"value {k}")
        X = sp.csr_matrix((data, np.array(cols, dtype=np.int64), np.array(indptr)),
                          shape=(len(indptr) - 1, self.n_features))
        X.sum_duplicates()
        X.eliminate_zeros()
        return X
