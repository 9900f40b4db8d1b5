"""Unicode ops: UnicodeTranscode, UnicodeDecode, UnicodeDecodeWithOffsets and UnicodeEncode,
and tf.strings' unicode_* functions over them.

TF 1.15 returns a RaggedTensor from unicode_decode / unicode_split of a string Tensor of rank
1 or more, and unicode_encode takes one; flowloom has no RaggedTensor, so those forms raise
NotImplementedError, while the scalar forms (a dense 1-D result) and dense unicode_encode
inputs work as in TF. Errors: "replace" puts `replacement_char` for each ill-formed part,
"ignore" drops it, "strict" fails; with `replace_control_characters` the C0 controls
(U+0000..U+001F) count as ill-formed, except that "strict" replaces them (as TF does).
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors as tf_errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.ops.strings import unicode_codecs
from flowloom.ops.strings.text_ops import _check_choice

_OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_ERRORS = ("strict", "replace", "ignore")
_DECODE_ATTRS = {"errors": "replace", "replacement_char": 65533,
                 "replace_control_characters": False, "Tsplits": dtypes.int64}
_SPLITS = {"Tsplits": (dtypes.int32, dtypes.int64)}


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _check_replacement(replacement_char):
    if not 0 <= replacement_char <= 0x10FFFF:
        raise tf_errors.InvalidArgumentError(
            None, None, "replacement_char out of unicode codepoint range")


def _decoder(input_encoding):
    fn = unicode_codecs.decoder(input_encoding)
    if fn is None:
        raise tf_errors.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {input_encoding}")
    return fn


def _decode(data, decode, errors_mode, replacement_char, replace_control_characters):
    """(byte offsets, code points) of `data` under the error rule."""
    starts, points = [], []
    for start, point in decode(data):
        if point is not None and replace_control_characters and point < 0x20:
            point = replacement_char if errors_mode == "strict" else None
        if point is None:
            if errors_mode == "strict":
                raise tf_errors.InvalidArgumentError(None, None,
                                                  "Invalid formatting on input string")
            if errors_mode == "ignore":
                continue
            point = replacement_char
        starts.append(start)
        points.append(point)
    return starts, points


UnicodeTranscode = defop(
    "UnicodeTranscode", inputs=["input: string"], outputs=["output: string"],
    attrs={"input_encoding": None, "output_encoding": None, "errors": "replace",
           "replacement_char": 65533, "replace_control_characters": False})
UnicodeTranscode.shape(lambda op: op._inputs[0]._shape)


@UnicodeTranscode.kernel
def _(xp, values, *, input_encoding, output_encoding, errors, replacement_char,
      replace_control_characters):
    _check_replacement(replacement_char)
    decode = _decoder(input_encoding)
    values = np.asarray(values, dtype=object)
    out = np.empty(values.shape, dtype=object)
    flat = out.reshape(-1)
    fast_path = unicode_codecs.well_formed_transcoder(input_encoding, output_encoding,
                                                      not replace_control_characters)
    for i, v in enumerate(values.reshape(-1)):
        data = _as_bytes(v)
        fast = None if fast_path is None else fast_path(data)
        if fast is None:
            _, points = _decode(data, decode, errors, replacement_char,
                                replace_control_characters)
            fast = unicode_codecs.encode(points, output_encoding)
        flat[i] = fast
    return out


def _decode_flat(values, input_encoding, errors, replacement_char,
                 replace_control_characters, Tsplits):
    _check_replacement(replacement_char)
    decode = _decoder(input_encoding)
    splits, points, starts = [0], [], []
    for v in np.asarray(values, dtype=object).reshape(-1):
        s, p = _decode(_as_bytes(v), decode, errors, replacement_char,
                       replace_control_characters)
        starts += s
        points += p
        splits.append(len(points))
    return (np.array(splits, dtype=Tsplits.as_numpy_dtype), np.array(points, dtype=np.int32),
            np.array(starts, dtype=np.int64))


def _decode_shape(op):
    n = op._inputs[0]._shape.num_elements()
    return [TensorShape([None if n is None else n + 1])] + [
        TensorShape([None])] * (len(op._outputs) - 1)


UnicodeDecode = defop("UnicodeDecode", inputs=["input: string"],
                      outputs=["row_splits: Tsplits", "char_values: int32"],
                      attrs=dict(_DECODE_ATTRS, input_encoding=None), allowed_types=_SPLITS)
UnicodeDecode.shape(_decode_shape)


@UnicodeDecode.kernel
def _(xp, values, *, input_encoding, errors, replacement_char, replace_control_characters,
      Tsplits):
    return _decode_flat(values, input_encoding, errors, replacement_char,
                        replace_control_characters, Tsplits)[:2]


UnicodeDecodeWithOffsets = defop(
    "UnicodeDecodeWithOffsets", inputs=["input: string"],
    outputs=["row_splits: Tsplits", "char_values: int32", "char_to_byte_starts: int64"],
    attrs=dict(_DECODE_ATTRS, input_encoding=None), allowed_types=_SPLITS)
UnicodeDecodeWithOffsets.shape(_decode_shape)


@UnicodeDecodeWithOffsets.kernel
def _(xp, values, *, input_encoding, errors, replacement_char, replace_control_characters,
      Tsplits):
    return _decode_flat(values, input_encoding, errors, replacement_char,
                        replace_control_characters, Tsplits)


UnicodeEncode = defop("UnicodeEncode", inputs=["input_values: int32", "input_splits: Tsplits"],
                      outputs=["output: string"],
                      attrs={"errors": "replace", "output_encoding": None,
                             "replacement_char": 65533, "Tsplits": dtypes.int64},
                      allowed_types=_SPLITS)


@UnicodeEncode.shape
def _(op):
    n = op._inputs[1]._shape.as_list()[0] if op._inputs[1]._shape.ndims else None
    return TensorShape([None if n is None else n - 1])


@UnicodeEncode.kernel
def _(xp, points, splits, *, errors, output_encoding, replacement_char):
    _check_replacement(replacement_char)
    points, splits = np.asarray(points).reshape(-1), np.asarray(splits).reshape(-1)
    if splits.size == 0 or splits[0] != 0 or (np.diff(splits) < 0).any() or \
            splits[-1] != points.size:
        raise tf_errors.InvalidArgumentError(
            None, None, f"Invalid input_splits {splits.tolist()[:10]} for {points.size} "
            "code points")
    out = np.empty(splits.size - 1, dtype=object)
    for i in range(out.size):
        row = []
        for p in points[splits[i]:splits[i + 1]].tolist():
            if not 0 <= p <= 0x10FFFF:
                if errors == "strict":
                    raise tf_errors.InvalidArgumentError(
                        None, None, "Code point value out of valid Unicode range.")
                if errors == "ignore":
                    continue
                p = replacement_char
            row.append(p)
        out[i] = unicode_codecs.encode(row, output_encoding)
    return out


NotDifferentiable("UnicodeTranscode", "UnicodeDecode", "UnicodeDecodeWithOffsets",
                  "UnicodeEncode")


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Re-encodes each string from `input_encoding` to `output_encoding`.

    Args:
      input: a string `Tensor`.
      input_encoding: the strings' encoding: UTF-8, UTF-16-BE/LE, UTF-32-BE/LE or ISO-8859-1
        (names compared as ICU compares them: "utf8" is UTF-8).
      output_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
      errors: "replace", "ignore" or "strict" (see the module docstring).
      replacement_char: the code point put for ill-formed input under "replace".
      replace_control_characters: treat U+0000..U+001F as ill-formed.
      name: a name for the op.

    Returns:
      A string `Tensor` of `input`'s shape.
    """
    _check_choice("UnicodeTranscode", "output_encoding", output_encoding, _OUTPUT_ENCODINGS)
    _check_choice("UnicodeTranscode", "errors", errors, _ERRORS)
    return apply_op("UnicodeTranscode", (input,), name=name, input_encoding=input_encoding,
                    output_encoding=output_encoding, errors=errors,
                    replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters).outputs[0]


