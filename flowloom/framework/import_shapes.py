"""What `import_graph_def` does with a node's `_output_shapes` attr, as TF 1.15's importer.

The attr is not kept (it is re-derived at export), but each listed shape is merged with the
shape the op's shape function gives: a shape the function leaves unknown is refined (a loop
variable's Enter, whose shape function knows nothing, gets back the shape while_loop had set
when the graph was built; an Identity of an unknown-shape placeholder takes the listed
`[43]`); a shape that contradicts the function fails the import with TF's ValueError, except
for the op types TF's importer lets through because their old shape functions were wrong (its
whitelist).
"""

from flowloom.framework.tensor_shape import as_shape, interned

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


def refine_from_output_shapes(op, node, check=True):
    """Merges NodeDef `node`'s `_output_shapes` into the output shapes of `op` (imported as
    `op._name`).

    Args:
      op: the imported Operation.
      node: its NodeDef.
      check: whether a contradiction is an error (False while a loop's back edge is not
        connected yet: the shapes are worked out again once it is).

    Raises:
      ValueError: a listed shape contradicts the op's shape function (TF's words).
    """
    if "_output_shapes" not in node.attr:
        return
    for i, (tensor, proto) in enumerate(zip(op._outputs, node.attr["_output_shapes"].list.shape)):
        listed = as_shape(proto)
        error = _merge_error(tensor._shape, listed)
        if error is not None:
            if not check or op._type in _UNCHECKED:
                continue
            raise ValueError(f"Node '{op._name}' has an _output_shapes attribute inconsistent "
                             f"with the GraphDef for output #{i}: {error}")
        tensor._shape = interned(tensor._shape.merge_with(listed))
