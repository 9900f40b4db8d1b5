"""The `checkpoint` state file and finding checkpoints: `tf.train.latest_checkpoint` & co.

The state file is a text-format CheckpointState proto, rewritten crash-safely (temporary
file, fsync, rename) after the checkpoint it names is complete, so it always points at a
checkpoint that restores.
"""

import glob
import logging
import os
import re
import time

from google.protobuf import text_format

from flowloom.io import bundle
from flowloom.io.atomic_file import write_atomic
from flowloom.proto import checkpoint_state_pb2, saver_pb2
from flowloom.io import file_system
from flowloom.framework import errors

CheckpointState = checkpoint_state_pb2.CheckpointState
_log = logging.getLogger("flowloom")


def _state_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """Returns a CheckpointState whose last `all_model_checkpoint_paths` entry is the latest.

    Raises:
      ValueError: if the timestamps do not match the paths one to one.
    """
    # As TF: the caller's list itself gets the latest path appended and its relative paths
    # rewritten (callers such as Saver rely on seeing the list the state holds).
    paths = all_model_checkpoint_paths
    if paths is None:
        paths = []
    elif not isinstance(paths, list):
        paths = list(paths)
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths (got "
                         f"paths {paths} and timestamps {all_model_checkpoint_timestamps})")
    # Relative paths are taken relative to a relative save_dir, as TF does.
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        for i, p in enumerate(paths):
            if not os.path.isabs(p):
                paths[i] = os.path.relpath(p, save_dir)
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path,
                            all_model_checkpoint_paths=paths,
                            all_model_checkpoint_timestamps=all_model_checkpoint_timestamps or [])
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, save_relative_paths=False):
    """Writes the `checkpoint` state file of `save_dir` crash-safely.

    Args:
      save_dir: the directory holding the checkpoints and the state file.
      model_checkpoint_path: the latest checkpoint's prefix.
      all_model_checkpoint_paths: the prefixes of the checkpoints kept, oldest first.
      latest_filename: the state file's name (default "checkpoint").
      all_model_checkpoint_timestamps, last_preserved_timestamp: optional times.
      save_relative_paths: store paths relative to `save_dir`.

    Raises:
      RuntimeError: if the checkpoint prefix is the state file itself.
    """
    paths = all_model_checkpoint_paths
    if save_relative_paths:
        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths or []]
    state = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, paths,
                                            all_model_checkpoint_timestamps,
                                            last_preserved_timestamp)
    filename = _state_filename(save_dir, latest_filename)
    if filename == state.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           "checkpoint state.  Please use a different save path.")
    write_atomic(filename, text_format.MessageToString(state).encode("utf-8"))


update_checkpoint_state_internal = update_checkpoint_state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """Returns the CheckpointState of `checkpoint_dir`, or None if there is none (or it does
    not parse); relative paths in it are joined to `checkpoint_dir`.

    Raises:
      ValueError: if the state file names no checkpoint.
    """
    filename = _state_filename(os.fspath(checkpoint_dir), latest_filename)
    try:
        if not file_system.isfile(filename):
            return None
        with file_system.open_file(filename, "rb") as f:
            content = f.read()
    except errors.OpError as e:  # as TF: a warning, and no state
        _log.warning("%s: %s", type(e).__name__, e.message)
        _log.warning("%s: Checkpoint ignored", filename)
        return None
    state = CheckpointState()
    try:
        text_format.Merge(content.decode("utf-8"), state)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", filename)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + os.fspath(checkpoint_dir))
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def checkpoint_exists(checkpoint_prefix):
    """True if a V2 checkpoint (its `.index`) or a V1 checkpoint file matches the prefix."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    if file_system.glob(checkpoint_prefix + ".index"):
        return True
    return any(file_system.isfile(p) for p in file_system.glob(checkpoint_prefix))


checkpoint_exists_internal = checkpoint_exists


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """Returns the prefix of the latest checkpoint in `checkpoint_dir`, or None.

    Example:
      saver.restore(sess, tf.train.latest_checkpoint("/tmp/model"))
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """`model.ckpt-100` -> `model.ckpt-100.meta`."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return f"{basename}.{meta_graph_suffix}"


def _checkpoint_files(prefix, meta_graph_suffix):
    files = [bundle.index_filename(prefix)]
    files += file_system.glob(glob.escape(prefix) + ".data-?????-of-?????")
    files.append(meta_graph_filename(prefix, meta_graph_suffix))
    return files


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=saver_pb2.SaverDef.V2,
                      meta_graph_suffix="meta"):
    """Deletes a checkpoint's files (index, data shards, meta graph); missing ones are
    ignored. The index goes first, so a half-removed checkpoint never looks complete."""
    prefix = os.fspath(checkpoint_prefix)
    if checkpoint_format_version == saver_pb2.SaverDef.V2:
        paths = _checkpoint_files(prefix, meta_graph_suffix)
    else:
        # A V1 checkpoint: the files matching the prefix (a pattern when sharded).
        paths = file_system.glob(prefix) + [meta_graph_filename(prefix, meta_graph_suffix)]
    for path in paths:
        try:
            file_system.remove(path)
        except errors.NotFoundError:
            pass


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times (seconds) of the checkpoints that exist: a V2 checkpoint's
    index file, else the first V1 file matching the prefix."""
    out = []
    for prefix in checkpoint_prefixes:
        try:
            out.append(file_system.stat(bundle.index_filename(prefix)).st_mtime)
            continue
        except errors.NotFoundError:
            pass
        for path in file_system.glob(prefix):
            try:
                out.append(file_system.stat(path).st_mtime)
                break
            except errors.NotFoundError:
                pass
    return out


def now():
    """The clock the Saver keeps checkpoints by (tests may replace it)."""
    return time.time()
