"""Element-wise string ops: StringLength, StringLower, StringUpper, StringStrip, EncodeBase64
and DecodeBase64, and tf.strings.bytes_split over them.

Each maps every string of its input to one value, so the output has the input's shape.
Lower/upper case ASCII letters only unless `encoding="utf-8"`, which applies Unicode's full
case mappings (`"ß"` upper-cases to `"SS"`; invalid UTF-8 becomes U+FFFD first, as TF's ICU
conversion does). Base64 is the web-safe alphabet (`-` and `_`), as TF's.
"""

import base64
import binascii

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _map(values, fn, dtype=object):
    values = np.asarray(values, dtype=object)
    items = [fn(v if v.__class__ is bytes else _as_bytes(v)) for v in values.flat]
    if dtype is not object:
        return np.array(items, dtype=dtype).reshape(values.shape)
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(values.shape)


def _check_choice(op_type, attr, value, choices):
    """TF's build-time check of a string attr with a list of allowed values."""
    if value not in choices:
        allowed = ", ".join(f'"{c}"' for c in choices)
        raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: "
                         f"{allowed}.")


_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
StringLength = defop("StringLength", inputs=["input: string"], outputs=["output: int32"],
                     attrs={"unit": "BYTE"})
StringLength.shape(lambda op: op._inputs[0]._shape)


@StringLength.kernel
def _(xp, values, *, unit):
    if unit == "BYTE":
        return _map(values, len, np.int32)
    # UTF8_CHAR counts the bytes that do not continue a character (as TF: no validation).
    return _map(values, lambda s: len(s.translate(None, _CONTINUATION_BYTES)), np.int32)


def string_length(input, name=None, unit="BYTE"):  # noqa: A002 - TF's argument name
    """The length of each string, in bytes or (`unit="UTF8_CHAR"`) UTF-8 characters.

    Args:
      input: a string `Tensor`.
      name: a name for the op.
      unit: "BYTE" or "UTF8_CHAR".

    Returns:
      An int32 `Tensor` of `input`'s shape.
    """
    _check_choice("StringLength", "unit", unit, ("BYTE", "UTF8_CHAR"))
    return apply_op("StringLength", (input,), name=name, unit=unit).outputs[0]


def _case_kernel(to_upper):
    def kernel(xp, values, *, encoding):
        if encoding not in ("", "utf-8"):
            raise errors.InvalidArgumentError(
                None, None, f"only utf-8 or '' (no encoding) is supported, received {encoding}")
        if encoding == "":
            return _map(values, bytes.upper if to_upper else bytes.lower)

        def convert(s):
            text = s.decode("utf-8", "replace")
            return (text.upper() if to_upper else text.lower()).encode("utf-8")
        return _map(values, convert)
    return kernel


for _type, _upper in (("StringLower", False), ("StringUpper", True)):
    _od = defop(_type, inputs=["input: string"], outputs=["output: string"],
                attrs={"encoding": ""})
    _od.shape(lambda op: op._inputs[0]._shape)
    _od.kernel(_case_kernel(_upper))


