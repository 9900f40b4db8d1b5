"""`export_scoped_meta_graph` / `import_scoped_meta_graph` (TF's meta_graph module): the
MetaGraphDef of one name scope, and its import under another scope, with the scope's variables
by their names relative to it."""

from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.graph_def import strip_name_scope


def _var_list(graph, scope):
    return {strip_name_scope(v.name, scope): v
            for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)}


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None,
                             as_text=False, unbound_inputs_col_name="unbound_inputs",
                             clear_devices=False, saver_def=None, clear_extraneous_savers=False,
                             strip_default_attrs=False, save_debug_info=False, **kwargs):
    """The MetaGraphDef of the ops under `export_scope` (names stripped of it), written to
    `filename` if given, and the scope's variables by their stripped names.

    Returns:
      (meta_graph_def, var_list).
    """
    from flowloom.framework.meta_graph import export_meta_graph

    graph = graph or get_default_graph()
    meta = export_meta_graph(filename=filename, graph_def=graph_def, saver_def=saver_def,
                             as_text=as_text, graph=graph, export_scope=export_scope,
                             clear_devices=clear_devices,
                             clear_extraneous_savers=clear_extraneous_savers,
                             strip_default_attrs=strip_default_attrs,
                             save_debug_info=save_debug_info, **kwargs)
    return meta, _var_list(graph, export_scope)


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None,
                             import_scope=None, input_map=None,
                             unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=(lambda key: True)):
    """Imports a MetaGraphDef into `graph` under `import_scope` (no Saver is made); returns the
    imported variables by their names relative to the scope."""
    from flowloom.framework.meta_graph import import_graph_and_collections

    graph = graph or get_default_graph()
    import_graph_and_collections(meta_graph_or_file, clear_devices, import_scope, graph,
                                 input_map=input_map,
                                 restore_collections_predicate=restore_collections_predicate)
    return _var_list(graph, import_scope)
