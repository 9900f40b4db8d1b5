"""MetaGraphDef export and import: a GraphDef plus its SaverDef, collections and op list.

Collections are serialized as TF serializes them: variables as VariableDef bytes, savers as
SaverDef bytes, Operations and Tensors as lists of names, strings/ints/floats as themselves.
Importing rebuilds Variable objects (one per variable, shared across collections) and a
Saver over the imported save/restore ops.
"""

import logging
import os
import re

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from flowloom.framework import graph_def as graph_def_lib
from flowloom.framework import lazy_registry
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.graph_def import prepend_name_scope, strip_name_scope
from flowloom.framework.importer import import_graph_def
from flowloom.io.atomic_file import write_atomic
from flowloom.proto import meta_graph_pb2, op_def_pb2, saver_pb2, variable_pb2
from flowloom.io import file_system

_log = logging.getLogger("flowloom")

# The collections whose variables TF stores as VariableDefs (its resource_variable_ops
# registers their proto functions); variables in any other collection are stored by name
# (a node_list) and come back as tensors, as in TF.
_VARIABLE_PROTO_KEYS = (
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES, GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES,
    GraphKeys.GLOBAL_STEP, GraphKeys.METRIC_VARIABLES)


# -- OpDef protos for meta_info_def.stripped_op_list ---------------------------------------------
def _arg_proto(arg):
    proto = op_def_pb2.OpDef.ArgDef(name=arg.name, is_ref=arg.is_ref)
    if arg.fixed_dtype is not None:
        proto.type = arg.fixed_dtype.as_datatype_enum
    if arg.type_attr:
        proto.type_attr = arg.type_attr
    if arg.number_attr:
        proto.number_attr = arg.number_attr
    if arg.type_list_attr:
        proto.type_list_attr = arg.type_list_attr
    return proto


def op_def_proto(opdef):
    """The OpDef proto of a flowloom op type (signature, attrs with kinds and defaults)."""
    from flowloom.framework.importer import _expected_kind

    proto = op_def_pb2.OpDef(name=opdef.type, is_stateful=opdef.stateful)
    proto.input_arg.extend(_arg_proto(a) for a in opdef.input_args)
    proto.output_arg.extend(_arg_proto(a) for a in opdef.output_args)
    names = []
    for arg in opdef.input_args + opdef.output_args:
        for attr in (arg.type_attr, arg.number_attr, arg.type_list_attr):
            if attr and attr not in names:
                names.append(attr)
    names += [k for k in opdef.attr_defaults if k not in names]
    for name in names:
        attr = proto.attr.add(name=name, type=_expected_kind(opdef, name) or "")
        default = opdef.attr_defaults.get(name)
        if default is not None:
            attr.default_value.CopyFrom(graph_def_lib.attr_value_from_python(default, default))
        if name in opdef.allowed_types:
            attr.allowed_values.list.type.extend(
                t.as_datatype_enum for t in opdef.allowed_types[name])
    if opdef.deprecation is not None:
        proto.deprecation.version, proto.deprecation.explanation = opdef.deprecation
    return proto


def stripped_op_list_for_graph(graph_def):
    """The OpList of the op types a GraphDef uses (in its nodes and in the bodies of its
    library's functions; not the functions themselves), sorted by name."""
    op_list = op_def_pb2.OpList()
    functions = {f.signature.name for f in graph_def.library.function}
    used = {node.op for node in graph_def.node}
    used.update(node.op for f in graph_def.library.function for node in f.node_def)
    for name in sorted(used - functions):
        opdef = op_registry.get(name)
        if opdef is not None:
            op_list.op.append(op_def_proto(opdef))
    return op_list


def _strip_default_attrs(graph_def):
    """Drops the attrs at their op's defaults, as TF: in the graph's nodes and in its library
    functions' bodies; a call of a library function keeps all of its attrs."""
    functions = {f.signature.name for f in graph_def.library.function}
    nodes = list(graph_def.node)
    nodes.extend(node for f in graph_def.library.function for node in f.node_def)
    for node in nodes:
        if node.op in functions:
            continue
        opdef = op_registry.get(node.op)
        if opdef is None:
            continue
        for key, default in opdef.attr_defaults.items():
            if default is not None and key in node.attr and node.attr[key] == \
                    graph_def_lib.attr_value_from_python(default, default):
                del node.attr[key]


