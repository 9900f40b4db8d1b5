"""Reading checkpoints without a graph: `tf.train.load_checkpoint`, `list_variables`,
`load_variable`, `NewCheckpointReader`; and `init_from_checkpoint`."""

import os

from flowloom.framework import dtypes, errors
from flowloom.io import bundle, tensor_slices
from flowloom.train import checkpoint_management
from flowloom.io import file_system


class CheckpointReader:
    """Reads the tensors of a V2 checkpoint, or of the V1 checkpoint files matching a pattern
    (`tf.train.NewCheckpointReader`).

    Every read verifies the stored checksum: a damaged file gives DataLossError.

    Args:
      filepattern: the checkpoint prefix.

    Raises:
      NotFoundError: if there is no checkpoint at `filepattern`.
      DataLossError: if its index is corrupt.
    """

    def __init__(self, filepattern):
        prefix = os.fspath(filepattern)
        self._prefix = prefix
        if not file_system.exists_ok(bundle.index_filename(prefix)):
            # No V2 index: V1 checkpoint files matching the pattern (NotFoundError if none).
            self._reader = tensor_slices.SliceReader(prefix)
            return
        self._reader = bundle.BundleReader(prefix)

    @staticmethod
    def _name(tensor_str):
        return tensor_str.decode("utf-8") if isinstance(tensor_str, bytes) else tensor_str

    def has_tensor(self, tensor_str):
        return self._name(tensor_str) in self._reader

    def get_tensor(self, tensor_str):
        """The value stored under `tensor_str` (NotFoundError if there is none)."""
        name = self._name(tensor_str)
        if name not in self._reader:
            if isinstance(self._reader, tensor_slices.SliceReader):
                raise errors.NotFoundError(None, None, f"{name} not found in checkpoint file")
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        value = self._reader.get(name)
        return value[()] if value.ndim == 0 and value.dtype != object else value

    def get_variable_to_shape_map(self):
        """{name: shape as a list of ints}."""
        return {name: list(shape) for name, (_, shape) in self._reader.list().items()}

    def get_variable_to_dtype_map(self):
        """{name: DType}."""
        return {name: dtypes.as_dtype(enum) for name, (enum, _) in self._reader.list().items()}

    def debug_string(self):
        """`name (DT_FLOAT) [2,3]` per tensor, sorted by name, as TF's reader writes it."""
        from flowloom.proto import types_pb2

        if isinstance(self._reader, tensor_slices.SliceReader):
            return self._reader.debug_string()
        lines = [f"{name} ({types_pb2.DataType.Name(int(enum))}) "
                 f"[{','.join(str(int(d)) for d in shape)}]"
                 for name, (enum, shape) in sorted(self._reader.list().items())]
        return ("\n".join(lines) + "\n").encode("utf-8")


def NewCheckpointReader(filepattern):
    """Returns a CheckpointReader for the checkpoint prefix `filepattern`."""
    return CheckpointReader(filepattern)


