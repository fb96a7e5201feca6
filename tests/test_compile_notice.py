"""The library says when it compiles (issue 32, item 3): one ``olearn.compile`` record
when an olearn kernel starts compiling (then at most every ``EVERY`` seconds, for a
module not yet named), none while the command line quiets it, and the seconds spent
compiling counted apart.  Tiny functions whose module claims to be olearn's are compiled
(no disk cache), so the test compiles in a fraction of a second."""
import logging

import numba

import olearn._compiled  # noqa: F401 (installs the listener)
from olearn import _compile_notice as notice


def _kernel(module, k):
    def f(x):
        return x + k
    f.__module__ = module
    f.__qualname__ = f.__name__ = f"fake_{k}"
    return numba.njit(f)


def test_one_record_then_quiet(caplog, monkeypatch):
    monkeypatch.setitem(notice._state, "said", set())
    monkeypatch.setitem(notice._state, "last", None)
    before = notice.seconds()
    with caplog.at_level(logging.WARNING, logger="olearn.compile"):
        assert _kernel("olearn.fake_kernels", 1)(1) == 2
        assert _kernel("olearn.fake_kernels", 2)(1) == 3       # same module: no second line
        assert _kernel("olearn.other_kernels", 3)(1) == 4      # within EVERY s: no line
        notice._state["last"] = None
        with notice.quiet():
            assert _kernel("olearn.quiet_kernels", 4)(1) == 5  # the CLI says it itself
        assert _kernel("not_olearn", 5)(1) == 6                # a user's function: no line
    records = [r.getMessage() for r in caplog.records if r.name == "olearn.compile"]
    assert records == ["olearn: compiling the kernels of olearn.fake_kernels (first use in "
                       f"this cache folder: {notice.EXPECTED}; cached on disk afterwards, "
                       "`olearn warmup` compiles ahead)"]
    assert notice.seconds() > before
