"""The common parameters are declared once (issue 40 item 3): every registered model's
signature agrees with ``olearn._params.COMMON`` (the default, or its family's declared
one; no other library's name for one of them), the table's families are real, and the
table's checks are what every learner runs on a bad value."""
import inspect

import numpy as np
import pytest

import olearn
from olearn import registry
from olearn._params import COMMON, check_common

TABLES = ("LEARNERS", "UNLABELLED_MODELS", "MULTILABEL_MODELS", "SEQUENCE_MODELS")


def _classes():
    for table in TABLES:
        for name, (where, _) in getattr(registry, table).items():
            yield name, registry._import(where)


def test_every_signature_agrees_with_the_table():
    wrong, used = [], {(n, v): False for n, c in COMMON.items() for v in c.others}
    aliases = {a: n for n, c in COMMON.items() for a in c.aliases}
    for name, cls in _classes():
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name in aliases:
                wrong.append(f"{name}: {p.name} (olearn's name is {aliases[p.name]})")
            if p.name in COMMON:
                want = COMMON[p.name].default_for(cls)
                if p.default != want or type(p.default) is not type(want):
                    wrong.append(f"{name}: {p.name}={p.default!r}, the table says {want!r}")
                if (p.name, want) in used:
                    used[p.name, want] = True
    assert not wrong, wrong
    assert all(used.values()), f"families declared in COMMON that no learner has: {used}"


def test_the_registry_reads_the_meanings_from_the_table():
    assert registry.common_parameters() == registry.COMMON_PARAMETERS == {
        n: c.meaning for n, c in COMMON.items()}


@pytest.mark.parametrize("name,bad", [("epochs", 0), ("epochs", 1.5), ("shuffle", "yes"),
                                      ("random_state", -1), ("random_state", "0"),
                                      ("fit_intercept", 1), ("intercept_scaling", 0.0)])
def test_every_learner_refuses_a_bad_common_value_in_one_line(name, bad):
    m = olearn.make("pa1")
    setattr(m, name, bad)
    with pytest.raises(ValueError, match=name):
        check_common(m)
    with pytest.raises(ValueError, match=name):
        m.partial_fit(np.ones((2, 2)), [0, 1])
    for good in (COMMON[name].default, *COMMON[name].others):
        setattr(m, name, good)
        check_common(m)
