"""Models shared by threads (``olearn._locking``): real threads, no mocks.

Each learning thread owns a block of features that no other thread's rows touch, and
the learners have no intercept: a block's weights then evolve exactly as a model fed
that thread's rows alone, whatever the interleaving.  So every saved file, every
prediction served during the run and the final model can be checked against
sequential replays: each block at some prefix of its thread's rows, the prefixes
adding up to ``t_`` (a lost update, a file saved mid-update or a prediction from a
half-updated model matches no prefix).  Without the lock two threads calling
``learn_one`` crash the process (issue 33); that test runs in a subprocess."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import olearn
from olearn.ensemble import ExpertAdvice
from olearn.multiclass import OneVsRest

N_THREADS = 4     # learning threads (each with its own block of features)
ROWS = 150        # rows per learning thread
WIDTH = 5         # features per block


@pytest.fixture(autouse=True)
def _switch_often():
    """Threads switch every 10 us instead of 5 ms: races show within a short test."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


def _run(targets, timeout=120):
    """Run each callable in its own thread; re-raise the first exception."""
    errors = []

    def guard(fn):
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=guard, args=(fn,)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread is stuck (deadlock?)"
    if errors:
        raise errors[0]


def _blocks(seed, n_classes=None):
    """Per thread k: (X_k, y_k) with non-zeros in columns k*WIDTH.. only."""
    rng = np.random.default_rng(seed)
    out = []
    d = N_THREADS * WIDTH
    for k in range(N_THREADS):
        X = np.zeros((ROWS, d))
        X[:, k * WIDTH:(k + 1) * WIDTH] = rng.standard_normal((ROWS, WIDTH))
        w = rng.standard_normal(WIDTH)
        score = X[:, k * WIDTH:(k + 1) * WIDTH] @ w + 0.3 * rng.standard_normal(ROWS)
        if n_classes is None:
            y = score
        elif n_classes == 2:
            y = np.where(score > 0, 1, -1)
        else:
            y = rng.integers(0, n_classes, ROWS)
        out.append((X, y))
    return out


def _first_row(blocks):
    """Block 0's first row, taken out: every model here starts from it (a batch call
    needs a row), the classes declared, and it touches no other block."""
    X, y = blocks[0]
    blocks[0] = (X[1:], y[1:])
    return X[:1], y[:1]


def _started(make, first, classes):
    m = make()
    m.partial_fit(*first, classes=classes)
    return m


def _prefix_states(make, first, block_rows, block, classes):
    """``block``'s weights (``coef_`` columns) after each prefix of its rows, learned
    alone by a fresh model started from ``first``: (rows + 1, ...)."""
    X, y = block_rows
    m = _started(make, first, classes)
    states = []
    for i in range(len(y) + 1):
        states.append(np.atleast_2d(m.coef_)[:, block * WIDTH:(block + 1) * WIDTH].copy())
        if i < len(y):
            m.learn_one(X[i], y[i])
    return np.stack(states)


def _prefixes(states, coef_block):
    """The prefix lengths whose weights equal ``coef_block``."""
    close = [np.allclose(s, coef_block, rtol=1e-9, atol=1e-12) for s in states]
    return [i for i, c in enumerate(close) if c]


def _check_consistent(model, prefix_states, n_rows_before=1):
    """Each block of ``model`` at some prefix of its thread's rows, the prefixes adding
    up to its ``t_`` (they may range over rows that changed nothing)."""
    coef = np.atleast_2d(model.coef_)
    low = high = n_rows_before
    for k, states in enumerate(prefix_states):
        found = _prefixes(states, coef[:, k * WIDTH:(k + 1) * WIDTH])
        assert found, f"block {k} matches no prefix of its thread's rows"
        low += min(found)
        high += max(found)
    assert low <= model.t_ <= high, (low, model.t_, high)


