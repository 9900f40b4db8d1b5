"""SequenceExample parsing: ParseSingleSequenceExample and ParseSequenceExample (TF 1.15's
op types) with `tf.parse_single_sequence_example` / `tf.io.parse_sequence_example`.

A SequenceExample has `context` features (parsed as in `parse_example`: VarLenFeature and
FixedLenFeature) and `feature_lists`, one list of Features per key and time step:
VarLenFeature (a SparseTensor indexed [time, j]) and FixedLenSequenceFeature (a dense
[time] + shape tensor; the batch op pads to the longest list and reports each length).
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.ops.parsing.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,
                                                 ParseOpParams, VarLenFeature)

_KIND = {dtypes.int64: "int64_list", dtypes.float32: "float_list", dtypes.string: "bytes_list"}
_NAME = {dtypes.int64: "int64", dtypes.float32: "float", dtypes.string: "string"}
_VALUE_NAME = {dtypes.int64: "int64", dtypes.float32: "float", dtypes.string: "bytes"}
_NP = {dtypes.int64: np.int64, dtypes.float32: np.float32, dtypes.string: object}

_SINGLE_INPUTS = ["serialized: string", "feature_list_dense_missing_assumed_empty: string",
                  "context_sparse_keys: Ncontext_sparse * string",
                  "context_dense_keys: Ncontext_dense * string",
                  "feature_list_sparse_keys: Nfeature_list_sparse * string",
                  "feature_list_dense_keys: Nfeature_list_dense * string",
                  "context_dense_defaults: list(Tcontext_dense)", "debug_name: string"]
_OUTPUTS = ["context_sparse_indices: Ncontext_sparse * int64",
            "context_sparse_values: list(context_sparse_types)",
            "context_sparse_shapes: Ncontext_sparse * int64",
            "context_dense_values: list(Tcontext_dense)",
            "feature_list_sparse_indices: Nfeature_list_sparse * int64",
            "feature_list_sparse_values: list(feature_list_sparse_types)",
            "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
            "feature_list_dense_values: list(feature_list_dense_types)"]
_TYPE_ATTRS = {"Ncontext_sparse": 0, "Ncontext_dense": 0, "Nfeature_list_sparse": 0,
               "Nfeature_list_dense": 0, "context_sparse_types": [], "Tcontext_dense": [],
               "feature_list_dense_types": [], "context_dense_shapes": [],
               "feature_list_sparse_types": [], "feature_list_dense_shapes": []}

ParseSingleSequenceExample = defop("ParseSingleSequenceExample", inputs=_SINGLE_INPUTS,
                                   outputs=_OUTPUTS, attrs=dict(_TYPE_ATTRS))
ParseSingleSequenceExample.no_gradient()
ParseSequenceExample = defop(
    "ParseSequenceExample",
    inputs=["serialized: string", "debug_name: string",
            "context_dense_defaults: list(Tcontext_dense)"],
    outputs=_OUTPUTS + ["feature_list_dense_lengths: Nfeature_list_dense * int64"],
    attrs=dict(_TYPE_ATTRS, feature_list_dense_missing_assumed_empty=[],
               context_sparse_keys=[], context_dense_keys=[], feature_list_sparse_keys=[],
               feature_list_dense_keys=[]))
ParseSequenceExample.no_gradient()


def _shapes(op, batch):
    a = op._attrs
    lead = [op._inputs[0]._shape.with_rank(1)[0]] if batch else []
    r = 1 if batch else 0
    ns, nfs = a["Ncontext_sparse"], a["Nfeature_list_sparse"]
    out = [tensor_shape.TensorShape([None, r + 1])] * ns + [tensor_shape.TensorShape([None])] * \
        ns + [tensor_shape.TensorShape([r + 1])] * ns
    out += [tensor_shape.TensorShape(lead).concatenate(tensor_shape.as_shape(s))
            for s in a["context_dense_shapes"]]
    out += [tensor_shape.TensorShape([None, r + 2])] * nfs + \
        [tensor_shape.TensorShape([None])] * nfs + [tensor_shape.TensorShape([r + 2])] * nfs
    out += [tensor_shape.TensorShape(lead + [None]).concatenate(tensor_shape.as_shape(s))
            for s in a["feature_list_dense_shapes"]]
    if batch:
        out += [tensor_shape.TensorShape(lead)] * a["Nfeature_list_dense"]
    return out


ParseSingleSequenceExample.shape(lambda op: _shapes(op, False))
ParseSequenceExample.shape(lambda op: _shapes(op, True))


def _text(v):
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def _dense(v, dtype, dims, name, key, index):
    """The values `v` of a dense feature as an array of shape `dims` (TF's size check)."""
    if len(v) != int(np.prod(dims)):
        raise errors.InvalidArgumentError(
            None, None, f"Name: {name}, Key: {key}, Index: {index}.  Number of "
            f"{_VALUE_NAME[dtype]} values != expected.  values size: {len(v)} but output "
            f"shape: {_dims(dims)}")
    return np.asarray(v, _NP[dtype]).reshape(dims)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _values(feature, dtype, where):
    """The values of one Feature as `dtype`; None for an empty Feature (no kind set)."""
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None
    if kind != _KIND[dtype]:
        raise errors.InvalidArgumentError(
            None, None, f"{where}.  Data types don't match. Expected type: {_NAME[dtype]}  "
            f"Feature is: {kind}")
    vals = getattr(feature, kind).value
    return list(vals) if dtype == dtypes.string else np.asarray(vals, _NP[dtype])


def _empty(dtype):
    return np.zeros(0, _NP[dtype]) if dtype != dtypes.string else np.array([], object)


def _parse_one(serialized, name, cfg, defaults):
    """One SequenceExample -> (context sparse values, context dense, feature-list sparse rows,
    feature-list dense)."""
    from flowloom.proto import example_pb2

    try:
        ex = example_pb2.SequenceExample.FromString(bytes(serialized))
    except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
        raise errors.InvalidArgumentError(
            None, None, f"Could not parse example input, value: '{_text(serialized)[:64]}'"
        ) from None
    context = ex.context.feature
    lists = ex.feature_lists.feature_list
    c_sparse = []
    for key, dtype in zip(cfg["context_sparse_keys"], cfg["context_sparse_types"]):
        k = _text(key)
        v = _values(context[k], dtype, f"Name: {name}, Context feature: {k}") \
            if k in context else None
        c_sparse.append(_empty(dtype) if v is None else np.asarray(v, _NP[dtype]))
    c_dense = []
    for i, (key, dtype, shape) in enumerate(zip(cfg["context_dense_keys"],
                                                cfg["Tcontext_dense"],
                                                cfg["context_dense_shapes"])):
        k = _text(key)
        dims = tensor_shape.as_shape(shape).as_list()
        v = _values(context[k], dtype, f"Name: {name}, Context feature: {k}") \
            if k in context else None
        if v is None:
            if np.size(defaults[i]) == 0 and int(np.prod(dims)) != 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Name: {name}, Context feature '{k}' is required but could "
                    "not be found.")
            c_dense.append(np.asarray(defaults[i]).reshape(dims))
            continue
        c_dense.append(_dense(v, dtype, dims, name, k, 0))
    fl_sparse = []
    for key, dtype in zip(cfg["feature_list_sparse_keys"], cfg["feature_list_sparse_types"]):
        k = _text(key)
        rows = []
        for t, f in enumerate(lists[k].feature if k in lists else []):
            v = _values(f, dtype, f"Name: {name}, Feature list: {k}, Index: {t}")
            rows.append(_empty(dtype) if v is None else np.asarray(v, _NP[dtype]))
        fl_sparse.append(rows)
    fl_dense = []
    assumed_empty = {_text(k) for k in cfg["missing_assumed_empty"]}
    for key, dtype, shape in zip(cfg["feature_list_dense_keys"], cfg["feature_list_dense_types"],
                                 cfg["feature_list_dense_shapes"]):
        k = _text(key)
        dims = tensor_shape.as_shape(shape).as_list()
        if k not in lists:
            if k not in assumed_empty:
                raise errors.InvalidArgumentError(
                    None, None, f"Name: {name}, Feature list '{k}' is required but could not be "
                    "found.  Did you mean to include it in "
                    "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
            fl_dense.append(np.zeros([0] + dims, _NP[dtype]) if dtype != dtypes.string
                            else np.full([0] + dims, b"", object))
            continue
        steps = []
        for t, f in enumerate(lists[k].feature):
            v = _values(f, dtype, f"Name: {name}, Feature list: {k}, Index: {t}")
            steps.append(_dense([] if v is None else v, dtype, dims, name, k, t))
        fl_dense.append(np.stack(steps) if steps else np.zeros([0] + dims, _NP[dtype]))
    return c_sparse, c_dense, fl_sparse, fl_dense


def _kernel(serialized, names, defaults, cfg, batch):
    records = list(np.asarray(serialized, dtype=object).reshape(-1)) if batch else \
        [np.asarray(serialized, dtype=object).item()]
    names = list(np.asarray(names, dtype=object).reshape(-1)) if np.size(names) else []
    parsed = [_parse_one(r, _text(names[i]) if i < len(names) else "", cfg, defaults)
              for i, r in enumerate(records)]
    b = len(records)
    out_ix, out_val, out_shape = [], [], []
    for k, dtype in enumerate(cfg["context_sparse_types"]):
        rows = [p[0][k] for p in parsed]
        width = max((len(r) for r in rows), default=0)
        ix = [([i] if batch else []) + [j] for i, r in enumerate(rows) for j in range(len(r))]
        out_ix.append(np.array(ix, np.int64).reshape(-1, 2 if batch else 1))
        out_val.append(np.concatenate(rows) if rows else _empty(dtype))
        out_shape.append(np.array(([b] if batch else []) + [width], np.int64))
    dense = [np.stack([p[1][k] for p in parsed]) if batch else parsed[0][1][k]
             for k in range(len(cfg["Tcontext_dense"]))]
    fl_ix, fl_val, fl_shape = [], [], []
    for k, dtype in enumerate(cfg["feature_list_sparse_types"]):
        ix, vals, steps, width = [], [], 0, 0
        for i, p in enumerate(parsed):
            rows = p[2][k]
            steps = max(steps, len(rows))
            for t, row in enumerate(rows):
                width = max(width, len(row))
                ix.extend(([i] if batch else []) + [t, j] for j in range(len(row)))
                vals.extend(list(row))
        fl_ix.append(np.array(ix, np.int64).reshape(-1, 3 if batch else 2))
        fl_val.append(np.array(vals, _NP[dtype]) if vals else _empty(dtype))
        fl_shape.append(np.array(([b] if batch else []) + [steps, width], np.int64))
    fl_dense, lengths = [], []
    for k, dtype in enumerate(cfg["feature_list_dense_types"]):
        arrays = [p[3][k] for p in parsed]
        if not batch:
            fl_dense.append(arrays[0])
            continue
        steps = max((len(a) for a in arrays), default=0)
        tail = tensor_shape.as_shape(cfg["feature_list_dense_shapes"][k]).as_list()
        padded = np.zeros([b, steps] + tail, _NP[dtype]) if dtype != dtypes.string else \
            np.full([b, steps] + tail, b"", object)
        for i, a in enumerate(arrays):
            padded[i, :len(a)] = a
        fl_dense.append(padded)
        lengths.append(np.array([len(a) for a in arrays], np.int64))
    return out_ix + out_val + out_shape + dense + fl_ix + fl_val + fl_shape + fl_dense + lengths


@ParseSingleSequenceExample.kernel
def _(xp, serialized, missing_assumed_empty, *args, Ncontext_sparse, Ncontext_dense,
      Nfeature_list_sparse, Nfeature_list_dense, context_sparse_types, Tcontext_dense,
      feature_list_dense_types, context_dense_shapes, feature_list_sparse_types,
      feature_list_dense_shapes):
    if np.ndim(serialized) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Expected serialized to be a scalar, got shape: "
            f"{_dims(np.shape(serialized))}")
    keys = list(args)
    cs, keys = keys[:Ncontext_sparse], keys[Ncontext_sparse:]
    cd, keys = keys[:Ncontext_dense], keys[Ncontext_dense:]
    fs, keys = keys[:Nfeature_list_sparse], keys[Nfeature_list_sparse:]
    fd, keys = keys[:Nfeature_list_dense], keys[Nfeature_list_dense:]
    defaults, debug_name = keys[:Ncontext_dense], keys[Ncontext_dense]
    cfg = dict(context_sparse_keys=[np.asarray(k).item() for k in cs],
               context_dense_keys=[np.asarray(k).item() for k in cd],
               feature_list_sparse_keys=[np.asarray(k).item() for k in fs],
               feature_list_dense_keys=[np.asarray(k).item() for k in fd],
               missing_assumed_empty=list(np.asarray(missing_assumed_empty,
                                                     dtype=object).reshape(-1)),
               context_sparse_types=context_sparse_types, Tcontext_dense=Tcontext_dense,
               context_dense_shapes=context_dense_shapes,
               feature_list_sparse_types=feature_list_sparse_types,
               feature_list_dense_types=feature_list_dense_types,
               feature_list_dense_shapes=feature_list_dense_shapes)
    return _kernel(serialized, debug_name, defaults, cfg, batch=False)


