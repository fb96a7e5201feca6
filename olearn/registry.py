"""Registry of learners by name: ``olearn.make("pa1", C=0.5)``.

:data:`LEARNERS` lists every learner olearn ships: its name, its class as
``"module:Class"`` and the parameters that make the named variant.  The registry answers
from that table without importing any learner (so without numpy, numba or
scikit-learn): :func:`names`, :func:`check_name`, and whether a saved model names a
known class; a class is imported only when it is needed, and then only its own module
(:func:`lookup`).  A new learner is its file and one line of the table (its package
exports it from there: :func:`exports`); ``tests/test_registry.py`` fails, saying which
line to add, for a learner class of :data:`LEARNER_PACKAGES` that the table forgets.

A learner declared outside olearn (a user's own) is added at run time with
:func:`register`; it then works with ``make``, ``available`` and ``save``/``load``.

:data:`OTHER_KINDS` names the models that are not learners of labelled rows
(recommenders, portfolio strategies, drift detectors), which ``olearn algos`` lists
after the learners.

:func:`describe` gives a learner's class, one-line summary and parameters (default
and one-line meaning, from the class's numpydoc "Parameters" section): the command
line's ``olearn algos`` and ``olearn train --algo NAME --help`` show it.
"""
from __future__ import annotations

import difflib
import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .protocol import Model

#: the packages whose modules hold olearn's learner classes (the test checks that every
#: learner class in them is in :data:`LEARNERS` or in :data:`UNNAMED`)
LEARNER_PACKAGES = ("olearn.linear", "olearn.second_order", "olearn.sparse", "olearn.kernel",
                    "olearn.multiclass", "olearn.ensemble", "olearn.neural")

