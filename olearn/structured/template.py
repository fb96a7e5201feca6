"""The default feature template for raw tokens.

A sequence of strings (raw tokens) is tagged through this template; its features are
computed and hashed by compiled code (``_kernels.template_features``), about 25 per
token.  For token ``w`` at position ``i`` of its sequence, ``l = w.lower()`` (Python's
lower case, any script):

========== ==============================================================================
feature    value
========== ==============================================================================
``bias``   always (a per-tag bias)
``w``      the token as it is
``l``      its lower case
``p1-p4``  the first 1, 2, 3, 4 characters of ``l`` (those the token has)
``s1-s4``  the last 1, 2, 3, 4 characters of ``l``
``shape``  each character of ``w`` as ``X`` (A-Z), ``x`` (a-z), ``d`` (0-9), ``u``
           (beyond ASCII) or itself (ASCII punctuation), runs of one class written
           once, the first 8 classes: ``Xx`` for "Paris", ``d.d`` for "3.14"
flags      ``has-upper`` (``w != l``), ``init-upper`` (its first character changes in
           lower case), ``all-upper`` (``w != l`` and no a-z), ``has-digit``,
           ``all-digit`` (only 0-9), ``hyphen`` (a ``-``), ``punct`` (ASCII
           punctuation only: no letter, digit or character beyond ASCII)
``l-2``,   the lower case of the tokens 2 and 1 before and 1 and 2 after, or a marker
``l-1``,   of the sequence's start (``<s>``) or end (``</s>``)
``l+1``,
``l+2``
``s3-1``,  the last 3 characters of the previous and next tokens' lower case (when
``s3+1``   they exist)
========== ==============================================================================

Each feature is the MurmurHash3 (``olearn.io.hashing``) of its value's UTF-8 bytes with
a seed of its own kind, masked to the model's ``2**bits`` rows of emission weights.
:func:`token_features` is the same template in plain Python: the features as strings
(``"l-1=the"``), to read, to give another tagger the same features (the benchmark gives
them to CRFsuite), or as ``(kind, bytes)`` pairs, which the tests hash and compare with
the compiled template.
"""
from __future__ import annotations

from typing import Any

from . import _kernels as K

#: kind -> the feature's name in :func:`token_features`' strings
NAMES = {K.F_BIAS: "bias", K.F_WORD: "w", K.F_LOWER: "l",
         **{K.F_PREFIX + k: f"p{k + 1}" for k in range(4)},
         **{K.F_SUFFIX + k: f"s{k + 1}" for k in range(4)},
         K.F_SHAPE: "shape", K.F_HAS_UPPER: "has-upper", K.F_INIT_UPPER: "init-upper",
         K.F_ALL_UPPER: "all-upper", K.F_HAS_DIGIT: "has-digit",
         K.F_ALL_DIGIT: "all-digit", K.F_HYPHEN: "hyphen", K.F_PUNCT: "punct",
         K.F_PREV2: "l-2", K.F_PREV1: "l-1", K.F_NEXT1: "l+1", K.F_NEXT2: "l+2",
         K.F_PREV_SUFFIX: "s3-1", K.F_NEXT_SUFFIX: "s3+1"}
_NEIGHBOURS = ((-2, K.F_PREV2), (-1, K.F_PREV1), (1, K.F_NEXT1), (2, K.F_NEXT2))
_FLAGS = (K.F_HAS_UPPER, K.F_INIT_UPPER, K.F_ALL_UPPER, K.F_HAS_DIGIT, K.F_ALL_DIGIT,
          K.F_HYPHEN, K.F_PUNCT)


def _shape(w):
    out = []
    for ch in w:
        c = "X" if "A" <= ch <= "Z" else "x" if "a" <= ch <= "z" else \
            "d" if "0" <= ch <= "9" else "u" if ord(ch) >= 128 else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out[:K.MAX_SHAPE])


def _encoded(text):
    return text.encode("utf-8", "surrogatepass")


def _pairs(tokens):
    """``[[(kind, bytes), ...] per token]``: the template's features, in the compiled
    template's order."""
    lowers = [t.lower() for t in tokens]
    n = len(tokens)
    out = []
    for i, (w, low) in enumerate(zip(tokens, lowers)):
        wb, lb = _encoded(w), _encoded(low)
        f = [(K.F_BIAS, b""), (K.F_WORD, wb), (K.F_LOWER, lb)]
        f += [(K.F_PREFIX + k, _encoded(low[:k + 1])) for k in range(min(4, len(low)))]
        f += [(K.F_SUFFIX + k, _encoded(low[-k - 1:])) for k in range(min(4, len(low)))]
        f.append((K.F_SHAPE, _shape(w).encode()))
        changed = wb != lb
        ascii_letters = sum("a" <= c <= "z" or "A" <= c <= "Z" for c in w)
        digits = sum("0" <= c <= "9" for c in w)
        punct = sum(ord(c) < 128 and not c.isalnum() for c in w)
        if changed:
            f.append((K.F_HAS_UPPER, b""))
            n1 = len(_encoded(w[0]))
            if wb[:n1] != lb[:n1]:
                f.append((K.F_INIT_UPPER, b""))
            if not any("a" <= c <= "z" for c in w):
                f.append((K.F_ALL_UPPER, b""))
        if digits:
            f.append((K.F_HAS_DIGIT, b""))
            if digits == len(wb):
                f.append((K.F_ALL_DIGIT, b""))
        if "-" in w:
            f.append((K.F_HYPHEN, b""))
        if punct and not ascii_letters and not digits and not changed:
            f.append((K.F_PUNCT, b""))
        for off, kind in _NEIGHBOURS:
            j = i + off
            f.append((K.F_BEFORE + 16 * kind, b"") if j < 0 else
                     (K.F_AFTER + 16 * kind, b"") if j >= n else (kind, _encoded(lowers[j])))
        for off, kind in ((-1, K.F_PREV_SUFFIX), (1, K.F_NEXT_SUFFIX)):
            j = i + off
            if 0 <= j < n:
                f.append((kind, _encoded(lowers[j][-3:])))
        out.append(f)
    return out


def _name(kind, value):
    for off, k in _NEIGHBOURS:
        if kind == K.F_BEFORE + 16 * k:
            return f"{NAMES[k]}=<s>"
        if kind == K.F_AFTER + 16 * k:
            return f"{NAMES[k]}=</s>"
    if kind in _FLAGS or kind == K.F_BIAS:
        return NAMES[kind]
    return f"{NAMES[kind]}={value.decode('utf-8', 'surrogatepass')}"


def token_features(tokens: list[str], pairs: bool = False) -> list[list[Any]]:
    """The default template's features of each token of one sequence, in plain Python:
    strings such as ``"w=Paris"``, ``"s3=ris"``, ``"init-upper"``, ``"l-1=<s>"`` (a list
    per token), or with ``pairs`` the ``(kind, UTF-8 bytes)`` pairs the compiled
    template hashes (each with seed ``_kernels.SEED_BASE + kind``)."""
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("token_features takes one sequence: a list of str tokens")
    got = _pairs([t.replace("\0", "\ufffd") for t in tokens])   # (as the compiled one)
    if pairs:
        return got
    return [[_name(kind, value) for kind, value in f] for f in got]
