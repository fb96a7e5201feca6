"""scikit-learn's estimator checks over every registered learner.

Each check expected to fail carries its reason: the shared ones in ``EXPECTED_FAILURES``,
a learner's own in its class attribute ``_expected_failed_checks``.
"""
from sklearn.utils.estimator_checks import parametrize_with_checks

import olearn
from olearn.registry import available, lookup

# check name -> why an online learner legitimately departs from it
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data":
        "online updates are not invariant to repeating a row vs doubling its weight: "
        "a repeated row is seen after the first update has changed the margin",
    "check_sample_weight_equivalence_on_sparse_data":
        "same reason as on dense data: online updates depend on row order and repetition",
}


def _instances():
    seen = set()
    out = []
    for name in available():
        cls, defaults = lookup(name)
        key = (cls, tuple(sorted(defaults.items())))
        if key in seen:
            continue
        seen.add(key)
        out.append(olearn.make(name))
    return out


def _expected(est):
    """The shared departures, plus those a learner class declares with its reasons."""
    return {**EXPECTED_FAILURES, **getattr(est, "_expected_failed_checks", {})}


@parametrize_with_checks(_instances(), expected_failed_checks=_expected)
def test_sklearn_contract(estimator, check):
    check(estimator)
