"""Evaluation results written as summaries into the eval directory, as TF's Estimator
writes them (scalars as simple values, arrays as tensors, the checkpoint path as a string)."""

import numpy as np

from flowloom.platform import tf_logging as logging


def _dict_to_str(dictionary):
    return ", ".join("%s = %s" % (k, v) for k, v in sorted(dictionary.items())
                     if not isinstance(v, bytes))


def write_dict_to_summary(output_dir, dictionary, current_global_step):
    """Writes the values of `dictionary` (all but `global_step`) as one Summary at
    `current_global_step` into `output_dir`'s event file."""
    from google.protobuf.message import DecodeError

    from flowloom.framework.tensor_util import make_tensor_proto
    from flowloom.proto.summary_pb2 import Summary
    from flowloom.summary.writer import FileWriterCache

    logging.info("Saving dict for global step %d: %s", current_global_step,
                 _dict_to_str(dictionary))
    writer = FileWriterCache.get(output_dir)
    proto = Summary()
    for key, value in dictionary.items():
        if value is None or key == "global_step":
            continue
        if isinstance(value, (np.float32, float)):
            proto.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, (np.int64, np.int32, int)):
            proto.value.add(tag=key, simple_value=int(value))
        elif isinstance(value, bytes):
            try:
                summ = Summary.FromString(value)
            except DecodeError:
                logging.warning("Skipping summary for %s, cannot parse string to Summary.", key)
                continue
            for i, _ in enumerate(summ.value):
                summ.value[i].tag = "%s/%d" % (key, i)
            proto.value.extend(summ.value)
        elif isinstance(value, np.ndarray):
            entry = proto.value.add()
            entry.tag = key
            entry.node_name = key
            entry.tensor.CopyFrom(make_tensor_proto(value))
            logging.info("Summary for np.ndarray is not visible in Tensorboard by default. "
                         "Consider using a Tensorboard plugin for visualization (see "
                         "https://github.com/tensorflow/tensorboard-plugin-example/blob/master/"
                         "README.md for more information).")
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or np.ndarray or a serialized string of Summary.",
                            key)
    writer.add_summary(proto, current_global_step)
    writer.flush()


def write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    """Writes the `checkpoint_path` string summary the Estimator adds after an evaluation."""
    from flowloom.framework import dtypes
    from flowloom.framework.tensor_util import make_tensor_proto
    from flowloom.proto.summary_pb2 import Summary
    from flowloom.summary.writer import FileWriterCache

    tag = "checkpoint_path"
    logging.info("Saving '%s' summary for global step %d: %s", tag, current_global_step,
                 checkpoint_path)
    proto = Summary()
    proto.value.add(tag=tag, tensor=make_tensor_proto(checkpoint_path, dtype=dtypes.string))
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(proto, current_global_step)
    writer.flush()