# ---------------------------------------------------------------- crash (issue 33)
def test_two_threads_learning_one_at_a_time_do_not_crash_the_process():
    # the reproduction, in a subprocess: without the lock it ended in SIGSEGV
    # or "double free" in most runs (new dict features grow the model while the other
    # thread's kernel writes the weights)
    code = textwrap.dedent("""
        import sys, threading
        import numpy as np
        import olearn
        sys.setswitchinterval(1e-5)
        rng = np.random.default_rng(0)
        rows = [{f"g{int(v)}": 0.5 for v in rng.integers(0, 100000, 8)}
                for _ in range(3000)]
        y = rng.choice([-1, 1], 3000)
        model = olearn.make("pa1")
        model.learn_one(rows[0], 1)
        def learn(k):
            for i in range(k, 3000, 2):
                model.learn_one(rows[i], y[i])
        threads = [threading.Thread(target=learn, args=(k,)) for k in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print("t_", model.t_)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert "t_ 3001" in proc.stdout


# ---------------------------------------------------------------- one learner
def test_threads_mixing_every_call_on_one_model(tmp_path):
    make = lambda: olearn.make("pa1", fit_intercept=False)  # noqa: E731
    blocks = _blocks(0, n_classes=2)
    first = _first_row(blocks)
    d = N_THREADS * WIDTH
    model = _started(make, first, [-1, 1])
    prefix = [_prefix_states(make, first, b, k, [-1, 1]) for k, b in enumerate(blocks)]
    probe = np.zeros((N_THREADS, d))
    for k in range(N_THREADS):
        probe[k, k * WIDTH:(k + 1) * WIDTH] = 1.0 + np.arange(WIDTH)
    served, files = [], []
    done = threading.Event()

    def learner(k):
        X, y = blocks[k]
        i = 0
        while i < len(y):      # the calls that learn, in turn, each on the next rows
            step = (i // 10) % 4
            if step == 0:
                model.learn_one(X[i], y[i])
                i += 1
            elif step == 1:
                model.partial_fit(X[i:i + 7], y[i:i + 7])
                i += 7
            elif step == 2:
                model.predict_learn(X[i:i + 5], y[i:i + 5])
                i += 5
            else:
                model.predict_learn_one(X[i], y[i])
                i += 1

    def reader():
        while not done.is_set():
            served.append(model.decision_function(probe))
            assert model.predict(probe).shape == (N_THREADS,)
            assert model.predict_one(probe[0]) in (-1, 1)

    def saver(j):
        n = 0
        while not done.is_set():
            path = tmp_path / f"s{j}-{n}.olm"
            model.save(path)
            files.append(path)
            n += 1

    def learners():
        _run([lambda k=k: learner(k) for k in range(N_THREADS)])
        done.set()

    _run([learners, reader, lambda: saver(0), lambda: saver(1)])
    assert model.t_ == N_THREADS * ROWS                       # no update lost
    _check_consistent(model, prefix)
    # the number of updates of each block does not depend on the interleaving
    n0 = _started(make, first, [-1, 1]).n_updates_
    alone = [_started(make, first, [-1, 1]).partial_fit(X, y).n_updates_ - n0
             for X, y in blocks]
    assert model.n_updates_ == n0 + sum(alone)
    assert files and served
    for path in files:                                        # each a consistent state
        _check_consistent(olearn.load(path), prefix)
    for scores in served:                 # every prediction from a whole model
        for k in range(N_THREADS):
            weights = probe[k, k * WIDTH:(k + 1) * WIDTH]
            assert np.isclose(prefix[k] @ weights, scores[k], rtol=1e-9, atol=1e-12).any()


def test_threads_learning_dict_examples_as_new_features_appear():
    # every example brings new names: the model grows while other threads learn
    make = lambda: olearn.make("pa-reg", fit_intercept=False)  # noqa: E731
    rng = np.random.default_rng(1)
    streams = [[({f"t{k}-{rng.integers(0, 60)}": float(v) for v in rng.standard_normal(4)},
                 float(rng.standard_normal())) for _ in range(ROWS)]
               for k in range(N_THREADS)]
    probes = [{f"t{k}-{j}": 1.0 + j for j in range(60)} for k in range(N_THREADS)]
    alone = []                      # each thread's probe score after each prefix, alone
    for k, stream in enumerate(streams):
        m, scores = make(), [0.0]
        for x, y in stream:
            m.learn_one(x, y)
            scores.append(m.predict_one(probes[k]))
        alone.append((np.array(scores), m.n_updates_))
    model = make()

    def learner(k):
        for i, (x, y) in enumerate(streams[k]):
            if i % 2:
                model.learn_one(x, y)
            else:
                model.predict_learn_one(x, y)
            p = model.predict_one(probes[k])         # this thread's block, served whole
            assert np.isclose(alone[k][0], p, rtol=1e-9, atol=1e-12).any()

    _run([lambda k=k: learner(k) for k in range(N_THREADS)])
    assert model.t_ == N_THREADS * ROWS
    assert model.n_updates_ == sum(n for _, n in alone)
    for k in range(N_THREADS):
        assert np.isclose(model.predict_one(probes[k]), alone[k][0][-1], rtol=1e-9)


# ---------------------------------------------------------------- wrappers
def test_one_vs_rest_shared_by_threads(tmp_path):
    classes = [0, 1, 2]
    make = lambda: OneVsRest(olearn.make("pa1", fit_intercept=False))  # noqa: E731
    blocks = _blocks(2, n_classes=3)
    first = _first_row(blocks)
    model = _started(make, first, classes)
    prefix = [_prefix_states(make, first, b, k, classes) for k, b in enumerate(blocks)]
    files = []

    def learner(k):
        X, y = blocks[k]
        for i in range(0, len(y), 10):
            if (i // 10) % 2:
                model.partial_fit(X[i:i + 10], y[i:i + 10])
            else:
                for j in range(i, min(i + 10, len(y))):
                    model.learn_one(X[j], y[j])
            assert model.predict(X[:3]).shape == (3,)
            assert model.predict_one(X[i]) in classes
        path = tmp_path / f"o{k}.olm"
        model.save(path)
        files.append(path)

    _run([lambda k=k: learner(k) for k in range(N_THREADS)])
    assert model.t_ == N_THREADS * ROWS
    _check_consistent(model, prefix)
    for path in files:
        _check_consistent(olearn.load(path), prefix)


def test_expert_advice_shared_by_threads(tmp_path):
    X_all, y_all = [np.vstack([b[0] for b in _blocks(3, 2)]),
                    np.concatenate([b[1] for b in _blocks(3, 2)])]
    model = ExpertAdvice([olearn.make("pa1", C=c) for c in (0.1, 1.0)]
                         + [olearn.make("perceptron")])
    model.partial_fit(X_all[:2], y_all[:2])
    parts = np.array_split(np.arange(2, len(y_all)), N_THREADS)
    files = []

    def learner(k):
        rows = parts[k]
        for n, i in enumerate(rows):
            if n % 3 == 0:
                model.learn_one(X_all[i], y_all[i])
            elif n % 3 == 1:
                model.predict_learn_one(X_all[i], y_all[i])
            else:
                model.partial_fit(X_all[i:i + 1], y_all[i:i + 1])
            if n % 40 == 0:
                assert model.predict(X_all[:5]).shape == (5,)
                assert model.predict_one(X_all[i]) in (-1, 1)
                path = tmp_path / f"e{k}-{n}.olm"
                model.save(path)
                files.append(path)

    _run([lambda k=k: learner(k) for k in range(N_THREADS)])
    assert model.t_ == len(y_all)                              # no row lost
    assert all(m.t_ == len(y_all) for m in model.members_)     # nor any member's
    for path in files:
        saved = olearn.load(path)
        assert 2 <= saved.t_ <= len(y_all)
        assert all(m.t_ == saved.t_ for m in saved.members_)   # one consistent state
        assert saved.predict(X_all[:5]).shape == (5,)


# ---------------------------------------------------------------- copies
def test_the_lock_is_never_shared_by_a_copy_and_survives_what_models_go_through():
    import copy
    import pickle
    from olearn._estimator import clone
    from olearn._locking import ModelLock, lock_of
    X, y = _blocks(4, n_classes=2)[0]
    model = olearn.make("pa1", random_state=0).fit(X, y)
    lock = lock_of(model)
    assert isinstance(lock, ModelLock)
    for other in (copy.copy(model), copy.deepcopy(model),
                  pickle.loads(pickle.dumps(model)), clone(model).fit(X, y)):
        assert lock_of(other) is not lock
        np.testing.assert_array_equal(other.predict(X), model.predict(X))
    wrapper = OneVsRest(olearn.make("pa1")).fit(X, y)
    assert pickle.loads(pickle.dumps(wrapper)).predict(X).shape == y.shape
    model.set_params(C=0.5)
    assert lock_of(model) is lock
    m = olearn.make("ogd-reg", schedule="invsqrt", eta=10.0,
                    fit_intercept=False).partial_fit(X[:1], y[:1])
    own = lock_of(m)
    with pytest.raises(olearn.base.DivergenceError):   # a rolled-back call keeps it
        m.partial_fit(X * 1e150, y * 1e150)
    assert lock_of(m) is own
    with own:                                   # re-entrant: a call under the lock
        m.partial_fit(X[:2], y[:2])             # (a wrapper calling its member)
