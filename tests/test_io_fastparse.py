"""The compiled LIBSVM parser against Python's own number parsing: the same rows,
labels, indices and bit-identical values, or a refusal (status 1) that sends the
block to the exact slower paths."""
import numpy as np
import pytest

from olearn.io._fastparse import parse_block as _parse_block
from olearn.io._fastparse import strtod_allowed


def parse_block(a, want_values, long_ok=True):
    return _parse_block(a, want_values, long_ok)


def _random_number(rng):
    kind = rng.integers(6)
    if kind == 0:
        return str(int(rng.integers(-10**6, 10**6)))
    if kind == 1:
        return repr(float(rng.normal()))                 # up to 17 digits: strtod
    if kind == 2:
        return f"{rng.normal():.6f}"
    if kind == 3:
        return f"{rng.normal() * 10.0 ** rng.integers(-30, 30):.4e}"
    if kind == 4:
        return f"{rng.uniform(0, 1):.3f}".lstrip("0")    # ".123"
    return rng.choice(["+1", "-1", "0", "1.", "1e0", "-0.0", "2E+3"])


def _reference(text):
    """Rows as Python parses them: (label, [(index, value)...], line)."""
    rows = []
    for k, line in enumerate(text.split("\n")):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        feats = [t.split(":") for t in line[1:] if not t.startswith("qid:")]
        rows.append((float(line[0]), [(int(i), float(v)) for i, v in feats], k))
    return rows


def _random_block(rng, extras=("", " # a comment", " ", "\r"),
                  blanks=("", "   ", "# only a comment")):
    """Up to 5 random LIBSVM lines: labels and values in many spellings, qid tokens,
    comments, blank lines."""
    lines = []
    for _ in range(int(rng.integers(0, 6))):
        feats = " ".join(f"{int(rng.integers(0, 10**6))}:{_random_number(rng)}"
                         for _ in range(int(rng.integers(0, 5))))
        qid = rng.choice(["", " qid:3"])
        lines.append(f"{_random_number(rng)}{qid} {feats}{rng.choice(extras)}")
        if rng.random() < 0.2:
            lines.append(rng.choice(blanks))
    return "\n".join(lines)


def test_parses_exactly_what_python_parses():
    rng = np.random.default_rng(0)
    accepted = 0
    for trial in range(300):
        text = _random_block(rng)
        status, labels, line_of, counts, indices, values = parse_block(
            np.frombuffer(text.encode(), dtype=np.uint8), True)
        if status:
            continue
        accepted += 1
        ref = _reference(text)
        assert labels.tolist() == [r[0] for r in ref]
        assert line_of.tolist() == [r[2] for r in ref]
        assert counts.tolist() == [len(r[1]) for r in ref]
        flat = [f for r in ref for f in r[1]]
        assert indices.tolist() == [i for i, _ in flat]
        # bit-identical, as Python's correctly rounded float()
        assert values.view(np.int64).tolist() == \
            np.array([v for _, v in flat], dtype=np.float64).view(np.int64).tolist()
    assert accepted > 100  # the fast path takes the common forms


@pytest.mark.parametrize("text", ["1 2:inf", "1 2:nan", "x 1:2", "1 a:2", "1 2:3:4",
                                  "1 2:", "1 :2", "1 2:1.5.5",
                                  "1 2:1e400", "1 2:3x", "qid:1 1:2", "1 -2:3"])
def test_refuses_what_it_cannot_parse_exactly(text):
    assert parse_block(np.frombuffer(text.encode(), dtype=np.uint8), True)[0] == 1


def test_without_values_the_structure_is_the_same():
    text = b"1 3:0.5 7:2\n\n-1 2:1e-3\n"
    full = parse_block(np.frombuffer(text, dtype=np.uint8), True)
    bare = parse_block(np.frombuffer(text, dtype=np.uint8), False)
    assert bare[0] == 0 and len(bare[5]) == 0
    for a, b in zip(full[1:5], bare[1:5]):
        assert np.array_equal(a, b)


def _long_number(rng):
    kind = rng.integers(4)
    if kind == 0:
        return "%.17g" % (rng.normal() * 10.0 ** rng.integers(-300, 300))
    if kind == 1:  # subnormals and the edge of the range
        return "%.17g" % (rng.random() * 10.0 ** rng.integers(-323, -307))
    if kind == 2:  # long runs of digits, before and after the point
        return "".join(rng.choice(list("0123456789"), int(rng.integers(16, 40)))) + \
            "." + "".join(rng.choice(list("0123456789"), int(rng.integers(0, 20))))
    return f"-{rng.random():.25f}e{int(rng.integers(-30, 30))}"


