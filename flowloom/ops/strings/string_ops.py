"""String ops: StringJoin, (Static)RegexFullMatch, (Static)RegexReplace and Substr.

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


def _compiled(pattern):
    try:
        return _compile(_as_bytes(pattern))
    except re2.error as e:
        reason = e.args[0].decode("utf-8", "replace") if e.args and isinstance(
            e.args[0], bytes) else str(e)
        raise errors.InvalidArgumentError(
            None, None, f"Invalid pattern: {_text(pattern)}, error: {reason}") from None


def _full_match_kernel(values, pattern):
    compiled = _compiled(pattern)
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


def _rewrite_pieces(rewrite, groups):
    """RE2's Rewrite, parsed once: literal bytes and group numbers. `\\N` is group N (0-9;
    empty where the pattern has no such group), `\\\\` a backslash. A backslash before anything
    else, or at the end, ends the rewrite there (RE2 reports it and keeps what came before,
    as TF 1.15 shows)."""
    pieces, i = [], 0
    while i < len(rewrite):
        k = rewrite.find(b"\\", i)
        if k < 0:
            pieces.append(rewrite[i:])
            break
        pieces.append(rewrite[i:k])
        code = rewrite[k + 1:k + 2]
        if code == b"\\":
            pieces.append(code)
        elif code.isdigit():
            pieces.append(int(code) if int(code) <= groups else b"")
        else:
            break
        i = k + 2
    return [p for p in pieces if p != b""]


def _utf8_step(text, p):
    """Bytes of the UTF-8 character at `p` (1 for a byte that starts none)."""
    lead = text[p]
    n = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4 if lead < 0xF8 else 1
    return n if n > 1 and p + n <= len(text) and all(
        0x80 <= b < 0xC0 for b in text[p + 1:p + n]) else 1


def _searcher(compiled):
    """(text, pos) -> the spans of the first match at or after `pos` (group 0 first), or
    None. The binding's own Match is used where it has one (its `search` wraps it in a
    generator and a match object, at twice the cost)."""
    raw, anchor = getattr(compiled, "_regexp", None), getattr(re2, "_Anchor", None)
    if raw is not None and hasattr(raw, "Match") and anchor is not None:
        def search(text, pos):
            spans = raw.Match(anchor.UNANCHORED, text, pos, len(text))
            return None if spans[0][0] < 0 else spans
        return search

    def search_public(text, pos):
        m = compiled.search(text, pos)
        return None if m is None else [m.span(g) for g in range(compiled.groups + 1)]
    return search_public


def _replace(search, text, pieces, replace_global):
    """RE2's Replace / GlobalReplace: non-overlapping matches left to right; an empty match
    right where the previous match ended is skipped (one UTF-8 character is copied)."""
    out, p, last_end, count = [], 0, -1, 0
    while p <= len(text):
        spans = search(text, p)
        if spans is None:
            break
        start, end = spans[0]
        out.append(text[p:start])
        if start == end == last_end:
            step = _utf8_step(text, p) if p < len(text) else 1
            out.append(text[p:p + step])
            p += step
            continue
        for piece in pieces:
            if piece.__class__ is int:
                s, e = spans[piece]
                out.append(text[s:e] if s >= 0 else b"")
            else:
                out.append(piece)
        p = last_end = end
        count += 1
        if not replace_global:
            break
    if count == 0:
        return text
    out.append(text[p:])
    return b"".join(out)


def _replace_kernel(values, pattern, rewrite, replace_global):
    compiled = _compiled(pattern)
    search, pieces = _searcher(compiled), _rewrite_pieces(_as_bytes(rewrite), compiled.groups)
    values = np.asarray(values, dtype=object)
    out = np.empty(values.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(values.reshape(-1)):
        flat[i] = _replace(search, _as_bytes(v), pieces, replace_global)
    return out


StaticRegexReplace = defop("StaticRegexReplace", inputs=["input: string"],
                           outputs=["output: string"],
                           attrs={"pattern": None, "rewrite": None, "replace_global": True})
StaticRegexReplace.shape(lambda op: op._inputs[0]._shape)


@StaticRegexReplace.kernel
def _(xp, values, *, pattern, rewrite, replace_global):
    return _replace_kernel(values, pattern, rewrite, replace_global)


RegexReplace = defop("RegexReplace", inputs=["input: string", "pattern: string",
                                             "rewrite: string"],
                     outputs=["output: string"], attrs={"replace_global": True})


@RegexReplace.shape
def _(op):
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims}")
    return op._inputs[0]._shape


@RegexReplace.kernel
def _(xp, values, pattern, rewrite, *, replace_global):
    pattern, rewrite = np.asarray(pattern, dtype=object), np.asarray(rewrite, dtype=object)
    for name, t in (("Pattern", pattern), ("Rewrite", rewrite)):
        if t.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be scalar, but received {list(t.shape)}")
    return _replace_kernel(values, pattern.item(), rewrite.item(), replace_global)


NotDifferentiable("StaticRegexReplace", "RegexReplace")


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces the matches of the RE2 `pattern` in each string with `rewrite`.

    Args:
      input: a string `Tensor`.
      pattern: a string or scalar string `Tensor`: an RE2 regular expression.
      rewrite: a string or scalar string `Tensor`: the replacement, where `\\1` .. `\\9`
        insert the text of a parenthesised group and `\\0` the whole match.
      replace_global: replace every non-overlapping match (else only the first).
      name: a name for the op.

    Returns:
      A string `Tensor` of `input`'s shape. Python strings for both `pattern` and `rewrite`
      make a `StaticRegexReplace` (compiled once), as in TF.

    Example:
      tf.strings.regex_replace(["a.b"], r"\\.", "/")  # [b"a/b"]
    """
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", (input,), name=name, pattern=pattern,
                        rewrite=rewrite, replace_global=replace_global).outputs[0]
    return apply_op("RegexReplace", (input, pattern, rewrite), name=name,
                    replace_global=replace_global).outputs[0]