#: name -> ("module:Class", parameters of the named variant), every learner olearn ships
LEARNERS: dict[str, tuple[str, dict[str, Any]]] = {
    # olearn.linear: first-order linear learners
    "perceptron": ("olearn.linear.perceptron:Perceptron", {}),
    "pa": ("olearn.linear.pa:PAClassifier", {"variant": "PA"}),
    "pa1": ("olearn.linear.pa:PAClassifier", {"variant": "PA-I"}),
    "pa2": ("olearn.linear.pa:PAClassifier", {"variant": "PA-II"}),
    "pa-reg": ("olearn.linear.pa_regressor:PARegressor", {"variant": "PA"}),
    "pa1-reg": ("olearn.linear.pa_regressor:PARegressor", {"variant": "PA-I"}),
    "pa2-reg": ("olearn.linear.pa_regressor:PARegressor", {"variant": "PA-II"}),
    "alma": ("olearn.linear.alma:ALMAClassifier", {}),
    "romma": ("olearn.linear.romma:ROMMAClassifier", {}),
    "aromma": ("olearn.linear.romma:ROMMAClassifier", {"aggressive": True}),
    "ogd": ("olearn.linear.ogd:OGDClassifier", {}),
    "ogd-reg": ("olearn.linear.ogd:OGDRegressor", {}),
    "adagrad": ("olearn.linear.ogd:OGDClassifier", {"schedule": "adagrad"}),
    # (eta 1: the regressor's default 0.1 suits its decaying schedules; with AdaGrad's
    # per-coordinate steps it left test R^2 at -0.12 and -14.5 on abalone and cpusmall,
    # whose targets lie far from 0, where 1.0 reaches 0.51 and 0.53, and 0.61 against
    # 0.62 on California housing: standardised features, one pass, three seeds)
    "adagrad-reg": ("olearn.linear.ogd:OGDRegressor", {"schedule": "adagrad", "eta": 1.0}),
    "lms": ("olearn.linear.lms:LMSRegressor", {}),
    "ndag": ("olearn.linear.ndag:NDAGClassifier", {}),
    "ndag-reg": ("olearn.linear.ndag:NDAGRegressor", {}),
    "cocob": ("olearn.linear.cocob:COCOBClassifier", {}),
    "cocob-reg": ("olearn.linear.cocob:COCOBRegressor", {}),
    # olearn.second_order: a Gaussian over the weights
    "rls": ("olearn.second_order.rls:RLSRegressor", {}),
    "arow": ("olearn.second_order.arow:AROWClassifier", {}),
    "arow-reg": ("olearn.second_order.arow_regressor:AROWRegressor", {}),
    "cw": ("olearn.second_order.cw:CWClassifier", {}),
    "scw": ("olearn.second_order.scw:SCWClassifier", {"variant": "I"}),
    "scw2": ("olearn.second_order.scw:SCWClassifier", {"variant": "II"}),
    "nherd": ("olearn.second_order.nherd:NHERDClassifier", {}),
    "narow": ("olearn.second_order.narow:NAROWClassifier", {}),
    "sop": ("olearn.second_order.sop:SOPClassifier", {}),
    "iellip": ("olearn.second_order.iellip:IELLIPClassifier", {}),
    # olearn.sparse: l1 and feature selection at O(non-zeros) per row
    "truncated-gradient": ("olearn.sparse.truncated:TruncatedGradientClassifier", {}),
    "truncated-gradient-reg": ("olearn.sparse.truncated:TruncatedGradientRegressor", {}),
    "fobos": ("olearn.sparse.fobos:FOBOSClassifier", {}),
    "fobos-reg": ("olearn.sparse.fobos:FOBOSRegressor", {}),
    "rda": ("olearn.sparse.rda:RDAClassifier", {}),
    "rda-reg": ("olearn.sparse.rda:RDARegressor", {}),
    "ftrl": ("olearn.sparse.ftrl:FTRLClassifier", {}),
    "ftrl-reg": ("olearn.sparse.ftrl:FTRLRegressor", {}),
    "ada-fobos": ("olearn.sparse.ada_fobos:AdaFOBOSClassifier", {}),
    "ada-rda": ("olearn.sparse.ada_rda:AdaRDAClassifier", {}),
    "ofs": ("olearn.sparse.ofs:OFSClassifier", {}),
    "ofs-partial": ("olearn.sparse.ofs:OFSClassifier", {"partial": True}),
    # olearn.kernel: support sets and kernel features
    "kernel-perceptron": ("olearn.kernel.perceptron:KernelPerceptron", {}),
    "kernel-pa": ("olearn.kernel.pa:KernelPAClassifier", {"variant": "PA-I"}),
    "kernel-pa-reg": ("olearn.kernel.pa:KernelPARegressor", {"variant": "PA-I"}),
    "kernel-lms": ("olearn.kernel.lms:KernelLMSRegressor", {}),
    "kernel-rls": ("olearn.kernel.krls:KernelRLSRegressor", {}),
    "norma": ("olearn.kernel.norma:NORMAClassifier", {}),
    "norma-reg": ("olearn.kernel.norma:NORMARegressor", {}),
    "fogd": ("olearn.kernel.fogd:FOGDClassifier", {}),
    "fogd-reg": ("olearn.kernel.fogd:FOGDRegressor", {}),
    "nogd": ("olearn.kernel.nogd:NOGDClassifier", {}),
    "nogd-reg": ("olearn.kernel.nogd:NOGDRegressor", {}),
    # olearn.neural: networks trained online (issue 29)
    "mlp": ("olearn.neural.mlp:MLPClassifier", {}),
    "mlp-reg": ("olearn.neural.mlp:MLPRegressor", {}),
    "hbp": ("olearn.neural.hbp:HBPClassifier", {}),
    # olearn.ensemble: nothing to tune
    "auto": ("olearn.ensemble.auto:AutoClassifier", {}),
    "auto-reg": ("olearn.ensemble.auto:AutoRegressor", {}),
}

#: name -> ("module:Class", parameters), the models that learn from rows without a
#: target (``target = "none"``: ``partial_fit(X)``, ``learn_one(x)``), made, saved and
#: loaded like the learners (``olearn.make("kmeans")``); not in :func:`names` /
#: :func:`available`, which list the learners of labelled rows (the command line's
#: ``train``/``evaluate`` and the labelled generic checks iterate them):
#: :func:`unlabelled_names` lists these
UNLABELLED_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "kmeans": ("olearn.cluster.k_means:KMeans", {}),
    "uniclass": ("olearn.anomaly.uniclass:UniclassPA", {}),
    "hst": ("olearn.anomaly.hst:HalfSpaceTrees", {}),
    "ocsvm": ("olearn.anomaly.ocsvm:OneClassSVM", {}),
    "loda": ("olearn.anomaly.loda:Loda", {}),
}

