"""Byte-level file formats, independent of the graph.

  crc32c       CRC32C and TF's masked CRC
  tfrecord     TFRecord framing (TFRecordWriter, tf_record_iterator, TFRecordOptions)
  table        LevelDB-format tables (checkpoint .index files)
  bundle       V2 checkpoints at array level (write_bundle, read_bundle, BundleReader)
  events       TensorBoard event files (EventFileWriter, summary_iterator)
  atomic_file  crash-safe writes (temp file, fsync, rename)
  png, wav     PNG and WAV encoders (TensorBoard image and audio summaries)
  example_wire strict reader of serialized tf.train.Example protos

It is also the public `tf.io` namespace: the names below resolve on first use, so that
importing the byte-level modules never pulls in the graph layers.
"""

_PUBLIC = {
    "TFRecordWriter": "flowloom.io.tfrecord",
    "TFRecordOptions": "flowloom.io.tfrecord",
    "TFRecordCompressionType": "flowloom.io.tfrecord",
    "tf_record_iterator": "flowloom.io.tfrecord",
    "FixedLenFeature": "flowloom.ops.parsing.parsing_ops",
    "FixedLenSequenceFeature": "flowloom.ops.parsing.parsing_ops",
    "VarLenFeature": "flowloom.ops.parsing.parsing_ops",
    "SparseFeature": "flowloom.ops.parsing.parsing_ops",
    "parse_example": "flowloom.ops.parsing.parsing_ops",
    "parse_single_example": "flowloom.ops.parsing.parsing_ops",
    "decode_raw": "flowloom.ops.parsing.decode_ops",
    "decode_csv": "flowloom.ops.parsing.decode_ops",
    "gfile": "flowloom",
    "write_graph": "flowloom.framework.graph_io",
}


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'flowloom.io' has no attribute '{name}'")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__():
    return sorted(list(globals()) + list(_PUBLIC))


# tf.io's other TF 1.15 names (flowloom/namespaces.py), resolved on first use too.
import sys as _sys  # noqa: E402

from flowloom import namespaces as _namespaces  # noqa: E402

_namespaces.extend(_sys.modules[__name__], "io")
