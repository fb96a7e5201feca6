"""Seeded synthetic data: every generator takes ``random_state`` and gives the same
arrays for the same seed.
"""
import numpy as np
import scipy.sparse as sp


def make_sparse_stream(n_samples=200_000, n_features=2**18, nnz=40, flip=0.05,
                       random_state=0):
    """A sparse binary stream: the benchmark data of the foundation issue.

    Each row has exactly ``nnz`` distinct non-zero features with standard normal
    values; the label is the sign of a hidden hyperplane ``w`` (standard normal, through
    the origin), then ``round(flip * n_samples)`` labels, chosen at random, are negated.

    Returns ``(X, y)``: ``X`` a canonical CSR matrix (float64, sorted indices, no
    duplicates, int32 indices), ``y`` in {-1, +1} (float64).

    The column sets are drawn without a Python loop: ``nnz`` integers in
    ``[0, n_features - nnz]`` sorted per row, plus ``0, 1, ..., nnz - 1``, are strictly
    increasing and below ``n_features`` (a map from multisets onto sets, so every set
    can occur; it is close to, not exactly, uniform over the sets).
    """
    n_samples, n_features, nnz = int(n_samples), int(n_features), int(nnz)
    if n_samples < 1 or nnz < 1 or n_features < nnz:
        raise ValueError(f"need n_samples >= 1 and 1 <= nnz <= n_features, got "
                         f"n_samples={n_samples}, nnz={nnz}, n_features={n_features}")
    if not 0.0 <= flip <= 1.0:
        raise ValueError(f"flip must be in [0, 1], got {flip!r}")
    rng = np.random.default_rng(random_state)
    cols = rng.integers(0, n_features - nnz + 1, size=(n_samples, nnz), dtype=np.int32)
    cols.sort(axis=1)
    cols += np.arange(nnz, dtype=np.int32)
    data = rng.standard_normal(n_samples * nnz)
    indptr = np.arange(0, n_samples * nnz + 1, nnz, dtype=np.int32)
    X = sp.csr_matrix((data, cols.ravel(), indptr), shape=(n_samples, n_features))
    X.has_sorted_indices = True
    w = rng.standard_normal(n_features)
    y = np.where(X @ w > 0, 1.0, -1.0)
    y[rng.permutation(n_samples)[:round(flip * n_samples)]] *= -1.0
    return X, y


def _even(n, name="n"):
    n = int(n)
    if n < 2 or n % 2:
        raise ValueError(f"{name} must be an even number >= 2, got {n}")
    return n


def _two_classes(rng, neg_first_coord, pos_first_coord, second_coord, shuffle):
    """The seed book's layout: positives first, then negatives, then a random order."""
    X = np.column_stack([np.concatenate([pos_first_coord, neg_first_coord]), second_coord])
    h = X.shape[0] // 2
    y = np.concatenate([np.ones(h), -np.ones(h)])
    if shuffle:
        p = rng.permutation(X.shape[0])
        X, y = X[p], y[p]
    return X, y


