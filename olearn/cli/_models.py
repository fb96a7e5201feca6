"""The learner a command trains or evaluates: a registered one made from ``--algo`` and
``--param`` (checked before any data is read), or a saved one continued (``--init``,
its DATA read as its own was: ``_pipeline``), maybe inside the streaming scaler
(``--scale``); and the questions the commands ask of it.

Standard library only at import time.
"""
from ._common import CLIError


def make_model(algo, params):
    """A registered learner with its parameters checked before any data is read."""
    from ..registry import lookup, make
    cls, defaults = lookup(algo)
    model = make(algo, **_as_booleans(params, {**cls().get_params(), **defaults}))
    check = getattr(model, "check_params", None)  # (the protocol's; an ensemble has none)
    if check is not None:
        check()
    return model


def _as_booleans(params, defaults):
    """``--param average=1`` (or 0) for a parameter whose default is True or False is
    that boolean (``parse_value`` reads 1 and 0 as numbers)."""
    return {k: (bool(v) if isinstance(defaults.get(k), bool) and not isinstance(v, bool)
                and isinstance(v, int) and v in (0, 1) else v)
            for k, v in params.items()}



def learner_of(model):
    """The learner of a model this command makes or continues: the one inside the
    streaming scaler (``--scale``: ``Scaled``'s ``model_``, or its ``learner`` before it
    has learned), else the model itself."""
    from ..preprocessing import Scaled
    if isinstance(model, Scaled):
        return model.__dict__.get("model_") or model.learner
    return model


def initial_model(args, params):
    """The learner to train: a fresh one (--algo), or a saved one (--init), maybe wrapped
    in the streaming scaler (--scale)."""
    if args.init:  # read DATA as the saved model's was (olearn/cli/_pipeline.py)
        from ._pipeline import load
        model = load(args.init, args)
        if type(model).__module__.startswith("olearn.recommend"):
            raise CLIError(f"{args.init} is a recommender: it learns from --format ratings")
        if args.algo:
            want = type(make_model(args.algo, {}))
            if type(learner_of(model)) is not want:
                raise CLIError(f"{args.init} holds a {type(learner_of(model)).__name__}, "
                               f"not the {want.__name__} of --algo {args.algo}")
        if params:
            learner_of(model).set_params(**params)
        from ..preprocessing import Scaled
        if args.scale and not isinstance(model, Scaled):
            raise CLIError(f"{args.init} was not trained with --scale: its features are not "
                           "standardised, so --scale cannot continue it")
        return model
    model = make_model(args.algo, params)
    if args.scale:
        from ..preprocessing import Scaled
        model = Scaled(model)
    return model


def model_width(model):
    """Number of features of a saved model (the reader pads narrower files): the
    protocol's ``widen`` answers the width without changing it for a smaller one."""
    from .._estimator import widen
    return widen(model, 0)