def _decode_scalar(op_type, function, input, input_encoding, errors,  # noqa: A002
                   replacement_char, replace_control_characters):
    from flowloom.ops.array.array_ops import reshape

    _check_choice(op_type, "errors", errors, _ERRORS)
    input = convert_to_tensor(input, name="input")  # noqa: A001
    rank = input._shape.ndims
    if rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    if rank:
        raise NotImplementedError(
            f"tf.strings.{function} of a rank-{rank} input (TF returns a RaggedTensor, "
            "which flowloom lacks): only a scalar string is implemented")
    return apply_op(op_type, (reshape(input, [-1]),), input_encoding=input_encoding,
                    errors=errors, replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters).outputs


def unicode_decode(input, input_encoding, errors="replace",  # noqa: A002 - TF's name
                   replacement_char=0xFFFD, replace_control_characters=False, name=None):
    """The code points of a scalar string, as a 1-D int32 `Tensor`.

    Args:
      input: a scalar string `Tensor` (a higher rank gives a RaggedTensor in TF, not
        implemented).
      input_encoding: the string's encoding (as in `unicode_transcode`).
      errors, replacement_char, replace_control_characters: see `unicode_transcode`.
      name: a name for the ops.

    Example:
      tf.strings.unicode_decode("G\\u00f6", "UTF-8")  # [71, 246]
    """
    with name_scope(name, "UnicodeDecode", [input]):
        return _decode_scalar("UnicodeDecode", "unicode_decode", input, input_encoding, errors,
                              replacement_char, replace_control_characters)[1]


