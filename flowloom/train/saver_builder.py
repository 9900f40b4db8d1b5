"""The graph a Saver adds, built by a saver builder as TF's BaseSaverBuilder builds it.

Names as in TF, under `save/`, `save_1/`, ...:
  save/filename/input, save/filename   the default prefix ("model"), a PlaceholderWithDefault
  save/Const                           the prefix tensor fed by `save`/`restore`
  save/SaveV2 (+ /tensor_names, /shape_and_slices), save/control_dependency
  save/RestoreV2 (on CPU), save/Assign, save/Assign_1, ..., save/restore_all

A builder subclass may override `save_op`, `bulk_restore`, `restore_op` or `sharded_filename`
(TF's extension points); `Saver(builder=...)` takes one.
"""

from flowloom.framework import device as device_lib
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.state import save_restore_ops
from flowloom.ops.strings import string_ops
from flowloom.proto import saver_pb2
from flowloom.train import saveable_object
from flowloom.train.saveables import make_concat_for_collections, saveables as _saveables

SaverDef = saver_pb2.SaverDef


class BaseSaverBuilder:
    """Builds the save and restore ops of a Saver; restores each saveable with its own
    RestoreV2 op (BulkSaverBuilder, the default, restores all with one)."""

    SaveSpec = saveable_object.SaveSpec
    SaveableObject = saveable_object.SaveableObject
    VariableSaveable = saveable_object.ReferenceVariableSaveable
    ResourceVariableSaveable = saveable_object.ResourceVariableSaveable

    def __init__(self, write_version=SaverDef.V2):
        self._write_version = write_version

    # -- the extension points ---------------------------------------------------------------
    def save_op(self, filename_tensor, saveables):
        """The op that writes every spec of `saveables` to `filename_tensor`."""
        names, tensors, slices = [], [], []
        for saveable in saveables:
            for spec in saveable.specs:
                names.append(spec.name)
                tensors.append(spec.tensor)
                slices.append(spec.slice_spec)
        if self._write_version == SaverDef.V1:
            from flowloom.ops.state import save_restore_v1_ops

            return save_restore_v1_ops.save_slices(filename_tensor, names, slices, tensors)
        if self._write_version == SaverDef.V2:
            return save_restore_ops.save_v2(filename_tensor, names, slices, tensors)
        raise RuntimeError(f"Unexpected write_version: {self._write_version}")

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        """The restored tensors of every spec of `saveables`, in order."""
        tensors = []
        for saveable in saveables:
            device = saveable_object.set_cpu0(saveable.device) if saveable.device else None
            with get_default_graph().device(device):
                tensors.extend(self.restore_op(filename_tensor, saveable, preferred_shard))
        return tensors

    def restore_op(self, filename_tensor, saveable, preferred_shard):
        """The restored tensors of one saveable's specs (one RestoreV2 each)."""
        return [save_restore_ops.restore_v2(filename_tensor, [spec.name], [spec.slice_spec],
                                            [spec.dtype])[0] for spec in saveable.specs]

    def sharded_filename(self, filename_tensor, shard, num_shards):
        """`filename_tensor` with `-0000i-of-0000n` appended."""
        return save_restore_ops.sharded_filename(filename_tensor, shard, num_shards)

    # -- the graph ----------------------------------------------------------------------------
    def _AddSaveOps(self, filename_tensor, saveables):
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _AddShardedSaveOpsForV2(self, checkpoint_prefix, per_device):
        # Each device's saveables go to `<prefix>_temp/part-0000i-of-0000n`, then
        # MergeV2Checkpoints joins the parts into `<prefix>`.
        graph = get_default_graph()
        with graph.device("CPU"):
            suffix = array_ops.where(string_ops.regex_full_match(checkpoint_prefix, "^s3://.*"),
                                     array_ops.constant(".part"),
                                     array_ops.constant("_temp/part"))
            temp_prefix = string_ops.string_join([checkpoint_prefix, suffix])
        num_shards = array_ops.constant(len(per_device), name="num_shards")
        saves, prefixes = [], []
        for shard, (device, saveables) in enumerate(per_device):
            with graph.device(saveable_object.set_cpu0(device)):
                prefix = self.sharded_filename(temp_prefix, shard, num_shards)
                prefixes.append(prefix)
                saves.append(self._AddSaveOps(prefix, saveables))
        with graph.control_dependencies([t.op for t in saves]), \
                graph.device(saveable_object.set_cpu0(per_device[-1][0])):
            packed = array_ops.stack(prefixes, name="MergeV2Checkpoints/checkpoint_prefixes")
            merge = save_restore_ops.merge_v2_checkpoints(packed, checkpoint_prefix,
                                                          delete_old_dirs=True)
            with graph.control_dependencies([merge]):
                return array_ops.identity(checkpoint_prefix)

    def _AddShardedSaveOps(self, filename_tensor, per_device):
        if self._write_version == SaverDef.V2:
            return self._AddShardedSaveOpsForV2(filename_tensor, per_device)
        # V1: one file per device, `<prefix>-0000i-of-0000n`; the save returns the pattern.
        graph = get_default_graph()
        num_shards = array_ops.constant(len(per_device), name="num_shards")
        saves = []
        for shard, (device, saveables) in enumerate(per_device):
            with graph.device(device or None):
                name = self.sharded_filename(filename_tensor, shard, num_shards)
                saves.append(self._AddSaveOps(name, saveables))
        with graph.control_dependencies([t.op for t in saves]):
            from flowloom.ops.state import save_restore_v1_ops

            return save_restore_v1_ops.sharded_filespec(filename_tensor, num_shards)

    def _AddRestoreOps(self, filename_tensor, saveables, restore_sequentially, reshape,
                       preferred_shard=-1, name="restore_all"):
        tensors = self.bulk_restore(filename_tensor, saveables, preferred_shard,
                                    restore_sequentially)
        assigns, at = [], 0
        for saveable in saveables:
            shapes = None
            if reshape:
                shapes = []
                for spec in saveable.specs:
                    value = spec.tensor
                    shape = value.get_shape()
                    shapes.append(shape.as_list() if shape.is_fully_defined()
                                  else array_ops.shape(value))
            restored = tensors[at:at + len(saveable.specs)]
            at += len(saveable.specs)
            assigns.append(saveable.restore(restored, shapes))
        return control_flow_ops.group(*assigns, name=name)

    def _AddShardedRestoreOps(self, filename_tensor, per_device, restore_sequentially,
                              reshape):
        graph = get_default_graph()
        shards = []
        for shard, (device, saveables) in enumerate(per_device):
            with graph.device(device or None):
                shards.append(self._AddRestoreOps(filename_tensor, saveables,
                                                  restore_sequentially, reshape,
                                                  preferred_shard=shard, name="restore_shard"))
        return control_flow_ops.group(*shards, name="restore_all")

    def _GroupByDevices(self, saveables):
        """[(canonical device, [saveables])] sorted by device.

        Raises:
          ValueError: if the tensors of one saveable are on different devices.
        """
        per_device = {}
        for saveable in saveables:
            devices = {device_lib.canonical_name(spec.device) for spec in saveable.specs}
            if len(devices) != 1:
                raise ValueError("All tensors of a saveable object must be on the same "
                                 f"device: {saveable.name}")
            per_device.setdefault(devices.pop(), []).append(saveable)
        return sorted(per_device.items(), key=lambda item: item[0])

    def build(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
              keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
              filename="model"):
        """Adds the save and restore ops of `names_to_saveables` (a list or dict of
        variables and SaveableObjects) to the default graph; returns their SaverDef."""
        return self._build_internal(names_to_saveables, reshape=reshape, sharded=sharded,
                                    max_to_keep=max_to_keep,
                                    keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                                    name=name, restore_sequentially=restore_sequentially,
                                    filename=filename)

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None,
                        restore_sequentially=False, filename="model", build_save=True,
                        build_restore=True):
        if not build_save or not build_restore:
            raise ValueError("save and restore operations need to be built together  when "
                             "eager execution is not enabled.")
        saveables = _saveables(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        with name_scope(name, "save", [s.op for s in saveables
                                       if hasattr(s.op, "graph") or hasattr(s.op, "_op")]):
            default = array_ops.constant(filename or "model", name="filename/input")
            filename_tensor = array_ops.placeholder_with_default(default, shape=(),
                                                                 name="filename")
            filename_tensor = array_ops.placeholder_with_default(filename_tensor, shape=(),
                                                                 name="Const")
            if sharded:
                per_device = self._GroupByDevices(saveables)
                save_tensor = self._AddShardedSaveOps(filename_tensor, per_device)
                restore_op = self._AddShardedRestoreOps(filename_tensor, per_device,
                                                        restore_sequentially, reshape)
            else:
                save_tensor = self._AddSaveOps(filename_tensor, saveables)
                restore_op = self._AddRestoreOps(filename_tensor, saveables,
                                                 restore_sequentially, reshape)
        make_concat_for_collections(get_default_graph())
        return SaverDef(filename_tensor_name=filename_tensor.name,
                        save_tensor_name=save_tensor.name, restore_op_name=restore_op.name,
                        max_to_keep=max_to_keep, sharded=sharded,
                        keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                        version=self._write_version)


class BulkSaverBuilder(BaseSaverBuilder):
    """The default builder: one RestoreV2 op on CPU restores every saveable."""

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        specs = [spec for saveable in saveables for spec in saveable.specs]
        with get_default_graph().device("/device:CPU:0"):
            return save_restore_ops.restore_v2(filename_tensor, [s.name for s in specs],
                                               [s.slice_spec for s in specs],
                                               [s.dtype for s in specs])
