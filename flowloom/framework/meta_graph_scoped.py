"""Scoped meta graphs (TF's meta_graph module): the MetaGraphDef of one name scope, its import
under another scope, and `copy_scoped_meta_graph` (both at once).

Exporting a scope keeps its nodes with the scope stripped from their names; an input from
outside the scope becomes `$unbound_inputs_<name>` and is listed in the `unbound_inputs`
collection, and importing such a MetaGraphDef needs an `input_map` for exactly those names.
`clear_extraneous_savers` drops the save/restore scopes of every Saver except the one whose
SaverDef is exported.
"""

import copy

from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.graph_def import strip_name_scope

UNBOUND_INPUT_PREFIX = "$unbound_inputs_"
SAVE_AND_RESTORE_OPS = ("SaveV2", "Save", "SaveSlice", "LegacySave", "LegacySaveSlice",
                        "RestoreV2", "Restore", "RestoreSlice", "LegacyRestore",
                        "LegacyRestoreSlice")


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def scoped_node_def(node, export_scope, unbound_inputs, clear_devices=False):
    """A copy of NodeDef `node` with `export_scope` stripped from its names; inputs from
    outside the scope are renamed `$unbound_inputs_<input>` and appended to
    `unbound_inputs`."""
    new = copy.deepcopy(node)
    for i, name in enumerate(node.input):
        if export_scope and not name.lstrip("^").startswith(export_scope):
            control = name.startswith("^")
            renamed = ("^" if control else "") + UNBOUND_INPUT_PREFIX + name.lstrip("^")
            new.input[i] = renamed
            unbound_inputs.append(renamed)
        else:
            new.input[i] = strip_name_scope(name, export_scope)
    new.name = strip_name_scope(node.name, export_scope)
    if "_class" in node.attr:
        kept = [strip_name_scope(_text(s), export_scope).encode("utf-8")
                for s in node.attr["_class"].list.s
                if not export_scope or _text(s).split("@")[1].startswith(export_scope)]
        del new.attr["_class"].list.s[:]
        new.attr["_class"].list.s.extend(kept)
    if node.op in ("Enter", "RefEnter") and "frame_name" in node.attr:
        frame = _text(node.attr["frame_name"].s)
        if not export_scope or frame.startswith(export_scope):
            new.attr["frame_name"].s = strip_name_scope(frame, export_scope).encode("utf-8")
    if clear_devices:
        new.device = ""
    return new


def should_include_node(node_or_name, export_scope, exclude_nodes):
    """Whether a node (or a collection element with a name) belongs to the export."""
    if isinstance(node_or_name, (str, bytes)):
        name = _text(node_or_name)
    else:
        name = getattr(node_or_name, "name", None)
        if not isinstance(name, str):
            return True
    if exclude_nodes and name in exclude_nodes:
        return False
    return name.startswith(UNBOUND_INPUT_PREFIX) or not export_scope or \
        name.startswith(export_scope)


def _op_name(tensor_name):
    name = tensor_name.lstrip("^")
    return name.split(":")[0]


def _scope_of(node_name):
    name = node_name.lstrip("^")
    return name.rsplit("/", 1)[0] if "/" in name else ""


def find_extraneous_saver_nodes(graph_def, saver_def):
    """The names of the nodes in the name scopes of Savers other than `saver_def`'s (each
    Saver keeps its ops in a scope of its own)."""
    types = {node.name: node.op for node in graph_def.node}
    keep = set()
    if saver_def is not None:
        keep = {_scope_of(_op_name(saver_def.save_tensor_name)) + "/",
                _scope_of(_op_name(saver_def.restore_op_name)) + "/"}
    saver_nodes = {name for name, op in types.items() if op in SAVE_AND_RESTORE_OPS}
    scopes = {_scope_of(name) for name in saver_nodes} - saver_nodes
    extraneous = {scope + "/" for scope in scopes} - keep
    return {name for name in types if any(name.startswith(s) for s in extraneous)}


