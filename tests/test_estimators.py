"""scikit-learn's estimator checks over every registered learner.

Each check expected to fail carries its reason: the shared ones in
``generic.EXPECTED_FAILURES``, a learner's own in its class attribute
``_expected_failed_checks`` (``tests/generic.py`` runs the same checks on any model
class: ``check_model``).
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