def lower(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Lower-cases each string: ASCII letters, or all of Unicode with `encoding="utf-8"`."""
    return apply_op("StringLower", (input,), name=name, encoding=encoding).outputs[0]


def upper(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """Upper-cases each string: ASCII letters, or all of Unicode with `encoding="utf-8"`."""
    return apply_op("StringUpper", (input,), name=name, encoding=encoding).outputs[0]


StringStrip = defop("StringStrip", inputs=["input: string"], outputs=["output: string"])
StringStrip.shape(lambda op: op._inputs[0]._shape)


@StringStrip.kernel
def _(xp, values):
    return _map(values, bytes.strip)  # the C locale's isspace bytes, as TF's


def string_strip(input, name=None):  # noqa: A002 - TF's argument name
    """Strips leading and trailing ASCII whitespace from each string (`tf.strings.strip`)."""
    return apply_op("StringStrip", (input,), name=name).outputs[0]


EncodeBase64 = defop("EncodeBase64", inputs=["input: string"], outputs=["output: string"],
                     attrs={"pad": False})
EncodeBase64.shape(lambda op: op._inputs[0]._shape)


@EncodeBase64.kernel
def _(xp, values, *, pad):
    if pad:
        return _map(values, base64.urlsafe_b64encode)
    return _map(values, lambda s: base64.urlsafe_b64encode(s).rstrip(b"="))


_WEB_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_SEXTET = np.full(256, -1, dtype=np.int16)
_SEXTET[np.frombuffer(_WEB_SAFE, dtype=np.uint8)] = np.arange(64)


def _sextets(chars):
    sextets = _SEXTET[np.frombuffer(chars, dtype=np.uint8)]
    if (sextets < 0).any():
        raise errors.InvalidArgumentError(None, None, "Invalid character found in base64.")
    return sextets


def _decode_base64(text):
    """TF's web-safe decoding, its checks in its order: the groups of four before the last,
    then the last group (two to four characters; four may end in one or two `=`). Low bits
    left over in the last group are ignored."""
    if not text:
        return b""
    cut = 4 * ((len(text) - 1) // 4)
    head, last = _sextets(text[:cut]), text[cut:]
    if len(last) == 4 and last[3:] == b"=":
        last = last[:2] if last[2:3] == b"=" else last[:3]
    if len(last) == 1:
        raise errors.InvalidArgumentError(None, None, "Base64 string length cannot be 1 modulo 4.")
    sextets = np.concatenate([head, _sextets(last), np.zeros(4 - len(last), np.int16)])
    quads = sextets.astype(np.uint32).reshape(-1, 4)
    words = (quads[:, 0] << 18) | (quads[:, 1] << 12) | (quads[:, 2] << 6) | quads[:, 3]
    out = np.stack([words >> 16, (words >> 8) & 0xFF, words & 0xFF], axis=1)
    return out.astype(np.uint8).tobytes()[:3 * (cut // 4) + len(last) - 1]


DecodeBase64 = defop("DecodeBase64", inputs=["input: string"], outputs=["output: string"])
DecodeBase64.shape(lambda op: op._inputs[0]._shape)


_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def _decode_base64_fast(text):
    """The common case in C (binascii): alphabet characters only, after TF's padding rule;
    anything else takes `_decode_base64`, which finds TF's error."""
    body = text
    if len(text) % 4 == 0 and text.endswith(b"="):
        body = text[:-2] if text[-2:-1] == b"=" else text[:-1]
    if len(body) % 4 == 1 or body.translate(None, _WEB_SAFE):
        return _decode_base64(text)
    return binascii.a2b_base64(body.translate(_TO_STANDARD) + b"=" * (-len(body) % 4))


@DecodeBase64.kernel
def _(xp, values):
    return _map(values, _decode_base64_fast)


NotDifferentiable("StringLength", "StringLower", "StringUpper", "StringStrip",
                  "EncodeBase64", "DecodeBase64")


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's argument name
    """Encodes each string in web-safe base64 (`-`, `_`), with `=` padding if `pad`."""
    return apply_op("EncodeBase64", (input,), name=name, pad=pad).outputs[0]


def decode_base64(input, name=None):  # noqa: A002 - TF's argument name
    """Decodes each web-safe base64 string (padded or not).

    Raises (at run time):
      InvalidArgumentError: a character outside the web-safe alphabet, or a length of 1
        modulo 4.
    """
    return apply_op("DecodeBase64", (input,), name=name).outputs[0]


def bytes_split(input, name=None):  # noqa: A002 - TF's argument name
    """The bytes of a scalar string, as a 1-D string `Tensor` (`tf.strings.bytes_split`).

    Raises:
      NotImplementedError: for a string `Tensor` of rank 1 or more, whose result TF gives as
        a RaggedTensor (flowloom has no RaggedTensor).
    """
    from flowloom.ops.array.array_ops import stack
    from flowloom.ops.strings.split_ops import _sparse_result

    with name_scope(name, "StringsByteSplit", [input]):
        input = convert_to_tensor(input, name="input")  # noqa: A001
        rank = input._shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank:
            raise NotImplementedError(
                f"tf.strings.bytes_split of a rank-{rank} input (a RaggedTensor result)")
        delimiter = convert_to_tensor("", dtype=dtypes.string)
        split = apply_op("StringSplit", (stack([input]), delimiter), skip_empty=False)
        return _sparse_result(split).values