def scoped_graph_def(graph_def, export_scope=None, clear_devices=False, exclude_nodes=None):
    """(GraphDef of the nodes in `export_scope` minus `exclude_nodes`, names stripped,
    the list of its unbound inputs)."""
    out = type(graph_def)()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    unbound = []
    for node in graph_def.node:
        if should_include_node(node.name, export_scope, exclude_nodes):
            out.node.append(scoped_node_def(node, export_scope, unbound, clear_devices))
    return out, unbound


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None,
                             as_text=False, unbound_inputs_col_name="unbound_inputs",
                             clear_devices=False, saver_def=None, clear_extraneous_savers=False,
                             strip_default_attrs=False, save_debug_info=False, **kwargs):
    """The MetaGraphDef of the ops under `export_scope` (names stripped of it), written to
    `filename` if given, and the scope's variables by their stripped names.

    Args:
      unbound_inputs_col_name: the collection (of the graph and the MetaGraphDef) that lists
        the inputs from outside the scope, which an import must map.
      clear_extraneous_savers: leave out other Savers' ops and SaverDefs.
      **kwargs: `meta_info_def`, `collection_list`.

    Returns:
      (meta_graph_def, var_list).
    """
    from flowloom.framework.meta_graph import create_meta_graph_def, write_meta_graph

    graph = graph or get_default_graph()
    exclude_nodes = None
    if export_scope or clear_extraneous_savers or clear_devices:
        if graph_def is None:
            graph_def = graph.as_graph_def(add_shapes=True)
        if clear_extraneous_savers:
            exclude_nodes = find_extraneous_saver_nodes(graph_def, saver_def)
        graph_def, unbound = scoped_graph_def(graph_def, export_scope, clear_devices,
                                              exclude_nodes)
        if unbound_inputs_col_name:
            graph.clear_collection(unbound_inputs_col_name)
            for name in unbound:
                graph.add_to_collection(unbound_inputs_col_name, name)
    var_list = {}
    for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if should_include_node(v, export_scope, exclude_nodes):
            var_list[strip_name_scope(v.name, export_scope)] = v
    meta = create_meta_graph_def(graph_def=graph_def, graph=graph, export_scope=export_scope,
                                 exclude_nodes=exclude_nodes,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 saver_def=saver_def, strip_default_attrs=strip_default_attrs,
                                 **kwargs)
    if filename:
        write_meta_graph(meta, filename, as_text)
        if save_debug_info:
            _write_debug_info(meta, filename, graph, export_scope, as_text)
    return meta, var_list


def _write_debug_info(meta, filename, graph, export_scope, as_text):
    """TF's `save_debug_info`: the GraphDebugInfo of the exported nodes in `<name>.debug`
    beside `filename`."""
    import os

    from flowloom.framework import error_interpolation
    from flowloom.framework.graph_def import prepend_name_scope
    from flowloom.framework.graph_io import write_graph

    ops = [("", graph.get_operation_by_name(prepend_name_scope(node.name, export_scope)))
           for node in meta.graph_def.node]
    debug_filename = os.path.splitext(os.fspath(filename))[0] + ".debug"
    write_graph(error_interpolation.create_graph_debug_info_def(ops),
                os.path.dirname(debug_filename), os.path.basename(debug_filename),
                as_text=as_text)


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None,
                             import_scope=None, input_map=None,
                             unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=(lambda key: True)):
    """Imports a MetaGraphDef into `graph` under `import_scope` (no Saver is made); returns the
    imported variables by their names relative to the scope.

    Raises:
      ValueError: if the MetaGraphDef has unbound inputs that `input_map` does not map.
    """
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, graph, import_scope, input_map,
        unbound_inputs_col_name, restore_collections_predicate)[0]


def import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices=False, graph=None, import_scope=None,
        input_map=None, unbound_inputs_col_name="unbound_inputs",
        restore_collections_predicate=(lambda key: True), return_elements=None):
    """import_scoped_meta_graph, also returning the elements `return_elements` names:
    (var_list, elements)."""
    from flowloom.framework.meta_graph import import_graph_and_collections, read_meta_graph_file
    from flowloom.proto import meta_graph_pb2

    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    if unbound_inputs_col_name and unbound_inputs_col_name in meta.collection_def:
        col = meta.collection_def[unbound_inputs_col_name]
        kind = col.WhichOneof("kind")
        names = [_text(v) for v in getattr(col, kind).value] if kind else []
        if names and (not input_map or sorted(names) != sorted(input_map)):
            raise ValueError("Graph contains unbound inputs: %s. Must provide these inputs "
                             "through input_map." % ",".join(
                                 n for n in names if not input_map or n not in input_map))
    graph = graph or get_default_graph()
    scope = graph.unique_name(import_scope or "", mark_as_used=False)

    def predicate(key):
        return key != unbound_inputs_col_name and restore_collections_predicate(key)

    _, _, elements = import_graph_and_collections(
        meta, clear_devices, import_scope or scope, graph, input_map=input_map,
        return_elements=return_elements, restore_collections_predicate=predicate,
        collection_scope=scope)
    var_list = {strip_name_scope(v.name, scope): v
                for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)}
    return var_list, elements


def copy_scoped_meta_graph(from_scope, to_scope, from_graph=None, to_graph=None):
    """Copies the ops under `from_scope` (of `from_graph`) to `to_scope` (of `to_graph`);
    returns the copied variables by their names relative to `to_scope`.

    Raises:
      ValueError: if both scopes and graphs are the same.
    """
    from_graph = from_graph or get_default_graph()
    to_graph = to_graph or get_default_graph()
    if from_graph is to_graph and from_scope == to_scope:
        raise ValueError("'from_scope' and 'to_scope' need to be different when performing "
                         "copy in the same graph.")
    meta, _ = export_scoped_meta_graph(export_scope=from_scope, graph=from_graph)
    return import_scoped_meta_graph(meta, graph=to_graph, import_scope=to_scope)
