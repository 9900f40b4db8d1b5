"""`tf.train.Saver`: saves and restores variables and other saveables through the ops a
saver builder adds (saver_builder.py; TF's graph, names and formats).

`save` writes the bundle (crash-safe: data file, then index, each renamed into place), then
the meta graph, then the `checkpoint` state file (also renamed into place), and only then
deletes checkpoints beyond `max_to_keep`: a process killed at any point leaves the state file
pointing at a complete checkpoint.
"""

import logging
import numbers
import os
import time  # the clock checkpoints are kept by (TF's tests replace saver.time)

from flowloom.framework import errors
from flowloom.framework.graph_def import prepend_name_scope, strip_name_scope
from flowloom.proto import saver_pb2
from flowloom.train import checkpoint_management
from flowloom.train.saver_builder import BaseSaverBuilder, BulkSaverBuilder  # noqa: F401
from flowloom.io import file_system

SaverDef = saver_pb2.SaverDef
_log = logging.getLogger("tensorflow")  # TF logs these lines on its logger


class Saver:
    """Saves and restores variables in TF's V2 checkpoint format.

    Args:
      var_list: Variables to save: a list (saved under their op names) or a dict of
        checkpoint name -> Variable. Default: all global variables plus the
        `saveable_objects` collection.
      reshape: restore a checkpoint tensor of another shape (same number of elements) by
        reshaping it to the variable's shape.
      sharded: save one bundle per device and merge them (TF's sharded V2 save).
      max_to_keep: how many recent checkpoints to keep (None or 0: all).
      keep_checkpoint_every_n_hours: additionally keep one checkpoint per this many hours.
      name: name scope of the saver's ops (default "save").
      restore_sequentially: accepted; restoring is one RestoreV2 op either way.
      saver_def: build from this SaverDef (ops already in the graph) instead.
      builder: the saver builder making the ops (default: a BulkSaverBuilder).
      defer_build: build the graph only at `build()`.
      allow_empty: with no variables, make a Saver that does nothing instead of raising.
      write_version: SaverDef.V2 (default) or SaverDef.V1 (TF's older table format).
      pad_step_number: write `model-00000100` instead of `model-100`.
      save_relative_paths: write paths relative to the directory in the state file.
      filename: the default prefix used when none is fed.

    Raises:
      ValueError: if there are no variables to save (unless `allow_empty`), or two share
        a name.
      TypeError: if `var_list` holds something that is not a variable.

    Example:
      saver = tf.train.Saver(max_to_keep=3)
      saver.save(sess, "/tmp/model.ckpt", global_step=step)
      saver.restore(sess, tf.train.latest_checkpoint("/tmp"))
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=SaverDef.V2, pad_step_number=False, save_relative_paths=False,
                 filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        self._var_list = var_list
        self._builder = builder
        self._restore_sequentially = restore_sequentially
        self._is_built = False
        self._write_version = write_version
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._is_empty = False
        self._last_checkpoints = []  # [(prefix, time)], oldest first
        self._checkpoints_to_be_deleted = []
        self.saver_def = saver_def
        if not defer_build:
            self.build()
        if self.saver_def is not None:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._next_checkpoint_time = time.time() + self._keep_hours * 3600

    # -- building ------------------------------------------------------------------------------
    def build(self):
        """Adds the save and restore ops to the default graph (once)."""
        if self._is_built:
            return
        self._is_built = True
        if self.saver_def is not None:
            if self._name:
                # `name` doubles as the import scope of a given SaverDef's names, as in TF.
                for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                    setattr(self.saver_def, field,
                            prepend_name_scope(getattr(self.saver_def, field), self._name))
            self._check_saver_def()
            return
        var_list = self._var_list
        if var_list is None:
            from flowloom.variables import all_saveable_objects

            var_list = all_saveable_objects()
        if not var_list:
            if self._allow_empty:
                self._is_empty = True
                return
            raise ValueError("No variables to save")
        if self._builder is None:
            self._builder = BulkSaverBuilder(self._write_version)
        self.saver_def = self._builder._build_internal(
            var_list, reshape=self._reshape, sharded=self._sharded,
            max_to_keep=self._max_to_keep, keep_checkpoint_every_n_hours=self._keep_hours,
            name=self._name, restore_sequentially=self._restore_sequentially,
            filename=self._filename)
        self._check_saver_def()
        self._next_checkpoint_time = time.time() + self._keep_hours * 3600

    def _check_saver_def(self):
        if not isinstance(self.saver_def, SaverDef):
            raise TypeError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        for field in ("save_tensor_name", "restore_op_name", "filename_tensor_name"):
            if not getattr(self.saver_def, field):
                raise ValueError(f"saver_def must specify the {field}: {self.saver_def}")
        self._max_to_keep = self.saver_def.max_to_keep
        self._keep_hours = self.saver_def.keep_checkpoint_every_n_hours

    def as_saver_def(self):
        """The SaverDef naming this saver's ops."""
        return self.saver_def

    def to_proto(self, export_scope=None):
        """The SaverDef with `export_scope` stripped from its names."""
        if export_scope is None:
            return self.saver_def
        if not self.saver_def.save_tensor_name.startswith(export_scope):
            return None
        proto = SaverDef()
        proto.CopyFrom(self.saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(proto, field, strip_name_scope(getattr(proto, field), export_scope))
        return proto

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        """A Saver over the ops a SaverDef names (under `import_scope`)."""
        proto = SaverDef()
        proto.CopyFrom(saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(proto, field, prepend_name_scope(getattr(proto, field), import_scope))
        return Saver(saver_def=proto)

    # -- the checkpoints kept -------------------------------------------------------------------
    @property
    def last_checkpoints(self):
        """The prefixes of the checkpoints not yet deleted, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        self._last_checkpoints = [(p, None) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over `checkpoint_paths` (e.g. from a CheckpointState) as the kept list."""
        mtimes = checkpoint_management.get_checkpoint_mtimes(checkpoint_paths)
        self.set_last_checkpoints_with_time(list(zip(checkpoint_paths, mtimes)))

    def _record_last_checkpoint(self, path):
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix):
        while self._checkpoints_to_be_deleted:
            path, saved_at = self._checkpoints_to_be_deleted.pop(0)
            if saved_at is not None and saved_at > self._next_checkpoint_time:
                self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
                continue
            try:
                checkpoint_management.remove_checkpoint(path, self.saver_def.version,
                                                        meta_graph_suffix)
            except OSError as e:
                _log.warning("Ignoring: failed to delete %s: %s", path, e)

    # -- saving and restoring ---------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables to the checkpoint `save_path` (`save_path-<global_step>`).

        Args:
          sess: the Session holding the variables' values.
          save_path: the checkpoint prefix.
          global_step: optional step number (int, Tensor or Variable) appended to the prefix.
          latest_filename: name of the state file (default "checkpoint").
          meta_graph_suffix: suffix of the meta graph file.
          write_meta_graph: also write `<prefix>.meta`.
          write_state: update the state file and delete checkpoints beyond `max_to_keep`.
          strip_default_attrs: drop attrs at their default values from the meta graph.
          save_debug_info: also write the meta graph's GraphDebugInfo (`<prefix>.debug`).

        Returns:
          The checkpoint prefix written, or None for an empty Saver.

        Raises:
          TypeError: if `sess` is not a Session.
          ValueError: if the parent directory does not exist or `latest_filename` is bad.
        """
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if self._write_version != SaverDef.V2:
            for line in ("*" * 55, "TensorFlow's V1 checkpoint format has been deprecated.",
                         "Consider switching to the more efficient V2 format:",
                         "   `tf.train.Saver(write_version=tf.train.SaverDef.V2)`",
                         "now on by default.", "*" * 55):
                _log.warning(line)
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, numbers.Number):
                from flowloom.train import training_util  # TF: a one-element step reads too

                global_step = training_util.global_step(sess, global_step)
            step_format = "%s-%08d" if self._pad_step_number else "%s-%d"
            checkpoint_file = step_format % (save_path, int(global_step))
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': "
                                 f"'{latest_filename}' and '{save_path}'")
        if not hasattr(sess, "run"):
            raise TypeError(f"'sess' must be a Session; {sess}")
        parent = os.path.dirname(save_path)
        if parent and file_system.exists(parent) and not file_system.isdir(parent):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if parent and not file_system.isdir(parent):
            # TF's unsharded save writes its bundle straight at the prefix and creates the
            # missing folder (one level, not its parents); a sharded save writes into a temp
            # folder beside it first and fails.
            grandparent = os.path.dirname(parent)
            if self._sharded or (grandparent and not file_system.isdir_ok(grandparent)):
                raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
            file_system.makedirs(parent, exist_ok=True)
        prefix = None
        if not self._is_empty:
            prefix = sess.run(self.saver_def.save_tensor_name,
                              {self.saver_def.filename_tensor_name: checkpoint_file})
            prefix = prefix.decode("utf-8") if isinstance(prefix, bytes) else str(prefix)
        if write_meta_graph:
            # An empty Saver still writes the meta graph, as TF's.
            self.export_meta_graph(
                checkpoint_management.meta_graph_filename(checkpoint_file, meta_graph_suffix),
                strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info,
                graph=sess.graph)
        if self._is_empty:
            return None
        if write_state:
            self._record_last_checkpoint(prefix)
            checkpoint_management.update_checkpoint_state(
                parent, prefix, self.last_checkpoints or None, latest_filename,
                save_relative_paths=self._save_relative_paths)
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        return prefix

    def restore(self, sess, save_path):
        """Restores the variables from the checkpoint `save_path`.

        Raises:
          ValueError: if `save_path` is None or names no checkpoint.
          NotFoundError: if a variable is missing from the checkpoint.
          InvalidArgumentError: if a variable's dtype or shape differs from the checkpoint's.
          DataLossError: if the checkpoint's files are corrupt.
        """
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_management.checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: " + save_path)
        _log.info("Restoring parameters from %s", save_path)
        try:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: save_path})
        except errors.NotFoundError as e:
            raise errors.NotFoundError(
                None, None, "Restoring from checkpoint failed. This is most likely due to a "
                "Variable name or other graph key that is missing from the checkpoint. Please "
                "ensure that you have not altered the graph expected based on the checkpoint. "
                "Original error:\n\n" + e.message) from None
        except errors.InvalidArgumentError as e:
            raise errors.InvalidArgumentError(
                None, None, "Restoring from checkpoint failed. This is most likely due to a "
                "mismatch between the current graph and the graph from the checkpoint. Please "
                "ensure that you have not altered the graph expected based on the checkpoint. "
                "Original error:\n\n" + e.message) from None

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False, graph=None):
        """Writes (and returns) a MetaGraphDef that includes this saver's SaverDef."""
        from flowloom.framework import meta_graph

        return meta_graph.export_meta_graph(
            filename=filename, graph=graph, saver_def=self.saver_def,
            collection_list=collection_list, as_text=as_text, export_scope=export_scope,
            clear_devices=clear_devices, clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    @staticmethod
    def _add_collection_def(meta_graph_def, key, export_scope=None):
        """Adds collection `key` of the default graph to `meta_graph_def`."""
        from flowloom.framework import meta_graph

        meta_graph.add_collection_def(meta_graph_def, key, export_scope=export_scope)


def _get_saver_or_default():
    """The one Saver of the SAVERS collection, or a new sharded one added to it (TF's)."""
    from flowloom.train.scaffold import _get_saver_or_default as get

    return get()
