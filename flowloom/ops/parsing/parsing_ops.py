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
from flowloom.io import example_batch, example_wire
from flowloom.ops.parsing.parsing_config import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    ParseOpParams,
    merge_sparse_features,
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


# Batches of at least this many Examples are read by the vectorised reader (example_batch);
# smaller ones Example by Example (fewer NumPy calls for one Example).
FAST_BATCH = 4
# A batch of one Example takes a shorter path (_parse_single); off only to test it against
# the general one.
SINGLE_FAST = True
# What a parsed output may hold (a sequence feature pads every Example to the longest one).
MAX_OUTPUT_BYTES = 1 << 31


@ParseExampleV2.kernel
def _(xp, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults,
      num_sparse, sparse_types, dense_shapes, Tdense):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Expected serialized to be a scalar or vector, got shape: "
                        f"{_dims_str(serialized.shape)}")
    if ragged_keys.size if isinstance(ragged_keys, np.ndarray) else np.size(ragged_keys):
        raise NotImplementedError("parse_example with RaggedFeature")
    batch = serialized.reshape(-1)
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size and names.size != batch.size:
        raise errors.InvalidArgumentError(
            None, None, f"Expected len(names) == len(serialized), but got: {names.size} vs. "
                        f"{batch.size}")
    plan = _plan(sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes)
    sparse_keys, dense_keys = plan.sparse_keys, plan.dense_keys
    sparse_dtypes, dense_dtypes, dense_info = plan.sparse_dtypes, plan.dense_dtypes, plan.info
    checked = plan.checked_defaults
    if checked is not None and len(checked[0]) == len(dense_defaults) and all(
            a is b for a, b in zip(checked[0], dense_defaults)):
        defaults, required = checked[1], checked[2]  # the same constants as last run
    else:
        defaults, required = _check_defaults(dense_defaults, dense_keys, dense_info)
        plan.checked_defaults = (tuple(dense_defaults), defaults, required)
    scalar_input = serialized.ndim == 0
    if batch.size == 1 and SINGLE_FAST:
        outputs = _parse_single(bytes(batch[0]), plan, defaults, required, scalar_input)
        if outputs is not None:
            return outputs
    records = batch.tolist()
    layout = None  # what example_batch.one_layout found, when it was asked
    if len(records) >= FAST_BATCH and plan.fixed_shapes is not None:
        layout = example_batch.one_layout(records, _config(plan))
        if layout:
            template, rows, data = layout
            dense = template.dense(rows, data, plan.fixed_shapes, plan.strides)
            if dense is not None:
                return dense  # every key's values gathered straight into its output
    if set(map(type, records)) != {bytes}:
        records, layout = [bytes(b) for b in records], None
    columns = None
    if len(records) >= FAST_BATCH:
        columns = _parse_fast(records, plan, required, layout)
    if columns is None:
        columns = _parse_slow(records, names, sparse_keys, sparse_dtypes, dense_keys,
                              dense_dtypes, dense_info, required)
    n = len(records)
    sparse_out = [_sparse_output(columns[i], t, n, scalar_input)
                  for i, t in enumerate(sparse_dtypes)]
    outputs = [s[0] for s in sparse_out] + [s[1] for s in sparse_out]
    outputs += [s[2] for s in sparse_out]
    for j, (k, t, default) in enumerate(zip(dense_keys, dense_dtypes, defaults)):
        outputs.append(_dense_output(columns[len(sparse_keys) + j], t, dense_info[k],
                                     default, n, scalar_input, k))
    return outputs


def _check_defaults(dense_defaults, dense_keys, dense_info):
    """The defaults as arrays and the keys without one (required); TF's errors for defaults
    that do not fit their feature."""
    defaults = [np.asarray(d) for d in dense_defaults]
    for i, (k, d) in enumerate(zip(dense_keys, defaults)):
        shape, variable = dense_info[k]
        if not variable and d.size and list(d.shape) != shape:
            raise errors.InvalidArgumentError(
                None, None, f"dense_defaults[{i}].shape() == {_dims_str(d.shape)} != "
                            f"dense_shapes[{i}] == {_dims_str(shape)}")
        if variable and d.size != 1:
            raise errors.InvalidArgumentError(
                None, None, f"For key '{_text(k)}' the default value of a sequence feature "
                            f"must be a scalar, got shape {_dims_str(d.shape)}")
    required = [k for k, d in zip(dense_keys, defaults)
                if not dense_info[k][1] and d.size == 0]
    return defaults, required