Substr = defop("Substr", inputs=["input: string", "pos: T", "len: T"],
               outputs=["output: string"], attrs={"unit": "BYTE"},
               allowed_types={"T": (dtypes.int32, dtypes.int64)})


@Substr.shape
def _(op):
    from flowloom.framework.common_shapes import broadcast

    text, pos, length = (t._shape for t in op._inputs)
    if pos.ndims is not None and length.ndims is not None:
        if pos.ndims != length.ndims:
            raise ValueError(f"Shape must be rank {length.ndims} but is rank {pos.ndims}")
        for a, b in zip(pos.as_list(), length.as_list()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return broadcast(text, pos)


def _is_trail(byte):
    return byte & 0xC0 == 0x80


def _utf8_forward(s, p, count):
    """The byte position `count` characters after byte `p` (a character: a byte and the
    continuation bytes after it, as TF steps)."""
    for _ in range(count):
        if p >= len(s):
            break
        p += 1
        while p < len(s) and _is_trail(s[p]):
            p += 1
    return p


def _utf8_back(s, count):
    p = len(s)
    for _ in range(count):
        if p <= 0:
            break
        p -= 1
        while p > 0 and _is_trail(s[p]):
            p -= 1
    return p


def _substr(s, p, n, unit, index):
    if unit == "BYTE":
        if abs(p) > len(s):
            raise errors.InvalidArgumentError(
                None, None, f"pos {p} out of range for string b'{_text(s)}' at index {index}")
        p = p + len(s) if p < 0 else p
        return s[p:] if n < 0 else s[p:p + n]  # a negative length runs to the end, as in TF
    if abs(p) > sum(1 for b in s if not _is_trail(b)):
        raise errors.InvalidArgumentError(
            None, None, f"pos {p} out of range for string at index {index}")
    start = _utf8_back(s, -p) if p < 0 else _utf8_forward(s, 0, p)
    return s[start:_utf8_forward(s, start, n)]


@Substr.kernel
def _(xp, values, pos, length, *, unit):
    values = np.asarray(values, dtype=object)
    pos, length = np.asarray(pos), np.asarray(length)
    try:
        shape = np.broadcast_shapes(values.shape, pos.shape, length.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {list(values.shape)} vs. {list(pos.shape)}"
        ) from None
    out = np.empty(shape, dtype=object)
    flat = out.reshape(-1)
    columns = zip(np.broadcast_to(values, shape).flat, np.broadcast_to(pos, shape).flat,
                  np.broadcast_to(length, shape).flat)
    for i, (s, p, n) in enumerate(columns):
        flat[i] = _substr(_as_bytes(s), int(p), int(n), unit, i)
    return out


NotDifferentiable("Substr")


def substr(input, pos, len, name=None, unit="BYTE"):  # noqa: A002 - TF's argument names
    """Substrings `input[pos:pos + len]`, elementwise (`tf.strings.substr`).

    Args:
      input: a string `Tensor`.
      pos: int32/int64 start positions; negative ones count from the end.
      len: lengths, of `pos`'s shape and dtype (negative: to the end, in bytes).
      name: a name for the op.
      unit: "BYTE", or "UTF8_CHAR" (positions and lengths count UTF-8 characters).

    Returns:
      A string `Tensor`: `input` and `pos` broadcast together.

    Raises (at run time):
      InvalidArgumentError: a position beyond either end of its string.
    """
    from flowloom.ops.strings.text_ops import _check_choice

    _check_choice("Substr", "unit", unit, ("BYTE", "UTF8_CHAR"))
    return apply_op("Substr", (input, pos, len), name=name, unit=unit).outputs[0]
