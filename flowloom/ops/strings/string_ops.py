"""String ops: StringJoin, StaticRegexFullMatch, RegexFullMatch and Substr (tf.strings basics).

Patterns are RE2's, as in TF: matching takes time linear in the input (no backtracking, so a
pattern from a GraphDef such as `(a+)+b` cannot hang a run), and backreferences are refused.
"""

import functools

import numpy as np
import re2

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.tensor_shape import TensorShape

StringJoin = defop("StringJoin", inputs=["inputs: N * string"], outputs=["output: string"],
                   attrs={"separator": ""})


@StringJoin.shape
def _(op):
    shape = TensorShape([])
    for t in op._inputs:
        if t._shape.ndims != 0:
            shape = t._shape if shape.ndims == 0 else shape.merge_with(t._shape)
    return shape


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


@StringJoin.kernel
def _(xp, *inputs, separator):
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shapes = {a.shape for a in arrays if a.ndim}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Input shapes do not match: {' vs. '.join(map(str, sorted(shapes)))}")
    shape = shapes.pop() if shapes else ()
    sep = _as_bytes(separator)
    out = np.empty(shape, dtype=object)
    for index in np.ndindex(*shape):
        out[index] = sep.join(_as_bytes(a[index] if a.ndim else a[()]) for a in arrays)
    return out


def string_join(inputs, separator="", name=None):
    """Joins string tensors elementwise (scalars broadcast): `tf.strings.join`."""
    return apply_op("StringJoin", (list(inputs),), name=name, separator=separator).outputs[0]


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # the error reaches the user as InvalidArgumentError


@functools.lru_cache(maxsize=64)
def _compile(pattern):
    return re2.compile(pattern, options=_RE2_OPTIONS)


def _full_match_kernel(values, pattern):
    try:
        compiled = _compile(_as_bytes(pattern))
    except re2.error as e:
        reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(
            e.args[0], bytes) else str(e)
        raise errors.InvalidArgumentError(
            None, None, f"Invalid pattern: {_text(pattern)}, error: {reason}") from None
    values = np.asarray(values, dtype=object)
    out = np.empty(values.shape, dtype=bool)
    for index in np.ndindex(*values.shape):
        out[index] = compiled.fullmatch(_as_bytes(values[index])) is not None
    return out


def _text(pattern):
    return pattern.decode("utf-8", "replace") if isinstance(pattern, bytes) else str(pattern)


StaticRegexFullMatch = defop("StaticRegexFullMatch", inputs=["input: string"],
                             outputs=["output: bool"], attrs={"pattern": None})
StaticRegexFullMatch.shape(lambda op: op._inputs[0]._shape)


@StaticRegexFullMatch.kernel
def _(xp, values, *, pattern):
    return _full_match_kernel(values, pattern)


RegexFullMatch = defop("RegexFullMatch", inputs=["input: string", "pattern: string"],
                       outputs=["output: bool"])
RegexFullMatch.shape(lambda op: op._inputs[0]._shape)


@RegexFullMatch.kernel
def _(xp, values, pattern):
    return _full_match_kernel(values, np.asarray(pattern, dtype=object).item())


NotDifferentiable("StringJoin", "StaticRegexFullMatch", "RegexFullMatch")


def regex_full_match(input, pattern, name=None):
    """Whether each string matches `pattern` entirely (a Python pattern is static, as in TF
    1.15 once its forward-compatibility date, 2018-11-10, has passed)."""
    from flowloom.compat.forward_compat import forward_compatible

    if isinstance(pattern, (str, bytes)) and forward_compatible(2018, 11, 10):
        return apply_op("StaticRegexFullMatch", (input,), name=name,
                        pattern=pattern.decode() if isinstance(pattern, bytes) else pattern
                        ).outputs[0]
    return apply_op("RegexFullMatch", (input, pattern), name=name).outputs[0]



Substr = defop("Substr", inputs=["input: string", "pos: T", "len: T"],
               outputs=["output: string"], attrs={"unit": "BYTE"},
               allowed_types={"T": (dtypes.int32, dtypes.int64)})
Substr.shape(lambda op: op._inputs[0]._shape)


@Substr.kernel
def _(xp, values, pos, length, *, unit):
    if unit != "BYTE":
        raise NotImplementedError(f"Substr with unit={unit!r} (only BYTE)")
    values = np.asarray(values, dtype=object)
    pos, length = np.broadcast_to(pos, values.shape), np.broadcast_to(length, values.shape)
    out = np.empty(values.shape, dtype=object)
    for index in np.ndindex(*values.shape):
        s = _as_bytes(values[index])
        p, n = int(pos[index]), int(length[index])
        if p < 0:
            p += len(s)
        if not 0 <= p <= len(s):
            raise errors.InvalidArgumentError(
                None, None, f"pos {int(pos[index])} out of range for string b'{s!r}' at index "
                f"{index}")
        out[index] = s[p:p + max(n, 0)]
    return out


NotDifferentiable("Substr")


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF's argument names
    """Byte substrings `input[pos:pos + len]` elementwise (`tf.strings.substr`)."""
    return apply_op("Substr", (input, pos, len), name=name, unit=unit).outputs[0]
