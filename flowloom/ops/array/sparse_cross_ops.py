"""SparseCross: the cross product of sparse and dense feature columns, row by row.

For each row of the batch the op takes every combination of one feature from each input
(the last input varies fastest, as in TF) and emits it joined as a string (`a_X_b`) or, when
hashed, as TF's fingerprint of the combination: starting from `hash_key`, each feature's
64-bit value (an int64 feature as it is, a string's FarmHash Fingerprint64) is folded in with
FingerprintCat64, and the result is taken modulo `num_buckets` (int64's maximum when 0), so
crossed_column buckets equal TF's. A row where some input has no feature gives no output.
"""

import itertools

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.ops.strings.farmhash import fingerprint64, fingerprint_cat64_array

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_INT64_MAX = 2**63 - 1
_U64 = 2**64

SparseCross = defop(
    "SparseCross",
    inputs=["indices: N * int64", "values: list(sparse_types)", "shapes: N * int64",
            "dense_inputs: list(dense_types)"],
    outputs=["output_indices: int64", "output_values: out_type", "output_shape: int64"],
    attrs={"hashed_output": None, "num_buckets": None, "hash_key": None,
           "out_type": None, "internal_type": None})
SparseCross.shape(lambda op: [tensor_shape.TensorShape([None, 2]),
                              tensor_shape.TensorShape([None]),
                              tensor_shape.TensorShape([2])])
SparseCross.no_gradient()


def _rows_of_sparse(indices, values, batch):
    rows = [[] for _ in range(batch)]
    for (row, *_), value in zip(np.asarray(indices).reshape(-1, np.shape(indices)[-1] or 1),
                                np.asarray(values, dtype=object)):
        if not 0 <= row < batch:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid batch index {row} for batch size {batch}")
        rows[row].append(value)
    return rows


def _hash_value(value):
    if isinstance(value, (bytes, str)):
        return fingerprint64(value)
    return int(value) % _U64


def _text_value(value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return str(int(value)).encode("ascii")


@SparseCross.kernel
def _(xp, *args, N, hashed_output, num_buckets, hash_key, out_type):
    indices, values, shapes = args[:N], args[N:2 * N], args[2 * N:3 * N]
    dense = args[3 * N:]
    batch = None
    for shape in shapes:
        if len(shape) != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Expected rank 2 shapes, got shape of rank {len(shape)}")
        batch = int(shape[0]) if batch is None else batch
        if int(shape[0]) != batch:
            raise errors.InvalidArgumentError(
                None, None, f"Expected batch size {batch} got {int(shape[0])}")
    for d in dense:
        if np.ndim(d) != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Dense inputs should be a matrix but received shape "
                f"{list(np.shape(d))}")
        batch = np.shape(d)[0] if batch is None else batch
        if np.shape(d)[0] != batch:
            raise errors.InvalidArgumentError(
                None, None, f"Expected batch size {batch} got {np.shape(d)[0]}")
    batch = batch or 0
    columns = [_rows_of_sparse(i, v, batch) for i, v in zip(indices, values)]
    columns += [[list(np.asarray(d, dtype=object)[r]) for r in range(batch)] for d in dense]
    out_indices, combos, width = [], [], 0
    if hashed_output:
        # Hash each feature once, then fold all combinations with NumPy's uint64 arithmetic.
        columns = [[[_hash_value(v) for v in row] for row in col] for col in columns]
    for row in range(batch):
        features = [col[row] for col in columns]
        if not features or any(not f for f in features):
            continue
        n = 0
        for combo in itertools.product(*features):
            combos.append(combo)
            out_indices.append((row, n))
            n += 1
        width = max(width, n)
    if hashed_output:
        table = np.array(combos, dtype=np.uint64).reshape(len(combos), len(columns))
        h = np.full(len(combos), hash_key % _U64, dtype=np.uint64)
        for k in range(table.shape[1]):
            h = fingerprint_cat64_array(h, table[:, k])
        modulus = np.uint64(num_buckets if num_buckets > 0 else _INT64_MAX)
        out_values = (h % modulus).astype(np.int64)
    else:
        out_values = [b"_X_".join(_text_value(v) for v in combo) for combo in combos]
    idx = np.array(out_indices, dtype=np.int64).reshape(-1, 2)
    vals = np.asarray(out_values, dtype=np.int64 if hashed_output else object)
    return [idx, vals.reshape(-1), np.array([batch, width], dtype=np.int64)]


def _sparse_cross(inputs, hashed_output, num_buckets, hash_key, name):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor,)) or hasattr(i, "dtype") for i in inputs):
        raise TypeError("All inputs must be SparseTensors or Tensors")
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [convert_to_tensor(i) for i in inputs if not isinstance(i, SparseTensor)]
    if len(sparse) + len(dense) != len(inputs):
        raise TypeError("All inputs must be SparseTensors or Tensors")
    # int32 features are crossed as int64, as TF does.
    from flowloom.ops.math.math_ops import cast

    def as64(t):
        return cast(t, dtypes.int64) if t.dtype == dtypes.int32 else t

    sp_values = [as64(s.values) for s in sparse]
    dense = [as64(d) for d in dense]
    internal = dtypes.string if any(t.dtype == dtypes.string for t in sp_values + dense) \
        else dtypes.int64
    out_type = dtypes.int64 if hashed_output else dtypes.string
    op = apply_op("SparseCross", ([s.indices for s in sparse], sp_values,
                                  [s.dense_shape for s in sparse], dense),
                  name=name, hashed_output=hashed_output, num_buckets=int(num_buckets),
                  hash_key=int(hash_key), out_type=out_type, internal_type=internal)
    return SparseTensor(*op.outputs)


def sparse_cross(inputs, name=None):
    """Crosses sparse/dense string or int features into `a_X_b` strings (`tf.sparse.cross`).

    Args:
      inputs: a list of `SparseTensor`s and 2-D `Tensor`s, one row per batch entry.
      name: a name for the op.

    Returns:
      A string `SparseTensor` [batch, max crosses per row].
    """
    return _sparse_cross(inputs, False, 0, 0, name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """Crosses features into TF's hashed buckets (`tf.sparse.cross_hashed`).

    Args:
      inputs: a list of `SparseTensor`s and 2-D `Tensor`s.
      num_buckets: the output range [0, num_buckets); 0 means int64's range.
      hash_key: the key seeding the fingerprint (TF's default 0xDECAFCAFFE when None).
      name: a name for the op.

    Returns:
      An int64 `SparseTensor` [batch, max crosses per row].
    """
    return _sparse_cross(inputs, True, num_buckets,
                         _DEFAULT_HASH_KEY if hash_key is None else hash_key, name)
