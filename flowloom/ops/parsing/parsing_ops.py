"""Parsing serialized `tf.train.Example`s: op ParseExampleV2 (and TF 1.x's ParseExample,
parse_example_v1.py, which `tf.parse_example` builds as TF 1.15 does), `tf.parse_example`,
`tf.parse_single_example`.

The kernel follows TF's fast Example parser: the same accepted bytes, the same values
(the last of duplicate keys wins), the same padding of sequence features, and TF's error
messages ("Name: <unknown>, Key: b, Index: 0.  Data types don't match. ..."). Malformed
input is an InvalidArgumentError naming the Example's index, never a crash.
"""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.io import example_wire
from flowloom.ops.parsing.parsing_config import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    ParseOpParams,
    SparseFeature,
    VarLenFeature,
    prepend_none_dimension,
)

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "SparseFeature", "VarLenFeature",
           "parse_example", "parse_single_example"]

_WIRE_KIND = {dtypes.float32: example_wire.FLOAT, dtypes.int64: example_wire.INT64,
              dtypes.string: example_wire.STRING}
_NUMPY = {dtypes.float32: np.float32, dtypes.int64: np.int64, dtypes.string: object}
_LIST_TYPES = (dtypes.float32, dtypes.int64, dtypes.string)

ParseExampleV2 = defop(
    "ParseExampleV2",
    inputs=["serialized: string", "names: string", "sparse_keys: string",
            "dense_keys: string", "ragged_keys: string", "dense_defaults: list(Tdense)"],
    outputs=["sparse_indices: num_sparse * int64", "sparse_values: list(sparse_types)",
             "sparse_shapes: num_sparse * int64", "dense_values: list(Tdense)",
             "ragged_values: list(ragged_value_types)",
             "ragged_row_splits: list(ragged_split_types)"],
    attrs={"num_sparse": 0, "sparse_types": [], "ragged_value_types": [],
           "ragged_split_types": [], "dense_shapes": []})
NotDifferentiable("ParseExampleV2")


@ParseExampleV2.shape
def _(op):
    serialized = op.inputs[0].shape
    rank = serialized.ndims
    num_sparse = op.get_attr("num_sparse")
    out = []
    out += [tensor_shape.TensorShape([None, None if rank is None else rank + 1])] * num_sparse
    out += [tensor_shape.TensorShape([None])] * num_sparse
    out += [tensor_shape.TensorShape([None if rank is None else rank + 1])] * num_sparse
    for shape in op.get_attr("dense_shapes"):
        out.append(tensor_shape.unknown_shape() if rank is None
                   else serialized.concatenate(tensor_shape.as_shape(shape)))
    return out


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _dims_str(dims):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in dims)