def make_two_gaussians(n=200, random_state=0, shuffle=True):
    """Two Gaussian classes in 2-D: the seed book's passive-aggressive example.

    Reproduces the data of Fig. 31.3 (MATLAB code for passive-aggressive
    classification) in chapter 31, "Online Learning", of the seed book (Sugiyama,
    *Introduction to Statistical Machine Learning*, 2016)::

        n=200; x=[randn(1,n/2)-5 randn(1,n/2)+5; 5*randn(1,n)]';
        y=[ones(n/2,1);-ones(n/2,1)]; ... p=randperm(n); x=x(p,:); y=y(p);

    The first ``n/2`` rows (label +1) have first coordinate N(-5, 1), the others
    (label -1) N(+5, 1); the second coordinate is N(0, 5^2) for all; the rows are then
    put in a random order (``shuffle``).  The draws are made in the book's order with
    numpy's generator, so the numbers differ from MATLAB's but follow the same law.
    The book's constant third column (its intercept) is not added: olearn's
    ``fit_intercept=True`` does the same.  Returns ``(X, y)``, ``y`` in {-1, +1}.
    """
    n = _even(n)
    rng = np.random.default_rng(random_state)
    pos = rng.standard_normal(n // 2) - 5.0
    neg = rng.standard_normal(n // 2) + 5.0
    second = 5.0 * rng.standard_normal(n)
    return _two_classes(rng, neg, pos, second, shuffle)


def make_outlier_gaussians(n=50, random_state=0, shuffle=True):
    """Two Gaussian classes with two outliers: the seed book's AROW example (Fig. 31.7).

    From chapter 31 of the seed book (see :func:`make_two_gaussians`)::

        n=50; x=[randn(1,n/2)-15 randn(1,n/2)-5; randn(1,n)]';
        y=[ones(n/2,1); -ones(n/2,1)]; x(1:2,1)=x(1:2,1)+10; ... p=randperm(n);

    Label +1 rows have first coordinate N(-15, 1), label -1 rows N(-5, 1), the second
    coordinate is N(0, 1); the first two +1 rows are moved by +10 along the first
    axis, into the other class: the outliers that passive-aggressive learning follows
    and AROW resists (the book's Fig. 31.8).  Returns ``(X, y)``, ``y`` in {-1, +1}.
    """
    n = _even(n)
    if n < 4:
        raise ValueError(f"n must be >= 4 (two outliers among the positives), got {n}")
    rng = np.random.default_rng(random_state)
    pos = rng.standard_normal(n // 2) - 15.0
    neg = rng.standard_normal(n // 2) - 5.0
    second = rng.standard_normal(n)
    pos[:2] += 10.0
    return _two_classes(rng, neg, pos, second, shuffle)


def make_separable(n=1000, d=10, margin=0.1, radius=1.0, random_state=0):
    """Linearly separable data with a known margin and radius (for mistake bounds).

    ``w_star`` is a random unit vector; every row satisfies ``y <w_star, x> >= margin``
    and ``||x|| <= radius``, and both are attained: ``min_i y_i <w_star, x_i>`` equals
    ``margin`` and ``max_i ||x_i||`` equals ``radius`` (one row each), so Novikoff's
    Perceptron bound is exactly ``(radius / margin) ** 2`` mistakes (for a learner
    without intercept: the hyperplane goes through the origin).

    Each row is ``y (margin + (radius - margin) u) w_star + v`` with ``y`` a fair sign,
    ``u`` uniform on [0, 1) and ``v`` orthogonal to ``w_star``, of uniform random
    direction and length up to what keeps ``||x|| <= radius``.

    Returns ``(X, y, w_star)``, ``y`` in {-1, +1}.
    """
    n, d = int(n), int(d)
    if n < 2 or d < 1:
        raise ValueError(f"need n >= 2 and d >= 1, got n={n}, d={d}")
    if not 0.0 < margin < radius:
        raise ValueError(f"need 0 < margin < radius, got margin={margin!r}, radius={radius!r}")
    rng = np.random.default_rng(random_state)
    w_star = rng.standard_normal(d)
    w_star /= np.linalg.norm(w_star)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    s = margin + (radius - margin) * rng.random(n)
    s[0] = margin                                   # attains the margin
    v = rng.standard_normal((n, d))
    v -= np.outer(v @ w_star, w_star)               # orthogonal to w_star
    norms = np.linalg.norm(v, axis=1)
    room = np.sqrt(np.maximum(radius**2 - s**2, 0.0))
    length = room * rng.random(n) ** (1.0 / max(d - 1, 1))
    length[1] = room[1]                             # attains the radius (if d > 1)
    if d == 1:
        s[1] = radius
    scale = np.divide(length, norms, out=np.zeros(n), where=norms > 0)
    X = (y * s)[:, None] * w_star + v * scale[:, None]
    p = rng.permutation(n)
    return X[p], y[p], w_star


# ------------------------------------------------------------ the streams of Sahoo et al.
def _relu_concept(rng, n_features, depth, width=100):
    """A random relu network (``depth`` hidden layers of ``width`` units, He-normal
    weights, zero biases, 2 outputs): one concept of Sahoo et al.'s streams.  The deep
    relu features of standard normal rows share a large common part, so the label is
    ``out_1 - out_0`` above its median over 20,000 rows drawn for the purpose: the two
    classes are balanced."""
    sizes = [n_features] + [width] * depth + [2]
    weights = [rng.standard_normal((a, b)) * np.sqrt(2.0 / a) for a, b in zip(sizes, sizes[1:])]
    return weights, float(np.median(_margin(weights, rng.standard_normal((20_000, n_features)))))


def _margin(weights, X):
    h = X
    for W in weights[:-1]:
        h = np.maximum(h @ W, 0.0)
    out = h @ weights[-1]
    return out[:, 1] - out[:, 0]


def _label(concept, X):
    weights, threshold = concept
    return (_margin(weights, X) > threshold).astype(np.int64)


def _concept_stream(n_samples, n_features, depths, random_state):
    """Standard normal rows in ``len(depths)`` equal consecutive segments, segment ``i``
    labelled by the concept ``depths[i]`` names (an int: a fresh network of that depth;
    a reference ``("again", j)``: segment ``j``'s network)."""
    n_samples = int(n_samples)
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    rng = np.random.default_rng(random_state)
    concepts = []
    for d in depths:
        concepts.append(concepts[d[1]] if isinstance(d, tuple) else
                        _relu_concept(rng, n_features, d))
    X = rng.standard_normal((n_samples, n_features))
    y = np.empty(n_samples, dtype=np.int64)
    edges = np.linspace(0, n_samples, len(depths) + 1).round().astype(int)
    for c, lo, hi in zip(concepts, edges, edges[1:]):
        for a in range(lo, hi, 65536):  # bounded memory
            b = min(hi, a + 65536)
            y[a:b] = _label(c, X[a:b])
    return X, y


def make_syn8(n_samples=500_000, n_features=50, random_state=0):
    """Syn8 of Sahoo, Pham, Lu, Hoi (IJCAI 2018, section 5): 50 standard normal features,
    two classes from a randomly initialised network of 8 hidden layers of 100 relu units
    (the paper's description; its 5 million rows are ``n_samples``; the law of the
    random weights, He-normal with zero biases, is this generator's choice).  Returns
    ``(X, y)``, ``y`` in {0, 1}."""
    return _concept_stream(n_samples, n_features, [8], random_state)


def make_cd1(n_samples=450_000, n_features=50, random_state=0):
    """CD1 of Sahoo et al. (2018): concept drift C1 -> C2 -> C1 in three equal segments,
    each concept a random 8-layer relu network as :func:`make_syn8`'s."""
    return _concept_stream(n_samples, n_features, [8, 8, ("again", 0)], random_state)


def make_cd2(n_samples=450_000, n_features=50, random_state=0):
    """CD2 of Sahoo et al. (2018): C1 -> C2 -> C3 in three equal segments, C1 and C3
    random 8-layer relu networks, C2 a 6-layer one."""
    return _concept_stream(n_samples, n_features, [8, 6, 8], random_state)
