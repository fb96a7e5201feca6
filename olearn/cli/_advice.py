"""Advice ``train`` prints for a model saved to predict held-out rows.

A linear classifier predicts, by default, with its last weights ``w_T``: what the online
protocol and its mistake bounds are about, and what LIBOL's published progressive
errors measure.  For rows it will never learn, the average of the iterates predicts
better: Freund and Schapire (1999, "Large margin classification using the perceptron
algorithm") turn the Perceptron's mistake bound into a generalisation bound for the
averaged (or voted) hypothesis, Collins (2002) uses the averaged Perceptron for the same
reason, and Cesa-Bianchi, Conconi and Gentile (2004, "On the generalization ability of
on-line learning algorithms") extend the online-to-batch conversion to any online learner
of a convex loss.  On a9a one pass of PA-I gives 0.758 test accuracy with its last
weights (below the majority class, 0.764) and 0.851 averaged (``benchmarks/defaults.md``,
every averaging classifier alike).

The learners' default stays ``average=False`` (the progressive figures, the tests'
reference formulas and LIBOL's tables are about the last weights); ``train --model``
prints one line recommending ``--param average=true`` when the learner could average, is
a binary classifier, and the user did not choose.  Not for several classes: on news20
and sector (rows normalised) averaged PA-I tests lower than its last weights (0.821
against 0.826, 0.919 against 0.928; ``benchmarks/defaults.md``).
"""


def averaging_note(learner, params, algo):
    """One line recommending averaged weights for ``learner`` (as ``train`` made it from
    ``--algo algo --param ...``), or None."""
    try:
        current = learner.get_params()
    except AttributeError:
        return None
    if "average" not in current or current["average"] or "average" in params:
        return None
    from .._estimator import is_classifier
    if not is_classifier(learner) or len(getattr(learner, "classes_", ())) != 2:
        return None
    return (f"olearn: note: {algo} predicts with its last weights; averaged weights "
            "generalise better to rows it has not learned (Freund and Schapire 1999; a9a, "
            "pa1: test accuracy 0.851 against 0.758): train with --param average=true")
