"""StringToNumber (`tf.strings.to_number`): each string parsed as a float32, float64, int32 or
int64, with TF 1.15's grammar.

Floats: optional ASCII whitespace around `[+-]` then a decimal (`1.`, `.5`, `1e-3`), a hex
integer (`0x1A`) or `inf` / `nan` (any case); a string of only whitespace reads as 0; the
string must be under 32 bytes. The value is rounded once, to the nearest value of the type.
Integers: optional whitespace, an optional `-` (no `+`), decimal digits, optional whitespace,
within the type's range. Anything else is an InvalidArgumentError naming the string.
"""

import re
from fractions import Fraction

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop

_SPACE = rb"[ \t\n\v\f\r]*"
_FLOAT = re.compile(_SPACE + rb"([+-]?)(?:(inf)|(nan)|0x([0-9a-f]+)|"
                    rb"((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))" + _SPACE, re.IGNORECASE)
_BLANK = re.compile(_SPACE)
_INT = re.compile(_SPACE + rb"(-?\d+)" + _SPACE)
_MAX_FLOAT_TEXT = 32  # TF parses floats in a 32-byte buffer: longer strings fail
_INT_RANGE = {dtypes.int32: (-2 ** 31, 2 ** 31 - 1), dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}


def _round_to_float32(value, exact):
    """`value` (the float64 nearest the text) as float32, rounded as if from the text's exact
    value `exact()`: converting through float64 rounds twice, which differs only when the
    float64 lies exactly halfway between two float32 values."""
    with np.errstate(over="ignore"):  # beyond float32's range is inf, as in TF
        single = np.float32(value)
        if not np.isfinite(single) or float(single) == value:
            return single
        other = np.nextafter(single, np.float32(np.inf if float(single) < value else -np.inf))
    if not np.isfinite(other):
        return single
    midpoint = (Fraction(float(single)) + Fraction(float(other))) / 2
    if Fraction(value) != midpoint:
        return single
    below, above = sorted((single, other))
    exact_value = exact()
    return below if exact_value < midpoint else above if exact_value > midpoint else single


def _parse_float(text, dtype):
    if len(text) >= _MAX_FLOAT_TEXT:
        return None
    m = _FLOAT.fullmatch(text)
    if m is None:
        return 0.0 if text and _BLANK.fullmatch(text) else None
    sign, inf, nan, hex_digits, decimal = m.groups()
    negative = sign == b"-"
    if inf or nan:
        value = float("inf") if inf else float("nan")
        return -value if negative else value
    if hex_digits:
        number = int(hex_digits, 16)
        value, exact = float(number), (lambda: Fraction(number))
    else:
        value, exact = float(decimal), (lambda: Fraction(decimal.decode("ascii")))
    if dtype == dtypes.float32:
        value = _round_to_float32(value, exact)
    return -value if negative else value


def _parse_int(text, dtype):
    m = _INT.fullmatch(text)
    if m is None:
        return None
    value = int(m.group(1))
    low, high = _INT_RANGE[dtype]
    return value if low <= value <= high else None


StringToNumber = defop("StringToNumber", inputs=["string_tensor: string"],
                       outputs=["output: out_type"], attrs={"out_type": dtypes.float32},
                       allowed_types={"out_type": (dtypes.float32, dtypes.float64,
                                                   dtypes.int32, dtypes.int64)})
StringToNumber.shape(lambda op: op._inputs[0]._shape)
NotDifferentiable("StringToNumber")


_FLOAT_CHARS, _INT_CHARS = b"0123456789.eE+-", b"0123456789-"


def _parse_batch(texts, dtype):
    """All of `texts` parsed by NumPy's C parser when they hold only the characters of plain
    decimals (where its grammar and TF's agree), else None: the caller then parses one by
    one, which also names the string that fails."""
    joined = b"".join(texts)
    if not texts or joined.translate(None, _INT_CHARS if dtype.is_integer else _FLOAT_CHARS):
        return None
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    if lengths.min() == 0 or (not dtype.is_integer and lengths.max() >= _MAX_FLOAT_TEXT):
        return None
    try:
        parsed = np.array(texts, dtype=bytes).astype(np.int64 if dtype.is_integer
                                                     else np.float64)
    except (ValueError, OverflowError):
        return None
    if dtype == dtypes.int32:
        low, high = _INT_RANGE[dtype]
        return parsed.astype(np.int32) if parsed.min() >= low and parsed.max() <= high else None
    if dtype == dtypes.float32:
        with np.errstate(over="ignore"):
            single = parsed.astype(np.float32)
            toward = np.where(single.astype(np.float64) < parsed, np.float32(np.inf),
                              np.float32(-np.inf)).astype(np.float32)
            other = np.nextafter(single, toward)
        midpoint = (single.astype(np.float64) + other.astype(np.float64)) / 2
        for i in np.flatnonzero(np.isfinite(other) & (midpoint == parsed)).tolist():
            single[i] = _parse_float(texts[i], dtype)  # a tie: rounded from the text
        return single
    return parsed


@StringToNumber.kernel
def _(xp, values, *, out_type):
    values = np.asarray(values, dtype=object)
    texts = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in values.flat]
    fast = _parse_batch(texts, out_type)
    if fast is not None:
        return fast.reshape(values.shape)
    parse = _parse_int if out_type.is_integer else _parse_float
    out = np.empty(values.shape, dtype=out_type.as_numpy_dtype)
    flat = out.reshape(-1)
    for i, text in enumerate(texts):
        number = parse(text, out_type)
        if number is None:
            raise errors.InvalidArgumentError(
                None, None, "StringToNumberOp could not correctly convert string: "
                + text.decode("utf-8", "replace"))
        flat[i] = number
    return out


def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None,
                     input=None):  # noqa: A002 - TF's argument name
    """Parses each string as a number of `out_type` (`tf.strings.to_number`).

    Args:
      string_tensor: a string `Tensor` (`input` is its newer name).
      out_type: float32 (the default), float64, int32 or int64.
      name: a name for the op.
      input: the newer name of `string_tensor`.

    Returns:
      A `Tensor` of `out_type` and the input's shape.

    Raises (at run time):
      InvalidArgumentError: "StringToNumberOp could not correctly convert string: ...".

    Example:
      tf.strings.to_number(["1.5", " 2"])  # [1.5, 2.0]
    """
    if input is not None:
        if string_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'string_tensor'")
        string_tensor = input
    return apply_op("StringToNumber", (string_tensor,), name=name,
                    out_type=dtypes.as_dtype(out_type)).outputs[0]