class _Plan:
    """What a ParseExampleV2 kernel derives from its keys and attrs, once per op."""

    def __init__(self, sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes):
        self.sparse_keys, self.dense_keys = sparse_keys, dense_keys
        self.sparse_dtypes = [dtypes.as_dtype(t) for t in sparse_types]
        self.dense_dtypes = [dtypes.as_dtype(t) for t in Tdense]
        shapes = [tensor_shape.as_shape(s).as_list() for s in dense_shapes]
        self.info = {k: (s, bool(s) and s[0] is None) for k, s in zip(dense_keys, shapes)}
        self.strides = [int(np.prod(s[1 if v else 0:], dtype=np.int64))
                        for s, v in (self.info[k] for k in dense_keys)]
        # key -> (column number, wire kind, is dense); a key both sparse and dense is refused
        # when the op is built
        self.columns = {k: (i, _WIRE_KIND[t], False)
                        for i, (k, t) in enumerate(zip(sparse_keys, self.sparse_dtypes))}
        self.columns.update({k: (len(sparse_keys) + j, _WIRE_KIND[t], True)
                             for j, (k, t) in enumerate(zip(dense_keys, self.dense_dtypes))})
        self.kinds = [_WIRE_KIND[t] for t in self.sparse_dtypes + self.dense_dtypes]
        self.checked_defaults = None  # (the default inputs, as arrays, required keys)
        self.config = None  # the vectorised reader's config (_parse_fast)
        # only fixed-shape dense keys: their shapes (batches of one layout are gathered
        # straight into the outputs), else None
        self.fixed_shapes = None
        if dense_keys and not sparse_keys and not any(v for _, v in self.info.values()):
            self.fixed_shapes = [self.info[k][0] for k in dense_keys]


_PLANS = {}


def _plan(sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes):
    # The attr values are the op's own objects, the same each run, and so usually are the
    # key arrays (constants): cached by identity (the entry holds them, so their ids stay
    # theirs), else by the keys' values.
    by_id = (id(sparse_keys), id(dense_keys), id(sparse_types), id(Tdense), id(dense_shapes))
    hit = _PLANS.get(by_id)
    objects = (sparse_keys, dense_keys, sparse_types, Tdense, dense_shapes)
    if hit is not None and all(a is b for a, b in zip(hit[0], objects)):
        return hit[1]
    sparse = [bytes(k) for k in np.asarray(sparse_keys, dtype=object).reshape(-1)]
    dense = [bytes(k) for k in np.asarray(dense_keys, dtype=object).reshape(-1)]
    by_value = (tuple(sparse), tuple(dense), id(sparse_types), id(Tdense), id(dense_shapes))
    hit = _PLANS.get(by_value)
    if hit is not None and all(a is b for a, b in zip(hit[0][2:], objects[2:])):
        plan = hit[1]
    else:
        plan = _Plan(sparse, dense, sparse_types, Tdense, dense_shapes)
    if len(_PLANS) > 4096:
        _PLANS.clear()
    _PLANS[by_value] = (objects, plan)
    _PLANS[by_id] = (objects, plan)
    return plan