def _checkpoint_prefix(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if file_system.isdir_ok(ckpt_dir_or_file):
        latest = checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
        if not latest:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                             f"{ckpt_dir_or_file}")
        return latest
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix, or for the latest one in a directory.

    Raises:
      ValueError: if a directory holds no checkpoint.
    """
    return CheckpointReader(_checkpoint_prefix(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The value of variable `name` ("x" or "x:0") in a checkpoint."""
    name = name.removesuffix(":0")
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Makes variables initialize from a checkpoint instead of their initializers.

    Args:
      ckpt_dir_or_file: checkpoint prefix or directory.
      assignment_map: {checkpoint name or scope ("scope/"): variable name (or the name of
        a partitioned variable), scope, Variable or list of partitions};
        "old_scope/": "new_scope/" maps every variable of the variable store under the
        scope, "/" the root.

    Raises:
      ValueError: for names missing from the checkpoint or graph, mismatched shapes, a
        scope mapped to a non-scope, or partitions of different variables.
    """
    from flowloom.variable_store import _get_default_variable_store

    ckpt_file = _checkpoint_prefix(ckpt_dir_or_file)
    variable_map = CheckpointReader(ckpt_file).get_variable_to_shape_map()
    store_vars = _get_default_variable_store()._vars
    for tensor_name_in_ckpt, current in sorted(assignment_map.items()):
        if _is_variable(current) or (isinstance(current, list) and
                                     all(_is_variable(v) for v in current)):
            var = current
        else:
            var = store_vars.get(current)
            if var is None:
                var = _collect_partitioned_variable(current, store_vars)
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError(f"Tensor {tensor_name_in_ckpt} is not found in "
                                 f"{ckpt_dir_or_file} checkpoint {variable_map}")
            if _is_variable(var) and not var.get_shape().is_compatible_with(
                    variable_map[tensor_name_in_ckpt]):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                    f"shape of tensor {tensor_name_in_ckpt} "
                    f"({variable_map[tensor_name_in_ckpt]}) from checkpoint reader.")
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name_in_ckpt)
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to "
                             f"scope only {tensor_name_in_ckpt}. Should be 'scope/': "
                             "'other_scope/'.")
        scope_variables = set()
        for var_name in store_vars:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[:var_name.index("/part_")]
                scope_variables.add(var_name)
        for var_name in sorted(scope_variables):
            full_tensor_name = var_name[len(scopes):]
            if current != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            if full_tensor_name.endswith("/"):
                full_tensor_name = full_tensor_name[:-1]
            if full_tensor_name not in variable_map:
                raise ValueError(f"Tensor {full_tensor_name} ({var_name[len(scopes) + 1:]} in "
                                 f"{tensor_name_in_ckpt}) is not found in {ckpt_dir_or_file} "
                                 "checkpoint")
            var = store_vars.get(var_name)
            if var is None:
                var = _collect_partitioned_variable(var_name, store_vars)
            _set_variable_or_list_initializer(var, ckpt_file, full_tensor_name)


def _is_variable(x):
    from flowloom.resource_variable import ResourceVariable
    from flowloom.variables import Variable

    return isinstance(x, (Variable, ResourceVariable))


def _collect_partitioned_variable(name, all_vars):
    """The partitions name/part_0, name/part_1, ... of the store, or None."""
    if name + "/part_0" not in all_vars:
        return None
    parts = []
    while f"{name}/part_{len(parts)}" in all_vars:
        parts.append(all_vars[f"{name}/part_{len(parts)}"])
    return parts


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec,
                                name="checkpoint_initializer"):
    """Makes `variable`'s initializer restore `tensor_name` (slice `slice_spec`) from the
    checkpoint: a RestoreV2 on the CPU and the variable's own restore op (no read of it)."""
    from flowloom.framework.graph import get_default_graph
    from flowloom.ops.state import save_restore_ops
    from flowloom.train import saveables

    graph = get_default_graph()
    with graph.device(variable.device or None), graph.device("/device:CPU:0"):
        restore_op = save_restore_ops.restore_v2(ckpt_file, [tensor_name], [slice_spec],
                                                 [variable.dtype.base_dtype], name=name)[0]
        saveable = saveables._variable_saveable(variable, slice_spec, variable.op.name)
    init_op = saveable.restore([restore_op], restored_shapes=None)
    variable._initializer_op = getattr(init_op, "op", init_op)
    restore_op.set_shape(variable.shape)
    variable._initial_value = restore_op


def _set_variable_or_list_initializer(variable_or_list, ckpt_file, tensor_name):
    if isinstance(variable_or_list, (list, tuple)):
        slice_name = None
        for v in variable_or_list:
            slice_info = v._save_slice_info
            if slice_name is None:
                slice_name = slice_info.full_name
            elif slice_name != slice_info.full_name:
                raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                                 f"{slice_info.full_name}")
            _set_checkpoint_initializer(v, ckpt_file, tensor_name, slice_info.spec)
    else:
        _set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name, "")


from flowloom.train.checkpoint_wait import (  # noqa: E402,F401
    checkpoints_iterator, wait_for_new_checkpoint)
