"""What `import_graph_def` does with a node's `_output_shapes` attr, as TF 1.15's importer.

The attr is not kept (it is re-derived at export), but each listed shape is merged with the
shape the op's shape function gives: a shape the function leaves unknown is refined (an
Identity of an unknown-shape placeholder takes the listed `[43]`); a shape that contradicts
the function fails the import with TF's ValueError, except for the op types TF's importer
lets through because their old shape functions were wrong (its whitelist).
"""

from flowloom.framework.tensor_shape import TensorShape

# TF 1.15's graph_constructor whitelist: op types whose listed shapes are not checked.
_UNCHECKED = frozenset((
    "RandomShuffleQueue", "PaddingFIFOQueue", "FIFOQueue", "PriorityQueue", "QueueSize",
    "Stack", "Barrier", "BarrierReadySize", "BarrierIncompleteSize", "HashTable",
    "MutableHashTable", "MutableHashTableOfTensors", "Mutex", "CuckooTable", "IndexTable",
    "WholeFileReader", "TextLineReader", "FixedLengthRecordReader", "TFRecordReader",
    "IdentityReader", "RefSwitch", "RefEnter", "RefNextIteration", "RefMerge", "RefIdentity",
    "LMDBReader", "ConditionalAccumulator", "SparseConditionalAccumulator", "Table"))


def _dims(shape):
    return "?" if shape.ndims is None else "[" + ",".join(
        "?" if d is None else str(d) for d in shape.as_list()) + "]"


def _merge_error(inferred, listed):
    """TF's C++ shape-merge message when `inferred` and `listed` disagree, else None."""
    if inferred.ndims is None or listed.ndims is None:
        return None
    if inferred.ndims != listed.ndims:
        return f"Shapes must be equal rank, but are {inferred.ndims} and {listed.ndims}"
    for i, (a, b) in enumerate(zip(inferred.as_list(), listed.as_list())):
        if a is not None and b is not None and a != b:
            return (f"Dimension {i} in both shapes must be equal, but are {a} and {b}. Shapes "
                    f"are {_dims(inferred)} and {_dims(listed)}.")
    return None


def apply_output_shapes(op, attr_value, full_name):
    """Merges the `_output_shapes` AttrValue of an imported node into `op`'s output shapes.

    Raises:
      ValueError: a listed shape contradicts the op's shape function (TF's words).
    """
    listed = attr_value.list.shape
    for i, (tensor, proto) in enumerate(zip(op._outputs, listed)):
        shape = TensorShape(None) if proto.unknown_rank else TensorShape(
            [None if d.size < 0 else d.size for d in proto.dim])
        error = _merge_error(tensor._shape, shape)
        if error is not None:
            if op._type in _UNCHECKED:
                continue
            raise ValueError(f"Node '{full_name}' has an _output_shapes attribute inconsistent "
                             f"with the GraphDef for output #{i}: {error}")
        tensor._shape = tensor._shape.merge_with(shape)
