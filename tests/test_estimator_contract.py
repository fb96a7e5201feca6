"""olearn._estimator: scikit-learn's estimator contract without importing scikit-learn.
What scikit-learn's own helpers do with olearn's estimators, and that learning from a
file on the command line's path never imports scikit-learn (its 1.2 s import was most
of every start)."""
import subprocess
import sys

import numpy as np
import pytest

import olearn
from olearn._estimator import (Estimator, available_if, check_is_fitted, clone,
                               is_classifier, is_regressor)
from olearn.linear import PAClassifier
from olearn.preprocessing import Scaled


def test_learning_and_saving_import_no_scikit_learn(tmp_path):
    data = tmp_path / "d.svm"
    data.write_text("1 1:0.5 3:1\n-1 2:1\n1 1:1 2:0.1\n-1 3:-1 2:2\n")
    code = ("import sys\nfrom olearn.cli import main\n"
            f"main(['train', {str(data)!r}, '--algo', 'pa1', '--quiet', '--model', "
            f"{str(tmp_path / 'm.olm')!r}])\n"
            f"main(['train', {str(data)!r}, '--algo', 'arow', '--scale', '--quiet'])\n"
            "import olearn\nm = olearn.load(" + repr(str(tmp_path / "m.olm")) + ")\n"
            "m.learn_one({0: 1.0}, 1); m.predict_one({1: 2.0})\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] == 'sklearn'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_params_repr_and_clone_as_scikit_learn_gives_them():
    from sklearn.base import clone as sk_clone
    from sklearn.base import is_classifier as sk_is_classifier
    m = PAClassifier(C=0.5)
    assert repr(m) == "PAClassifier(C=0.5)" and repr(PAClassifier()) == "PAClassifier()"
    assert m.get_params()["C"] == 0.5 and "variant" in m.get_params()
    assert m.set_params(C=2.0) is m and m.C == 2.0
    with pytest.raises(ValueError, match="Invalid parameter 'nope' for estimator"):
        m.set_params(nope=1)
    s = Scaled(PAClassifier(C=0.25))
    assert s.get_params()["learner__C"] == 0.25
    s.set_params(learner__C=4.0)
    assert s.learner.C == 4.0
    for cloned in (clone(s), sk_clone(s)):
        assert type(cloned) is Scaled and cloned.learner is not s.learner
        assert cloned.learner.C == 4.0 and not hasattr(cloned, "model_")
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    fitted = PAClassifier().fit(X, y)
    assert not hasattr(clone(fitted), "state_")
    assert is_classifier(fitted) and sk_is_classifier(fitted) and not is_regressor(fitted)
    assert is_regressor(olearn.make("pa1-reg")) and not is_classifier(olearn.make("pa1-reg"))
    assert 0.5 < fitted.score(X, y) <= 1.0


def test_unfitted_and_unavailable_methods():
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted as sk_check
    m = PAClassifier()
    with pytest.raises(NotFittedError, match="PAClassifier instance is not fitted"):
        check_is_fitted(m, "state_")
    with pytest.raises(NotFittedError):
        m.predict(np.zeros((1, 3)))
    with pytest.raises(NotFittedError):
        sk_check(m)

    class Thing(Estimator):
        def __init__(self, on=False):
            self.on = on

        @available_if(lambda self: self.on)
        def extra(self):
            return 7

    assert not hasattr(Thing(), "extra") and Thing(on=True).extra() == 7
    assert repr(Thing(on=True)) == "Thing(on=True)"