#: the packages of those models (``tests/test_unlabelled.py`` checks that every model
#: class in them is in :data:`UNLABELLED_MODELS`)
UNLABELLED_PACKAGES = ("olearn.cluster", "olearn.anomaly")

#: name -> ("module:Class", parameters), the models of label sets (``target =
#: "labels"``: ``partial_fit(X, Y)`` with an (n, L) indicator or a sequence of label
#: sets), made, saved and loaded like the learners (``olearn.make("ml-pa1")``); not in
#: :func:`names` (the learners of one label): :func:`multilabel_names` lists these
MULTILABEL_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "ml-perceptron": ("olearn.multilabel.perceptron:MultilabelPerceptron", {}),
    "ml-pa": ("olearn.multilabel.pa:MultilabelPA", {"variant": "PA"}),
    "ml-pa1": ("olearn.multilabel.pa:MultilabelPA", {"variant": "PA-I"}),
    "ml-pa2": ("olearn.multilabel.pa:MultilabelPA", {"variant": "PA-II"}),
    "ml-arow": ("olearn.multilabel.arow:MultilabelAROW", {}),
    # (the default multilabel learner: benchmarks/multilabel.md)
    "ml-br": ("olearn.multilabel.binary_relevance:BinaryRelevance", {}),
    "ml-cc": ("olearn.multilabel.chain:ClassifierChain", {}),
}

#: the packages of those models (``tests/test_multilabel.py`` checks that every model
#: class in them is in :data:`MULTILABEL_MODELS` or :data:`MULTILABEL_UNNAMED`)
MULTILABEL_PACKAGES = ("olearn.multilabel",)

#: multilabel classes without a name, and why (none yet: the reductions are named with
#: their default base)
MULTILABEL_UNNAMED: dict[str, str] = {}

#: name -> ("module:Class", parameters), the models whose target is a sequence of tags
#: (``target = "sequence"``: ``partial_fit(sequences, tag_sequences)``,
#: ``learn_one(tokens, tags)``), made, saved and loaded like the learners
#: (``olearn.make("tagger-ap")``); :func:`sequence_names` lists them.  The settings
#: follow CRFsuite's: its ``pa`` averages, its ``arow`` does not
SEQUENCE_MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "tagger-ap": ("olearn.structured.tagger:SequenceTagger",
                  {"algorithm": "perceptron", "average": True}),
    "tagger-perceptron": ("olearn.structured.tagger:SequenceTagger",
                          {"algorithm": "perceptron", "average": False}),
    "tagger-pa": ("olearn.structured.tagger:SequenceTagger",
                  {"algorithm": "pa", "average": True}),
    "tagger-pa1": ("olearn.structured.tagger:SequenceTagger",
                   {"algorithm": "pa1", "average": True}),
    "tagger-pa2": ("olearn.structured.tagger:SequenceTagger",
                   {"algorithm": "pa2", "average": True}),
    "tagger-arow": ("olearn.structured.tagger:SequenceTagger",
                    {"algorithm": "arow", "average": False}),
}

#: learner classes of LEARNER_PACKAGES that have no name, and why: they need other
#: models as parameters
UNNAMED = {
    "olearn.multiclass.ovr:OneVsRest": "a reduction over a binary learner (base=...)",
    "olearn.ensemble.expert_advice:ExpertAdvice": "an ensemble of given learners",
    "olearn.ensemble.oza:OzaBagging": "copies of a given learner (base=...)",
    "olearn.multiclass.cost_sensitive:CostSensitivePA": "needs its cost matrix (costs=...)",
}

#: kind -> (what they are, where their table is: "module:attribute", how to make one);
#: each table maps command-line names to the models' classes
OTHER_KINDS = {
    "recommender": ("recommenders of (user, item, rating) streams",
                    "olearn.recommend:RECOMMENDERS",
                    "olearn.recommend.make_recommender(NAME); olearn train|evaluate DATA "
                    "--format ratings --algo NAME"),
    "portfolio": ("online portfolio strategies", "olearn.portfolio:STRATEGIES",
                  "olearn.portfolio.make(NAME); olearn portfolio FILE --algo NAME"),
    "detector": ("drift detectors", "olearn.drift:DETECTORS", "olearn.drift.make(NAME)"),
    "model without a target": ("models of rows without a target (clustering, anomaly scores)",
                   "olearn.registry:UNLABELLED_MODELS", "olearn.make(NAME)"),
    "multilabel": ("models of label sets (multilabel classification)",
                   "olearn.registry:MULTILABEL_MODELS", "olearn.make(NAME)"),
    "sequence tagger": ("sequence taggers (a tag per token; olearn.structured)",
                        "olearn.registry:SEQUENCE_MODELS", "olearn.make(NAME)"),
}