# -- collections ------------------------------------------------------------------------------------
# Collections whose elements have a proto form of their own (TF's register_proto_function):
# key -> (to_proto(value, export_scope) or None, from_proto(bytes, import_scope)).
_PROTO_FUNCTIONS = {}


def register_proto_function(collection_name, to_proto, from_proto):
    """Stores collection `collection_name` through `to_proto`/`from_proto` (as TF's
    `ops.register_proto_function`)."""
    lazy_registry.note("proto_function", collection_name)
    _PROTO_FUNCTIONS[collection_name] = (to_proto, from_proto)


def _proto_functions(key):
    """The (to_proto, from_proto) of collection `key`, importing the module that registers
    them; None for a collection without a proto form of its own."""
    if key not in _PROTO_FUNCTIONS and isinstance(key, str):
        lazy_registry.load("proto_function", key)
    return _PROTO_FUNCTIONS.get(key)


def _kind_of(item):
    """The CollectionDef field TF stores a collection in, by its first element."""
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, int):
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    if _is_any(item):
        return "any_list"
    return "node_list"


def _is_any(item):
    # An Any of any descriptor pool (protobuf's own, or flowloom's).
    descriptor = getattr(type(item), "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == "google.protobuf.Any"


def add_collection_def(meta_graph_def, key, graph=None, export_scope=None, exclude_nodes=None,
                       override_contents=None):
    """Adds collection `key` of `graph` (or `override_contents`) to `meta_graph_def`, as TF
    serializes it: through the collection's proto functions, else by the kind of its first
    element (strings/bytes, ints, floats, Any protos, or names of graph elements). A
    collection whose elements do not fit that kind is left out, with a warning."""
    from flowloom.framework.meta_graph_scoped import should_include_node
    from flowloom.train.saver import Saver
    from flowloom.variables import Variable

    if not isinstance(key, (str, bytes)):
        _log.warning("Only collections with string type keys will be serialized. This key "
                     "has %s", type(key))
        return
    graph = graph or get_default_graph()
    values = override_contents if override_contents else graph.get_collection(key)
    values = [v for v in values if should_include_node(v, export_scope, exclude_nodes)]
    if not values:
        return
    col = meta_graph_def.collection_def[key]
    try:
        if _proto_functions(key) is not None:
            protos = [_PROTO_FUNCTIONS[key][0](v, export_scope) for v in values]
            col.bytes_list.value.extend(p.SerializeToString() for p in protos
                                        if p is not None)
        elif (key in _VARIABLE_PROTO_KEYS and all(isinstance(v, Variable) for v in values)) or \
                (key == GraphKeys.SAVERS and all(isinstance(v, Saver) for v in values)):
            # A Saver built with defer_build has no proto yet: TF leaves it out.
            protos = [v.to_proto(export_scope) for v in values]
            col.bytes_list.value.extend(p.SerializeToString() for p in protos
                                        if p is not None)
        else:
            kind = _kind_of(values[0])
            if kind == "node_list":
                col.node_list.value.extend(strip_name_scope(v.name, export_scope)
                                           for v in values
                                           if not export_scope or
                                           v.name.startswith(export_scope))
            elif kind == "bytes_list":
                col.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else v
                                            for v in values)
            elif kind == "any_list":
                for v in values:
                    if not _is_any(v):
                        raise TypeError(f"{v!r} is not an Any")
                    col.any_list.value.add().ParseFromString(v.SerializeToString())
            else:
                if kind == "int64_list":  # bools as TF stores them (Python ints)
                    values = [int(v) if isinstance(v, bool) else v for v in values]
                getattr(col, kind).value.extend(values)
    except Exception as e:  # TF leaves out a collection it cannot serialize
        _log.warning("Issue encountered when serializing %s.\nType is unsupported, or the "
                     "types of the items don't match field type in CollectionDef. Note this "
                     "is a warning and probably safe to ignore.\n%s", key, e)
        del meta_graph_def.collection_def[key]


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns the MetaGraphDef of a graph, and writes it to `filename` if given.

    Args:
      filename: optional file to write (crash-safely).
      meta_info_def: optional MetaInfoDef to start from.
      graph_def: the GraphDef to store (default: the graph's, with `_output_shapes`).
      saver_def: optional SaverDef.
      collection_list: the collection keys to store (default: all).
      as_text: write text format instead of binary.
      graph: the Graph (default: the default graph).
      export_scope: keep only names under this scope, with it stripped.
      clear_devices: drop device assignments.
      clear_extraneous_savers: leave out the ops and SaverDefs of other Savers.
      strip_default_attrs: drop attrs at their op's default values.
      save_debug_info: with `filename`, also write the ops' GraphDebugInfo (where the user's
        code made them) to `<name>.debug` beside it.

    Returns:
      A `MetaGraphDef`.
    """

    del kwargs
    return export_scoped_meta_graph(
        filename=filename, graph_def=graph_def, graph=graph, export_scope=export_scope,
        as_text=as_text, clear_devices=clear_devices, saver_def=saver_def,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info,
        meta_info_def=meta_info_def, collection_list=collection_list)[0]


def write_meta_graph(meta, filename, as_text=False):
    """Writes a MetaGraphDef to `filename` (crash-safely; text or binary)."""
    filename = os.fspath(filename)
    directory = os.path.dirname(filename)
    if directory:
        file_system.makedirs(directory, exist_ok=True)
    data = (text_format.MessageToString(meta).encode("utf-8") if as_text
            else meta.SerializeToString(deterministic=True))
    write_atomic(filename, data)


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None,
                          collection_list=None, graph=None, export_scope=None,
                          exclude_nodes=None, clear_extraneous_savers=False,
                          strip_default_attrs=False):
    """Returns the MetaGraphDef of `graph_def` (default: the graph's, with shapes) with its
    op list, SaverDef and the graph's collections (those under `export_scope`, without
    `exclude_nodes`; only `saver_def`'s Saver when `clear_extraneous_savers`)."""
    from flowloom.train.saver import Saver
    from flowloom.version import GIT_VERSION, VERSION

    graph = graph or get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    # The TF release whose API flowloom follows (TF reads it as a version: >= 1.9 means
    # VariableDefs carry `trainable`).
    meta.meta_info_def.tensorflow_version = VERSION
    meta.meta_info_def.tensorflow_git_version = GIT_VERSION
    meta.graph_def.CopyFrom(graph_def if graph_def is not None
                            else graph.as_graph_def(add_shapes=True))
    if not meta.meta_info_def.stripped_op_list.op:
        meta.meta_info_def.stripped_op_list.CopyFrom(stripped_op_list_for_graph(meta.graph_def))
    if strip_default_attrs:
        _strip_default_attrs(meta.graph_def)
        meta.meta_info_def.stripped_default_attrs = True
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in keys:
        override = None
        if clear_extraneous_savers and key == GraphKeys.SAVERS and saver_def is not None:
            override = [Saver(saver_def=saver_def)]
        add_collection_def(meta, key, graph=graph, export_scope=export_scope,
                           exclude_nodes=exclude_nodes, override_contents=override)
    return meta


def read_meta_graph_file(filename):
    """Reads a MetaGraphDef from a binary or text file.

    Raises:
      IOError: if the file does not exist or parses as neither format.
    """
    filename = os.fspath(filename)
    if not file_system.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with file_system.open_file(filename, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except (DecodeError, RuntimeError, ValueError):
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from None
    return meta


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraphDef's graph and collections; returns a Saver for it (or None).

    Args:
      meta_graph_or_file: a MetaGraphDef or the name of a file holding one.
      clear_devices: drop device assignments from the imported nodes.
      import_scope: name scope to put the imported names under.
      **kwargs: `input_map`, `return_elements` are passed to import_graph_def.

    Returns:
      A Saver built from the MetaGraphDef's SaverDef; a new Saver if there is none but there
      are variables; None if there are no variables. With `return_elements`, the pair
      (saver, elements).

    Example:
      saver = tf.train.import_meta_graph("/tmp/model.ckpt-100.meta")
      saver.restore(sess, "/tmp/model.ckpt-100")
    """

    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    return_elements = kwargs.pop("return_elements", None)
    imported_vars, elements = import_scoped_meta_graph_with_return_elements(
        meta, clear_devices=clear_devices, import_scope=import_scope,
        return_elements=return_elements, **kwargs)
    saver = _saver_for_imported(meta, import_scope, imported_vars)
    if return_elements is not None:
        return saver, elements
    return saver


def _saver_for_imported(meta, import_scope, imported_vars):
    """The Saver of an imported MetaGraphDef: over its SaverDef (under the scope its
    variables were imported into), else a new one if the scope has variables, else None."""
    from flowloom.train.saver import Saver
    from flowloom.variables import all_saveable_objects

    if meta.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[:-len(key)]
        return Saver(saver_def=meta.saver_def, name=scope)
    if all_saveable_objects(scope=import_scope):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None


def _writes_trainable(tensorflow_version):
    """Whether a meta graph of TF `tensorflow_version` ("" for unknown: yes) stores
    VariableDef.trainable (TF >= 1.9, compared as TF's LooseVersion)."""
    if not tensorflow_version:
        return True
    parts = re.match(r"(\d+)(?:\.(\d+))?", tensorflow_version)
    if parts is None:
        return True
    return (int(parts.group(1)), int(parts.group(2) or 0)) >= (1, 9)


def import_graph_and_collections(meta_graph_or_file, clear_devices, import_scope, graph,
                                 input_map=None, return_elements=None,
                                 restore_collections_predicate=None, collection_scope=None):
    """Imports a MetaGraphDef's graph into `graph` (under the name `import_scope`) and
    restores its collections (those the predicate accepts) with their names under
    `collection_scope` (default `import_scope`; TF's scope_to_prepend_to_names: the
    current name scope and the uniquified import scope); returns (meta_graph_def, graph,
    return_elements' elements)."""
    from flowloom.train.saver import Saver
    from flowloom.variables import Variable

    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta = meta_graph_or_file
    else:
        meta = read_meta_graph_file(meta_graph_or_file)
    graph_def = type(meta.graph_def)()
    graph_def.CopyFrom(meta.graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    producer_op_list = None
    if meta.meta_info_def.HasField("stripped_op_list"):
        producer_op_list = meta.meta_info_def.stripped_op_list
    with graph.as_default():
        elements = import_graph_def(graph_def, input_map=input_map,
                                    return_elements=return_elements, name=import_scope or "",
                                    producer_op_list=producer_op_list)
    # "scope/" (an exact scope, as an import under the current name scope gives) names the
    # same scope as "scope" in the collections' names.
    if collection_scope is not None:
        import_scope = collection_scope
    import_scope = import_scope.rstrip("/") if import_scope else import_scope

    def scoped(name):
        return prepend_name_scope(name, import_scope)

    variables_by_name = {}
    # As TF: a VariableDef written before TF 1.9 has no `trainable`; its variable is
    # trainable when it is in TRAINABLE_VARIABLES, which is therefore restored first.
    has_trainable = _writes_trainable(meta.meta_info_def.tensorflow_version)
    keys = sorted(meta.collection_def, key=lambda k: (k != GraphKeys.TRAINABLE_VARIABLES, k))
    for key in keys:
        if restore_collections_predicate is not None and not restore_collections_predicate(key):
            continue
        col = meta.collection_def[key]
        kind = col.WhichOneof("kind")
        if kind is None:
            continue
        values = list(getattr(col, kind).value)
        if key in _VARIABLE_PROTO_KEYS and kind == "bytes_list":
            for raw in values:
                proto = variable_pb2.VariableDef.FromString(raw)
                if not has_trainable:
                    proto.trainable = key == GraphKeys.TRAINABLE_VARIABLES
                name = scoped(proto.variable_name)
                if name not in variables_by_name:
                    with graph.as_default():
                        variables_by_name[name] = Variable(variable_def=proto,
                                                           import_scope=import_scope)
                graph.add_to_collection(key, variables_by_name[name])
        elif key == GraphKeys.SAVERS and kind == "bytes_list":
            for raw in values:
                graph.add_to_collection(key, Saver.from_proto(
                    saver_pb2.SaverDef.FromString(raw), import_scope))
        elif kind == "bytes_list" and _proto_functions(key) is not None:
            with graph.as_default():
                for raw in values:
                    graph.add_to_collection(key, _PROTO_FUNCTIONS[key][1](raw, import_scope))
        elif kind == "node_list":
            for name in values:
                graph.add_to_collection(key, graph.as_graph_element(scoped(name)))
        elif kind == "bytes_list":
            for raw in values:
                graph.add_to_collection(key, raw)
        else:
            for v in values:
                graph.add_to_collection(key, v)
    return meta, graph, elements


from flowloom.framework.meta_graph_scoped import (  # noqa: E402,F401
    copy_scoped_meta_graph, export_scoped_meta_graph, import_scoped_meta_graph,
    import_scoped_meta_graph_with_return_elements)
