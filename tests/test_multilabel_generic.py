"""Every registered model of label sets (``ml-*``) and the reductions over other binary
learners through the generic protocol checks of ``tests/generic_multilabel.py``
(persistence, validation of loaded files, bad input, cloning, widening, mixing,
threads), as the single-label learners go through ``tests/generic.py``."""
import numpy as np
import pytest

import olearn
from olearn.registry import MULTILABEL_MODELS

from generic_multilabel import check_multilabel

RNG = np.random.default_rng(5)
X = RNG.normal(size=(60, 5)) * (RNG.random((60, 5)) < 0.7)
Y = (X[:, :3] + 0.4 * RNG.normal(size=(60, 3)) > 0.1).astype(np.int8)


@pytest.mark.parametrize("name", sorted(MULTILABEL_MODELS))
def test_every_multilabel_model_passes_the_generic_checks(name, tmp_path):
    check_multilabel(lambda: olearn.make(name), X, Y, tmp_path)


@pytest.mark.parametrize("name, base, params", [
    # (AROW's covariance="auto" is diagonal for dict rows and full for narrow arrays, a
    # documented choice (olearn.second_order._base): the checks feed both, so it is fixed)
    ("ml-br", "arow", {"covariance": "diag"}), ("ml-br", "ogd", {}),
    ("ml-cc", "perceptron", {})])
def test_reductions_over_other_binary_learners(name, base, params, tmp_path):
    check_multilabel(lambda: olearn.make(name, base=olearn.make(base, **params)), X, Y,
                     tmp_path)


def test_the_all_pairs_variant(tmp_path):
    check_multilabel(lambda: olearn.make("ml-pa2", pairs="all"), X, Y, tmp_path)
