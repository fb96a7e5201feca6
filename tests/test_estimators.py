"""scikit-learn's estimator checks over every registered learner.

Each check expected to fail is declared by the estimator, with its reason
(``olearn.expected_failed_checks``: the sample-weight ones every online model declares,
a learner's own in its class attribute ``_expected_failed_checks``); no other failure is
allowed (``tests/generic.py`` runs the same checks on any model class: ``check_model``).
"""
from sklearn.utils.estimator_checks import parametrize_with_checks

import generic
import olearn
from olearn.registry import available, lookup


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


@parametrize_with_checks(_instances(), expected_failed_checks=generic.expected_failures)
def test_sklearn_contract(estimator, check):
    check(estimator)