_LEARNER_CLASSES = frozenset(where for where, _ in (*LEARNERS.values(),
                                                      *UNLABELLED_MODELS.values(),
                                                      *MULTILABEL_MODELS.values(),
                                                      *SEQUENCE_MODELS.values()))
_REGISTRY: dict[str, tuple[type, dict[str, Any]]] = {}  # name -> (class, defaults): learners registered at run time
_classes: dict[str, Any] = {}  # "module:Class" -> class, once imported

def common_parameters() -> dict[str, str]:
    """Meanings of the parameters every learner takes (``OnlineLearner``'s), for the
    docstrings that only say "see ``OnlineLearner``": ``olearn._params.COMMON``'s (read
    when asked: the registry imports no other olearn module)."""
    from ._params import COMMON
    return {name: c.meaning for name, c in COMMON.items()}


def __getattr__(name: str) -> Any:
    if name == "COMMON_PARAMETERS":  # (its name before the table moved to olearn._params)
        return common_parameters()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register(name: str, cls: type, **defaults: Any) -> None:
    """Make ``cls(**defaults)`` available as ``name`` (to ``make``, the CLI, and
    ``save``/``load``): for a learner declared outside olearn.  A name of
    :data:`LEARNERS` registered again is replaced for this process."""
    if not isinstance(cls, type):
        raise TypeError(f"register({name!r}, ...) takes a class, got {cls!r}")
    _REGISTRY[name] = (cls, dict(defaults))


def _import(where):
    """The class at ``"module:Class"``, importing its module (and no other learner)."""
    cls = _classes.get(where)
    if cls is None:
        module, _, attr = where.partition(":")
        cls = _classes[where] = getattr(importlib.import_module(module), attr)
    return cls


# ------------------------------------------------------------------ names, cheaply
def names() -> list[str]:
    """Sorted registered names of learners of labelled rows (imports nothing)."""
    return sorted({*LEARNERS, *_REGISTRY})


def unlabelled_names() -> list[str]:
    """Sorted names of the models without a target (:data:`UNLABELLED_MODELS`)."""
    return sorted(UNLABELLED_MODELS)


def multilabel_names() -> list[str]:
    """Sorted names of the models of label sets (:data:`MULTILABEL_MODELS`)."""
    return sorted(MULTILABEL_MODELS)


def sequence_names() -> list[str]:
    """Sorted names of the sequence taggers (:data:`SEQUENCE_MODELS`)."""
    return sorted(SEQUENCE_MODELS)


def unknown_name_message(name: str, known: Sequence[str]) -> str:
    """``unknown algorithm 'pa3'; did you mean 'pa2'? ...`` (one line)."""
    close = difflib.get_close_matches(str(name).lower(), known, n=3, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    else:
        hint = "available: " + ", ".join(known)
    return f"unknown algorithm {name!r}; {hint} (see 'olearn algos')"


def check_name(name: str) -> None:
    """Raise a KeyError (with the closest names) unless ``name`` is a registered learner
    of labelled rows (what the command line trains); cheap."""
    if name not in LEARNERS and name not in _REGISTRY:
        raise KeyError(unknown_name_message(name, names()))


# ------------------------------------------------------------------ classes
def available(kind: str | None = None) -> list[str]:
    """Sorted registered names; ``kind`` in {"classifier", "regressor"} filters (which
    imports the learners, to ask their tags)."""
    out = names()
    if kind is not None:
        out = [n for n in out if learner_kind(n) == kind]
    return out


def learner_kind(name: str) -> str:
    """ "classifier", "regressor" or "other" for a registered name: its class's tags, or
    for a class from elsewhere that has none, what a model of it says."""
    from ._estimator import estimator_kind
    from ._tags import tags
    cls, defaults = lookup(name)
    return tags(cls).task or estimator_kind(cls(**defaults)) or "other"


def lookup(name: str) -> tuple[type, dict[str, Any]]:
    """(class, default parameters) of a registered name, or a clear KeyError; imports
    the one module that holds the class."""
    if name in _REGISTRY:
        return _REGISTRY[name]
    for table in (UNLABELLED_MODELS, MULTILABEL_MODELS, SEQUENCE_MODELS):
        if name in table:
            where, defaults = table[name]
            return _import(where), dict(defaults)
    check_name(name)
    where, defaults = LEARNERS[name]
    return _import(where), dict(defaults)


def make(name: str, **params: Any) -> Model:
    """A fresh learner registered as ``name`` with ``params`` on top of its defaults."""
    cls, defaults = lookup(name)
    merged = {**defaults, **params}
    valid = cls().get_params()
    unknown = sorted(set(merged) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} for {name}; valid: "
                         f"{', '.join(sorted(valid))}")
    return cls(**merged)


