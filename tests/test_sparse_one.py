"""The sparse learners' one-dict path (issue 32): ``predict_one`` scores a dict through
the declared compiled score, from the lazy state; it must equal the learner's numpy
closed form of the weights (``_weights_at``, what ``coef_`` and ``decision_function``
read) at every step of a stream, binary, multiclass and regression."""
import numpy as np
import pytest

import olearn

NAMES = ["ftrl", "ftrl-reg", "rda", "fobos-reg", "ada-rda", "ada-fobos",
         "truncated-gradient", "ofs"]


@pytest.mark.parametrize("name", NAMES)
def test_compiled_one_dict_score_is_the_closed_form(name):
    rng = np.random.default_rng(0)
    regression = name.endswith("-reg")
    for k in ((2,) if regression else (2, 3)):
        model = olearn.make(name)
        for t in range(150):
            x = {f"f{j}": float(rng.standard_normal())
                 for j in rng.choice(20, 5, replace=False)}
            if t > 3:
                got = np.array(model._scores_one(x), copy=True)
                row, n = model._one_row(x, grow=False)
                want = model._weights_at(row[1][:n]) @ row[2][:n]
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
            model.learn_one(x, float(rng.standard_normal()) if regression
                            else int(rng.integers(k)))
        assert model.t_ == 150
