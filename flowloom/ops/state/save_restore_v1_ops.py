"""V1 checkpoint ops (flowloom/io/tensor_slices.py): SaveSlices and Save write a tensor-slice
table file, Restore and RestoreSlice read one tensor from the files matching a pattern,
ShardedFilespec names the files of a sharded save. RestoreV2 reads V1 files too (when the
prefix has no `.index`; save_restore_ops.py calls `restore_v1`).
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.io import bundle_slices, tensor_slices
from flowloom.ops.state.save_restore_ops import _names_and_slices, _strings, _text, slice_shapes


def _items(op_type, tensor_names, shapes_and_slices, tensors):
    names, slices = _names_and_slices(op_type, tensor_names, shapes_and_slices, len(tensors))
    return list(zip(names, slices, tensors))


SaveSlices = defop("SaveSlices", inputs=["filename: string", "tensor_names: string",
                                         "shapes_and_slices: string", "data: list(T)"],
                   attrs={"T": None}, stateful=True)
SaveSlices.shape(lambda op: [])


@SaveSlices.kernel
def _(xp, filename, tensor_names, shapes_and_slices, *data):
    tensor_slices.write_slices(_text(filename), _items("SaveSlices", tensor_names,
                                                       shapes_and_slices, data))


Save = defop("Save", inputs=["filename: string", "tensor_names: string", "data: list(T)"],
             attrs={"T": None}, stateful=True)
Save.shape(lambda op: [])


@Save.kernel
def _(xp, filename, tensor_names, *data):
    names = np.asarray(tensor_names, dtype=object).reshape(-1)
    tensor_slices.write_slices(_text(filename), _items("Save", names, [""] * len(data), data))


def _dtype_string(dtype):
    from flowloom.ops.array.array_ops import dtype_string

    return dtype_string(dtype)


def restore_v1(pattern, name, spec, dtype, reader=None):
    """One tensor (or its slice `spec`) read from the V1 files matching `pattern`, checked
    against the dtype expected, as TF's RestoreTensor.

    Raises:
      NotFoundError: if no file matches or none holds `name`.
      InvalidArgumentError: for another dtype or a spec whose shape differs from the stored.
    """
    reader = reader or tensor_slices.SliceReader(pattern)
    if name not in reader:
        raise errors.NotFoundError(
            None, None, f'Tensor name "{name}" not found in checkpoint files {pattern}')
    enum, shape = reader.list()[name]
    if enum != dtype.as_datatype_enum:
        raise errors.InvalidArgumentError(
            None, None, f"Expected to restore a tensor of type {_dtype_string(dtype)}, got a "
            f"tensor of type {_dtype_string(dtypes.as_dtype(enum))} instead: tensor_name = "
            f"{name}")
    if not spec:
        return reader.get(name)
    full_shape, starts, lengths = bundle_slices.parse_shape_and_slice(spec)
    if full_shape != shape:
        raise errors.InvalidArgumentError(
            None, None, f"Shape in shape_and_slice spec {bundle_slices.shape_debug(full_shape)} "
            f"does not match the shape stored in checkpoint: "
            f"{bundle_slices.shape_debug(shape)}")
    return reader.get(name, starts, lengths)


Restore = defop("Restore", inputs=["file_pattern: string", "tensor_name: string"],
                outputs=["tensor: dt"], attrs={"dt": None, "preferred_shard": -1},
                stateful=True)
Restore.shape(lambda op: [unknown_shape()])


@Restore.kernel
def _(xp, file_pattern, tensor_name, *, dt, preferred_shard):
    return restore_v1(_text(file_pattern), _text(tensor_name), "", dt)


RestoreSlice = defop("RestoreSlice", inputs=["file_pattern: string", "tensor_name: string",
                                             "shape_and_slice: string"],
                     outputs=["tensor: dt"], attrs={"dt": None, "preferred_shard": -1},
                     stateful=True)
RestoreSlice.shape(lambda op: slice_shapes(op._inputs[1], op._inputs[2], 1, "RestoreSlice"))


@RestoreSlice.kernel
def _(xp, file_pattern, tensor_name, shape_and_slice, *, dt, preferred_shard):
    return restore_v1(_text(file_pattern), _text(tensor_name), _text(shape_and_slice), dt)


ShardedFilespec = defop("ShardedFilespec", inputs=["basename: string", "num_shards: int32"],
                        outputs=["filename: string"])
ShardedFilespec.shape(lambda op: TensorShape([]))


@ShardedFilespec.kernel
def _(xp, basename, num_shards):
    from flowloom.ops.state.save_restore_ops import _check_scalars

    _check_scalars(basename=basename, num_shards=num_shards)
    return np.array(f"{_text(basename)}-?????-of-{int(num_shards):05d}".encode(), dtype=object)


NotDifferentiable("SaveSlices", "Save", "Restore", "RestoreSlice", "ShardedFilespec")


def save_slices(filename, tensor_names, shapes_and_slices, data, name=None):
    """Adds a SaveSlices op writing `data` as the V1 checkpoint file `filename`."""
    return apply_op("SaveSlices", (filename, _strings(tensor_names), _strings(shapes_and_slices),
                                   list(data)), name=name)


def save(filename, tensor_names, data, name=None):
    """Adds a Save op (whole tensors) writing the V1 checkpoint file `filename`."""
    return apply_op("Save", (filename, _strings(tensor_names), list(data)), name=name)


def restore(file_pattern, tensor_name, dt, preferred_shard=-1, name=None):
    """Adds a Restore op reading tensor `tensor_name` from V1 checkpoint files."""
    return apply_op("Restore", (file_pattern, tensor_name), name=name,
                    dt=dtypes.as_dtype(dt).base_dtype, preferred_shard=preferred_shard).outputs[0]


def restore_slice(file_pattern, tensor_name, shape_and_slice, dt, preferred_shard=-1,
                  name=None):
    """Adds a RestoreSlice op reading one slice of a tensor from V1 checkpoint files."""
    return apply_op("RestoreSlice", (file_pattern, tensor_name, shape_and_slice), name=name,
                    dt=dtypes.as_dtype(dt).base_dtype,
                    preferred_shard=preferred_shard).outputs[0]


def sharded_filespec(basename, num_shards, name=None):
    """`basename-?????-of-0000<num_shards>`: the files of a sharded V1 save."""
    return apply_op("ShardedFilespec", (basename, num_shards), name=name).outputs[0]