def learner_class(qualname: object) -> type | None:
    """The registered learner class of a qualified name (``"olearn.linear.pa.PAClassifier"``,
    as a model file names it), importing at most its own module; None for any other."""
    if not isinstance(qualname, str):
        return None
    for cls, _ in _REGISTRY.values():
        if f"{cls.__module__}.{cls.__qualname__}" == qualname:
            return cls
    module, _, attr = qualname.rpartition(".")
    where = f"{module}:{attr}"
    if where in _LEARNER_CLASSES:
        return _import(where)
    return None


def exports(package: str) -> dict[str, str]:
    """``{class name: submodule}`` of the learner classes of :data:`LEARNERS` and
    :data:`UNNAMED` that live in ``package`` (its ``__init__`` exports them lazily)."""
    out = {}
    for where in [w for w, _ in (*LEARNERS.values(), *UNLABELLED_MODELS.values(),
                                 *MULTILABEL_MODELS.values(),
                                 *SEQUENCE_MODELS.values())] + \
            list(UNNAMED) + list(MULTILABEL_UNNAMED):
        module, _, attr = where.partition(":")
        parent, _, sub = module.rpartition(".")
        if parent == package:
            out[attr] = sub
    return out


def other_models() -> dict[str, tuple[str, list[str], str]]:
    """``{kind: (what they are, sorted names, how to make one)}`` of :data:`OTHER_KINDS`
    (reads their packages' tables; imports no model)."""
    return {kind: (what, sorted(_import(where)), how)
            for kind, (what, where, how) in OTHER_KINDS.items()}


# ------------------------------------------------------------------ descriptions
class Parameter(NamedTuple):
    name: str
    default: object
    meaning: str


class Description(NamedTuple):
    """What ``olearn algos`` shows of a learner."""
    name: str
    cls: str            # "olearn.linear.PAClassifier"
    kind: str           # "classifier", "regressor" or "other"
    summary: str        # the first line of the class docstring
    parameters: tuple[Parameter, ...]   # in the order of the signature


