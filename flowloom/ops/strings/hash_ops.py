"""String hashing and formatting ops: StringToHashBucketFast, StringToHashBucket,
StringToHashBucketStrong and AsString.

Each hash is TF's, bit for bit, so every string lands in TF's bucket:
`StringToHashBucketFast` gives `Fingerprint64(s) % num_buckets` (FarmHash, what
categorical_column_with_hash_bucket uses), `StringToHashBucket` `Hash64(s) % num_buckets`
(TF's older MurmurHash64A), `StringToHashBucketStrong` `SipHash-2-4(key, s) % num_buckets`.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.strings.farmhash import fingerprint64_many
from flowloom.ops.strings.hash64 import hash64_batch
from flowloom.ops.strings.siphash import siphash24_batch

StringToHashBucketFast = defop("StringToHashBucketFast", inputs=["input: string"],
                               outputs=["output: int64"], attrs={"num_buckets": None})
StringToHashBucketFast.shape(lambda op: [op._inputs[0]._shape])
StringToHashBucketFast.no_gradient()


@StringToHashBucketFast.kernel
def _(xp, values, *, num_buckets):
    return _batch_buckets(values, fingerprint64_many, num_buckets)


StringToHashBucket = defop("StringToHashBucket", inputs=["string_tensor: string"],
                           outputs=["output: int64"], attrs={"num_buckets": None})
StringToHashBucket.shape(lambda op: [op._inputs[0]._shape])
StringToHashBucket.no_gradient()


def _batch_buckets(values, hash_batch, num_buckets):
    values = np.asarray(values, dtype=object)
    texts = [s if isinstance(s, bytes) else str(s).encode("utf-8") for s in values.flat]
    hashes = hash_batch(texts)
    return (hashes % np.uint64(num_buckets)).astype(np.int64).reshape(values.shape)


@StringToHashBucket.kernel
def _(xp, values, *, num_buckets):
    return _batch_buckets(values, hash64_batch, num_buckets)


StringToHashBucketStrong = defop("StringToHashBucketStrong", inputs=["input: string"],
                                 outputs=["output: int64"],
                                 attrs={"num_buckets": None, "key": None})
StringToHashBucketStrong.shape(lambda op: [op._inputs[0]._shape])
StringToHashBucketStrong.no_gradient()


@StringToHashBucketStrong.kernel
def _(xp, values, *, num_buckets, key):
    if len(key) != 2:
        raise errors.InvalidArgumentError(None, None, "Key must have 2 elements")
    k0, k1 = int(key[0]), int(key[1])
    return _batch_buckets(values, lambda texts: siphash24_batch(k0, k1, texts), num_buckets)


def _check_buckets(op_type, num_buckets):
    if int(num_buckets) < 1:
        raise ValueError(f"Attr 'num_buckets' of '{op_type}' Op passed {num_buckets} less "
                         "than minimum 1.")
    return int(num_buckets)


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
    return apply_op("StringToHashBucketFast", (input,), name=name,
                    num_buckets=_check_buckets("StringToHashBucketFast", num_buckets)
                    ).outputs[0]


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None,
                          input=None):  # noqa: A002 - TF's argument name
    """Hashes each string to an int64 bucket in [0, num_buckets) with TF's Hash64.

    Prefer `tf.strings.to_hash_bucket_fast` (FarmHash) in new programs, as TF does; this is
    the older op, kept for graphs and programs that use it.

    Args:
      string_tensor: a string `Tensor` (`input` is its newer name).
      num_buckets: an int >= 1.
      name: a name for the op.
      input: the newer name of `string_tensor`.

    Returns:
      An int64 `Tensor` of the input's shape.
    """
    if input is not None:
        if string_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'string_tensor'")
        string_tensor = input
    return apply_op("StringToHashBucket", (string_tensor,), name=name,
                    num_buckets=_check_buckets("StringToHashBucket", num_buckets)).outputs[0]


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Hashes each string to a bucket in [0, num_buckets) with SipHash-2-4 under `key`.

    Args:
      input: a string `Tensor`.
      num_buckets: an int >= 1.
      key: two ints, the 128-bit SipHash key (an attacker who does not know it cannot pick
        strings that collide).
      name: a name for the op.

    Returns:
      An int64 `Tensor` of `input`'s shape.
    """
    return apply_op("StringToHashBucketStrong", (input,), name=name,
                    num_buckets=_check_buckets("StringToHashBucketStrong", num_buckets),
                    key=[int(k) for k in key]).outputs[0]


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