@ParseSequenceExample.kernel
def _(xp, serialized, debug_name, *defaults, feature_list_dense_missing_assumed_empty,
      context_sparse_keys, context_dense_keys, feature_list_sparse_keys,
      feature_list_dense_keys, context_sparse_types, Tcontext_dense, feature_list_dense_types,
      context_dense_shapes, feature_list_sparse_types, feature_list_dense_shapes):
    cfg = dict(context_sparse_keys=context_sparse_keys, context_dense_keys=context_dense_keys,
               feature_list_sparse_keys=feature_list_sparse_keys,
               feature_list_dense_keys=feature_list_dense_keys,
               missing_assumed_empty=feature_list_dense_missing_assumed_empty,
               context_sparse_types=context_sparse_types, Tcontext_dense=Tcontext_dense,
               context_dense_shapes=context_dense_shapes,
               feature_list_sparse_types=feature_list_sparse_types,
               feature_list_dense_types=feature_list_dense_types,
               feature_list_dense_shapes=feature_list_dense_shapes)
    return _kernel(serialized, debug_name, list(defaults), cfg, batch=True)


def _params(context_features, sequence_features):
    if not (context_features or sequence_features):
        raise ValueError("Missing features.")
    for feats, allowed in ((context_features, (VarLenFeature, FixedLenFeature)),
                           (sequence_features, (VarLenFeature, FixedLenSequenceFeature))):
        for key, f in (feats or {}).items():
            if not isinstance(f, allowed):
                raise ValueError(f"Unsupported {type(f).__name__} {f}.")
    context = ParseOpParams.from_features(dict(context_features or {}))
    seq = ParseOpParams.from_features(dict(sequence_features or {}))
    assumed_empty = []
    for k, v in seq.dense_defaults.items():
        if v is not None:
            raise ValueError(f"Value feature_list_dense_defaults[{k}] must be None")
        assumed_empty.append(k)
    return context, seq, assumed_empty


