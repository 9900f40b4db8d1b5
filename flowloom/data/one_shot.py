"""A one-shot iterator's dataset factory, as TF 1.15 writes it.

TF's OneShotIterator has no inputs: it builds its dataset by calling the function its
`dataset_factory` attr names, a copy of the ops that make the dataset (constants captured by
value). flowloom writes the same, so that TensorFlow reads its GraphDefs, where the dataset's
ops allow it: dataset ops and stateless ops only. A dataset that reads a placeholder or a
variable, runs a generator, or lives in a control-flow context keeps flowloom's own form (the
dataset as an input of the iterator), which TF 1.15 would refuse to build at all.
"""

import hashlib

_LIBRARY_DATASETS = frozenset(["GeneratorDataset"])  # names a Python generator


def _is_dataset_op(op):
    return op._type.endswith("Dataset") or op._type.endswith("DatasetV2")


def _subgraph(variant):
    """The ops `variant` depends on (inputs and control inputs), in graph order, or None
    where one of them cannot be copied into a function."""
    seen, stack = set(), [variant.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op._type in _LIBRARY_DATASETS or op._control_flow_context is not None:
            return None
        if op._opdef.stateful and not _is_dataset_op(op):
            return None
        if op._type in ("Placeholder", "PlaceholderWithDefault", "PlaceholderV2"):
            return None
        stack.extend(t.op for t in op._inputs)
        stack.extend(op._control_inputs)
    return [op for op in variant.graph.get_operations() if op in seen]


class _Ops:
    def __init__(self, ops):
        self._ops = ops

    def get_operations(self):
        return self._ops


def factory(dataset):
    """The name of a new library function that builds `dataset`, or None (see above)."""
    from flowloom.graph_function import function_def, runtime

    variant = dataset._variant
    ops = _subgraph(variant)
    if ops is None:
        return None
    graph = variant.graph
    while getattr(graph, "_outer_graph", None) is not None:
        graph = graph._outer_graph
    fdef = function_def.graph_to_function_def(
        _Ops(ops), [], [variant], library_signatures=runtime.signatures(variant.graph))
    fdef.signature.is_stateful = True
    # Named after its text, as TF names it: the same dataset built twice is one function.
    digest = hashlib.sha1(fdef.SerializeToString(deterministic=True)).hexdigest()[:12]
    fdef.signature.name = f"_make_dataset_{digest}"
    runtime.add_function(graph, fdef)
    return fdef.signature.name