def test_long_numbers_are_exact_through_strtod_or_refused_without_it():
    if not strtod_allowed():
        pytest.skip("the C library's strtod is not used on this platform/locale")
    rng = np.random.default_rng(1)
    tokens = [_long_number(rng) for _ in range(3000)]
    tokens += ["1e-400", "-1e-400", "4.9406564584124654e-324", "2.4703282292062328e-324",
               "1.7976931348623157e308", "0.12345678901234567", "1" + "0" * 30]
    tokens = [t for t in tokens if len(t) < 64]
    text = "\n".join(f"{t} 1:{t}" for t in tokens).encode()
    status, labels, _, _, _, values = parse_block(np.frombuffer(text, dtype=np.uint8), True)
    assert status == 0
    want = np.array([float(t) for t in tokens])
    assert labels.view(np.int64).tolist() == want.view(np.int64).tolist()
    assert values.view(np.int64).tolist() == want.view(np.int64).tolist()
    # without strtod the same block goes to the slower exact paths
    assert parse_block(np.frombuffer(text, dtype=np.uint8), True, False)[0] == 1


@pytest.mark.parametrize("text", ["1 2:1.7976931348623159e308", "1 2:" + "1" * 70])
def test_a_long_number_out_of_range_or_too_long_is_refused(text):
    assert parse_block(np.frombuffer(text.encode(), dtype=np.uint8), True)[0] == 1


def test_the_width_prescan_finds_the_rows_and_index_range_that_parsing_finds():
    """``index_range`` (the prescan, one pass, no arrays) against ``parse_block`` on the
    same random blocks: the same rows and lowest/highest index whenever the parser
    accepts the block."""
    from olearn.io._fastparse import index_range
    rng = np.random.default_rng(2)
    agreed = 0
    for trial in range(400):
        text = _random_block(rng, ("", " # a comment", "#c 9:9", " ", "\r", "\t"),
                             ("", "   ", "# only a comment", "  # 5:5"))
        text += rng.choice(["", "\n"])
        a = np.frombuffer(text.encode(), dtype=np.uint8)
        status, labels, _, _, indices, _ = parse_block(a, False)
        if status:
            continue
        agreed += 1
        scan = index_range(a, True)
        want = (0, len(labels), int(indices.min()) if len(indices) else -1,
                int(indices.max()) if len(indices) else -1)
        assert tuple(int(v) for v in scan) == want, text
    assert agreed > 100
    for text in ["x 1:2", "1 a:2", "1 2", "qid:1 1:2", "1 -2:3", "1 " + "9" * 19 + ":1"]:
        assert index_range(np.frombuffer(text.encode(), dtype=np.uint8), True)[0] == 1


def test_seventeen_digit_numbers_are_exact_without_strtod():
    """The 17 digits of ``repr`` and ``%.17g`` (and up to 18-digit significands with
    any exponent in the normal range) are converted by Eisel-Lemire, bit-identical to
    Python's ``float()``, with no help from the C library's strtod."""
    rng = np.random.default_rng(3)
    tokens = [repr(float(rng.normal() * 10.0 ** rng.integers(-300, 300))) for _ in range(4000)]
    tokens += ["%.17g" % (rng.random() * 10.0 ** rng.integers(-30, 30)) for _ in range(4000)]
    tokens += [f"{int(rng.integers(1, 10**18))}e{int(rng.integers(-300, 280))}"
               for _ in range(4000)]
    # halfway between two doubles, written out exactly (ties go to even)
    tokens += ["9007199254740993", "9007199254740995", "4503599627370496.5",
               "2.2250738585072014e-308", "1.7976931348623157e308", "0.1", "0.3",
               "123456789012345678e-5"]
    text = "\n".join(f"{t} 1:{t}" for t in tokens).encode()
    status, labels, _, _, _, values = parse_block(np.frombuffer(text, dtype=np.uint8), True,
                                                  False)
    assert status == 0
    want = np.array([float(t) for t in tokens])
    assert labels.view(np.int64).tolist() == want.view(np.int64).tolist()
    assert values.view(np.int64).tolist() == want.view(np.int64).tolist()
