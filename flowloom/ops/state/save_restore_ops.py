"""Checkpoint ops: SaveV2 writes a V2 tensor bundle, RestoreV2 reads tensors back from one.

The bytes are TF's (see flowloom/io/bundle.py); saving is crash-safe (the data file and then
the index appear complete or not at all); a sharded save writes one bundle per device and
MergeV2Checkpoints joins them. A non-empty `shape_and_slices` entry ("10 3 0,4:0,3") saves or
restores one slice of a tensor (partitioned variables; see flowloom/io/bundle_slices.py).
RestoreV2 of a prefix without `.index` reads V1 checkpoint files (save_restore_v1_ops.py).
"""


import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.io import bundle, bundle_merge, bundle_slices
from flowloom.io.bundle_dtypes import dtype_name
from flowloom.io import file_system


def _text(value):
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _names_and_slices(op_type, tensor_names, shape_and_slices, count):
    names = [_text(n) for n in np.asarray(tensor_names, dtype=object).reshape(-1)]
    slices = [_text(s) for s in np.asarray(shape_and_slices, dtype=object).reshape(-1)]
    if len(names) != count or len(slices) != count:
        raise errors.InvalidArgumentError(
            None, None, f"{op_type}: tensor_names ({len(names)}), shape_and_slices "
            f"({len(slices)}) and the number of tensors ({count}) must match")
    return names, slices


SaveV2 = defop("SaveV2", inputs=["prefix: string", "tensor_names: string",
                                 "shape_and_slices: string", "tensors: list(dtypes)"],
               attrs={"dtypes": None}, stateful=True)
SaveV2.shape(lambda op: [])


@SaveV2.kernel
def _(xp, prefix, tensor_names, shape_and_slices, *tensors):
    names, slices = _names_and_slices("SaveV2", tensor_names, shape_and_slices, len(tensors))
    bundle.write_bundle_items(_text(prefix), list(zip(names, slices, tensors)))


RestoreV2 = defop("RestoreV2", inputs=["prefix: string", "tensor_names: string",
                                       "shape_and_slices: string"],
                  outputs=["tensors: list(dtypes)"], attrs={"dtypes": None}, stateful=True)


def slice_shapes(names, specs, count, op_type):
    """The static shapes of restored tensors: a slice spec's slice shape, unknown for a
    whole tensor ("") or specs not known when building (as TF's shape function).

    Raises:
      ValueError: if the names and specs are constants of different lengths, or a spec is
        malformed.
      InternalError: if a spec's slice lies outside its shape (TF 1.15's class).
    """
    from flowloom.framework.tensor_util import constant_value

    name_values, spec_values = constant_value(names), constant_value(specs)
    for values in (name_values, spec_values):
        if values is not None and np.size(values) != count:
            raise ValueError(f"{op_type}: {np.size(values)} names or slice specs for "
                             f"{count} tensors: Dimension 0 in both shapes must be equal")
    if spec_values is None:
        return [unknown_shape() for _ in range(count)]
    out = []
    for spec in np.asarray(spec_values, dtype=object).reshape(-1):
        spec = _text(spec)
        if not spec:
            out.append(unknown_shape())
            continue
        try:
            _, _, lengths = bundle_slices.parse_shape_and_slice(spec)
        except errors.InvalidArgumentError as e:
            if e.message.startswith("Extent in dimension"):
                # TF 1.15's shape function reports a slice outside the shape as internal.
                raise errors.InternalError(None, None, f"{op_type}: {e.message}") from None
            raise ValueError(f"{op_type}: {e.message}") from None
        out.append(TensorShape(lengths))
    return out


@RestoreV2.shape
def _(op):
    return slice_shapes(op._inputs[1], op._inputs[2], len(op._attrs["dtypes"]), "RestoreV2")


