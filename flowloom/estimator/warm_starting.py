"""Warm-starting an Estimator's variables from another checkpoint (`tf.estimator.
WarmStartSettings`, `tf.train.warm_start`)."""

import collections
import os

from flowloom.platform import tf_logging as logging
from flowloom.io import file_system


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Settings for warm-starting an Estimator.

    Example:
      ws = tf.estimator.WarmStartSettings(ckpt_to_initialize_from="/tmp/prev_model",
                                          vars_to_warm_start="dense.*")
      estimator = tf.estimator.Estimator(model_fn, warm_start_from=ws)

    Args:
      ckpt_to_initialize_from: a checkpoint prefix or a directory holding checkpoints.
      vars_to_warm_start: a regex over the trainable variables (default `.*`), a list of
        regexes over the global variables, a list of Variables, or None (none).
      var_name_to_vocab_info: variable name -> `VocabInfo` (vocabulary remapping).
      var_name_to_prev_var_name: variable name -> its name in the checkpoint.

    Raises:
      ValueError: `ckpt_to_initialize_from` is empty.
    """

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """Vocabulary information for warm-starting (`tf.estimator.VocabInfo`); remapping
    embeddings by vocabulary is not implemented in flowloom (warm_start raises)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                old_vocab_size=-1, backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def get_default_warm_start_settings(warm_start_from):
    """WarmStartSettings from `warm_start_from`: None, a checkpoint path, a SavedModel
    directory (its variables), or WarmStartSettings."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fsdecode(warm_start_from)
        if file_system.exists(os.path.join(path, "variables", "variables.index")):
            logging.info("Warm-starting from a SavedModel")
            return WarmStartSettings(ckpt_to_initialize_from=os.path.join(
                path, "variables", "variables"))
        return WarmStartSettings(ckpt_to_initialize_from=path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError("warm_start_from must be a string or a WarmStartSettings, instead got "
                     f"{type(warm_start_from)}")


def _variables_to_warm_start(vars_to_warm_start):
    from flowloom.framework.graph import GraphKeys, get_collection
    from flowloom.variables import Variable

    if isinstance(vars_to_warm_start, str):
        return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    if isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for regex in vars_to_warm_start:
                for v in get_collection(GraphKeys.GLOBAL_VARIABLES, scope=regex):
                    if v not in found:
                        found.append(v)
            return found
        if all(isinstance(v, Variable) for v in vars_to_warm_start):
            return list(vars_to_warm_start)
    if vars_to_warm_start is None:
        return []
    raise ValueError("vars_to_warm_start must be a `list` or `str`; given "
                     f"{vars_to_warm_start}")


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Makes the chosen variables of the default graph initialize from a checkpoint.

    Raises:
      ValueError: a `var_name_to_prev_var_name` entry names no warm-started variable, or the
        checkpoint lacks a variable.
      NotImplementedError: `var_name_to_vocab_info` (vocabulary remapping).
    """
    from flowloom.train.checkpoint_utils import init_from_checkpoint

    logging.info("Warm-starting from: {}".format(ckpt_to_initialize_from))
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    if var_name_to_vocab_info:
        raise NotImplementedError("warm_start with var_name_to_vocab_info (vocabulary "
                                  "remapping of embeddings)")
    used = set()
    count = 0
    for var in _variables_to_warm_start(vars_to_warm_start):
        name = var.op.name
        prev = var_name_to_prev_var_name.get(name)
        if prev:
            used.add(name)
        init_from_checkpoint(ckpt_to_initialize_from, {prev or name: var})
        count += 1
    unused = set(var_name_to_prev_var_name) - used
    if unused:
        raise ValueError("You provided the following variables in var_name_to_prev_var_name "
                         f"that were not used: {unused}.  Perhaps you misspelled them?  Here "
                         "is the list of viable variable names: "
                         f"{[v.op.name for v in _variables_to_warm_start(vars_to_warm_start)]}")
    logging.info("Warm-started %d variables.", count)