def _outputs(op, context, seq, batch):
    ns, nd = len(context.sparse_keys), len(context.dense_keys)
    fs, fd = len(seq.sparse_keys), len(seq.dense_keys)
    outs = list(op.outputs)
    take = []
    for n in (ns, ns, ns, nd, fs, fs, fs, fd) + ((fd,) if batch else ()):
        take.append(outs[:n])
        outs = outs[n:]
    c_sparse = [SparseTensor(*parts) for parts in zip(take[0], take[1], take[2])]
    f_sparse = [SparseTensor(*parts) for parts in zip(take[4], take[5], take[6])]
    context_out = dict(zip(context.sparse_keys + context.dense_keys, c_sparse + take[3]))
    seq_out = dict(zip(seq.sparse_keys + seq.dense_keys, f_sparse + take[7]))
    if batch:
        return context_out, seq_out, dict(zip(seq.dense_keys, take[8]))
    return context_out, seq_out


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one serialized `SequenceExample` (`tf.parse_single_sequence_example`).

    Args:
      serialized: a scalar string tensor.
      context_features: dict from key to VarLenFeature / FixedLenFeature.
      sequence_features: dict from key to VarLenFeature / FixedLenSequenceFeature (with
        allow_missing, a missing list is empty; otherwise it is required).
      example_name: a scalar string naming the proto in error messages.

    Returns:
      (context, feature_lists): dicts from key to Tensor or SparseTensor.

    Raises:
      ValueError: for missing or unsupported features.
    """
    context, seq, assumed_empty = _params(context_features, sequence_features)
    with name_scope(name, "ParseSingleSequenceExample", [serialized]):
        serialized = convert_to_tensor(serialized, name="serialized")
        debug_name = convert_to_tensor("" if example_name is None else example_name,
                                       dtype=dtypes.string)
        op = apply_op(
            "ParseSingleSequenceExample",
            (serialized, convert_to_tensor(assumed_empty, dtype=dtypes.string),
             list(context.sparse_keys), list(context.dense_keys), list(seq.sparse_keys),
             list(seq.dense_keys), context.dense_default_tensors(), debug_name),
            name=name, Ncontext_sparse=len(context.sparse_keys),
            Ncontext_dense=len(context.dense_keys), Nfeature_list_sparse=len(seq.sparse_keys),
            Nfeature_list_dense=len(seq.dense_keys), context_sparse_types=context.sparse_types,
            context_dense_shapes=context.dense_shapes,
            feature_list_sparse_types=seq.sparse_types,
            feature_list_dense_types=seq.dense_types,
            feature_list_dense_shapes=seq.dense_shapes)
    return _outputs(op, context, seq, batch=False)


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a batch of serialized `SequenceExample`s (`tf.io.parse_sequence_example`).

    Returns:
      (context, feature_lists, lengths): context features with a leading batch dimension,
      feature lists [batch, time, ...] (dense ones padded to the longest list), and the
      length of each dense feature list.
    """
    context, seq, assumed_empty = _params(context_features, sequence_features)
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        names = convert_to_tensor([] if example_names is None else example_names,
                                  dtype=dtypes.string)
        op = apply_op(
            "ParseSequenceExample", (serialized, names, context.dense_default_tensors()),
            name=name, feature_list_dense_missing_assumed_empty=assumed_empty,
            context_sparse_keys=list(context.sparse_keys),
            context_dense_keys=list(context.dense_keys),
            feature_list_sparse_keys=list(seq.sparse_keys),
            feature_list_dense_keys=list(seq.dense_keys),
            Ncontext_sparse=len(context.sparse_keys), Ncontext_dense=len(context.dense_keys),
            Nfeature_list_sparse=len(seq.sparse_keys),
            Nfeature_list_dense=len(seq.dense_keys), context_sparse_types=context.sparse_types,
            context_dense_shapes=context.dense_shapes,
            feature_list_sparse_types=seq.sparse_types,
            feature_list_dense_types=seq.dense_types,
            feature_list_dense_shapes=seq.dense_shapes)
    return _outputs(op, context, seq, batch=True)
