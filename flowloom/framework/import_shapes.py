"""An imported node's `_output_shapes` refines the shapes its op's shape function gives, as
TF's importer does: a loop variable's Enter, whose shape function knows nothing, gets back
the shape while_loop had set when the graph was built.
"""

from flowloom.framework.tensor_shape import as_shape, interned


def refine_from_output_shapes(op, node):
    """Merges NodeDef `node`'s `_output_shapes` into `op`'s output shapes. A shape that does
    not fit what flowloom infers is left as inferred (TF refuses all but a few op types;
    flowloom keeps what its own shape function says)."""
    if "_output_shapes" not in node.attr:
        return
    shapes = node.attr["_output_shapes"].list.shape
    if len(shapes) != len(op._outputs):
        return
    for tensor, proto in zip(op._outputs, shapes):
        recorded = as_shape(proto)
        if recorded.ndims is not None and recorded.is_compatible_with(tensor._shape):
            tensor._shape = interned(tensor._shape.merge_with(recorded))
