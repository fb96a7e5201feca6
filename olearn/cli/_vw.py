"""Vowpal Wabbit's command line: the vw options olearn accepts (with what each maps to),
and one line for every other vw option (the nearest olearn option, or "not offered")
instead of argparse's bare "unrecognized arguments".

- ``check_argv`` runs before parsing: a vw option the subcommand does not define is
  answered in one line (exit 2), so ``--oaa 3`` never leaves its ``3`` to be read as DATA.
- ``add_train_args`` / ``add_predict_args``: the vw options with a meaning in olearn.
- ``default_algo``: the learner of ``olearn train -d x.vw -f m.olm`` (no ``--algo``).
- ``learner_params``: ``--loss_function``, ``-l``, ``--power_t``, ``--l1``, ``--l2``
  as the learner's own parameters, or one line saying the learner has none.
- ``tags``: the tags of a vw file's lines, for ``predict -p`` (echoed as vw does).

Standard library only at import time.
"""
import os

from ._common import CLIError, format_value
from ._parsers import option_strings

#: vw options olearn does not have: the one-line answer (``{cmd}``: the subcommand)
ANSWERS = {
    "--invert_hash": "--invert_hash is not offered: olearn keeps no feature names; "
                     "--readable_model FILE writes the weights by hashed column",
    "--audit": "--audit is not offered: olearn keeps no feature names (the hashing is vw's: "
               "'olearn.io.read_vw' gives the columns)",
    "-a": "-a (--audit) is not offered: olearn keeps no feature names",
    "--csoaa": "--csoaa (cost-sensitive multiclass) is not offered",
    "--csoaa_ldf": "--csoaa_ldf is not offered",
    "--wap": "--wap is not offered",
    "--cb": "--cb (contextual bandits) is not offered",
    "--cb_adf": "--cb_adf (contextual bandits) is not offered",
    "--cb_explore": "--cb_explore (contextual bandits) is not offered",
    "--cb_explore_adf": "--cb_explore_adf (contextual bandits) is not offered",
    "--ect": "--ect is not offered: multiclass learners are native",
    "--log_multi": "--log_multi is not offered: multiclass learners are native",
    "--decay_learning_rate": "--decay_learning_rate is not offered: olearn's passes keep "
                             "the learner's own step (its schedule or adaptive rate)",
    "--initial_t": "--initial_t is not offered: olearn's schedules count rows from 1",
    "--save_per_pass": "--save_per_pass is not offered: run train --init MODEL per pass",
    "--bfgs": "--bfgs is not offered: olearn learns online only",
    "--conjugate_gradient": "--conjugate_gradient is not offered: olearn learns online only",
    "--ftrl": "--ftrl: use --algo ftrl (its --param alpha, beta, l1, l2)",
    "--pistol": "--pistol: use --algo cocob (parameter-free, coin betting)",
    "--coin": "--coin: use --algo cocob (coin betting)",
    "--sgd": "--sgd: use --algo ogd (plain steps; --param schedule=...)",
    "--adaptive": "--adaptive: use --algo adagrad (the default learner ndag is also adaptive)",
    "--normalized": "--normalized: use --algo ndag (the default learner)",
    "--invariant": "--invariant is not offered: the default learner ndag is adaptive and "
                   "normalised, without the importance-invariant update",
    "--nn": "--nn: use --algo mlp (or mlp-reg) with --param hidden_layer_sizes=N",
    "--lrq": "--lrq is not offered: use -q/--quadratic for namespace pairs",
    "--ksvm": "--ksvm: use --algo nogd or fogd (kernel learners on a budget)",
    "--boosting": "--boosting: use --algo auto or the ensembles (olearn algos)",
    "--bootstrap": "--bootstrap is not offered on the command line: online bagging is "
                   "olearn.ensemble.OzaBagging",
    "--binary": "--binary: a classifier's predictions are its labels already "
                "(the default learner on -1/1 labels is a classifier)",
    "--noconstant": "--noconstant: use --param fit_intercept=false",
    "--constant": "--constant is not offered: the intercept starts at 0",
    "--hash": "--hash is not offered: olearn hashes as vw's default --hash strings",
    "--hash_seed": "--hash_seed is not offered: olearn hashes with vw's seed 0",
    "--interactions": "--interactions is not offered: use -q AB or --cubic ABC",
    "--keep": "--keep is not offered: use --ignore for the namespaces to drop",
    "--ngram": None,        # (olearn's own --ngram exists on --format text)
    "--skips": "--skips is not offered: --format text --ngram N makes n-grams",
    "--affix": "--affix is not offered",
    "--spelling": "--spelling is not offered",
    "--quantile_tau": "--quantile_tau is not offered: --loss_function quantile is the "
                      "median's (tau 0.5, the absolute loss)",
    "--min_prediction": "--min_prediction is not offered",
    "--max_prediction": "--max_prediction is not offered",
    "--sort_features": "--sort_features is not offered",
    "--daemon": "--daemon: use 'olearn serve'",
    "--port": "--port: use 'olearn serve --port'",
    "--compressed": "--compressed: not needed, .gz/.bz2/.xz files are read as they are",
    "--random_seed": "--random_seed: use --seed (with --shuffle)",
    "--progress": "-P/--progress is not offered: the table doubles as vw's default",
    "-P": "-P/--progress is not offered: the table doubles as vw's default",
    "--onethread": "--onethread is not offered",
    "--initial_weight": "--initial_weight is not offered: weights start at 0",
    "--random_weights": "--random_weights is not offered: weights start at 0",
    "--feature_mask": "--feature_mask is not offered",
    "--feature_limit": "--feature_limit is not offered",
    "--named_labels": "--named_labels is not offered: labels are numbers",
    "--classweight": "--classweight is not offered: give importance weights in the data",
    "--csoaa_rank": "--csoaa_rank is not offered",
    "--multilabel_oaa": "--multilabel_oaa is not offered: see olearn.multilabel",
    "--top": "--top is not offered",
    "--dsjson": "--dsjson is not offered: olearn reads vw text, LIBSVM, CSV, raw text",
    "--json": "--json is not offered: olearn reads vw text, LIBSVM, CSV, raw text",
    "--quiet": None,
    "--passes": None,
    "--cache_file": None,
    "-c": None,
    "--cache": None,
    "-k": None,
    "--kill_cache": None,
    "--holdout_off": None,
    "--holdout_period": None,
    "--holdout_after": "--holdout_after is not offered: --holdout_period N holds out every "
                       "N-th row",
    "--early_terminate": "--early_terminate is not offered: the passes run to the end",
    "--save_resume": None,
    "--preserve_performance_counters": "--preserve_performance_counters is not offered",
    "--readable_model": None,
    "--loss_function": None,
    "-l": None,
    "--learning_rate": None,
    "--power_t": None,
    "--l1": None,
    "--l2": None,
    "--oaa": None,
    "--link": None,
    "-r": None,
    "--raw_predictions": None,
    "--probabilities": None,
    "-p": None,
    "--predictions": None,
    "-t": None,
    "--testonly": None,
    "-i": None,
    "--initial_regressor": None,
    "-f": None,
    "--final_regressor": None,
}