def _docstring_parameters(doc):
    """``{name: one-line meaning}`` from a numpydoc "Parameters" section: entries
    ``a, b : text`` at the section's indentation, continued by deeper lines; the section
    ends at the first other line at that indentation (free text or the next section)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    for i in range(len(lines) - 1):
        if lines[i].strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}:
            body = lines[i + 2:]
            break
    else:
        return {}
    out, current, indent = {}, (), None
    for line in body:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip())
        if indent is None:
            indent = width
        if width > indent:
            for n in current:
                out[n] = f"{out[n]} {line.strip()}".strip()
            continue
        head, sep, text = (line.strip() + " ").partition(" : ")
        if width < indent or not sep or not re.fullmatch(r"\*{0,2}\w+(, *\*{0,2}\w+)*", head):
            break
        current = tuple(n.strip().lstrip("*") for n in head.split(","))
        for n in current:
            out[n] = text.strip()
    return out


def _clean(text):
    text = text.replace("``", "")
    if re.fullmatch(r"see \S+\.?", text):      # "see ``OnlineLearner``": no meaning here
        return ""
    return text


def describe(name: str) -> Description:
    """A :class:`Description` of the learner registered as ``name``: its parameters
    with their defaults (the signature's, overridden by the registered ones) and their
    meanings (from the class's numpydoc "Parameters" section, or its bases')."""
    cls, defaults = lookup(name)
    return describe_class(name, cls, defaults, learner_kind(name))


def describe_class(name: str, cls: type, defaults: dict[str, Any],
                   kind: str) -> Description:
    """:func:`describe` for any model class (also the recommenders, strategies and
    detectors of :data:`OTHER_KINDS`, whose ``kind`` is given)."""
    meanings = {}
    for klass in reversed(cls.__mro__):
        for key, text in _docstring_parameters(klass.__doc__).items():
            text = _clean(text)
            if text or key not in meanings:
                meanings[key] = text
    params = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:  # type: ignore[misc]
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = defaults.get(p.name, None if p.default is p.empty else p.default)
        meaning = meanings.get(p.name) or common_parameters().get(p.name, "")
        params.append(Parameter(p.name, default, meaning))
    doc = inspect.getdoc(cls) or ""
    summary = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    return Description(name, f"{_public_module(cls)}.{cls.__qualname__}", kind,
                       summary, tuple(params))


def _public_module(cls):
    """``olearn.linear`` for a class importable from there, else its own module."""
    module = cls.__module__
    parent = module.rsplit(".", 1)[0]
    try:
        if getattr(importlib.import_module(parent), cls.__name__, None) is cls:
            return parent
    except ImportError:
        pass
    return module


def warmup(names: Iterable[str] | None = None, jobs: int = 1,
           report: Callable[[str, float], object] | None = None) -> dict[str, float]:
    """Compile (or load from the disk cache) every kernel of the named learners (default:
    every registered one), ``jobs`` learners at a time in as many processes, which write
    into the shared disk cache; ``report(name, seconds)`` is called as each is done.
    Returns ``{name: seconds}`` in the order of ``names``."""
    names = list(names or available())
    groups: dict[type, list[str]] = {}  # learners of one class share their kernels: one process compiles them
    for name in names:
        groups.setdefault(lookup(name)[0], []).append(name)
    times: dict[str, float] = {}
    if jobs <= 1 or len(groups) < 2:
        _collect(map(_warm_all, groups.values()), times, report)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from multiprocessing import get_context
        with ProcessPoolExecutor(min(jobs, len(groups)),
                                 mp_context=get_context("spawn")) as pool:
            pending = [pool.submit(_warm_all, group) for group in groups.values()]
            _collect((done.result() for done in as_completed(pending)), times, report)
    return {name: times[name] for name in names}


def _collect(results, times, report):
    """Record each ``{name: seconds}`` of ``results`` into ``times`` as it comes."""
    for result in results:
        for name, seconds in result.items():
            times[name] = seconds
            if report is not None:
                report(name, seconds)


def _warm_all(names):
    return {name: _warm(name) for name in names}


def _warm(name):
    """Fit learner ``name`` on tiny data in every layout and task that its kind has
    (dense and CSR; binary and multiclass, or regression), then, where it has them, its
    one-example calls on dicts (``learn_one``, ``predict_one``, ``predict_learn_one``,
    ``predict_proba_one``); returns the seconds taken."""
    import time

    import numpy as np
    import scipy.sparse as sp
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4))
    est = make(name)
    kind = learner_kind(name)
    regressor = kind == "regressor"
    ys = [rng.standard_normal(6)] if regressor else \
        [np.array([0, 1] * 3), np.array([0, 1, 2] * 2)]
    for y in ys:
        for data in (X, sp.csr_matrix(X)):
            est.fit(data, y)
    one = make(name)
    if kind in ("classifier", "regressor") and callable(getattr(one, "learn_one", None)):
        rows = [({"a": 1.0, "b": -2.0}, 0.5 if regressor else 1),
                ({"a": -1.0, "c": 0.5}, -0.5 if regressor else 0)]
        for x, target in rows:
            one.learn_one(x, target)
            one.predict_one(x)
        if callable(getattr(one, "predict_learn_one", None)):
            one.predict_learn_one(*rows[0])
        if not regressor and callable(getattr(one, "predict_proba_one", None)):
            one.predict_proba_one(rows[1][0])
    return time.perf_counter() - t0
