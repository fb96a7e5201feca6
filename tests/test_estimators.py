"""scikit-learn's estimator checks over every registered learner.

Each check expected to fail is declared by the estimator, with its reason
(``olearn.expected_failed_checks``: the sample-weight ones every online model declares,
a learner's own in its class attribute ``_expected_failed_checks``); no other failure is
allowed (``tests/generic.py`` runs the same checks on any model class: ``check_model``).
The expected failures are strict: a declared check that passes fails the test (a stale
declaration), so every declaration must fail at the checks' fixed seeds.

Tiers: the default tier (``python -m pytest -q``) runs these checks for the learners
of :data:`REPRESENTATIVES`; every other learner's run in the full tier (``python -m
pytest -q -m full``, in ``.ci/run``).  The protocol's own checks run over every learner
in the default tier (``tests/test_core.py``).
"""
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import generic
import olearn
from olearn.registry import available, learner_kind, lookup

#: the learners whose scikit-learn checks run in the default tier: one of each family
#: (the package of ``olearn/registry.py``'s LEARNERS), each kind of declaration in it
#: (the base its rule is declared on) and each task; the test below fails when a family
#: and task of the registry has none
REPRESENTATIVES = {
    "pa1": "linear: a step rule (LinearModel), classifier",
    "pa1-reg": "linear: a step rule (LinearModel), regressor",
    "ogd": "linear: a rule on a loss (LossModel, losses=GRADS), classifier",
    "ogd-reg": "linear: a rule on a loss (LossModel), regressor",
    "arow": "second_order: a Gaussian over the weights (SecondOrderMixin), classifier",
    "arow-reg": "second_order: SecondOrderMixin, regressor",
    "ftrl": "sparse: lazy penalties, coordinate-major (SparseModel), classifier",
    "fobos-reg": "sparse: owed shrinks (ShrinkModel), regressor",
    "ofs": "sparse: a rule of its own on SparseModel (no loss), classifier",
    "kernel-pa": "kernel: a support-set expansion (declare_expansion), classifier",
    "kernel-pa-reg": "kernel: a support-set expansion, regressor",
    "fogd": "kernel: a feature map (FeatureMapModel, scratch=), classifier",
    "nogd-reg": "kernel: a feature map (FeatureMapModel), regressor",
    "mlp": "neural: a network (FeatureMapModel, one declaration), classifier",
    "mlp-reg": "neural: a network, regressor",
    "auto": "ensemble: learners weighed by their losses (ExpertAdvice), classifier",
    "auto-reg": "ensemble: ExpertAdvice, regressor",
}


def _names():
    """One registered name per distinct (class, defaults), the first in sorted order."""
    seen = set()
    out = []
    for name in available():
        cls, defaults = lookup(name)
        key = (cls, tuple(sorted(defaults.items())))
        if key in seen:
            continue
        seen.add(key)
        out.append(name)
    return out


def _tiered_checks(names):
    """scikit-learn's parametrization of the checks of ``olearn.make(name)`` for each
    name, with the cases of a name outside REPRESENTATIVES marked ``full`` (the test ids
    are scikit-learn's own, the same in either tier)."""
    cases, ids = [], None
    for name in names:
        one = parametrize_with_checks([olearn.make(name)],
                                      expected_failed_checks=generic.expected_failures,
                                      xfail_strict=True)
        ids = one.kwargs["ids"]
        for case in one.args[1]:
            if hasattr(case, "marks"):  # a pytest.param already: an expected failure
                values, marks, case_id = case.values, list(case.marks), case.id
            else:
                values, marks, case_id = case, [], None
            if name not in REPRESENTATIVES:
                marks.append(pytest.mark.full)
            cases.append(pytest.param(*values, marks=marks, id=case_id))
    return pytest.mark.parametrize("estimator, check", cases, ids=ids)


@_tiered_checks(_names())
def test_sklearn_contract(estimator, check):
    check(estimator)


def _family_and_task(name):
    cls, _ = lookup(name)
    return cls.__module__.split(".")[1], learner_kind(name)


def test_every_family_and_task_has_a_representative():
    """The default tier's scikit-learn checks reach every family and task of the
    registry: a new family (or a family's first regressor) names its representative
    in REPRESENTATIVES."""
    names = _names()
    assert set(REPRESENTATIVES) <= set(names), (
        f"not registered (or a duplicate of an earlier name): "
        f"{sorted(set(REPRESENTATIVES) - set(names))}")
    covered = {_family_and_task(name) for name in REPRESENTATIVES}
    missing = sorted({_family_and_task(name) for name in names} - covered)
    assert not missing, (f"no learner of these (family, task) runs scikit-learn's checks "
                         f"in the default tier: {missing}; add one to REPRESENTATIVES in "
                         f"tests/test_estimators.py")
