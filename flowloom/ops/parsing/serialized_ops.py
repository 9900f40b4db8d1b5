"""Serialized forms: ParseTensor / SerializeTensor (TensorProto bytes), DecodeJSONExample
(tf.train.Example as JSON -> binary), DecodePaddedRaw (`tf.io.decode_raw(fixed_length=N)`)."""

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from flowloom.framework import dtypes, errors, tensor_proto
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.proto import example_pb2, tensor_pb2


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(map(str, shape)) + "]"


# -- ParseTensor / SerializeTensor ----------------------------------------------------------------
ParseTensor = defop("ParseTensor", inputs=["serialized: string"], outputs=["output: out_type"],
                    attrs={"out_type": None})
ParseTensor.shape(lambda op: unknown_shape())


@ParseTensor.kernel
def _(xp, serialized, *, out_type):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim != 0:
        raise _invalid(f"Expected `serialized` to be a scalar, got shape: "
                       f"{_shape_str(serialized.shape)}")
    data = serialized[()]
    data = data.encode() if isinstance(data, str) else bytes(data)
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(data)
        value = tensor_proto.to_numpy(proto, "the parsed TensorProto")
    except (DecodeError, ValueError, TypeError):
        raise _invalid(f"Could not parse `serialized` as TensorProto: {data.decode('utf-8', 'replace')!r}") from None
    parsed = dtypes.as_dtype(proto.dtype)
    want = dtypes.as_dtype(out_type)
    if parsed != want:
        raise _invalid(f"Type mismatch between parsed tensor ({parsed.name}) and dtype "
                       f"({want.name})")
    return value


NotDifferentiable("ParseTensor")


def parse_tensor(serialized, out_type, name=None):
    """Transforms a serialized TensorProto (a scalar string) into the tensor it holds.

    Args:
      serialized: A scalar string `Tensor`: a serialized `TensorProto`.
      out_type: The dtype the parsed tensor must have.
      name: A name for the operation (optional).

    Returns:
      A `Tensor` of `out_type` (shape known when it runs).
    """
    return apply_op("ParseTensor", (serialized,), name=name,
                    out_type=dtypes.as_dtype(out_type)).outputs[0]


SerializeTensor = defop("SerializeTensor", inputs=["tensor: T"], outputs=["serialized: string"])
SerializeTensor.shape(lambda op: TensorShape([]))


@SerializeTensor.kernel
def _(xp, tensor):
    return np.array(tensor_proto.from_numpy(np.asarray(tensor)).SerializeToString(), dtype=object)


NotDifferentiable("SerializeTensor")


def serialize_tensor(tensor, name=None):
    """A scalar string: `tensor` as a serialized TensorProto (`tf.io.serialize_tensor`)."""
    return apply_op("SerializeTensor", (tensor,), name=name).outputs[0]


# -- DecodeJSONExample ------------------------------------------------------------------------------
DecodeJSONExample = defop("DecodeJSONExample", inputs=["json_examples: string"],
                          outputs=["binary_examples: string"])
DecodeJSONExample.shape(lambda op: op.inputs[0].shape)


@DecodeJSONExample.kernel
def _(xp, json_examples):
    data = np.asarray(json_examples, dtype=object)
    out = np.empty(data.shape, dtype=object)
    for idx in np.ndindex(data.shape):
        text = data[idx]
        text = text.decode("utf-8") if isinstance(text, bytes) else str(text)
        message = example_pb2.Example()
        try:
            json_format.Parse(text, message)
        except json_format.ParseError as e:
            raise _invalid(f"Error while parsing JSON: {e}") from None
        out[idx] = message.SerializeToString()
    return out


NotDifferentiable("DecodeJSONExample")


def decode_json_example(json_examples, name=None):
    """Converts `tf.train.Example` records from JSON (protobuf's JSON mapping) to binary.

    Args:
      json_examples: A string `Tensor` of JSON-encoded Examples.
      name: A name for the operation (optional).

    Returns:
      A string `Tensor` of the same shape holding the serialized Examples.
    """
    return apply_op("DecodeJSONExample", (json_examples,), name=name).outputs[0]


# -- DecodePaddedRaw ---------------------------------------------------------------------------------
DecodePaddedRaw = defop("DecodePaddedRaw", inputs=["input_bytes: string", "fixed_length: int32"],
                        outputs=["output: out_type"],
                        attrs={"out_type": None, "little_endian": True})
DecodePaddedRaw.shape(lambda op: op.inputs[0].shape.concatenate([None]))


@DecodePaddedRaw.kernel
def _(xp, data, fixed_length, *, out_type, little_endian):
    data = np.asarray(data, dtype=object)
    npt = np.dtype(dtypes.as_dtype(out_type).as_numpy_dtype)
    width = npt.itemsize
    length = int(fixed_length)
    if length % width:
        raise _invalid(f"fixed_length ({length}) must be a multiple of the size of out_type "
                       f"({width})")
    flat = [bytes(x)[:length].ljust(length, b"\0") for x in data.reshape(-1)]
    order = "<" if little_endian else ">"
    wire = npt.newbyteorder(order) if width > 1 else npt
    out = np.frombuffer(b"".join(flat), dtype=wire).astype(npt)
    return out.reshape(data.shape + (length // width,))


NotDifferentiable("DecodePaddedRaw")


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterprets the bytes of each string as a vector of numbers (TF 1.15's
    parsing_ops.decode_raw, `tf.io.decode_raw` in TF 2).

    Args:
      input_bytes: A string `Tensor`.
      out_type: The element dtype.
      little_endian: The byte order of the input.
      fixed_length: When given, each string is cut or zero-padded to this many bytes
        (DecodePaddedRaw); otherwise all strings must have the same length (DecodeRaw).
      name: A name for the operation (optional).

    Returns:
      A `Tensor` of `out_type` with one more (innermost) dimension than `input_bytes`.
    """
    from flowloom.ops.parsing import decode_ops

    if fixed_length is None:
        return decode_ops.decode_raw(input_bytes, out_type, little_endian=little_endian,
                                     name=name)
    return apply_op("DecodePaddedRaw", (input_bytes, fixed_length), name=name,
                    out_type=dtypes.as_dtype(out_type), little_endian=little_endian).outputs[0]


def decode_raw_v1(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """TF 1.x's `tf.decode_raw` (the `bytes` spelling accepted): see decode_ops.decode_raw."""
    from flowloom.ops.parsing import decode_ops

    return decode_ops.decode_raw(input_bytes, out_type, little_endian=little_endian, name=name,
                                 bytes=bytes)
