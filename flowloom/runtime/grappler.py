"""Grappler's Python entry point (TF's `tensorflow.python.grappler.tf_optimizer`): optimizes
the graph of a MetaGraphDef with the GraphDef passes flowloom has.

flowloom makes most of Grappler's rewrites (constant folding, arithmetic, dependency, CSE,
remapping, memory) on a run's plan when a Session runs the graph (runtime/rewrites.py), so a
graph computes the same values whether or not they were applied to its GraphDef beforehand.
The passes that change a GraphDef itself are made here:

  function   function calls inlined (runtime/rewrite_inline.py)

`RewriterConfig.optimizers` naming a pass flowloom has no GraphDef form of raises
NotImplementedError naming it.
"""

from flowloom.proto import config_pb2, graph_pb2

_OFF = 2  # RewriterConfig.Toggle.OFF
_DEFAULT_MIN_GRAPH_NODES = 4
# TF 1.15's meta-optimizer names whose pass flowloom makes only on run plans (or not at all).
_PLAN_ONLY = ("pruning", "constfold", "shape", "remap", "arithmetic", "dependency", "loop",
              "layout", "memory", "autoparallel", "scoped_allocator", "pin_to_host",
              "debug_stripper", "implementation_selector", "auto_mixed_precision",
              "common_subgraph_elimination")


def _fetch_nodes(metagraph):
    names = []
    if "train_op" in metagraph.collection_def:
        collection = metagraph.collection_def["train_op"]
        names.extend(collection.node_list.value)
    for signature in metagraph.signature_def.values():
        for info in signature.outputs.values():
            if info.name:
                names.append(info.name.split(":")[0].lstrip("^"))
    return names


def OptimizeGraph(config_proto, metagraph, verbose=True, graph_id=b"graph_to_optimize",
                  cluster=None):
    """Optimize the provided metagraph.

    Args:
      config_proto: a ConfigProto; its `graph_options.rewrite_options` choose the passes
        (an `optimizers` list runs those named, else the default set).
      metagraph: a MetaGraphDef; the nodes of its `train_op` collection and its signatures'
        outputs stay fetchable by name.
      verbose, graph_id, cluster: accepted as TF's (flowloom optimizes on the host).

    Returns:
      The optimized GraphDef.

    Raises:
      TypeError: `config_proto` is not a ConfigProto.
      NotImplementedError: `optimizers` names a pass flowloom has no GraphDef form of.
    """
    del verbose, graph_id, cluster
    if not isinstance(config_proto, config_pb2.ConfigProto):
        raise TypeError("Expected config_proto to be a ConfigProto, saw type "
                        f"{type(config_proto)}")
    rewrite = config_proto.graph_options.rewrite_options
    graph_def = graph_pb2.GraphDef()
    graph_def.CopyFrom(metagraph.graph_def)
    # TF leaves graphs under min_graph_nodes alone (0: TF's choice, 4; negative: never).
    min_nodes = rewrite.min_graph_nodes or _DEFAULT_MIN_GRAPH_NODES
    if rewrite.disable_meta_optimizer or len(graph_def.node) < min_nodes:
        return graph_def
    if rewrite.optimizers:
        passes = list(rewrite.optimizers)
        unknown = [name for name in passes if name != "function"]
        if unknown:
            known = [name for name in unknown if name in _PLAN_ONLY]
            raise NotImplementedError(
                "flowloom's OptimizeGraph has no GraphDef form of the Grappler pass(es) "
                f"{', '.join(unknown)}" + (" (flowloom applies them to run plans at "
                                           "Session.run)" if known else ""))
    else:
        passes = ["function"] if rewrite.function_optimization != _OFF else []
    if "function" in passes:
        from flowloom.runtime.rewrite_inline import inline_functions

        graph_def, _ = inline_functions(graph_def, keep=_fetch_nodes(metagraph))
    return graph_def