class _Column:
    """What one configured key collects across the batch."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.values = []        # one array (or list of bytes) per Example
        self.seen_in = -1        # index of the last Example that had the key


def _parse_one(index, name, serialized, sparse_cols, dense_cols, dense_info, required):
    def example_error(key, suffix):
        return errors.InvalidArgumentError(
            None, None, f"Name: {name}, Key: {_text(key)}, Index: {index}.  {suffix}")

    try:
        entries = example_wire.parse_example(serialized)
    except example_wire.WireError:
        shown = repr(serialized[:64])[2:-1] + ("..." if len(serialized) > 64 else "")
        raise errors.InvalidArgumentError(
            None, None, f"Could not parse example input, value: '{shown}' (Name: {name}, "
                        f"Index: {index})") from None
    for key, feature in reversed(entries):  # the last entry for a key wins
        col = sparse_cols.get(key) or dense_cols.get(key)
        if col is None or col.seen_in == index:
            continue
        try:
            kind = example_wire.feature_kind(feature)
        except example_wire.UnsupportedDatatype:
            # TF says only "Unsupported datatype."; flowloom also names the Example and key.
            raise example_error(key, "Unsupported datatype.") from None
        want = _WIRE_KIND[col.dtype]
        is_dense = key in dense_cols
        if is_dense and kind is None:
            continue
        col.seen_in = index
        if kind is not None and kind != want:
            if is_dense:
                raise example_error(key, f"Data types don't match. Data type: {kind} but "
                                         f"expected type: {want}")
            raise example_error(key, f"Data types don't match. Expected type: {want}, "
                                     f"Actual type: {kind}")
        if kind is None:
            col.values.append(_empty(col.dtype))
            continue
        try:
            values = example_wire.feature_values(feature, kind)
        except example_wire.WireError:
            raise example_error(key, "Can't parse serialized Example.") from None
        if is_dense:
            shape, variable = dense_info[key]
            stride = int(np.prod([d for d in shape[1 if variable else 0:]], dtype=np.int64))
            kind_name = "bytes" if kind == example_wire.STRING else kind
            if not variable and len(values) != stride:
                raise example_error(key, f"Number of {kind_name} values != expected.  Values "
                                         f"size: {len(values)} but output shape: "
                                         f"{_dims_str(shape)}")
            if variable and stride and len(values) % stride:
                raise example_error(key, f"Number of {kind_name} values is not a multiple of "
                                         f"stride length. Saw {len(values)} values but output "
                                         f"shape is: {_dims_str(shape)}")
        col.values.append(values)
    for key in required:
        col = dense_cols[key]
        if col.seen_in != index:
            raise errors.InvalidArgumentError(
                None, None, f"Name: {name}, Feature: {_text(key)} (data type: "
                            f"{_WIRE_KIND[col.dtype]}) is required but could not be found.")
    for key, col in list(sparse_cols.items()) + list(dense_cols.items()):
        if col.seen_in != index:
            col.values.append(None)


def _empty(dtype):
    return [] if dtype == dtypes.string else np.zeros(0, _NUMPY[dtype])


def _as_array(values, dtype):
    if dtype == dtypes.string:
        arr = np.empty(len(values), dtype=object)
        arr[:] = list(values)
        return arr
    return np.asarray(values, dtype=_NUMPY[dtype])


@ParseExampleV2.kernel
def _(xp, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults,
      num_sparse, sparse_types, dense_shapes, Tdense):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Expected serialized to be a scalar or vector, got shape: "
                        f"{_dims_str(serialized.shape)}")
    if np.size(ragged_keys):
        raise NotImplementedError("parse_example with RaggedFeature")
    batch = serialized.reshape(-1)
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size and names.size != batch.size:
        raise errors.InvalidArgumentError(
            None, None, f"Expected len(names) == len(serialized), but got: {names.size} vs. "
                        f"{batch.size}")
    sparse_keys = [bytes(k) for k in np.asarray(sparse_keys, dtype=object).reshape(-1)]
    dense_keys = [bytes(k) for k in np.asarray(dense_keys, dtype=object).reshape(-1)]
    shapes = [tensor_shape.as_shape(s).as_list() for s in dense_shapes]
    dense_dtypes = [dtypes.as_dtype(t) for t in Tdense]
    sparse_cols = {k: _Column(dtypes.as_dtype(t)) for k, t in zip(sparse_keys, sparse_types)}
    dense_cols = {k: _Column(t) for k, t in zip(dense_keys, dense_dtypes)}
    dense_info = {k: (s, bool(s) and s[0] is None) for k, s in zip(dense_keys, shapes)}
    for k, d, (shape, variable) in zip(dense_keys, dense_defaults,
                                      (dense_info[k] for k in dense_keys)):
        d = np.asarray(d)
        if not variable and d.size and list(d.shape) != shape:
            raise errors.InvalidArgumentError(
                None, None, f"dense_defaults[{dense_keys.index(k)}].shape() == "
                            f"{_dims_str(d.shape)} != dense_shapes[{dense_keys.index(k)}] == "
                            f"{_dims_str(shape)}")
        if variable and d.size != 1:
            raise errors.InvalidArgumentError(
                None, None, f"For key '{_text(k)}' the default value of a sequence feature "
                            f"must be a scalar, got shape {_dims_str(d.shape)}")
    required = [k for k, d in zip(dense_keys, dense_defaults)
                if not dense_info[k][1] and np.size(d) == 0]
    for i, serialized_example in enumerate(batch):
        name = _text(names[i]) if names.size else "<unknown>"
        _parse_one(i, name, bytes(serialized_example), sparse_cols, dense_cols, dense_info,
                   required)
    scalar_input = serialized.ndim == 0
    outputs = []
    sparse_out = [_sparse_output(sparse_cols[k], scalar_input) for k in sparse_keys]
    outputs += [s[0] for s in sparse_out] + [s[1] for s in sparse_out]
    outputs += [s[2] for s in sparse_out]
    for k, default in zip(dense_keys, dense_defaults):
        outputs.append(_dense_output(dense_cols[k], dense_info[k], np.asarray(default),
                                     batch.size, scalar_input))
    return outputs


def _sparse_output(col, scalar_input):
    lengths = [0 if v is None else len(v) for v in col.values]
    total = sum(lengths)
    rows = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    cols = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths]) if total else \
        np.zeros(0, np.int64)
    parts = [v for v in col.values if v is not None and len(v)]
    if col.dtype == dtypes.string:
        values = _as_array([b for p in parts for b in p], col.dtype)
    else:
        values = np.concatenate(parts).astype(_NUMPY[col.dtype]) if parts else \
            np.zeros(0, _NUMPY[col.dtype])
    longest = max(lengths) if lengths else 0
    if scalar_input:
        return cols.reshape(-1, 1), values, np.array([longest], np.int64)
    indices = np.stack([rows, cols], axis=1) if total else np.zeros((0, 2), np.int64)
    return indices, values, np.array([len(lengths), longest], np.int64)


def _dense_output(col, info, default, batch_size, scalar_input):
    shape, variable = info
    npt = _NUMPY[col.dtype]
    if not variable:
        out = np.empty([batch_size] + shape, dtype=npt)
        for i, v in enumerate(col.values):
            if v is None:
                out[i] = default
            else:
                out[i] = _as_array(v, col.dtype).reshape(shape)
    else:
        row_shape = shape[1:]
        stride = int(np.prod(row_shape, dtype=np.int64))
        counts = [0 if v is None else len(v) // max(stride, 1) for v in col.values]
        rows = max(counts) if counts else 0
        out = np.empty([batch_size, rows] + row_shape, dtype=npt)
        out[...] = default.reshape(())
        for i, v in enumerate(col.values):
            if v is not None and counts[i]:
                out[i, :counts[i]] = _as_array(v, col.dtype).reshape([counts[i]] + row_shape)
    return out[0] if scalar_input else out


# -- Python API ----------------------------------------------------------------------------------

def _parse_example_raw(serialized, names, params, name, v1_op=False):
    if not params.sparse_keys and not params.dense_keys:
        raise ValueError("Must provide at least one feature key.")
    with name_scope(name, "ParseExample", [serialized, names]):
        names = [] if names is None else names
        serialized = convert_to_tensor(serialized, name="serialized")
        defaults = params.dense_default_tensors()
        # tf.parse_example builds TF 1.x's op (ParseExample, keys as scalar inputs), so its
        # graphs and SavedModels load in TF 1.x and 2.x; the kernel is ParseExampleV2's.
        if v1_op:
            op = apply_op(
                "ParseExample",
                (serialized, names, list(params.sparse_keys), list(params.dense_keys),
                 defaults),
                name=name, Nsparse=len(params.sparse_keys), Ndense=len(params.dense_keys),
                sparse_types=params.sparse_types, dense_shapes=params.dense_shapes)
        else:
            op = apply_op(
                "ParseExampleV2",
                (serialized, names, params.sparse_keys, params.dense_keys, [], defaults),
                name=name, num_sparse=len(params.sparse_keys),
                sparse_types=params.sparse_types, ragged_value_types=[],
                ragged_split_types=[], dense_shapes=params.dense_shapes)
    n = len(params.sparse_keys)
    outs = op.outputs
    sparse = [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
    dense = outs[3 * n:3 * n + len(params.dense_keys)]
    return dict(zip(params.sparse_keys + params.dense_keys, sparse + dense))


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized `Example` protos (`tf.parse_example`).

    Args:
      serialized: a string vector of serialized Examples (or a scalar for one).
      features: a dict from feature key to `FixedLenFeature`, `VarLenFeature` or
        `FixedLenSequenceFeature`.
      name: name of the op.
      example_names: optional string vector naming each Example in error messages.

    Returns:
      A dict from key to a dense `Tensor` (fixed-length and sequence features, with a
      leading batch dimension) or a `SparseTensor` (VarLenFeature).

    Raises:
      ValueError: for an empty or invalid `features`.
      InvalidArgumentError (at run time): for malformed Examples, wrong types or counts,
        and missing required features.

    Example:
      features = {'x': tf.FixedLenFeature([2], tf.float32, default_value=[0., 0.]),
                  'ids': tf.VarLenFeature(tf.int64)}
      parsed = tf.parse_example(serialized, features)
    """
    return _parse_example(serialized, features, name, example_names, v1_op=True)