@RestoreV2.kernel
def _(xp, prefix, tensor_names, shape_and_slices, *, dtypes):
    names, slices = _names_and_slices("RestoreV2", tensor_names, shape_and_slices,
                                      len(dtypes))
    path = _text(prefix)
    if not file_system.exists_ok(bundle.index_filename(path)):
        # No V2 index: the prefix is a pattern of V1 checkpoint files, as TF falls back.
        from flowloom.io.tensor_slices import SliceReader
        from flowloom.ops.state.save_restore_v1_ops import restore_v1

        reader = SliceReader(path)
        return [restore_v1(path, name, spec, dtype, reader)
                for name, spec, dtype in zip(names, slices, dtypes)]
    try:
        reader = bundle.BundleReader(path)
    except errors.NotFoundError:
        raise errors.NotFoundError(
            None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
            f"matching files for {path}") from None
    out = []
    for name, spec, dtype in zip(names, slices, dtypes):
        entry = reader.entry(name)
        if entry.dtype != dtype.as_datatype_enum:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {name}; expected dtype {_dtype_string(dtype)} does "
                f"not equal original dtype {dtype_name(entry.dtype)[3:].lower()}")
        if not spec:
            out.append(reader.get(name))
            continue
        full_shape, starts, lengths = bundle_slices.parse_shape_and_slice(spec)
        stored = [d.size for d in entry.shape.dim]
        if full_shape != stored:
            raise errors.InvalidArgumentError(
                None, None, f"tensor_name = {name}; shape in shape_and_slice spec "
                f"{bundle_slices.shape_debug(full_shape)} does not match the shape stored in "
                f"checkpoint: {bundle_slices.shape_debug(stored)}")
        out.append(reader.get_slice(name, starts, lengths))
    return out


def _dtype_string(dtype):
    from flowloom.ops.array.array_ops import dtype_string

    return dtype_string(dtype)


def _check_scalars(**inputs):
    """The ShardedFilename/ShardedFilespec kernels' check: every input a scalar."""
    from flowloom.framework import errors

    for name, value in inputs.items():
        if np.ndim(value) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be a scalar, got shape "
                "[" + ",".join(str(d) for d in np.shape(value)) + "]")


ShardedFilename = defop("ShardedFilename", inputs=["basename: string", "shard: int32",
                                                  "num_shards: int32"],
                        outputs=["filename: string"])
ShardedFilename.shape(lambda op: TensorShape([]))


@ShardedFilename.kernel
def _(xp, basename, shard, num_shards):
    _check_scalars(basename=basename, shard=shard, num_shards=num_shards)
    return np.array(f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}".encode(),
                    dtype=object)


MergeV2Checkpoints = defop("MergeV2Checkpoints",
                           inputs=["checkpoint_prefixes: string", "destination_prefix: string"],
                           attrs={"delete_old_dirs": True, "allow_missing_files": False},
                           stateful=True)
MergeV2Checkpoints.shape(lambda op: [])


@MergeV2Checkpoints.kernel
def _(xp, checkpoint_prefixes, destination_prefix, *, delete_old_dirs, allow_missing_files):
    prefixes = [_text(p) for p in np.asarray(checkpoint_prefixes, dtype=object).reshape(-1)]
    bundle_merge.merge_bundles(prefixes, _text(destination_prefix),
                               allow_missing_files=allow_missing_files,
                               delete_old_dirs=delete_old_dirs)


NotDifferentiable("SaveV2", "RestoreV2", "ShardedFilename", "MergeV2Checkpoints")


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """Adds a SaveV2 op writing `tensors` under `tensor_names` to the checkpoint `prefix`."""
    return apply_op("SaveV2", (prefix, _strings(tensor_names), _strings(shape_and_slices),
                               list(tensors)), name=name)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes_, name=None):
    """Adds a RestoreV2 op; returns the list of restored tensors, one per name."""
    op = apply_op("RestoreV2", (prefix, _strings(tensor_names), _strings(shape_and_slices)),
                  name=name, dtypes=[dtypes.as_dtype(d).base_dtype for d in dtypes_])
    return op.outputs


def sharded_filename(basename, shard, num_shards, name=None):
    """`basename-0000<shard>-of-0000<num_shards>`."""
    return apply_op("ShardedFilename", (basename, shard, num_shards), name=name).outputs[0]


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True,
                         allow_missing_files=False, name=None):
    """Adds a MergeV2Checkpoints op merging per-shard bundles into `destination_prefix`."""
    return apply_op("MergeV2Checkpoints", (checkpoint_prefixes, destination_prefix),
                    name=name, delete_old_dirs=delete_old_dirs,
                    allow_missing_files=allow_missing_files)


def _strings(values):
    if isinstance(values, (list, tuple)):
        return np.array([v.encode("utf-8") if isinstance(v, str) else v for v in values],
                        dtype=object)
    return values
