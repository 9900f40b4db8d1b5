"""Op types removed at a GraphDef version (TF's op deprecation), checked when an op is built.

An op type marked `OpDef.deprecated(version, explanation)` cannot be built into a graph whose
producer version (`graph.graph_def_versions.producer`: flowloom's GRAPH_DEF_VERSION, or the
version an imported GraphDef brought) is at least `version`, as in TF's op library.
"""


def check_deprecation(opdef, graph):
    """Raises NotImplementedError (TF's words) when `graph`'s producer version no longer has
    `opdef`'s type."""
    version, explanation = opdef.deprecation
    producer = graph.graph_def_versions.producer
    if producer >= version:
        raise NotImplementedError(
            f"Op {opdef.type} is not available in GraphDef version {producer}. It has been "
            f"removed in version {version}. {explanation}.")


def set_producer_version(graph, producer_version):
    """Lowers `graph.graph_def_versions.producer` to `producer_version` (TF's test_util
    helper): as importing a GraphDef of that producer into the graph does."""
    from flowloom.framework.importer import import_graph_def
    from flowloom.proto import graph_pb2

    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = producer_version
    with graph.as_default():
        import_graph_def(graph_def)
