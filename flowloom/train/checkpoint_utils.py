"""Reading checkpoints without a graph: `tf.train.load_checkpoint`, `list_variables`,
`load_variable`, `NewCheckpointReader`; and `init_from_checkpoint`."""

import os

from flowloom.framework import dtypes, errors
from flowloom.io import bundle, tensor_slices
from flowloom.train import checkpoint_management


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
        if not os.path.exists(bundle.index_filename(prefix)):
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
    if os.path.isdir(ckpt_dir_or_file):
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
      assignment_map: {checkpoint name or scope ("scope/"): variable name, scope, or
        Variable}; "old_scope/": "new_scope/" maps every variable under the scope.

    Raises:
      ValueError: for names missing from the checkpoint or graph, or mismatched shapes.
    """
    from flowloom.framework.graph import get_default_graph
    from flowloom.ops.state import save_restore_ops, state_ops
    from flowloom.variables import Variable, global_variables

    prefix = _checkpoint_prefix(ckpt_dir_or_file)
    reader = CheckpointReader(prefix)
    shapes = reader.get_variable_to_shape_map()
    by_name = {v.op.name: v for v in global_variables()}
    pairs = []
    for ckpt_name, target in assignment_map.items():
        if isinstance(target, Variable):
            pairs.append((ckpt_name, target))
        elif ckpt_name.endswith("/") or ckpt_name == "/":
            source_scope = "" if ckpt_name == "/" else ckpt_name
            target_scope = "" if target == "/" else target
            for var_name, var in by_name.items():
                if var_name.startswith(target_scope):
                    full = source_scope + var_name[len(target_scope):]
                    if full in shapes:
                        pairs.append((full, var))
        else:
            if target not in by_name:
                raise ValueError(f"Tensor {target} is not found in the graph")
            pairs.append((ckpt_name, by_name[target]))
    graph = get_default_graph()
    for ckpt_name, var in pairs:
        if ckpt_name not in shapes:
            raise ValueError(f"Tensor {ckpt_name} is not found in {prefix} checkpoint "
                             f"{sorted(shapes)}")
        if var.shape.is_fully_defined() and var.shape.as_list() != shapes[ckpt_name]:
            raise ValueError(f"Shape of variable {var.op.name} ({var.shape}) doesn't match with "
                             f"shape of tensor {ckpt_name} ({shapes[ckpt_name]}) from checkpoint "
                             "reader.")
        name = var.op.name + "/Initializer"
        with graph.as_default(), graph.device("/device:CPU:0"):
            restored = save_restore_ops.restore_v2(prefix, [ckpt_name], [""],
                                                   [var.dtype.base_dtype],
                                                   name=name + "/RestoreV2")[0]
        var._initializer_op = state_ops.assign(var._variable, restored, name=name).op
        var._initial_value = restored


from flowloom.train.checkpoint_wait import (  # noqa: E402,F401
    checkpoints_iterator, wait_for_new_checkpoint)
