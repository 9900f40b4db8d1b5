"""`tf.train.write_graph`: a GraphDef to a binary `.pb` or text `.pbtxt` file."""

import os

from google.protobuf import text_format

from flowloom.io.atomic_file import write_atomic
from flowloom.io import file_system


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph's GraphDef to `logdir/name` (crash-safely) and returns the path.

    Args:
      graph_or_graph_def: a Graph or a GraphDef.
      logdir: the directory (created if missing).
      name: the file name.
      as_text: write the text format (`.pbtxt`) instead of binary.

    Returns:
      The path of the file written.

    Example:
      tf.train.write_graph(sess.graph, "/tmp/model", "graph.pbtxt")
    """
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    logdir = os.fspath(logdir)
    if logdir:
        file_system.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        data = text_format.MessageToString(graph_def).encode("utf-8")
    else:
        data = graph_def.SerializeToString(deterministic=True)
    write_atomic(path, data)
    return path
