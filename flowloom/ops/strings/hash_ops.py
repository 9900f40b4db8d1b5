"""String hashing and formatting ops: StringToHashBucketFast (FarmHash) and AsString.

`StringToHashBucketFast` gives `Fingerprint64(s) % num_buckets`, TF's rule, so a
categorical_column_with_hash_bucket puts every string in TF's bucket. `StringToHashBucket`
(TF's older Hash64) and `StringToHashBucketStrong` (SipHash) are not implemented.
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.strings.farmhash import fingerprint64

StringToHashBucketFast = defop("StringToHashBucketFast", inputs=["input: string"],
                               outputs=["output: int64"], attrs={"num_buckets": None})
StringToHashBucketFast.shape(lambda op: [op._inputs[0]._shape])
StringToHashBucketFast.no_gradient()


@StringToHashBucketFast.kernel
def _(xp, values, *, num_buckets):
    values = np.asarray(values, dtype=object)
    hashes = np.fromiter((fingerprint64(s if isinstance(s, (bytes, str)) else str(s))
                          for s in values.reshape(-1)), dtype=np.uint64, count=values.size)
    return (hashes % np.uint64(num_buckets)).astype(np.int64).reshape(values.shape)


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TF's name
    """Hashes each string to an int64 bucket in [0, num_buckets) (FarmHash Fingerprint64).

    Args:
      input: a string `Tensor`.
      num_buckets: an int >= 1.
      name: a name for the op.

    Returns:
      An int64 `Tensor` of `input`'s shape.

    Raises:
      ValueError: if num_buckets < 1.
    """
    if int(num_buckets) < 1:
        raise ValueError(f"num_buckets must be >= 1, got {num_buckets}")
    return apply_op("StringToHashBucketFast", (input,), name=name,
                    num_buckets=int(num_buckets)).outputs[0]


AsString = defop("AsString", inputs=["input: T"], outputs=["output: string"],
                 attrs={"precision": -1, "scientific": False, "shortest": False, "width": -1,
                        "fill": ""})
AsString.shape(lambda op: [op._inputs[0]._shape])
AsString.no_gradient()


def _format(value, dtype, precision, scientific, shortest, width, fill):
    if dtype == dtypes.bool_:
        text = "true" if value else "false"
    elif dtype.is_integer:
        text = str(int(value))
    else:
        conv = "g" if shortest else ("e" if scientific else "f")
        text = f"%{'.' + str(precision) if precision >= 0 else ''}{conv}" % float(value)
    if width > 0 and len(text) < width:
        pad = fill or " "
        text = text.rjust(width, pad[0]) if pad != "0" else text.zfill(width)
    return text.encode("ascii")


@AsString.kernel
def _(xp, values, *, T, precision, scientific, shortest, width, fill):
    if T.is_complex or T == dtypes.string:
        raise NotImplementedError(f"AsString of {T.name}")
    values = np.asarray(values)
    out = np.empty(values.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(values.reshape(-1)):
        flat[i] = _format(v, T, precision, scientific, shortest, width, fill)
    return out


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Formats each number (or bool) of `input` as a string (`tf.as_string`)."""
    return apply_op("AsString", (input,), name=name, precision=precision,
                    scientific=scientific, shortest=shortest, width=width,
                    fill=fill).outputs[0]
