"""GraphDebugInfo: where in the user's code the ops of a graph were made (TF's
`error_interpolation.create_graph_debug_info_def`), as `export_meta_graph(...,
save_debug_info=True)` writes it next to the meta graph (`model.debug`).

flowloom keeps, per op, the user's line that created it (`op.traceback`), not TF's whole
Python stack: each trace holds those frames, innermost first.
"""

from flowloom.proto import graph_debug_info_pb2


def create_graph_debug_info_def(operations):
    """A `GraphDebugInfo` proto for `operations`.

    Args:
      operations: an iterable of (function name prefix, Operation) pairs; the trace of each
        is keyed by prefix + the op's name ("" for ops of the graph itself).

    Returns:
      A `GraphDebugInfo`: `files` (each file once) and `traces` (file index, line per frame).

    Example:
      info = create_graph_debug_info_def([("", op) for op in graph.get_operations()])
    """
    info = graph_debug_info_pb2.GraphDebugInfo()
    frames_of = {}
    for func, op in operations:
        frames_of[func + op.name] = [(frame[0], frame[1]) for frame in op.traceback]
    files = sorted({name for frames in frames_of.values() for name, _ in frames})
    info.files.extend(files)
    index = {name: i for i, name in enumerate(files)}
    for node_name, frames in frames_of.items():
        trace = info.traces[node_name]
        for name, line in reversed(frames):
            trace.file_line_cols.add(file_index=index[name], line=line)
    return info