#: vw options answered differently on one subcommand (where olearn has them elsewhere)
ON = {
    "train": {
        "-r": "-r on train is not offered: 'olearn predict -i MODEL -r FILE'",
        "--raw_predictions": "--raw_predictions on train is not offered: 'olearn predict -r'",
        "--link": "--link on train is not offered: 'olearn predict --link logistic'",
        "--probabilities": "--probabilities on train is not offered: 'olearn predict "
                           "--probabilities'",
    },
    "predict": {
        "--loss_function": "--loss_function on predict: the loss is the model's (chosen by "
                           "train)",
        "--oaa": "--oaa on predict: the classes are the model's (chosen by train)",
    },
}


#: the subcommands a vw user's line is checked on
COMMANDS = ("train", "predict", "evaluate")


def check_classes(model, n):
    """``--oaa N``: the labels learned are among 1..N, as vw requires (else one line, and
    the model is not saved)."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        return
    wrong = [c for c in classes if not (float(c).is_integer() and 1 <= float(c) <= n)]
    if wrong:
        raise CLIError(f"--oaa {n}: label {format_value(wrong[0])} is not one of 1..{n} (as "
                       "vw requires); the model was not saved")


def _answer(command, option, defined):
    """The one line for ``option`` on ``command``, or None if it is not a vw option or
    the subcommand defines it."""
    if option in defined:
        return None
    text = ON.get(command, {}).get(option)
    if text is None:
        text = ANSWERS.get(option)
    if text is None and option in ANSWERS:
        text = f"{option} (Vowpal Wabbit's) is not an option of 'olearn {command}'"
    return text


def check_argv(argv, subparsers):
    """Raise ``CLIError`` with one line for the first vw option of ``argv`` that its
    subcommand does not define."""
    if subparsers is None:
        return
    command = next((a for a in argv if a in subparsers.choices), None)
    if command not in COMMANDS:     # (the others: argparse's own message)
        return
    defined = option_strings(subparsers.choices[command])
    for token in argv[argv.index(command) + 1:]:
        if token == "--":
            break
        if not token.startswith("-") or token == "-":
            continue
        option = token.split("=", 1)[0]
        text = _answer(command, option, defined)
        if text:
            raise CLIError(text)


# ------------------------------------------------------------------ train
LOSSES = ("squared", "classic", "logistic", "hinge", "quantile")


def add_train_args(parser):
    g = parser.add_argument_group("Vowpal Wabbit's options")
    g.add_argument("--loss_function", choices=LOSSES, default=None,
                   help="the loss: squared (classic) and quantile (the median's: absolute "
                        "loss) make a regressor, logistic and hinge a classifier; with "
                        "--algo, the learner's loss parameter")
    g.add_argument("-l", "--learning_rate", type=float, default=None, metavar="R",
                   help="the learner's step (eta; ftrl: alpha)")
    g.add_argument("--power_t", type=float, default=None, metavar="P",
                   help="schedule eta t^-P (learners with a schedule: ogd, adagrad, lms, "
                        "fobos); 0: a constant step")
    g.add_argument("--l1", type=float, default=None, metavar="L",
                   help="l1 strength (ftrl, fobos, rda; ada-fobos, ada-rda: lam)")
    g.add_argument("--l2", type=float, default=None, metavar="L",
                   help="l2 strength (ftrl, fobos: l2; ogd, adagrad, cocob: alpha)")
    g.add_argument("--oaa", type=int, default=None, metavar="N",
                   help="N classes labelled 1..N: the learner's own multiclass model (the "
                        "default learner ndag, or --algo NAME)")
    g.add_argument("-c", dest="vw_cache", action="store_true",
                   help="keep the binary cache of the data (olearn's cache, --cache), also "
                        "for one pass")
    g.add_argument("--cache_file", dest="cache", metavar="FILE",
                   help="the cache file (olearn's --cache)")
    g.add_argument("-k", "--kill_cache", action="store_true",
                   help="write the cache afresh (an existing one is removed first)")
    g.add_argument("--holdout_off", action="store_true",
                   help="accepted: olearn holds out nothing unless --holdout N is given")
    g.add_argument("--holdout_period", dest="holdout", type=int, metavar="N",
                   help="olearn's --holdout N: every N-th row scored and never learned, in "
                        "every pass (vw holds out only with --passes > 1, default 10)")
    g.add_argument("--save_resume", action="store_true",
                   help="accepted: a model file always keeps the learner's whole state "
                        "(train -i continues it exactly)")
    g.add_argument("-t", "--testonly", action="store_true",
                   help="test only, with -i MODEL: predict every row, learn nothing, report "
                        "the loss (and -p the predictions)")
    g.add_argument("-p", "--predictions", metavar="FILE",
                   help="write each row's progressive prediction (made before the row is "
                        "learned; the first pass; held-out rows are not written), a vw "
                        "line's tag after it")
    g.add_argument("--readable_model", metavar="FILE",
                   help="also write the weights as text: 'column:weight' a line (the "
                        "intercept as 'Constant'), non-zero ones only")


def check_train(args):
    """The vw options of train, checked before any work."""
    if getattr(args, "oaa", None) is not None and args.oaa < 2:
        raise CLIError(f"--oaa must be >= 2, got {args.oaa}")
    if args.holdout_off and args.holdout:
        raise CLIError("--holdout_off and --holdout_period/--holdout: give one")
    if args.oaa and args.loss_function in ("squared", "classic", "quantile"):
        raise CLIError(f"--oaa with --loss_function {args.loss_function}: olearn's multiclass "
                       "learners use a margin or logistic loss (give logistic or hinge)")


def _binary_labels(path, lines=2000):
    """True when the first ``lines`` labels of a vw file are all -1 or 1 (False if any
    other; None when it cannot be read here: standard input)."""
    if path in (None, "-") or not os.path.isfile(path):
        return None
    seen = set()
    with _open_text(path) as f:
        for k, line in enumerate(f):
            if k >= lines:
                break
            head = line.split("|", 1)[0].split()
            if not head or head[0].startswith("'"):
                continue
            try:
                seen.add(float(head[0]))
            except ValueError:
                return None
    return bool(seen) and seen <= {-1.0, 1.0}


def default_algo(args):
    """The learner when train has no --algo (nor --init): ndag, the normalised adaptive
    learner of Ross, Mineiro and Langford (2013) behind vw's default update (vw's is also
    importance-invariant, which olearn has not; of olearn's learners ndag is the closest:
    adaptive per-coordinate steps, normalised by each feature's largest magnitude); a
    classifier (logistic loss) for --oaa, --loss_function logistic/hinge or labels all
    -1/1 in the first 2,000 lines, else the regressor (squared loss, vw's default; also
    on standard input, whose labels cannot be looked at first)."""
    loss = args.loss_function
    if args.oaa or loss in ("logistic", "hinge"):
        return "ndag"
    if loss in ("squared", "classic", "quantile"):
        return "ndag-reg"
    return "ndag" if _binary_labels(args.data) else "ndag-reg"


def default_params(algo, args):
    """The default learner's parameters where they depart from the registered ones: with
    no --loss_function, the classifier's step ``eta`` 1 (ndag's own default is vw's 0.5,
    but vw's default loss is the squared one, whose gradient on -1/1 labels is up to 4
    times the logistic's that olearn's default classifier uses: with 0.5 ndag made 3.79%
    progressive mistakes on SMS spam against vw's 2.67%, with 1 2.53%, and a9a's test
    accuracy is 0.8485 against vw's 0.8484; benchmarks/vw_flags.md).  With
    --loss_function logistic (vw's loss too) the step is vw's 0.5.  -l or --param eta=...
    replace it."""
    if algo == "ndag" and args.learning_rate is None and args.loss_function is None:
        return {"eta": 1.0}
    return {}


_FIRST_ORDER_ETA = ("ogd", "adagrad", "ndag", "fobos", "truncated-gradient", "ada-fobos",
                    "ada-rda", "auto", "lms", "perceptron", "nogd", "fogd", "kernel-lms",
                    "norma", "ofs", "ofs-partial", "hbp")


def learner_params(args, algo, params):
    """``params`` with the vw options as the parameters of ``algo`` (a registered name);
    one line for an option the learner has no parameter for, or one --param also sets."""
    from ..registry import lookup
    cls, defaults = lookup(algo)
    has = {**cls().get_params(), **defaults}
    base = algo[:-4] if algo.endswith("-reg") else algo
    out = {}

    def put(key, value, option):
        if key in params and params[key] != value:
            raise CLIError(f"{option} and --param {key}={params[key]} disagree: give one")
        out[key] = value

    loss = args.loss_function
    if loss is not None:
        if "loss" not in has:
            raise CLIError(f"--loss_function is not offered for {algo} (it has no loss "
                           "parameter): omit --algo for the default learner, or see "
                           "'olearn algos'")
        name = {"classic": "squared", "quantile": "absolute"}.get(loss, loss)
        from .._estimator import is_classifier
        classifier = is_classifier(cls())
        if classifier and name in ("squared", "absolute"):
            raise CLIError(f"--loss_function {loss} makes a regressor; {algo} is a classifier "
                           f"(try --algo {base}-reg)")
        if not classifier and name in ("logistic", "hinge"):
            raise CLIError(f"--loss_function {loss} makes a classifier; {algo} is a regressor "
                           f"(try --algo {base})")
        put("loss", name, "--loss_function")
    if args.learning_rate is not None:
        if base == "ftrl":
            put("alpha", args.learning_rate, "-l")
        elif "eta" in has and base in _FIRST_ORDER_ETA:
            put("eta", args.learning_rate, "-l")
        else:
            raise CLIError(f"-l/--learning_rate is not offered for {algo} (it has no "
                           "learning rate)")
    if args.power_t is not None:
        if "power" not in has or "schedule" not in has:
            raise CLIError(f"--power_t is not offered for {algo} (it has no step schedule; "
                           "ogd, adagrad, lms and fobos have one)")
        if args.power_t == 0:
            put("schedule", "constant", "--power_t")
        else:
            put("schedule", "power", "--power_t")
            put("power", args.power_t, "--power_t")
    for option, value, keys in (("--l1", args.l1, ("l1", "lam") if base in (
            "ada-fobos", "ada-rda") else ("l1",)),
            ("--l2", args.l2, ("l2", "alpha") if base in ("ogd", "adagrad", "cocob")
             else ("l2",))):
        if value is None:
            continue
        key = next((k for k in keys if k in has), None)
        if key is None:
            raise CLIError(f"{option} is not offered for {algo}: ftrl and fobos have l1 and "
                           "l2 (--algo ftrl)")
        put(key, value, option)
    return {**params, **out}


def write_readable(model, path, algo, bits):
    """The weights as text, vw's --readable_model habit: a header, then ``column:weight``
    a line for the non-zero weights (``class column:weight`` for a multiclass model),
    the intercept as ``Constant:value``."""
    import numpy as np
    from ._common import atomic_text
    coef = getattr(model, "coef_", None)
    if coef is None:
        raise CLIError(f"--readable_model: {algo} has no linear weights (coef_) to write; "
                       "the model file was saved")
    coef = np.atleast_2d(np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef))
    intercept = np.atleast_1d(np.asarray(getattr(model, "intercept_", np.zeros(len(coef)))))
    classes = getattr(model, "classes_", None)
    multi = coef.shape[0] > 1
    with atomic_text(path) as f:
        f.write(f"olearn readable model\nlearner: {algo}\n")
        if bits is not None:
            f.write(f"bits: {bits}\n")
        f.write(":0\n")
        for k in range(coef.shape[0]):
            head = f"{classes[k]} " if multi and classes is not None else ""
            if intercept[k] != 0:
                f.write(f"{head}Constant:{float(intercept[k]):.9g}\n")
            for j in np.flatnonzero(coef[k]):
                f.write(f"{head}{j}:{float(coef[k, j]):.9g}\n")


# ------------------------------------------------------------------ predict
def add_predict_args(parser):
    g = parser.add_argument_group("Vowpal Wabbit's options")
    g.add_argument("-r", "--raw_predictions", metavar="FILE",
                   help="write the raw scores here (decision_function; 'class:score ...' "
                        "for a multiclass model), tags echoed")
    g.add_argument("--link", choices=("identity", "logistic", "glf1"), default="identity",
                   help="-p writes the link of the raw score instead of the label: logistic "
                        "1/(1+e^-s), glf1 2/(1+e^-s)-1 (binary models)")
    g.add_argument("--probabilities", action="store_true",
                   help="-p writes 'class:probability ...' per row (learners with "
                        "predict_proba)")
    g.add_argument("--quiet", action="store_true", help="accepted: predict prints nothing")


def tags(path):
    """The tag of each example line of a vw file ('' where none), in order; None for
    standard input (nothing to read twice)."""
    if path in (None, "-") or not os.path.isfile(path):
        return None
    return _tags(path)


def _tags(path):
    with _open_text(path) as f:
        for line in f:
            if not line.strip():
                continue
            head = line.split("|", 1)[0]
            tokens = head.split()
            tag = ""
            if tokens and (tokens[-1].startswith("'") or not head[-1:].isspace()):
                tag = tokens[-1][1:] if tokens[-1].startswith("'") else tokens[-1]
            yield tag


def _open_text(path):
    import bz2
    import gzip
    import lzma
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(os.fspath(path))[1].lower(), open)
    return opener(path, "rt", encoding="utf-8", errors="replace")