def _parse_single(record, plan, defaults, required, scalar_input):
    """The outputs for a batch of one Example, or None for anything unusual (the general
    path then parses it and raises TF's error)."""
    try:
        entries = example_wire.parse_example(record)
    except example_wire.WireError:
        return None
    chosen = {}
    for key, feature in reversed(entries):  # the last entry for a key wins
        col = plan.columns.get(key)
        if col is None or col[0] in chosen or (col[2] and not feature):
            continue
        chosen[col[0]] = feature
    found = {}
    for i, feature in chosen.items():
        kind = plan.kinds[i]
        if feature and _KIND_OF_FIRST_BYTE.get(feature[0]) != kind:
            return None
        try:
            found[i] = example_wire.feature_values(feature, kind) if feature else []
        except example_wire.WireError:
            return None
    n_sparse = len(plan.sparse_keys)
    indices, values, shapes = [], [], []
    for i, t in enumerate(plan.sparse_dtypes):
        v = found.get(i, [])
        count = len(v)
        cols = np.arange(count, dtype=np.int64)
        if scalar_input:
            indices.append(cols.reshape(-1, 1))
            shapes.append(np.array([count], np.int64))
        else:
            indices.append(np.stack([np.zeros(count, np.int64), cols], axis=1))
            shapes.append(np.array([1, count], np.int64))
        values.append(_values_array(v, t))
    dense = []
    for j, (k, t, default) in enumerate(zip(plan.dense_keys, plan.dense_dtypes, defaults)):
        shape, variable = plan.info[k]
        stride = plan.strides[j]
        v = found.get(n_sparse + j)
        if v is None:
            if k in required:
                return None
            out = np.zeros([0] + shape[1:], _NUMPY[t]) if variable else \
                np.array(default, dtype=_NUMPY[t])
            if variable and t == dtypes.string:
                out = np.empty([0] + shape[1:], object)
        elif variable:
            if stride == 0 or len(v) % stride:
                return None
            out = _values_array(v, t).reshape([len(v) // stride] + shape[1:])
        else:
            if len(v) != stride:
                return None
            out = _values_array(v, t).reshape(shape)
        dense.append(out if scalar_input else out[None])
    return indices + values + shapes + dense


_KIND_OF_FIRST_BYTE = {0x0A: example_wire.STRING, 0x12: example_wire.FLOAT,
                       0x1A: example_wire.INT64}


def _config(plan):
    config = plan.config
    if config is None:
        config = [(k, _WIRE_KIND[t], False) for k, t in zip(plan.sparse_keys, plan.sparse_dtypes)]
        config += [(k, _WIRE_KIND[t], True) for k, t in zip(plan.dense_keys, plan.dense_dtypes)]
        plan.config = config
    return config


def _parse_fast(records, plan, required, layout=None):
    """The vectorised reader's columns, or None when the batch holds anything it (or TF)
    rejects: the slow path then finds the error and says it in TF's words. `layout`: what
    example_batch.one_layout found for the records, if it was asked."""
    config = _config(plan)
    try:
        columns = example_batch.decode_batch(records, config, layout)
    except example_batch.Fallback:
        return None
    for k, stride, col in zip(plan.dense_keys, plan.strides, columns[len(plan.sparse_keys):]):
        variable = plan.info[k][1]
        if not variable and col.every == stride:
            continue  # every Example has the feature's values
        counts = col.counts
        if not variable and len(counts) and counts[0] == stride and counts.min() == counts.max():
            if k in required and not col.present.all():
                return None
            continue  # every Example has the feature's values, or none
        if k in required and not col.present.all():
            return None
        if not variable and (counts[col.present] != stride).any():
            return None
        if variable and stride and (counts % stride).any():
            return None
    return columns


def _parse_slow(records, names, sparse_keys, sparse_dtypes, dense_keys, dense_dtypes,
                dense_info, required):
    """Example by Example with example_wire; raises TF's errors. Returns the columns."""
    sparse_cols = {k: _Column(t) for k, t in zip(sparse_keys, sparse_dtypes)}
    dense_cols = {k: _Column(t) for k, t in zip(dense_keys, dense_dtypes)}
    for i, record in enumerate(records):
        name = _text(names[i]) if names.size else "<unknown>"
        _parse_one(i, name, record, sparse_cols, dense_cols, dense_info, required)
    out = []
    for col in [sparse_cols[k] for k in sparse_keys] + [dense_cols[k] for k in dense_keys]:
        present = np.array([v is not None for v in col.values], bool)
        counts = np.array([0 if v is None else len(v) for v in col.values], np.int64)
        parts = [v for v in col.values if v is not None and len(v)]
        if col.dtype == dtypes.string:
            values = [b for p in parts for b in p]
        else:
            values = np.concatenate(parts).astype(_NUMPY[col.dtype]) if parts else \
                np.zeros(0, _NUMPY[col.dtype])
        out.append(example_batch.Column(present, counts, values))
    return out


def _values_array(values, dtype):
    if dtype == dtypes.string:
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
        return arr
    return np.asarray(values, dtype=_NUMPY[dtype])


def _positions(counts):
    """(row of each value, its index within the row) for values laid out row after row."""
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return rows, within


def _sparse_output(col, dtype, batch_size, scalar_input):
    rows, cols = _positions(col.counts)
    values = _values_array(col.values, dtype)
    longest = int(col.counts.max()) if batch_size else 0
    if scalar_input:
        return cols.reshape(-1, 1), values, np.array([longest], np.int64)
    indices = np.stack([rows, cols], axis=1) if len(rows) else np.zeros((0, 2), np.int64)
    return indices, values, np.array([batch_size, longest], np.int64)


def _dense_output(col, dtype, info, default, batch_size, scalar_input, key):
    shape, variable = info
    npt = _NUMPY[dtype]
    values = _values_array(col.values, dtype)
    if not variable:
        if batch_size and values.flags.writeable and (col.every or col.present.all()):
            out = values.reshape([batch_size] + shape)  # the reader's own copy
            return out[0] if scalar_input else out
        out = np.empty([batch_size] + shape, dtype=npt)
        if not col.present.all():
            out[~col.present] = default
        if col.present.any():
            out[col.present] = values.reshape([-1] + shape)
    else:
        row_shape = shape[1:]
        stride = int(np.prod(row_shape, dtype=np.int64))
        counts = col.counts // stride if stride else np.zeros_like(col.counts)
        rows = int(counts.max()) if batch_size else 0
        size = batch_size * rows * max(stride, 1) * np.dtype(npt).itemsize
        if size > MAX_OUTPUT_BYTES:
            raise errors.ResourceExhaustedError(
                None, None, f"Key: {_text(key)}.  Padding {batch_size} Examples to the "
                            f"longest ({rows} rows) would take {size} bytes, over flowloom's "
                            f"limit of {MAX_OUTPUT_BYTES}")
        out = np.empty([batch_size, rows] + row_shape, dtype=npt)
        out[...] = default.reshape(())
        if stride and len(values):
            example, within = _positions(counts * stride)
            flat = out.reshape(batch_size, rows * stride)
            flat[example, within] = values
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
    outputs = _parse_example_raw(serialized, example_names, params, name, v1_op=v1_op)
    return merge_sparse_features(features, outputs)


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