def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=0xFFFD, replace_control_characters=False,
                                name=None):
    """(code points, start byte offsets) of a scalar string: an int32 and an int64 vector."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        outputs = _decode_scalar("UnicodeDecodeWithOffsets", "unicode_decode_with_offsets",
                                 input, input_encoding, errors, replacement_char,
                                 replace_control_characters)
        return outputs[1], outputs[2]


def _one_per_row(points, output_encoding, errors, replacement_char):
    from flowloom.ops.array.array_ops import size
    from flowloom.ops.math.math_ops import range_

    splits = range_(size(points, out_type=dtypes.int64) + 1)
    return _encode_rows(points, splits, output_encoding, errors, replacement_char)


def unicode_split(input, input_encoding, errors="replace",  # noqa: A002 - TF's name
                  replacement_char=65533, name=None):
    """The characters of a scalar string, each encoded in `input_encoding` (a 1-D string
    `Tensor`; ill-formed parts become `replacement_char` under "replace")."""
    with name_scope(name, "UnicodeSplit", [input]):
        _check_choice("UnicodeEncode", "output_encoding", input_encoding, _OUTPUT_ENCODINGS)
        points = _decode_scalar("UnicodeDecode", "unicode_split", input, input_encoding,
                                errors, replacement_char, False)[1]
        return _one_per_row(points, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533, name=None):
    """(characters, start byte offsets) of a scalar string (see `unicode_split`)."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        _check_choice("UnicodeEncode", "output_encoding", input_encoding, _OUTPUT_ENCODINGS)
        outputs = _decode_scalar("UnicodeDecodeWithOffsets", "unicode_split_with_offsets",
                                 input, input_encoding, errors, replacement_char, False)
        return _one_per_row(outputs[1], input_encoding, errors, replacement_char), outputs[2]


def _encode_rows(points, splits, output_encoding, errors, replacement_char):
    """One UnicodeEncode op: a string per row of `points` delimited by `splits`."""
    _check_choice("UnicodeEncode", "output_encoding", output_encoding, _OUTPUT_ENCODINGS)
    _check_choice("UnicodeEncode", "errors", errors, _ERRORS)
    return apply_op("UnicodeEncode", (points, splits), output_encoding=output_encoding,
                    errors=errors, replacement_char=replacement_char).outputs[0]


def unicode_encode(input, output_encoding, errors="replace",  # noqa: A002 - TF's name
                   replacement_char=65533, name=None):
    """Encodes each row of code points (the last axis of a dense int32 `Tensor`) as a string.

    Args:
      input: an int32 `Tensor` of rank N+1 >= 1 (a RaggedTensor in TF; not in flowloom).
      output_encoding: "UTF-8", "UTF-16-BE" or "UTF-32-BE".
      errors: "replace" (put `replacement_char` for a code point outside [0, 0x10FFFF]),
        "ignore" (drop it) or "strict" (fail).
      replacement_char: see `errors`.
      name: a name for the ops.

    Returns:
      A string `Tensor` of rank N: `input`'s shape without its last axis.

    Example:
      tf.strings.unicode_encode([[71, 246], [65, 66]], "UTF-8")  # [b"G\\xc3\\xb6", b"AB"]
    """
    from flowloom.ops.array.array_ops import reshape, shape, stack
    from flowloom.ops.math.math_ops import cast, range_
    from flowloom.ops.math.reduction_ops import reduce_prod

    with name_scope(name, "UnicodeEncode", [input]):
        points = convert_to_tensor(input)
        rank = points._shape.ndims
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        if rank == 1:
            splits = cast(stack([0, shape(points, out_type=dtypes.int32)[0]]), dtypes.int64)
            return reshape(_encode_rows(points, splits, output_encoding, errors,
                                             replacement_char), [])
        dims = points._shape.as_list()
        outer = dims[:-1] if None not in dims else shape(points)[:-1]
        width = dims[-1] if dims[-1] is not None else shape(points)[-1]
        rows = int(np.prod(dims[:-1])) if None not in dims[:-1] else reduce_prod(
            shape(points)[:-1])
        flat = reshape(points, [-1])
        splits = cast(range_(rows + 1) * width, dtypes.int64)
        return reshape(_encode_rows(flat, splits, output_encoding, errors,
                                         replacement_char), outer)