def _parse_example(serialized, features, name, example_names, v1_op):
    if not features:
        raise ValueError("Argument `features` cannot be None or falsy. Got %s" % features)
    for key, feature in features.items():
        if not isinstance(feature, (VarLenFeature, FixedLenFeature, FixedLenSequenceFeature,
                                    SparseFeature)):
            raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
        if getattr(feature, "dtype", None) is not None and \
                dtypes.as_dtype(feature.dtype) not in _LIST_TYPES:
            raise ValueError(f"Unsupported dtype {dtypes.as_dtype(feature.dtype).name} for "
                             f"feature '{key}': Examples hold float32, int64 and string")
    features = prepend_none_dimension(features)
    params = ParseOpParams.from_features(features)
    return _parse_example_raw(serialized, example_names, params, name, v1_op=v1_op)


def _assert_scalar(value, name):
    if value.shape.ndims is None:
        from flowloom.ops.array import array_ops
        from flowloom.ops.math import math_ops
        from flowloom.ops.control_flow.control_flow_ops import with_dependencies
        from flowloom.ops.checks.logging_ops import Assert_

        check = Assert_(math_ops.equal(array_ops.rank(value), 0),
                        ["Input %s must be a scalar" % name],
                        name="%sIsScalar" % name.capitalize())
        result = with_dependencies([check], value, name="%sDependencies" % name)
        result.set_shape([])
        return result
    if value.shape.ndims == 0:
        return value
    raise ValueError("Input %s must be a scalar" % name)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized `Example` (`tf.parse_single_example`).

    Like `parse_example` without the batch dimension: a VarLenFeature's SparseTensor has
    1-D indices, dense features have the feature's own shape.

    Args:
      serialized: a scalar string tensor.
      features: a dict from key to feature configuration.
      name: name of the op.
      example_names: optional scalar name used in error messages.

    Returns:
      A dict from key to `Tensor` or `SparseTensor`.

    Raises:
      ValueError: if `features` is empty or `serialized` is not a scalar.
    """
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        serialized = _assert_scalar(serialized, "serialized")
        return _parse_example(serialized, features, name, example_names, v1_op=False)
